"""memoir-tui: a Textual app and a headless MCP server over the memoir format."""

__version__ = "0.1.0"
