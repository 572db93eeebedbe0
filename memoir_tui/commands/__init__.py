"""CLI command modules discovered by ``memoir_tui.cli``.

Each module here defines ``register(subparsers) -> None`` adding its
subcommands (with ``set_defaults(run=...)``). Keep top-level imports light:
every module is imported to build the parser, so heavy imports belong inside
the command functions. Never import textual or mcp here.
"""
