"""Export what a list shows (Markdown or JSON) to a file the person names.

The file is the person's own, outside the store, so it is not a store file and
does not go through the door; it is still written the careful way:

* an existing file is never replaced unless the caller says so (the app asks);
* the name is taken by its real folder, and a last component that is a link is
  followed only to a target in that same folder (``safeio.write_target``): a
  link to a shell rc file or to ``/etc/…`` is refused, naming the link;
* a folder, a FIFO or a device at that name is refused, never opened;
* a file inside the store is refused (the store's files change only through
  the door);
* rows holding something that looks like a secret are written as
  ``[withheld: looks like a secret (<kind>)]`` (as every copy-out does), and the
  result says how many.

Core only: formats and writes; the faces pick the rows and the name.
"""

from __future__ import annotations

import json
import os
import stat
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from memoir_tui.core.base.errors import MemoirError
from memoir_tui.core.format.items import plural
from memoir_tui.core.rules.withhold import secret_in, withheld_text

if TYPE_CHECKING:
    from memoir_tui.core.rules.model import Decision

FORMATS = ("markdown", "json")
EXPORT_VERSION = 1


class ExportError(MemoirError):
    """An export refused: the sentence says why and nothing was written."""


class ExportExistsError(ExportError):
    """The file exists; the caller may ask and try again with ``overwrite``."""


@dataclass(frozen=True, slots=True)
class ExportTable:
    """What a list shows: its title, column labels (key, label) and rows of cell texts."""

    title: str
    columns: tuple[tuple[str, str], ...]
    rows: tuple[tuple[str, ...], ...]
    note: str = ""  # e.g. the filter in force ("filter: 'sqlite'")


@dataclass(frozen=True, slots=True)
class ExportResult:
    path: Path
    rows: int
    withheld: int
    fmt: str

    @property
    def message(self) -> str:
        held = (
            f"; {plural(self.withheld, 'row')} withheld (looks like a secret)"
            if self.withheld
            else ""
        )
        return f"exported {plural(self.rows, 'row')} as {self.fmt} to {self.path}{held}"


def decision_table(
    decisions: Iterable[Decision], *, title: str = "Decisions", note: str = ""
) -> ExportTable:
    """Decisions as the export shows them (the Decisions pane's columns, in its order)."""
    columns = (
        ("text", "Decision"),
        ("why", "Why"),
        ("rejected", "Rejected"),
        ("date", "Date"),
        ("machine", "Machine"),
        ("project", "Project"),
        ("state", "State"),
    )
    rows = []
    for d in decisions:
        state = "purged" if d.purged else "hidden" if d.hidden else d.place
        text = f"[purged] {d.key[:12]}…" if d.purged else d.text
        rows.append(
            (text, d.why, d.rejected, d.date, d.machine_label, d.project_label or "global", state)
        )
    return ExportTable(title, columns, tuple(rows), note)


ROW_BREAK = "\n\n\n"
"""Between two rows in the one text the scanner reads (it joins a token's pieces across a
single line break, the break between two cells of a row, never across this)."""


def withhold_rows(table: ExportTable) -> tuple[tuple[tuple[str, ...], ...], int]:
    """The rows with every row holding a secret replaced by the withheld sentence.

    One pass of the scanner over every row (cells joined by a line break, so a key split
    between two fields is found as ``secret_in`` finds it), not one pass per row: 10,000
    rows are scanned in about the time of a few hundred single scans."""
    from bisect import bisect_right

    from memoir_tui.core.format.secrets import find_secrets

    starts: list[int] = []
    pieces: list[str] = []
    at = 0
    for row in table.rows:
        starts.append(at)
        piece = "\n".join(row)
        pieces.append(piece)
        at += len(piece) + len(ROW_BREAK)
    rules: dict[int, str] = {}
    for finding in find_secrets(ROW_BREAK.join(pieces)) if pieces else ():
        first = bisect_right(starts, finding.start) - 1
        last = bisect_right(starts, max(finding.end - 1, finding.start)) - 1
        for index in range(max(first, 0), max(last, first, 0) + 1):
            rules.setdefault(index, finding.rule)
    if any(secret_in(*table.rows[n]) is None for n in rules):
        # a finding that does not map back onto its row (a span of the decoded text):
        # every row is scanned on its own instead, so nothing is let through
        rules = {}
        for n, row in enumerate(table.rows):
            rule = secret_in(*row)
            if rule is not None:
                rules[n] = rule
    out = tuple(
        (withheld_text(rules[n]), *("" for _ in row[1:])) if n in rules else row
        for n, row in enumerate(table.rows)
    )
    return out, len(rules)


