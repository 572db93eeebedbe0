"""The pinned block: the working set, written into every assistant's always-loaded file.

The block sits between the JavaScript tool's own markers (``BLOCK_START`` /
``BLOCK_END``, from its ``src/session/render.js``), and a begin marker is
recognised the way that tool recognises it (``<!-- memoir:session-block …-->``),
so the two tools always rewrite one shared block and never stack two.

Rules for every target file:

* only the bytes between (and including) the markers change; a file without a
  block gets one inserted after its frontmatter or H1 title, else at the top
  (where the JavaScript tool puts it), and every other byte stays as it was;
* a damaged marker pair (a begin without an end, two begins, an end before its
  begin, …) leaves the file untouched and reports why;
* writing twice with the same working set changes nothing (idempotent);
* writes are one store transaction (atomic, locked, audited: one
  ``inject_write`` line per file), and ``apply_inject`` refuses a file that
  changed after it was planned; a symlinked file is written through its link;
* with ``[inject] enabled`` the block is refreshed after every commit that
  changed the session, by an after-commit hook (``core.hooks``), never by a
  hard import from the store;
* size limits are respected by trimming the block, lowest priority first
  (decisions, then questions, next actions, goals), never by touching the
  rest of the file; with no room at all the file is left alone.

Only live items are rendered: never hidden or purged decisions, completed
actions or goals, items outside their validity window or rejected, nor items
scoped to another project. A decision's ``rejected`` alternatives are never
rendered either.
"""

from __future__ import annotations

import dataclasses
import difflib
import logging
import os
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from memoir_tui.core.base.errors import MemoirError
from memoir_tui.core.door.config import INJECT_TARGETS, InjectConfig
from memoir_tui.core.format.identity import iso_now, parse_date_ms, text_hash
from memoir_tui.core.format.items import FILES
from memoir_tui.core.hosts.adapters import INSTRUCTION_FILES, InstructionFile, tool_dir
from memoir_tui.core.rules.model import working_set

if TYPE_CHECKING:
    from memoir_tui.core.door.context import Commit
    from memoir_tui.core.door.store import Store

log = logging.getLogger(__name__)

# The JavaScript tool's markers (src/session/render.js); the begin marker's hint names
# this tool's commands, which exist (`memoir-tui goal/next/note`): both tools recognise
# any `<!-- memoir:session-block … -->` as the begin marker, so they share one block.
BLOCK_START = (
    "<!-- memoir:session-block v1 — managed by memoir, edit via `memoir-tui goal/next/note` -->"
)
BLOCK_END = "<!-- /memoir:session-block -->"
# …and recognised as that tool recognises them (src/session/inject.js).
_BEGIN_RE = re.compile(r"<!--\s*memoir:session-block[^>]*-->")
_END_RE = re.compile(r"<!--\s*/memoir:session-block\s*-->")

HEADING = "## Working set (memoir)"
CURSOR_HEADER = (
    "---\n"
    "description: memoir working set (goals, next actions, open questions, decisions)\n"
    "globs:\n"
    "alwaysApply: true\n"
    "---\n"
)
MAX_TARGET_BYTES = 4 * 1024 * 1024  # Claude Code skips files above 4 MiB

SECTION_CAPS = {"goals": 5, "next_actions": 8, "open_questions": 5, "decisions": 5}
MAX_ITEM_CHARS = 300


class InjectError(MemoirError):
    pass


class MarkerError(InjectError):
    """The file's marker pair is damaged; it must be fixed by hand."""


# --- targets --------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class InjectTarget:
    name: str  # one of INJECT_TARGETS
    path: Path
    scope: Path | None = None  # None: a global file; else the project directory
    limit: int | None = None  # the whole file's limit, in ``unit``
    unit: str = "chars"  # "chars" | "bytes"
    own_file: bool = False  # a file that exists only for the block (Cursor .mdc)
    create: bool = False  # may be created when missing


def _imports(path: Path, name: str) -> bool:
    """A file that imports ``@name`` (e.g. a CLAUDE.md importing AGENTS.md) reads it."""
    from memoir_tui.core.base.safeio import read_file_safely

    try:
        text = read_file_safely(path, max_bytes=MAX_TARGET_BYTES).decode("utf-8", "replace")
    except OSError:
        return False
    return bool(re.search(rf"(?m)^\s*@(?:\./)?{re.escape(name)}\s*$", text))


