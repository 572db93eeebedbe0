"""The answers memoir gives about its working set, for every headless face.

The MCP tools and the CLI verbs say the same things with the same words, so
both are thin faces over these functions. Each takes a ``Memoir`` and the
arguments and returns a ``Reply``: the text a person or a model reads, plus
structured data (frozen dataclasses; the MCP face turns them into its typed
models) where a client can use it. A refusal is a ``MemoirError``; ``refusal_text`` turns it into the
message the server sends back as a tool error.

Every read goes through ``Memoir.working_set()``, whose views never hold a
hidden or purged decision or a completed action, so no reply can show a
tombstone as live.
"""

from __future__ import annotations

import os
import socket
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from memoir_tui.core.base.errors import AmbiguousMatchError, MemoirError, NoMatchError
from memoir_tui.core.format.dates import day
from memoir_tui.core.format.identity import identity
from memoir_tui.core.format.items import Outcome, clean_text  # the one door for item text
from memoir_tui.core.rules.model import Decision, HistoryEntry, Item, WorkingSet
from memoir_tui.core.rules.needle import clean_needle
from memoir_tui.core.rules.needle import shown as _shown
from memoir_tui.core.rules.reply import Reply
from memoir_tui.core.rules.withhold import secret_in, shown_text, withheld_text
from memoir_tui.core.workflows.memoir import Memoir

SESSION_DECISIONS_SHOWN = 10
SESSION_HISTORY_SHOWN = 5
RESUME_DECISIONS_SHOWN = 5
RESUME_HISTORY_SHOWN = 3
RESUME_CLIP = 300


# --- structured output -------------------------------------------------------------


@dataclass(frozen=True, slots=True, kw_only=True)
class ItemOut:
    """A goal, next action or open question."""

    text: str
    date: str = field(metadata={"description": "ISO date-time it was set, added or asked"})
    machine: str = field(metadata={"description": "label of the machine that recorded it"})
    project: str = field(
        default="", metadata={"description": "its project (folder or remote); '' = global"}
    )


@dataclass(frozen=True, slots=True, kw_only=True)
class DecisionOut:
    """A visible decision (forgotten ones are never listed)."""

    text: str
    why: str = ""
    rejected: str = ""
    date: str = ""
    machine: str = ""
    project: str = field(
        default="", metadata={"description": "its project (folder or remote); '' = global"}
    )


@dataclass(frozen=True, slots=True, kw_only=True)
class ScopeOut:
    """Which project an answer covers, and what it leaves out."""

    project: str | None = field(
        metadata={"description": "the project answered for; null: every project"}
    )
    other_projects: int = field(
        metadata={
            "description": "live goals, next actions, questions and decisions other projects "
            "hold that this answer leaves out (all_projects=true shows them)"
        }
    )


@dataclass(frozen=True, slots=True, kw_only=True)
class SessionOut:
    """A past work session from the history, newest first."""

    date: str
    machine: str
    summary: str
    files_touched: list[str] = field(default_factory=list, metadata={"default": []})
    duration_min: float | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class MachineOut:
    label: str
    last_seen: str


@dataclass(frozen=True, slots=True, kw_only=True)
class SessionView:
    """The live working set: goals, next actions, open questions, decisions, history."""

    goals: list[ItemOut]
    next_actions: list[ItemOut]
    open_questions: list[ItemOut]
    decisions: list[DecisionOut] = field(metadata={"description": "newest visible decisions shown"})
    decisions_total: int = field(
        metadata={"description": "how many visible decisions the store holds"}
    )
    history: list[SessionOut]
    machines: list[MachineOut]
    scope: ScopeOut
    notice: str | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class WhyView:
    query: str
    decisions: list[DecisionOut]
    scope: ScopeOut
    other_projects_matching: int = field(
        default=0,
        metadata={"description": "decisions of other projects that match but are left out"},
    )


