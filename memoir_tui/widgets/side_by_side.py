"""``SideBySideDiff``: two files next to each other, differing lines highlighted.

:func:`align` pairs the lines of two texts with :mod:`difflib` so both columns
have the same number of rows: equal lines side by side, a changed line next to
its counterpart (with the changed characters marked), and a blank filler row
opposite a line only one side has. Each column is a :class:`DiffColumn`, a
line-API scroll view (so a long file costs only the rows on screen); the two
columns scroll together, vertically and horizontally.
"""

from __future__ import annotations

import difflib
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import zip_longest
from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.geometry import Size
from textual.scroll_view import ScrollView
from textual.strip import Strip
from textual.widgets import Label

TAB_SIZE = 4


@dataclass(frozen=True, slots=True)
class DiffSide:
    """One side of a row: a line of one file (1-based ``number``) and its changed spans."""

    number: int
    text: str
    changed: tuple[tuple[int, int], ...] = ()


@dataclass(frozen=True, slots=True)
class DiffRow:
    """A row of the side-by-side view; a missing side is a filler."""

    tag: str  # "equal" | "replace" | "delete" | "insert"
    left: DiffSide | None
    right: DiffSide | None


def _clean(line: str) -> str:
    return line.expandtabs(TAB_SIZE).replace("\r", "")


def _char_spans(a: str, b: str) -> tuple[tuple[tuple[int, int], ...], tuple[tuple[int, int], ...]]:
    """The character spans that differ between two versions of a line."""
    matcher = difflib.SequenceMatcher(None, a, b, autojunk=False)
    left: list[tuple[int, int]] = []
    right: list[tuple[int, int]] = []
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            continue
        if i2 > i1:
            left.append((i1, i2))
        if j2 > j1:
            right.append((j1, j2))
    return tuple(left), tuple(right)


