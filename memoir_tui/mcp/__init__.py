"""The headless MCP face: ``memoir-tui --mcp`` serves the store over stdio.

``tools`` holds one small function per tool over ``Memoir`` (plain text plus
structured data); ``server`` registers them with the SDK and runs stdio.
Nothing here may import textual or the app; importing this package itself
imports nothing heavy (the SDK is imported by ``server`` only).
"""