@dataclass(frozen=True, slots=True, kw_only=True)
class ResumeView:
    """A compact hand-off for the next session."""

    project: str | None = None
    goals: list[ItemOut]
    next_actions: list[ItemOut]
    open_questions: list[ItemOut]
    decisions: list[DecisionOut]
    sessions: list[SessionOut]
    notice: str | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class StatusView:
    version: str
    store: str
    session_file: bool = field(metadata={"description": "whether session.json exists yet"})
    read_only: bool = field(
        metadata={"description": "the session is from a newer format; writes refused"}
    )
    lock_held: bool = field(metadata={"description": "a session.json.lock file exists right now"})
    config_file: str | None = field(
        metadata={"description": "memoir-tui.toml in use, or null for defaults"}
    )
    machine_id: str | None = field(
        metadata={"description": "this machine's UUID, null until the first write"}
    )
    machine_label: str
    counts: dict[str, int]
    caps: dict[str, int]
    scope: ScopeOut
    notice: str | None = None


# --- helpers ---------------------------------------------------------------------


def refusal_text(err: MemoirError) -> str:
    """The message a refused call returns; an ambiguous match lists its candidates."""
    message = str(err)
    if isinstance(err, AmbiguousMatchError) and err.candidates:
        message += "\n" + "\n".join(f"● {c}" for c in err.candidates)
    return message


def package_version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("memoir-tui")
    except PackageNotFoundError:  # pragma: no cover - running from a bare checkout
        return "0+unknown"


def _s(text: str) -> str:
    """A stored one-line field as rendered: never a newline, never a raw control."""
    from memoir_tui.core.format.textsafe import shown

    return shown(text) if text else text


def _clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def _item(i: Item) -> ItemOut:
    return ItemOut(
        text=_s(shown_text(i.text)),
        date=i.date,
        machine=_s(i.machine_label),
        project=_s(i.project_label),
    )


def _decision(d: Decision) -> DecisionOut:
    # Stored text is handed out only without secrets (another tool may have written one):
    # a decision whose text, why or rejected holds one is shown as withheld, whole.
    rule = secret_in(d.text, d.why, d.rejected)
    return DecisionOut(
        text=withheld_text(rule) if rule else _s(d.text),
        why="" if rule else _s(d.why),
        rejected="" if rule else _s(d.rejected),
        date=d.date,
        machine=_s(d.machine_label),
        project=_s(d.project_label),
    )


def _history(h: HistoryEntry) -> SessionOut:
    rule = secret_in(h.summary, *h.files_touched)
    return SessionOut(
        date=h.date,
        machine=_s(h.machine_label),
        summary=withheld_text(rule) if rule else _s(h.summary),
        files_touched=[] if rule else list(h.files_touched),
        duration_min=h.duration_min,
    )


def _live_decisions(ws: WorkingSet) -> list[Decision]:
    # ``ws.decisions`` is visible-only already; the second filter keeps this
    # face correct even if the view ever changes.
    return [d for d in ws.decisions if not d.hidden and not d.purged]


def _every_decision(ws: WorkingSet) -> list[Decision]:
    """Live and archived (past the live cap, kept): what a search reaches."""
    return [d for d in ws.all_decisions if not d.hidden and not d.purged]


def _bullets(lines: Iterable[str], empty: str = "(none)") -> str:
    out = "\n".join(lines)
    return out or empty


def _decision_line(d: DecisionOut, clip: int | None = None) -> str:
    def c(text: str) -> str:
        return _clip(text, clip) if clip else text

    line = f"- {c(d.text)}"
    extras = []
    if d.why:
        extras.append(f"why: {c(d.why)}")
    if d.rejected:
        extras.append(f"rejected: {c(d.rejected)}")
    if extras:
        line += " — " + "; ".join(extras)
    if d.date:
        line += f" ({day(d.date)})"
    return line


def _history_line(h: SessionOut, *, detail: bool = False) -> str:
    line = f"- {day(h.date) or '?'} {h.machine or '?'}: {h.summary or '—'}"
    if detail:
        extras = []
        if h.duration_min is not None:
            extras.append(f"{h.duration_min:g} min")
        if h.files_touched:
            shown = ", ".join(h.files_touched[:5])
            more = len(h.files_touched) - 5
            extras.append("files: " + shown + (f" (+{more})" if more > 0 else ""))
        if extras:
            line += " (" + "; ".join(extras) + ")"
    return line


def _read(store: Memoir, all_projects: bool = False) -> tuple[WorkingSet, str | None, bool]:
    """One snapshot: the working set, the loader's notice, and whether it is read-only."""
    loaded = store.load()
    notice = loaded.notice
    if loaded.read_only and not notice:
        notice = "This store is from a newer memoir format: it is read-only here."
    if loaded.damage == "unreadable" and not notice:
        notice = (
            f"session.json could not be read; its bytes were kept as {loaded.backup}. "
            "Answers show an empty working set until it is repaired or written again."
        )
    return store.view(loaded.state, all_projects=all_projects), notice, loaded.read_only


