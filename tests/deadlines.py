"""How long a test lets a real process (the CLI, a hook, the MCP server, git) run.

A safety net, never the judge: a test decides from what the process did (its
exit code, its output, the files it left), and this deadline only turns a hang
into a failure instead of a stuck run. So it is generous: on a loaded two-core
machine (the suite beside two CPU hogs and other people's work) a Python start
that takes 0.3 s alone can take many seconds, and a test must still pass.
"""

from __future__ import annotations

SAFETY_NET = 600.0
"""Seconds: far past anything a working command takes, even under heavy load."""

HANG_NET = 120.0
"""Seconds, for a test whose failure *is* a hang (a FIFO opened with no writer blocks for
ever): past what any working command takes under load, short enough that a regression
across a whole matrix of such cells still ends the run."""