def find_targets(
    home: Path, projects: Sequence[Path] = (), *, env: Mapping[str, str] | None = None
) -> list[InjectTarget]:
    """The files the block goes into, for the tools that are present.

    Which files, and when each may be created, is the adapters' data
    (``INSTRUCTION_FILES``). Tool folders follow their environment overrides
    (``$CLAUDE_CONFIG_DIR``, ``$CODEX_HOME``) in ``env`` (default: the process
    environment), as the tools themselves do. Global files are created only
    when the tool's own folder exists. In a project nothing is ever created
    except Cursor's own rule file (when the project has Cursor's folder); in
    particular no CLAUDE.md is created, because one would switch Claude Code's
    AGENTS.md fallback off.
    """
    home = Path(home)
    out: list[InjectTarget] = []

    def add(found: InstructionFile, path: Path, scope: Path | None) -> None:
        out.append(
            InjectTarget(
                found.target,
                path,
                scope=scope,
                limit=found.limit,
                unit=found.unit,
                own_file=found.own_file,
                create=found.create,
            )
        )

    for f in INSTRUCTION_FILES:
        if f.scope == "global":
            path = f.locate(tool_dir(f.tool, home, env))
            if path is not None:
                add(f, path, None)
    for project in projects:
        p = Path(project)
        if not p.is_dir():
            continue
        for f in INSTRUCTION_FILES:
            if f.scope != "project":
                continue
            path = f.locate(p)
            if path is None:
                continue
            if f.defers_to and (p / f.defers_to).is_file() and _imports(path, f.defers_to):
                continue
            add(f, path, p)
    seen: set[str] = set()
    unique = []
    for t in out:
        key = os.path.realpath(t.path)
        if key not in seen:
            seen.add(key)
            unique.append(t)
    return unique


# --- rendering ------------------------------------------------------------------


def scope_id(project: Path, *, home: Path | None = None) -> str:
    """The scope id items of this project directory carry (``core.scope``)."""
    from memoir_tui.core.rules.scope import project_identity

    return project_identity(project, home=home if home is not None else Path.home()).id


def _clean(text: str) -> str:
    """One line, no marker-like comments, no control or bidi character, bounded length."""
    from memoir_tui.core.format.textsafe import shown

    text = " ".join(shown(text).split())
    text = text.replace("<!--", "< !--").replace("-->", "-- >")
    if len(text) > MAX_ITEM_CHARS:
        from memoir_tui.core.format.secrets import find_secrets

        if find_secrets(text):
            return text  # whole, so ``_withhold`` finds the secret and drops the line
        text = text[: MAX_ITEM_CHARS - 1].rstrip() + "…"
    return text


@dataclass(frozen=True, slots=True)
class RenderedBlock:
    text: str  # markers included, "\n" line endings
    shown: int
    omitted: int
    withheld: tuple[str, ...] = ()  # for each item left out as secret-bearing, its rule


def _withhold(sections: list[tuple[str, list[str]]]) -> tuple[str, ...]:
    """Take out every line that holds a secret (another tool may have written one into
    the store, or an older scanner let it in): it is never copied into an instruction
    file. Returns the rule that caught each, never the text."""
    from memoir_tui.core.format.secrets import find_secrets

    withheld: list[str] = []
    for _title, lines in sections:
        kept = []
        for line in lines:
            findings = find_secrets(line)
            if findings:
                withheld.append(findings[0].rule)
            else:
                kept.append(line)
        lines[:] = kept
    return tuple(withheld)


def _sections(
    state: dict[str, Any], scope: Path | None, all_projects: bool, now_ms: int, home: Path | None
) -> list[tuple[str, list[str]]]:
    # One visibility predicate for every reader: a global file shows global items
    # (every project's with all_projects), a project's file global items plus its own.
    if scope is None:
        ws = working_set(state, project=None, all_projects=all_projects, at_ms=now_ms)
    else:
        ws = working_set(
            state, project=scope_id(scope, home=home), all_projects=False, at_ms=now_ms
        )

    def tag(project: str) -> str:
        return f" _({_clean(project)})_" if project and scope is None else ""

    goals = [f"- {_clean(g.text)}{tag(g.project)}" for g in ws.goals]
    nexts = [f"- [ ] {_clean(n.text)}{tag(n.project)}" for n in ws.next_actions]
    questions = [f"- {_clean(q.text)}{tag(q.project)}" for q in ws.open_questions]
    decisions = []
    for d in ws.decisions:  # visible only: hidden and purged are never here
        why = f" — why: {_clean(d.why)}" if d.why.strip() else ""
        decisions.append(f"- {_clean(d.text)}{why}{tag(d.project)}")
    return [
        ("**Goals:**", goals),
        ("**Next actions:**", nexts),
        ("**Open questions:**", questions),
        ("**Recent decisions:**", decisions),
    ]