def _md_cell(value: str) -> str:
    return value.replace("\\", "\\\\").replace("|", "\\|").replace("\r", " ").replace("\n", "<br>")


def render(table: ExportTable, fmt: str) -> tuple[str, int]:
    """The file's text in ``fmt`` (``markdown`` or ``json``) and how many rows were withheld."""
    if fmt not in FORMATS:
        raise ExportError(f"unknown export format {fmt!r}; use markdown or json")
    rows, withheld = withhold_rows(table)
    if fmt == "json":
        data = {
            "version": EXPORT_VERSION,
            "title": table.title,
            "note": table.note,
            "columns": [key for key, _ in table.columns],
            "rows": [dict(zip((k for k, _ in table.columns), r, strict=True)) for r in rows],
            "withheld": withheld,
        }
        return json.dumps(data, ensure_ascii=False, indent=2) + "\n", withheld
    lines = [f"# {table.title}", ""]
    if table.note:
        lines += [table.note, ""]
    lines.append("| " + " | ".join(_md_cell(label) for _, label in table.columns) + " |")
    lines.append("|" + "|".join(" --- " for _ in table.columns) + "|")
    lines += ["| " + " | ".join(_md_cell(c) for c in r) + " |" for r in rows]
    if withheld:
        lines += ["", f"{plural(withheld, 'row')} withheld: looks like a secret."]
    return "\n".join(lines) + "\n", withheld


def format_for(path: str | os.PathLike[str], default: str = "markdown") -> str:
    """``json`` for a ``.json`` name, ``markdown`` for ``.md``/``.markdown``, else ``default``."""
    suffix = Path(path).suffix.lower()
    if suffix == ".json":
        return "json"
    if suffix in (".md", ".markdown"):
        return "markdown"
    return default


def target_path(name: str, *, cwd: str | os.PathLike[str] | None = None) -> Path:
    """The absolute path a typed name means (``~`` expanded, relative to ``cwd``)."""
    name = name.strip()
    if not name:
        raise ExportError("type a file name to export to")
    if "\x00" in name:
        raise ExportError("a file name cannot hold a NUL character")
    path = Path(os.path.expanduser(name))
    if not path.is_absolute():
        path = Path(cwd or os.getcwd()) / path
    return Path(os.path.abspath(path))


def export_table(
    table: ExportTable,
    name: str,
    *,
    fmt: str | None = None,
    overwrite: bool = False,
    store_root: str | os.PathLike[str] | None = None,
    cwd: str | os.PathLike[str] | None = None,
) -> ExportResult:
    """Write ``table`` to the file ``name`` names; refuses (``ExportError``) with one sentence."""
    from memoir_tui.core.base.safeio import LinkOutsideError, write_file_safely, write_target

    path = target_path(name, cwd=cwd)
    fmt = fmt or format_for(path)
    if store_root is not None:
        root = os.path.realpath(store_root)
        real = os.path.realpath(path)
        if real == root or real.startswith(root.rstrip(os.sep) + os.sep):
            raise ExportError(
                f"{path} is inside the store; export to a file of your own outside it"
            )
    if not path.parent.is_dir():
        raise ExportError(f"the folder {path.parent} does not exist")
    try:
        target = write_target(path, within=os.path.realpath(path.parent))
    except LinkOutsideError as exc:
        raise ExportError(f"not exported: {exc}") from None
    try:
        st = os.lstat(target)
    except FileNotFoundError:
        st = None
    if st is not None:
        if not stat.S_ISREG(st.st_mode):
            raise ExportError(f"{path} is not a regular file; pick another name")
        if not overwrite:
            raise ExportExistsError(f"{path} already exists")
    text, withheld = render(table, fmt)
    try:
        write_file_safely(path, text.encode("utf-8"), within=os.path.realpath(path.parent))
    except LinkOutsideError as exc:
        raise ExportError(f"not exported: {exc}") from None
    except OSError as exc:
        raise ExportError(f"could not write {path}: {exc.strerror or exc}") from None
    return ExportResult(path, len(table.rows), withheld, fmt)
