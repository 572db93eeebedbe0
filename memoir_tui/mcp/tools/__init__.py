"""The MCP tools, one module per tool: ``memoir_<module>`` is declared in ``<module>.py``.

Each module holds its tool's signature (the argument names, types and descriptions
the SDK publishes as the input schema), its description (the docstring), its output
model (built by ``mcp.schema`` from the core answer type) and a ``register(rt)`` that
declares it on the server through the shared call path (``mcp.runtime.Runtime``).
The words and choices of each answer live in core (``core.answers``, ``core.remember``);
the recall tools' answers, which need the server's warm index, live in their modules.
``server.TOOLS`` lists the modules in the order tools/list shows them.
"""
