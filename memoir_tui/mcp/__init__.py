"""The headless MCP face: ``memoir-tui --mcp`` serves the store over stdio.

``tools/`` holds one module per tool (its signature, description and output model,
over a core answer); ``runtime`` is the call path they share; ``schema`` builds the
output models from core's answer dataclasses; ``server`` registers them with the SDK
and runs stdio. Nothing here may import textual or the app; importing this package
itself imports nothing heavy (the SDK comes with ``server``, ``runtime`` and ``tools``).
"""