def _scope(ws: WorkingSet) -> ScopeOut:
    return ScopeOut(project=ws.project_label or None, other_projects=ws.elsewhere_total)


def _scope_line(ws: WorkingSet) -> str:
    """What a scoped answer says about the rest (nothing when it covers every project)."""
    if ws.project is None:
        return "Scope: every project."
    line = f"Scope: project {ws.project_label} (and global items)."
    if ws.elsewhere_total:
        line += (
            f" Other projects hold {ws.elsewhere_total} more item(s); "
            "call again with all_projects=true to see them."
        )
    return line


def _project_scope(value: str, store: Memoir) -> str:
    """A project argument as a scope id: an id as given, else the project of a path."""
    from memoir_tui.core.rules.scope import project_identity

    if value.split(":", 1)[0] in ("git", "path", "home"):
        return value
    return project_identity(Path(os.path.expanduser(value)), home=Path.home()).id


# --- read-only tools -------------------------------------------------------------------


def status(store: Memoir, all_projects: bool = False) -> Reply:
    ws, notice, read_only = _read(store, all_projects)
    session_file = store.session_path.is_file()
    lock_held = store.session_path.with_name(store.session_path.name + ".lock").exists()
    known = store.known_machine()  # reads must not create machine.id
    machine_id = known.id if known else None
    label = next((m.label for m in ws.machines if m.id == machine_id and m.label), "")
    label = label or socket.gethostname()
    counts = {
        "goals": len(ws.goals),
        "next_actions": len(ws.next_actions),
        "open_questions": len(ws.open_questions),
        "decisions": len(_live_decisions(ws)),
        "forgotten_decisions": len(ws.tombstones),
        "completed_actions": len(ws.completed_actions),
        "history": len(ws.history),
        "machines": len(ws.machines),
    }
    caps_obj = store.config.caps
    caps = {name: getattr(caps_obj, name) for name in caps_obj.__dataclass_fields__}
    config_file = str(store.config.path) if store.config.exists else None
    data = StatusView(
        version=package_version(),
        store=str(store.root),
        session_file=session_file,
        read_only=read_only,
        lock_held=lock_held,
        config_file=config_file,
        machine_id=machine_id,
        machine_label=label,
        counts=counts,
        caps=caps,
        scope=_scope(ws),
        notice=notice,
    )
    lines = [
        f"memoir-tui {data.version} — memoir store status",
        f"Store: {data.store}" + ("" if session_file else " (no session.json yet)"),
        f"Config: {config_file or 'defaults (no memoir-tui.toml)'}",
        f"This machine: {label}"
        + (f" ({machine_id[:8]})" if machine_id else " (not registered yet)"),
        "Working set: "
        f"{counts['goals']} goal(s), {counts['next_actions']} next action(s), "
        f"{counts['open_questions']} open question(s), {counts['decisions']} decision(s)",
        f"Forgotten decisions: {counts['forgotten_decisions']}; "
        f"completed actions remembered: {counts['completed_actions']}",
        f"History: {counts['history']} session(s) from {counts['machines']} machine(s)",
        "Caps: " + ", ".join(f"{k} {v}" for k, v in caps.items()),
        store.config.caps_note[0].upper() + store.config.caps_note[1:],
        _scope_line(ws),
    ]
    if data.read_only:
        lines.append("Read-only: yes — writes are refused until memoir-tui is upgraded.")
    if lock_held:
        lines.append("Lock: session.json.lock is held right now (another memoir process).")
    if notice:
        lines.append(f"Notice: {notice}")
    return Reply("\n".join(lines), data)


def _overflow_lines(ws: WorkingSet) -> list[str]:
    """What a full list put past the live one: parked next actions (listed), and how many
    goals, questions and decisions are archived — kept, reachable, not pinned."""
    lines: list[str] = []
    if ws.parked_actions:
        lines += ["", "## Parked next actions (past the live list; `unpark` brings one back)"]
        lines += [f"- [ ] {_s(shown_text(i.text))}" for i in ws.parked_actions]
    archived = [
        (len(ws.archived_goals), "goal"),
        (len(ws.archived_questions), "question"),
        (len(ws.archived_decisions), "decision"),
    ]
    if any(n for n, _ in archived):
        said = ", ".join(f"{n} {noun}(s)" for n, noun in archived if n)
        lines += ["", f"Archived past the live caps (kept; memoir_why finds decisions): {said}"]
    return lines


