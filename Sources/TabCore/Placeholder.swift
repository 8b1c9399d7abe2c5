// Placeholder: TabCore is being written.
