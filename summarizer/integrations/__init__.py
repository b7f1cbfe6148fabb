"""Memory for agent frameworks and raw provider SDKs. Each framework module imports its framework, which
only its optional extra installs; nothing else in the package imports a framework."""