def session(store: Memoir, all_projects: bool = False) -> Reply:
    ws, notice, _ = _read(store, all_projects)
    decisions = _live_decisions(ws)
    data = SessionView(
        goals=[_item(i) for i in ws.goals],
        next_actions=[_item(i) for i in ws.next_actions],
        open_questions=[_item(i) for i in ws.open_questions],
        decisions=[_decision(d) for d in decisions[:SESSION_DECISIONS_SHOWN]],
        decisions_total=len(decisions),
        history=[_history(h) for h in ws.history[:SESSION_HISTORY_SHOWN]],
        machines=[
            MachineOut(label=m.label or m.id[:8], last_seen=m.last_seen) for m in ws.machines
        ],
        scope=_scope(ws),
        notice=notice,
    )
    heading = "## Recent decisions"
    if data.decisions_total > len(data.decisions):
        heading += (
            f" ({len(data.decisions)} newest of {data.decisions_total}; memoir_why finds the rest)"
        )
    parts = [
        "# memoir session",
        *([f"Notice: {notice}"] if notice else []),
        _scope_line(ws),
        "",
        "## Goals",
        _bullets(f"- {g.text}" for g in data.goals),
        "",
        "## Next actions",
        _bullets(f"- [ ] {n.text}" for n in data.next_actions),
        *_overflow_lines(ws),
        "",
        "## Open questions",
        _bullets(f"- {q.text}" for q in data.open_questions),
        "",
        heading,
        _bullets(_decision_line(d) for d in data.decisions),
        "",
        "## Recent sessions",
        _bullets(_history_line(h) for h in data.history),
        "",
        "## Machines sharing this store",
        _bullets(
            (f"- {m.label} (last seen {day(m.last_seen) or '?'})" for m in data.machines),
            "(none yet)",
        ),
    ]
    return Reply("\n".join(parts), data)


def _matches(d: Decision, query: str, terms: list[str]) -> bool:
    return d.matches(query) or bool(terms and all(d.matches(t) for t in terms))


def why(store: Memoir, query: str, all_projects: bool = False) -> Reply:
    query = clean_needle(query, "query")
    terms = [identity(t) for t in query.split()]
    ws, _, _ = _read(store, all_projects)
    hits = [d for d in _every_decision(ws) if _matches(d, query, terms)]
    elsewhere = 0
    if ws.project is not None and ws.elsewhere.get("decisions"):
        shown = {d.key for d in hits}
        everywhere = store.view(store.load().state, all_projects=True)
        elsewhere = sum(
            1
            for d in _every_decision(everywhere)
            if d.key not in shown and _matches(d, query, terms)
        )
    data = WhyView(
        query=_shown(query),
        decisions=[_decision(d) for d in hits],
        scope=_scope(ws),
        other_projects_matching=elsewhere,
    )
    more = (
        f" {elsewhere} decision(s) of other projects match; call again with all_projects=true."
        if elsewhere
        else ""
    )
    if not hits:
        return Reply(f'No decisions match "{_shown(query)}" in {_scope_name(ws)}.{more}', data)
    blocks = []
    for d in data.decisions:
        block = [f"● {d.text}"]
        if d.why:
            block.append(f"  why: {d.why}")
        if d.rejected:
            block.append(f"  rejected: {d.rejected}")
        if d.date:
            block.append(f"  ({day(d.date)}{', ' + d.machine if d.machine else ''})")
        blocks.append("\n".join(block))
    text = (
        f'{len(hits)} decision(s) matching "{_shown(query)}" in {_scope_name(ws)}:\n\n'
        + "\n\n".join(blocks)
    )
    return Reply(text + (f"\n\n{more.strip()}" if more else ""), data)


def _scope_name(ws: WorkingSet) -> str:
    return "every project" if ws.project is None else f"project {ws.project_label}"