def render_block(
    state: dict[str, Any],
    *,
    scope: Path | None = None,
    all_projects: bool = False,
    max_chars: int = 4000,
    fits: Callable[[str], bool] | None = None,
    now_ms: int | None = None,
    home: Path | None = None,
) -> RenderedBlock:
    """The block for one target, trimmed until it fits ``max_chars`` and ``fits``.

    Raises ``InjectError`` when not even an empty block fits.
    """
    if now_ms is None:
        now_ms = parse_date_ms(iso_now())
    sections = _sections(state, scope, all_projects, now_ms, home)
    withheld = _withhold(sections)
    caps = list(SECTION_CAPS.values())
    omitted = sum(max(0, len(lines) - cap) for (_, lines), cap in zip(sections, caps, strict=True))
    sections = [(title, lines[:cap]) for (title, lines), cap in zip(sections, caps, strict=True)]

    def build() -> str:
        out = [BLOCK_START, HEADING, ""]
        if scope is not None:
            out += [f"_Project: {_clean(scope.name)}_", ""]
        shown = 0
        for title, lines in sections:
            if lines:
                out += [title, *lines, ""]
                shown += len(lines)
        if not shown and not omitted and not withheld:
            out += ["_Nothing in the working set yet._", ""]
        if omitted:
            out += [f"_{omitted} more not shown here; run `memoir-tui status`._", ""]
        if withheld:
            rules = ", ".join(dict.fromkeys(withheld))
            out += [
                f"_{len(withheld)} withheld: they look like they hold a secret ({rules})._",
                "",
            ]
        out.append(BLOCK_END)
        return "\n".join(out)

    def ok(text: str) -> bool:
        return len(text) <= max_chars and (fits is None or fits(text))

    text = build()
    while not ok(text):
        for _title, lines in reversed(sections):
            if lines:
                lines.pop()
                omitted += 1
                break
        else:
            raise InjectError("no room for the block, not even empty")
        text = build()
    shown = sum(len(lines) for _, lines in sections)
    return RenderedBlock(text, shown, omitted, withheld)


# --- splicing -------------------------------------------------------------------


def _line(text: str, offset: int) -> int:
    return text.count("\n", 0, offset) + 1


def find_block(text: str) -> tuple[int, int] | None:
    """The block's span (markers included), None when absent; ``MarkerError`` when damaged."""
    begins = list(_BEGIN_RE.finditer(text))
    ends = list(_END_RE.finditer(text))
    if not begins and not ends:
        return None
    problem = ""
    if len(begins) > 1:
        problem = (
            "two begin markers (lines "
            + ", ".join(str(_line(text, m.start())) for m in begins)
            + ")"
        )
    elif len(ends) > 1:
        problem = (
            "two end markers (lines " + ", ".join(str(_line(text, m.start())) for m in ends) + ")"
        )
    elif not ends:
        problem = f"a begin marker (line {_line(text, begins[0].start())}) without an end marker"
    elif not begins:
        problem = f"an end marker (line {_line(text, ends[0].start())}) without a begin marker"
    elif ends[0].start() < begins[0].end():
        problem = (
            f"the end marker (line {_line(text, ends[0].start())}) comes before the begin "
            f"marker (line {_line(text, begins[0].start())})"
        )
    if problem:
        raise MarkerError(
            f"damaged memoir block: {problem}; the file was left untouched. Remove the stray "
            "marker(s) by hand and run inject again."
        )
    return begins[0].start(), ends[0].end()


_FRONTMATTER_RE = re.compile(r"\A---[ \t]*\r?\n.*?\r?\n---[ \t]*(?:\r?\n|\Z)", re.DOTALL)
_H1_RE = re.compile(r"\A#[ \t][^\r\n]*(?:\r?\n)+")


def _newline(text: str) -> str:
    return "\r\n" if "\r\n" in text else "\n"


def splice(text: str, block: str) -> str:
    """``text`` with ``block`` in place of its block, or inserted; nothing else changes."""
    nl = _newline(text)
    block = block.replace("\n", nl)
    span = find_block(text)
    if span is not None:
        return text[: span[0]] + block + text[span[1] :]
    if not text:
        return block + nl
    bom = "\ufeff" if text.startswith("\ufeff") else ""
    body = text[len(bom) :]
    head_match = _FRONTMATTER_RE.match(body) or _H1_RE.match(body)
    head = head_match.group(0) if head_match else ""
    if head and not head.endswith("\n"):
        head += nl  # frontmatter closing at end of file without a newline
    rest = body[len(head_match.group(0)) if head_match else 0 :]
    return bom + head + block + nl + (nl + rest if rest else "")