def align(left: Sequence[str], right: Sequence[str]) -> list[DiffRow]:
    """Pair the lines of two texts for a side-by-side view (see the module docstring)."""
    a = [_clean(line) for line in left]
    b = [_clean(line) for line in right]
    rows: list[DiffRow] = []
    matcher = difflib.SequenceMatcher(None, a, b, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            rows += [
                DiffRow("equal", DiffSide(i + 1, a[i]), DiffSide(j + 1, b[j]))
                for i, j in zip(range(i1, i2), range(j1, j2), strict=True)
            ]
        elif tag == "delete":
            rows += [DiffRow("delete", DiffSide(i + 1, a[i]), None) for i in range(i1, i2)]
        elif tag == "insert":
            rows += [DiffRow("insert", None, DiffSide(j + 1, b[j])) for j in range(j1, j2)]
        else:
            for i, j in zip_longest(range(i1, i2), range(j1, j2)):
                if i is None:
                    rows.append(DiffRow("insert", None, DiffSide(j + 1, b[j])))
                elif j is None:
                    rows.append(DiffRow("delete", DiffSide(i + 1, a[i]), None))
                else:
                    spans_a, spans_b = _char_spans(a[i], b[j])
                    rows.append(
                        DiffRow(
                            "replace",
                            DiffSide(i + 1, a[i], spans_a),
                            DiffSide(j + 1, b[j], spans_b),
                        )
                    )
    return rows


def changed_rows(rows: Sequence[DiffRow]) -> int:
    """How many rows differ."""
    return sum(1 for row in rows if row.tag != "equal")


class DiffColumn(ScrollView, can_focus=True):
    """One column of a side-by-side diff: a gutter of line numbers and the lines.

    | Key(s) | Description |
    | :- | :- |
    | up, k | Scroll up. |
    | down, j | Scroll down. |
    | left, h | Scroll left. |
    | right, l | Scroll right. |
    | home, g | Go to the top. |
    | end, G | Go to the bottom. |
    | pageup | One page up. |
    | pagedown | One page down. |
    """

    HELP_TITLE: ClassVar[str] = "Side-by-side diff"

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding(
            "up,k", "scroll_up", "Up", show=False, tooltip="Scroll both sides up", id="diff.up"
        ),
        Binding(
            "down,j",
            "scroll_down",
            "Down",
            show=False,
            tooltip="Scroll both sides down",
            id="diff.down",
        ),
        Binding(
            "left,h",
            "scroll_left",
            "Left",
            show=False,
            tooltip="Scroll both sides left",
            id="diff.left",
        ),
        Binding(
            "right,l",
            "scroll_right",
            "Right",
            show=False,
            tooltip="Scroll both sides right",
            id="diff.right",
        ),
        Binding("home,g", "scroll_home", "Top", show=False, tooltip="Go to the top", id="diff.top"),
        Binding(
            "end,G",
            "scroll_end",
            "Bottom",
            show=False,
            tooltip="Go to the bottom",
            id="diff.bottom",
        ),
        Binding(
            "pageup", "page_up", "Page up", show=False, tooltip="One page up", id="diff.page_up"
        ),
        Binding(
            "pagedown",
            "page_down",
            "Page down",
            show=False,
            tooltip="One page down",
            id="diff.page_down",
        ),
    ]

    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "diff-column--gutter",
        "diff-column--removed",
        "diff-column--removed-strong",
        "diff-column--added",
        "diff-column--added-strong",
        "diff-column--filler",
    }

    DEFAULT_CSS = """
    DiffColumn {
        height: 1fr;
        width: 1fr;
        background: $surface;
        scrollbar-size-vertical: 1;
        scrollbar-size-horizontal: 1;
    }
    DiffColumn:focus {
        background-tint: $foreground 4%;
    }
    DiffColumn > .diff-column--gutter {
        color: $text-muted;
    }
    DiffColumn > .diff-column--removed {
        background: $error 22%;
    }
    DiffColumn > .diff-column--removed-strong {
        background: $error 50%;
        text-style: bold;
    }
    DiffColumn > .diff-column--added {
        background: $success 22%;
    }
    DiffColumn > .diff-column--added-strong {
        background: $success 50%;
        text-style: bold;
    }
    DiffColumn > .diff-column--filler {
        color: $text-disabled;
        background: $panel;
    }
    """

    def __init__(
        self,
        rows: Sequence[DiffRow],
        side: str,
        *,
        name: str | None = None,
        id: str | None = None,
        classes: str | None = None,
    ) -> None:
        super().__init__(name=name, id=id, classes=classes)
        if side not in ("left", "right"):
            raise ValueError(f"side must be 'left' or 'right', not {side!r}")
        self.rows = tuple(rows)
        self.side = side
        numbers = [s.number for s in self.sides if s is not None]
        self.gutter_width = len(str(max(numbers, default=1))) + 2
        self.text_width = max((len(s.text) for s in self.sides if s is not None), default=0)

    @property
    def sides(self) -> list[DiffSide | None]:
        return [row.left if self.side == "left" else row.right for row in self.rows]

    def on_mount(self) -> None:
        self.virtual_size = Size(self.gutter_width + self.text_width + 1, len(self.rows))

    def _line_style(self, row: DiffRow) -> tuple[str | None, str | None]:
        """The component classes of a row's background and of its changed characters."""
        own = row.left if self.side == "left" else row.right
        if own is None:
            return "diff-column--filler", None
        if row.tag == "equal":
            return None, None
        if self.side == "left":
            return "diff-column--removed", "diff-column--removed-strong"
        return "diff-column--added", "diff-column--added-strong"

    def render_line(self, y: int) -> Strip:
        scroll_x, scroll_y = self.scroll_offset
        index = scroll_y + y
        width = self.size.width
        base = self.rich_style
        if index >= len(self.rows):
            return Strip.blank(width, base)
        row = self.rows[index]
        own = row.left if self.side == "left" else row.right
        line_class, strong_class = self._line_style(row)
        line_style = base + self.get_component_rich_style(line_class) if line_class else base
        gutter_style = base + self.get_component_rich_style("diff-column--gutter")
        if own is None:
            gutter = Text(" " * self.gutter_width, style=gutter_style)
            body = Text("╱" * (self.text_width + 1), style=line_style)
        else:
            gutter = Text(
                f"{own.number:>{self.gutter_width - 2}}  ", style=line_style + gutter_style
            )
            body = Text(own.text, style=line_style)
            if strong_class:
                strong = self.get_component_rich_style(strong_class)
                for start, end in own.changed:
                    body.stylize(strong, start, end)
        gutter_strip = Strip(list(gutter.render(self.app.console)), gutter.cell_len)
        body_strip = Strip(list(body.render(self.app.console)), body.cell_len)
        text_width = max(width - self.gutter_width, 0)
        body_strip = body_strip.crop_extend(scroll_x, scroll_x + text_width, line_style)
        return Strip.join([gutter_strip, body_strip]).simplify()

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self.refresh()


