// Placeholder for TabProtocol.
