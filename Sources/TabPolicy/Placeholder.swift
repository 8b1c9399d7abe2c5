// Placeholder for TabPolicy.