def remove_block(text: str) -> str:
    """``text`` without its block (and the blank line insertion added after it)."""
    span = find_block(text)
    if span is None:
        return text
    end = span[1]
    for _ in range(2):
        if text.startswith("\r\n", end):
            end += 2
        elif text.startswith("\n", end):
            end += 1
    return text[: span[0]] + text[end:]


# --- planning and applying ---------------------------------------------------------


@dataclass(frozen=True, slots=True)
class InjectChange:
    target: str
    path: Path
    scope: Path | None
    limit: int | None
    unit: str  # "chars" | "bytes"
    size: int  # the file's size after the change (before it, on error), in ``unit``
    old_text: str | None  # None: the file does not exist
    new_text: str | None  # None on error, or when the file is to be deleted
    diff: str = ""
    error: str | None = None
    omitted: int = 0  # items left out to fit
    block: str = ""  # the rendered block (a preview)
    delete: bool = False
    withheld: tuple[str, ...] = ()  # items left out because they hold a secret: their rules

    @property
    def changed(self) -> bool:
        if self.error is not None:
            return False
        return self.delete or self.new_text != self.old_text

    @property
    def status(self) -> str:
        if self.error is not None:
            return "error"
        if self.delete:
            return "delete"
        if not self.changed:
            return "unchanged"
        return "create" if self.old_text is None else "update"


def measure(text: str, unit: str) -> int:
    return len(text.encode("utf-8")) if unit == "bytes" else len(text)


def _owner_folder(path: Path, scope: Path | None) -> Path:
    """The folder whose owner reads an instruction file: its project, or (a global file)
    the host tool's folder it sits in. A link out of it is never read nor written."""
    return Path(scope) if scope is not None else Path(path).parent


def _read_target(path: Path, scope: Path | None = None) -> str | None:
    from memoir_tui.core.base.safeio import read_file_safely, write_target

    write_target(path, within=_owner_folder(path, scope))  # a link out: named, never read
    try:
        data = read_file_safely(path, max_bytes=MAX_TARGET_BYTES)
    except FileNotFoundError:
        return None
    except OSError as exc:
        if "larger than" in str(exc):
            raise InjectError(f"{path}: larger than 4 MiB; left untouched") from None
        raise
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise InjectError(f"{path}: not UTF-8 text; left untouched") from None


def _diff(path: Path, old: str | None, new: str | None) -> str:
    a = (old or "").splitlines()
    b = (new or "").splitlines()
    fromfile = str(path) if old is not None else "/dev/null"
    tofile = str(path) if new is not None else "/dev/null"
    return "\n".join(difflib.unified_diff(a, b, fromfile=fromfile, tofile=tofile, lineterm=""))


def _plan_one(
    target: InjectTarget,
    state: dict[str, Any],
    cfg: InjectConfig,
    now_ms: int,
    remove: bool,
    home: Path | None = None,
) -> InjectChange:
    unit = target.unit

    def fail(message: str, old: str | None = None) -> InjectChange:
        size = measure(old, unit) if old is not None else 0
        return InjectChange(
            target.name,
            target.path,
            target.scope,
            target.limit,
            unit,
            size,
            old,
            None,
            error=message,
        )

    try:
        old = _read_target(target.path, target.scope)
    except (InjectError, OSError) as exc:
        return fail(str(exc))
    try:
        if remove:
            if old is None or find_block(old) is None:
                return InjectChange(
                    target.name,
                    target.path,
                    target.scope,
                    target.limit,
                    unit,
                    measure(old or "", unit),
                    old,
                    old,
                )
            new = remove_block(old)
            delete = target.own_file and _only_header(new)
            return InjectChange(
                target.name,
                target.path,
                target.scope,
                target.limit,
                unit,
                0 if delete else measure(new, unit),
                old,
                None if delete else new,
                diff=_diff(target.path, old, None if delete else new),
                delete=delete,
            )
        if old is None and not target.create:
            return fail("does not exist")
        base = old or ""
        if target.own_file and not base.strip():
            base = CURSOR_HEADER
        find_block(base)  # refuse a damaged pair before rendering anything

        def fits(block: str) -> bool:
            return target.limit is None or measure(splice(base, block), unit) <= target.limit

        try:
            rendered = render_block(
                state,
                scope=target.scope,
                all_projects=cfg.all_projects,
                max_chars=cfg.max_block_chars,
                fits=fits,
                now_ms=now_ms,
                home=home,
            )
        except InjectError:
            without = measure(remove_block(base), unit)
            if target.limit is None:
                return fail(
                    f"no room for the block within max_block_chars = {cfg.max_block_chars}", old
                )
            return fail(
                f"no room for the block: the file holds {without:,} of its {target.limit:,} "
                f"{unit} without it; left untouched",
                old,
            )
        new = splice(base, rendered.text)
    except MarkerError as exc:
        return fail(f"{target.path}: {exc}", old)
    return InjectChange(
        target.name,
        target.path,
        target.scope,
        target.limit,
        unit,
        measure(new, unit),
        old,
        new,
        diff=_diff(target.path, old, new) if new != old else "",
        omitted=rendered.omitted,
        block=rendered.text,
        withheld=rendered.withheld,
    )


