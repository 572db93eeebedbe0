"""The export dialog: what a list shows, to a Markdown or JSON file the person names.

The core (``core.export``) formats, withholds secrets and writes; this dialog
asks for the name, asks again before replacing an existing file, and shows a
refusal inside itself with the name kept.
"""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, VerticalScroll
from textual.widgets import Button, Input, Label, Static

from memoir_tui.core import (
    ExportError,
    ExportExistsError,
    ExportResult,
    ExportTable,
    export_table,
    format_for,
    plural,
)
from memoir_tui.dialogs.base import DialogScreen
from memoir_tui.dialogs.confirm import ConfirmScreen

DEFAULT_NAME = "~/memoir-decisions.md"


class ExportScreen(DialogScreen[ExportResult | None]):
    """Export the rows a list shows to a file.

    | Key(s) | Description |
    | :- | :- |
    | enter | Export (asks before replacing a file). |
    | ctrl+t | Switch between Markdown and JSON (the name's ending follows). |
    | escape | Cancel. |
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel", "Cancel", id="export.cancel"),
        Binding("ctrl+t", "switch_format", "Markdown/JSON", id="export.format"),
    ]

    def __init__(self, table: ExportTable, *, name: str = DEFAULT_NAME) -> None:
        super().__init__()
        self.table = table
        self.default_name = name
        self.result: ExportResult | None = None

    def compose(self) -> ComposeResult:
        rows = plural(len(self.table.rows), "row")
        what = f"{self.table.title}: {rows} as the list shows them"
        if self.table.note:
            what += f" ({self.table.note})"
        with VerticalScroll(id="dialog"):
            yield Label(f"Export {self.table.title.lower()}", classes="dialog--title")
            yield Static(Text(what), classes="dialog--body", id="export-what")
            yield Label(
                "File (a name ending .json writes JSON, else Markdown)", classes="dialog--label"
            )
            yield Input(value=self.default_name, id="export-name", select_on_focus=False)
            yield Static(
                self._format_line(self.default_name), classes="dialog--hint", id="export-format"
            )
            yield Static(
                "Your own file, outside the store: an existing one is replaced only if you say "
                "so, a link out of its folder is refused, rows that look like a secret are "
                "withheld.",
                classes="dialog--hint",
                markup=False,
            )
            yield Label("", classes="dialog--error", id="export-error", markup=False)
            with Horizontal(classes="dialog--buttons"):
                yield Button("Export (enter)", id="export", variant="primary", compact=True)
                yield Button("Cancel (esc)", id="cancel", compact=True)

    def on_mount(self) -> None:
        self.query_one("#export-name", Input).focus()

    @staticmethod
    def _format_line(name: str) -> str:
        fmt = format_for(name)
        return f"format: {'JSON' if fmt == 'json' else 'Markdown'} · ctrl+t switches"

    @on(Input.Changed, "#export-name")
    def _name_changed(self, event: Input.Changed) -> None:
        self.query_one("#export-format", Static).update(self._format_line(event.value))
        self._show_error("")

    def action_switch_format(self) -> None:
        field = self.query_one("#export-name", Input)
        name = field.value.strip()
        stem, dot, suffix = name.rpartition(".")
        base = stem if dot and suffix.lower() in ("md", "markdown", "json") else name
        field.value = base + (".md" if format_for(name) == "json" else ".json")

    def _show_error(self, message: str) -> None:
        label = self.query_one("#export-error", Label)
        label.update(message)
        label.set_class(bool(message), "-shown")

    @on(Input.Submitted, "#export-name")
    def _submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.export()

    @on(Button.Pressed)
    def _pressed(self, event: Button.Pressed) -> None:
        event.stop()
        if event.button.id == "export":
            self.export()
        else:
            self.dismiss(None)

    def action_cancel(self) -> None:
        self.dismiss(None)

    def export(self, *, overwrite: bool = False) -> None:
        name = self.query_one("#export-name", Input).value
        store = getattr(self.app, "store", None)
        self._write(name, overwrite, getattr(store, "root", None))

    @work(thread=True, group="export-write", exclusive=True, exit_on_error=False)
    def _write(self, name: str, overwrite: bool, store_root: object) -> None:
        try:
            result = export_table(
                self.table,
                name,
                overwrite=overwrite,
                store_root=store_root,  # type: ignore[arg-type]
            )
        except ExportExistsError as exc:
            self.app.call_from_thread(self._ask_overwrite, str(exc))
            return
        except ExportError as exc:
            self.app.call_from_thread(self._show_error, str(exc))
            return
        except OSError as exc:
            self.app.call_from_thread(self._show_error, f"not exported: {exc}")
            return
        self.app.call_from_thread(self._done, result)

    def _ask_overwrite(self, message: str) -> None:
        def answered(yes: bool | None) -> None:
            if yes:
                self.export(overwrite=True)

        self.app.push_screen(
            ConfirmScreen(
                "Replace that file?",
                Text(f"{message}. Its contents will be replaced by this export."),
                yes_label="Replace (y)",
                no_label="Keep it (n)",
                danger=True,
            ),
            answered,
        )

    def _done(self, result: ExportResult) -> None:
        self.result = result
        self.app.notify(result.message)
        self.dismiss(result)