def resume(store: Memoir, project: str | None = None) -> Reply:
    wanted = clean_text(project, "project", required=False) or None
    if wanted:
        store.project = _project_scope(wanted, store)
    ws, notice, _ = _read(store)

    def keep(items: Sequence[Item]) -> list[ItemOut]:
        return [_item(i) for i in items]

    decisions = _live_decisions(ws)
    data = ResumeView(
        project=wanted,
        goals=keep(ws.goals),
        next_actions=keep(ws.next_actions),
        open_questions=keep(ws.open_questions),
        decisions=[_decision(d) for d in decisions[:RESUME_DECISIONS_SHOWN]],
        sessions=[_history(h) for h in ws.history[:RESUME_HISTORY_SHOWN]],
        notice=notice,
    )
    if not (data.goals or data.next_actions or data.open_questions or data.decisions):
        empty = (
            "Nothing to resume yet: no goals, next actions, open questions or decisions"
            + (f" for {wanted}" if wanted else "")
            + ". Record them with memoir_set_goal, memoir_add_next, memoir_ask and memoir_note."
        )
        if data.sessions:
            empty += "\n\nLast sessions:\n" + "\n".join(
                _history_line(h, detail=True) for h in data.sessions
            )
        return Reply(empty, data)

    def clip(text: str) -> str:
        return _clip(text, RESUME_CLIP)

    parts = ["# Hand-off" + (f" — {wanted}" if wanted else "")]
    if notice:
        parts.append(f"Notice: {notice}")
    if len(data.goals) == 1:
        parts.append(f"Goal: {clip(data.goals[0].text)}")
    else:
        parts += ["Goals:", _bullets(f"- {clip(g.text)}" for g in data.goals)]
    parts += [
        "",
        "Next actions (newest first):",
        _bullets(f"{n}. {clip(a.text)}" for n, a in enumerate(data.next_actions, 1)),
    ]
    if data.open_questions:
        parts += ["", "Open questions:", _bullets(f"- {clip(q.text)}" for q in data.open_questions)]
    if data.decisions:
        more = len(decisions) - len(data.decisions)
        parts += [
            "",
            "Decisions to respect (newest first"
            + (f"; {more} more via memoir_why" if more > 0 else "")
            + "):",
            _bullets(_decision_line(d, RESUME_CLIP) for d in data.decisions),
        ]
    if data.sessions:
        parts += [
            "",
            "Last sessions:",
            _bullets(_history_line(h, detail=True) for h in data.sessions),
        ]
    return Reply("\n".join(parts), data)


# --- writing tools -----------------------------------------------------------------------


def _rotation_note(outcome: Outcome, noun: str, cap: int) -> str:
    """What a full list pushed out to make room (the store says; nothing is recomputed)."""
    if not outcome.rotated:
        return ""
    # Nothing leaves the file: a full list parks (next actions) or archives the oldest,
    # and saying "rotated out" read as if it were gone.
    where = (
        "parked (still listed; unpark brings it back)"
        if noun == "next-actions"
        else "archived (still listed)"
    )
    return f"\nThe {noun} list holds {cap} live; the oldest {where}: " + "; ".join(
        f'"{_s(shown_text(t))}"' for t in outcome.rotated
    )


def set_goal(store: Memoir, text: str) -> Reply:
    text = clean_text(text, "goal")
    outcome = store.add_goal(text)
    if not outcome.changed:
        return Reply(f"Goal already set: {text} (nothing changed)")
    return Reply(f"Goal set: {text}" + _rotation_note(outcome, "goals", store.config.caps.goals))


def add_next(store: Memoir, text: str) -> Reply:
    text = clean_text(text, "next action")
    outcome = store.add_next_action(text)
    if not outcome.changed:
        return Reply(f"Already a next action: {text} (nothing changed)")
    return Reply(
        f"Next: {text}" + _rotation_note(outcome, "next-actions", store.config.caps.next_actions)
    )


def complete_next(store: Memoir, match: str) -> Reply:
    match = clean_needle(match, "match")
    try:
        outcome = store.complete_next_action(match)
    except AmbiguousMatchError as err:
        raise AmbiguousMatchError(
            f'"{match}" matches {len(err.candidates)} next actions, so nothing was completed. '
            "Call again with text unique to one of:",
            err.candidates,
        ) from None
    except NoMatchError as err:
        ws = store.working_set()
        left = [shown_text(i.text) for i in ws.all_next_actions]
        hint = (
            " Open next actions:\n" + "\n".join(f"- {t}" for t in left)
            if left
            else " There are no open next actions."
        )
        # A match in another project is named (and left alone): the store says where.
        where = str(err).split("; ", 1)[1] if "not shown here" in str(err) else ""
        raise NoMatchError(
            f'No next action matches "{match}" here; nothing was completed.'
            + (f" It is {where}." if where else "")
            + hint
        ) from None
    done = outcome.message.removeprefix("completed: ")
    remaining = len(store.working_set().next_actions)
    return Reply(f"Completed: {done}\n{remaining} next action(s) still open.")


