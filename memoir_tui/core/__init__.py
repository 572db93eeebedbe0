"""The headless core: format, rules, services and reach.

Nothing under ``memoir_tui.core`` may import textual or mcp; a test spawns the
headless faces and inspects ``sys.modules`` to keep it that way.
"""
