"""The one-line, muted status under a pane's list."""

from __future__ import annotations

from textual.widgets import Label


class StatusLine(Label):
    """One muted line of plain text (never markup: it quotes user text), cut with an ellipsis.

    It has no bindings of its own.
    """

    DEFAULT_CSS = """
    StatusLine {
        width: 1fr;
        height: 1;
        padding: 0 1;
        color: $text-muted;
        text-wrap: nowrap;
        text-overflow: ellipsis;
    }
    """

    def __init__(self, text: str = "", *, id: str | None = None) -> None:
        super().__init__(text, id=id, markup=False)