class SideBySideDiff(Horizontal):
    """Two files side by side, aligned line by line, scrolling together.

    ``tab`` moves between the two columns; the column keys scroll both.

    | Key(s) | Description |
    | :- | :- |
    | tab | Move to the other column. |
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("tab", "other_column", "Other side", show=False, id="side_by_side.other"),
    ]

    DEFAULT_CSS = """
    SideBySideDiff {
        height: 1fr;
        width: 1fr;
    }
    SideBySideDiff > .side-by-side--column {
        width: 1fr;
        height: 1fr;
    }
    SideBySideDiff > #side-by-side-left {
        margin-right: 1;
    }
    SideBySideDiff .side-by-side--title {
        width: 1fr;
        height: 1;
        text-style: bold;
        background: $panel;
        padding: 0 1;
        text-wrap: nowrap;
        text-overflow: ellipsis;
    }
    """

    def __init__(
        self,
        left_title: str,
        left_text: str,
        right_title: str,
        right_text: str,
        *,
        name: str | None = None,
        id: str | None = None,
        classes: str | None = None,
    ) -> None:
        super().__init__(name=name, id=id, classes=classes)
        self.left_title = left_title
        self.right_title = right_title
        self.rows = align(left_text.splitlines(), right_text.splitlines())
        self._syncing = False

    def compose(self) -> ComposeResult:
        with Vertical(id="side-by-side-left", classes="side-by-side--column"):
            yield Label(self.left_title, classes="side-by-side--title", markup=False)
            yield DiffColumn(self.rows, "left", id="diff-left")
        with Vertical(id="side-by-side-right", classes="side-by-side--column"):
            yield Label(self.right_title, classes="side-by-side--title", markup=False)
            yield DiffColumn(self.rows, "right", id="diff-right")

    @property
    def left(self) -> DiffColumn:
        return self.query_one("#diff-left", DiffColumn)

    @property
    def right(self) -> DiffColumn:
        return self.query_one("#diff-right", DiffColumn)

    @property
    def changed(self) -> int:
        return changed_rows(self.rows)

    def on_mount(self) -> None:
        left, right = self.left, self.right
        for attribute in ("scroll_x", "scroll_y"):
            self.watch(left, attribute, self._left_scrolled, init=False)
            self.watch(right, attribute, self._right_scrolled, init=False)

    def _left_scrolled(self) -> None:
        self._sync(self.left, self.right)

    def _right_scrolled(self) -> None:
        self._sync(self.right, self.left)

    def _sync(self, source: DiffColumn, target: DiffColumn) -> None:
        if self._syncing:
            return
        self._syncing = True
        try:
            target.scroll_to(x=source.scroll_x, y=source.scroll_y, animate=False, immediate=True)
        finally:
            self._syncing = False

    def action_other_column(self) -> None:
        (self.right if self.left.has_focus else self.left).focus()
