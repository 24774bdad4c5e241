"""The squares ruleset's front parts: what its plugin names for the CLI, the web and the lab."""