def ask(store: Memoir, text: str) -> Reply:
    text = clean_text(text, "question")
    outcome = store.ask_question(text)
    if not outcome.changed:
        return Reply(f"Question already open: {text} (nothing changed)")
    return Reply(f"Question captured: {text}")


def note(store: Memoir, text: str, why: str | None = None, rejected: str | None = None) -> Reply:
    text = clean_text(text, "decision")
    why = clean_text(why, "why", required=False)
    rejected = clean_text(rejected, "rejected", required=False)
    existed = any(identity(d.text) == identity(text) for d in store.working_set().all_decisions)
    store.note_decision(text, why or None, rejected or None)
    extras = []
    if why:
        extras.append(f"why: {why}")
    if rejected:
        extras.append(f"rejected: {rejected}")
    verb = "Decision updated" if existed else "Decision recorded"
    return Reply(f"{verb}: {text}" + (f" ({'; '.join(extras)})" if extras else ""))


def forget(
    store: Memoir,
    text: str,
    purge: bool = False,
    all_projects: bool = False,
    everywhere: bool = False,
    dry_run: bool = False,
) -> Reply:
    needle = clean_needle(text, "text")
    if everywhere:
        # the same receipt `memoir-tui forget TEXT --everywhere` prints
        return Reply(store.forget.apply(needle, purge=purge, dry_run=dry_run).render())
    try:
        # exact text and hashes reach every project; substrings this one (or all)
        target = store.find_decision(needle, include_hidden=purge, all_projects=all_projects)
    except AmbiguousMatchError as err:
        raise AmbiguousMatchError(
            f'"{_shown(needle)}" matches {len(err.candidates)} decisions. Forgetting is permanent, '
            "so nothing was changed. Call again with text unique to one of:",
            [_shown(c) for c in err.candidates],
        ) from None
    except NoMatchError as err:
        reason = _shown(str(err))
        raise NoMatchError(f"{reason[:1].upper()}{reason[1:]}; nothing was forgotten.") from None
    if dry_run:
        act = "purge" if purge else "forget"
        return Reply(f"Dry run, nothing changed. This would {act}: {shown_text(target.text)}")
    if purge:
        outcome = store.purge_decision(target.key)
        if not outcome.changed:
            return Reply("Nothing changed: that decision was already purged.")
        return Reply(
            "Forgotten and purged (permanent; there is no un-forget). Its text, why and "
            "rejected are gone from session.json and the review queue; only a hash "
            f"({target.key[:12]}…) remains so the tombstone spreads to every replica. "
            "Copies outside this store (backups, other tools' files, git history) are not erased."
        )
    outcome = store.hide_decision(target.key)
    if not outcome.changed:
        return Reply("Nothing changed: that decision was already forgotten.")
    return Reply(
        f"Forgotten (permanent; there is no un-forget): {shown_text(target.text)}\n"
        "It is hidden from memoir_session, memoir_why and memoir_resume here and on every "
        "replica it syncs with, and the same text cannot be noted again. "
        "Call again with purge=true to also redact its text from the file (for secrets)."
    )


# --- review queue (captured candidates wait here for a person) ---------------------------


@dataclass(frozen=True, slots=True, kw_only=True)
class CandidateOut:
    """A captured candidate decision waiting for review."""

    id: str = field(metadata={"description": "short id; any unique prefix of 4+ characters works"})
    text: str
    source: str = field(
        metadata={"description": "'user' or 'assistant': who said it in the transcript"}
    )
    extractor: str
    session_id: str
    timestamp: str
    project: str
    badges: list[str]
    near_hidden: str | None = field(
        default=None, metadata={"description": "a forgotten decision this one resembles, if any"}
    )


