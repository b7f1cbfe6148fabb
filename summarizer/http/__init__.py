"""The HTTP API (`summarizer serve`): host and operator endpoints over the same services as the CLI."""
