// Placeholder for TabServer.