def _only_header(text: str) -> bool:
    rest = _FRONTMATTER_RE.sub("", text.lstrip("\ufeff"), count=1)
    return not rest.strip()


def plan_inject(
    store: Store,
    *,
    home: Path,
    projects: Sequence[Path] = (),
    env: Mapping[str, str] | None = None,
    config: InjectConfig | None = None,
    names: Iterable[str] | None = None,
    remove: bool = False,
    now_ms: int | None = None,
) -> list[InjectChange]:
    """What injecting (or, with ``remove``, taking out) the block would do; writes nothing.

    ``names`` limits the targets (default: ``[inject] targets`` from config).
    """
    cfg = config or store.config.inject
    wanted = set(names) if names is not None else set(cfg.targets)
    unknown = wanted - set(INJECT_TARGETS)
    if unknown:
        raise InjectError(
            f"unknown target {sorted(unknown)[0]!r}; known: {', '.join(INJECT_TARGETS)}"
        )
    loaded = store.load()
    if loaded.read_only:
        raise InjectError(
            f"{store.session_path} is from a newer memoir format; not injecting, so the "
            "blocks already written stay as they are"
        )
    state = loaded.state
    if now_ms is None:
        now_ms = parse_date_ms(store.clock())
    return [
        _plan_one(t, state, cfg, now_ms, remove, home)
        for t in find_targets(home, projects, env=env)
        if t.name in wanted
    ]


def apply_inject(store: Store, changes: Iterable[InjectChange]) -> list[InjectChange]:
    """Write the planned changes in one store transaction; a file that changed since
    planning is refused (and reported), the others are written together."""
    from memoir_tui.core.format.secrets import find_secrets

    out: list[InjectChange] = []
    with store.transaction("inject", files=(FILES,)) as tx:
        for change in changes:
            if not change.changed:
                out.append(change)
                continue
            try:
                current = _read_target(change.path, change.scope)
            except (InjectError, OSError) as exc:
                out.append(dataclasses.replace(change, error=str(exc)))
                continue
            if current != change.old_text:
                out.append(
                    dataclasses.replace(
                        change,
                        error=f"{change.path} changed since it was planned; run inject again",
                    )
                )
                continue
            if change.block and find_secrets(change.block):
                # Another tool may have written a secret into the store: never copy it out.
                out.append(
                    dataclasses.replace(
                        change,
                        error=f"{change.path}: the block would carry a secret from the store; "
                        "left untouched (forget or purge that item first)",
                    )
                )
                continue
            within = _owner_folder(change.path, change.scope)
            if change.delete:
                tx.remove(change.path)
            else:
                assert change.new_text is not None
                # the block: scanned just above; a link out of ``within`` is refused
                tx.write_text(change.path, change.new_text, scan=False, within=within)
            tx.audit("inject_write", "instructions", text_hash(str(change.path)))
            out.append(change)
    return out


def refresh_after_commit(store: Store, commit: Commit) -> None:
    """The after-commit hook (``core.hooks``): refresh the block when the session changed."""
    if commit.session_changed:
        for change in inject_if_enabled(store):
            if change.error:
                log.warning("inject: %s", change.error)


def inject_if_enabled(
    store: Store,
    *,
    home: Path | None = None,
    projects: Sequence[Path] | None = None,
    env: Mapping[str, str] | None = None,
) -> list[InjectChange]:
    """After a mutation: refresh every target when ``[inject] enabled``; never raises.

    Returns the changes (with per-target errors); an empty list when disabled.
    """
    cfg = store.config.inject
    if not cfg.enabled:
        return []
    if home is None:
        home = Path.home()
    try:
        changes = plan_inject(
            store,
            home=home,
            projects=cfg.projects if projects is None else projects,
            env=env,
            config=cfg,
        )
        return apply_inject(store, changes)
    except (MemoirError, OSError) as exc:
        return [InjectChange("*", Path(home), None, None, "chars", 0, None, None, error=str(exc))]
