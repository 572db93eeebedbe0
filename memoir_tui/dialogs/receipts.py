"""The receipts dialog: what one audited write changed, file by file, opened from the Audit pane."""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical, VerticalScroll
from textual.widgets import DataTable, Label, Static

from memoir_tui.core import KeptReceipt, Memoir, read_receipts
from memoir_tui.dialogs.base import DialogScreen
from memoir_tui.ui.fields import audit_time
from memoir_tui.ui.latest_read import LatestRead
from memoir_tui.widgets.item_table import ColumnSpec, ItemTable, TableRow, cell

RECEIPT_COLUMNS = (
    ColumnSpec("time", "Time (UTC)", width=19),
    ColumnSpec("actor", "By", width=6, min_table_width=70),
    ColumnSpec("title", "Receipt", weight=1, min_width=12),
)


class ReceiptsScreen(DialogScreen[None]):
    """The kept receipts of forget everywhere and purge, newest first, each in full.

    | Key(s) | Description |
    | :- | :- |
    | up, down | Choose a receipt: it is shown in full below the list. |
    | escape, q | Close. |
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,q", "close", "Close", id="receipts.close"),
    ]

    DEFAULT_CSS = """
    ReceiptsScreen > #dialog {
        height: 90%;
        max-height: 90%;
    }
    ReceiptsScreen #receipts-table {
        height: 8;
    }
    ReceiptsScreen #receipt-scroll {
        height: 1fr;
    }
    """

    def __init__(self, store: Memoir) -> None:
        super().__init__()
        self.store = store
        self.receipts: tuple[KeptReceipt, ...] = ()
        self.loaded = False
        self._reads: LatestRead[tuple[KeptReceipt, ...]] = LatestRead(
            self, "receipts-read", self._apply
        )

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog"):
            yield Label("Receipts: forget everywhere and purge", classes="dialog--title")
            yield ItemTable(RECEIPT_COLUMNS, id="receipts-table")
            with VerticalScroll(id="receipt-scroll"):
                yield Static("reading the receipts…", id="receipt-body", markup=False)
            yield Label(
                "kept in receipts.jsonl (this machine's): the forgotten text is never kept "
                "· esc closes",
                classes="dialog--hint",
                markup=False,
            )

    def on_mount(self) -> None:
        store = self.store
        self._reads.start(lambda: tuple(read_receipts(store)))
        self.table.focus()

    @property
    def table(self) -> ItemTable:
        return self.query_one("#receipts-table", ItemTable)

    def _apply(self, receipts: tuple[KeptReceipt, ...]) -> None:
        self.receipts = receipts
        self.loaded = True
        self.table.set_rows(
            [
                TableRow(str(n), (cell(audit_time(r.time)), cell(r.actor), cell(r.title)))
                for n, r in enumerate(receipts)
            ]
        )
        self._show(0)

    def _show(self, index: int) -> None:
        body = self.query_one("#receipt-body", Static)
        if not self.receipts:
            body.update(
                "No receipts yet: forget everywhere (F in Decisions) and purge (D) keep one here."
            )
            return
        body.update(Text(self.receipts[min(index, len(self.receipts) - 1)].render()))

    @on(DataTable.RowHighlighted, "#receipts-table")
    def _highlighted(self, event: DataTable.RowHighlighted) -> None:
        key = self.table.cursor_key
        if key is not None and key.isdigit():
            self._show(int(key))

    def action_close(self) -> None:
        self.dismiss(None)
