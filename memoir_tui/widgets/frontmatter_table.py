"""A read-only table of an entry file's frontmatter fields."""

from __future__ import annotations

from collections.abc import Iterable

from rich.text import Text
from textual.events import Resize
from textual.widgets import DataTable


class FrontmatterTable(DataTable[Text], can_focus=False):
    """Frontmatter keys and values; long values wrap onto more lines.

    No key bindings (it never takes the focus; the entry view scrolls).
    """

    DEFAULT_CSS = """
    FrontmatterTable {
        height: auto;
        max-height: 100%;
        overflow: hidden;
    }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id, cursor_type="none", show_cursor=False, zebra_stripes=True)
        self.items: tuple[tuple[str, str], ...] = ()
        self._laid_out_width = -1

    def set_items(self, items: Iterable[tuple[str, str]]) -> None:
        self.items = tuple(items)
        self._laid_out_width = -1
        self._rebuild()

    def _rebuild(self) -> None:
        width = self.size.width
        if not width:
            return  # laid out later: the first Resize builds it
        key_width = min(max((len(k) for k, _ in self.items), default=3), 24)
        value_width = max(width - key_width - 4 * self.cell_padding, 10)
        self.clear(columns=True)
        self.add_column(Text("Key", style="bold"), width=key_width, key="key")
        self.add_column(Text("Value", style="bold"), width=value_width, key="value")
        for number, (key, value) in enumerate(self.items):
            self.add_row(
                Text(key, style="bold"), Text(value, overflow="fold"), height=None, key=str(number)
            )
        self._laid_out_width = width

    def on_resize(self, event: Resize) -> None:
        if self.size.width != self._laid_out_width:
            self._rebuild()