@dataclass(frozen=True, slots=True, kw_only=True)
class ReviewView:
    candidates: list[CandidateOut]
    total: int
    notice: str | None = field(
        default=None,
        metadata={"description": "the queue file is damaged or from a newer version"},
    )
    elsewhere: int = field(
        default=0,
        metadata={"description": "candidates of other projects left out (all_projects shows them)"},
    )


REVIEW_SHOWN = 20


def review_list(store: Memoir, all_projects: bool = False) -> Reply:
    from memoir_tui.core.rules.labels import queue_labels
    from memoir_tui.core.rules.scope import project_names
    from memoir_tui.core.rules.waiting import in_review_scope

    loaded = store.review.load()
    every = store.review.items_of(loaded)
    # The scope every face uses: this project's candidates and global ones.
    project = None if all_projects or not store.scoped else store.project
    items = [i for i in every if in_review_scope(i.project, project)]
    elsewhere = len(every) - len(items)
    labels = queue_labels(project_names(store.load().state), items)
    shown = [
        CandidateOut(
            id=i.short_id,
            text=shown_text(i.text),
            source=i.source,
            extractor=i.extractor,
            session_id=i.session_id,
            timestamp=i.timestamp,
            project=labels.get(i.project) or i.project_label or i.project,
            badges=list(i.badges),
            near_hidden=("(a purged decision)" if i.near_hidden.purged else i.near_hidden.text)
            if i.near_hidden
            else None,
        )
        for i in items[:REVIEW_SHOWN]
    ]
    notice = loaded.notice if (loaded.damaged or loaded.read_only) else None
    data = ReviewView(candidates=shown, total=len(items), notice=notice, elsewhere=elsewhere)
    more = (
        f"{elsewhere} more from other projects (all_projects=true shows them)." if elsewhere else ""
    )
    if not items:
        empty = f"Notice: {notice}" if notice else "No candidates wait for review here."
        return Reply(" ".join(p for p in (empty, more) if p), data)
    lines = [
        f"{len(items)} captured candidate(s) wait for a person to pin or reject"
        + (f" (newest {len(shown)} shown)" if len(items) > len(shown) else "")
        + ". Assistant-sourced ones are only what an assistant said, not a decision.",
        *([f"Notice: {notice}"] if notice else []),
        *([more] if more else []),
    ]
    for c in shown:
        lines.append(f"- {c.id} {' '.join(c.badges)} {c.text}")
        if c.near_hidden:
            lines.append(f"    resembles a forgotten decision: {c.near_hidden}")
    return Reply("\n".join(lines), data)


def review_pin(
    store: Memoir,
    candidate_id: str,
    text: str | None = None,
    why: str | None = None,
    rejected: str | None = None,
) -> Reply:
    candidate_id = clean_text(candidate_id, "id")
    outcome = store.review.pin(
        candidate_id, text=text or None, why=why or None, rejected=rejected or None
    )
    return Reply(outcome.message)


def review_reject(store: Memoir, candidate_id: str) -> Reply:
    outcome = store.review.reject(clean_text(candidate_id, "id"))
    return Reply(
        outcome.message + ("" if not outcome.changed else "; it will not be proposed again.")
    )


# --- consolidate (report only: applying needs a person) -----------------------------------

CONSOLIDATE_SHOWN = 30


def consolidate_report(store: Memoir) -> Reply:
    report = store.consolidate.scan(home=Path.home())
    if not report.proposals:
        return Reply(
            "Nothing to clean up: no duplicates, stale items, dead links or index problems."
        )
    lines = [
        f"{len(report.proposals)} clean-up proposal(s). Applying them needs a person: "
        "`memoir-tui consolidate --apply ID` or the app's Consolidate pane (undo from the trash)."
    ]
    shown = 0
    for group, proposals in report.grouped():
        lines.append(f"\n{group}:")
        for p in proposals:
            if shown == CONSOLIDATE_SHOWN:
                break
            lines.append(f"- {p.id} {p.title} — {p.why}")
            shown += 1
    if shown < len(report.proposals):
        lines.append(f"\n({len(report.proposals) - shown} more: run `memoir-tui consolidate`)")
    return Reply("\n".join(lines))


# --- sync status (read-only; pushing and pulling are a person's acts) -----------------------


def sync_status_report(store: Memoir) -> Reply:
    from memoir_tui.core.sync import sync_status

    status = sync_status(store)  # no network: "behind" is as of the last fetch
    return Reply("\n".join(status.lines()))
