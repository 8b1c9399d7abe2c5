// Placeholder for TabPlugins.
