"""Turn a file (or the session's working set) into the fields recall indexes.

This is the only place on the index path that parses YAML; the query path reads
the parsed fields back from the index. Hidden decisions and completed goals or
actions yield no document at all, so no query can return them.
"""

from __future__ import annotations

import re
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

# ``rationale``: why, rejected, trigger, how_to_apply and tags, a field of its own (low weight)
# so reasons never lengthen the description. The project is no text field: its words
# (``Doc.project_terms``) are kept apart, so a project's name stays as rare among the words
# as the notes that write it make it, and a query naming a project reaches that project's
# notes through them (``rank``).
FIELDS = ("aliases", "name", "description", "headings", "body", "rationale")
N_FIELDS = len(FIELDS)

_HEADING_RE = re.compile(r"^\s{0,3}#{1,6}\s+(.*?)\s*#*\s*$")
_FENCE_RE = re.compile(r"^\s{0,3}(```|~~~)")


@dataclass(frozen=True, slots=True)
class Doc:
    """One searchable document: raw field texts plus what a result shows."""

    path: str
    tool: str
    type: str
    kind: str
    name: str
    link: str
    description: str
    project: str
    aliases: str = ""
    headings: str = ""
    body: str = ""
    ident: str = ""  # a decision's identity hash, to honour later hiding in the session
    always_loaded: bool = False
    markdown: bool = True
    body_line: int = 0  # 0-based line where the body starts (after frontmatter)
    text: str = ""  # stored passage source for documents that are not whole files
    updated: str = ""
    rationale: str = ""
    project_label: str = ""  # the project as a person reads it, when the item says

    def field_texts(self) -> tuple[str, ...]:
        return (
            self.aliases,
            f"{self.name} {self.link}",
            self.description,
            self.headings,
            self.body,
            self.rationale,
        )

    def project_terms(self) -> str:
        """The words a query may name this document's project by (not a text field)."""
        return project_words(self.project, self.project_label)


def project_words(project: str, label: str = "") -> str:
    """What a query may name a project by: its label, and the last part of its path or id.

    ``/home/me/src/webshop`` → ``webshop``; ``git:github.com/acme/webshop`` → ``webshop``;
    ``claude:-home-me-webshop`` (a Claude Code folder not yet resolved) → ``webshop``.
    """
    if not project:
        return label
    value = project.rstrip("/\\")
    if value.startswith("claude:"):
        last = value.rsplit("-", 1)[-1]
    else:
        last = re.split(r"[/\\:]", value)[-1]
    return " ".join(dict.fromkeys(w for w in (label, last) if w))


def _s(value: Any) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, int | float) and not isinstance(value, bool):
        return str(value)
    return ""


def split_body(body: str) -> tuple[str, str]:
    """``(headings, rest)``: heading texts (outside code fences) and the other lines."""
    heads: list[str] = []
    rest: list[str] = []
    fenced = False
    for line in body.splitlines():
        if _FENCE_RE.match(line):
            fenced = not fenced
            rest.append(line)
            continue
        m = None if fenced else _HEADING_RE.match(line)
        if m:
            heads.append(m.group(1))
        else:
            rest.append(line)
    return "\n".join(heads), "\n".join(rest)


def _always_from_meta(meta: dict[str, Any]) -> bool | None:
    """Rule frontmatter that says "always loaded" (Cursor, Windsurf, Kiro, Continue, Copilot)."""
    if meta.get("alwaysApply") is True:
        return True
    if meta.get("trigger") == "always_on" or meta.get("inclusion") == "always":
        return True
    if meta.get("applyTo") == "**":
        return True
    if meta.get("alwaysApply") is False or meta.get("trigger") in ("manual", "model_decision"):
        return False
    return None


def _gone(meta: Mapping[str, Any]) -> bool:
    """An entry the JavaScript tool treats as gone: deleted, a deleted/hidden/superseded
    status, superseded by another, or no longer valid. (One not valid yet is indexed; a
    hit is judged by the clock when it is shown, ``out_of_window``.)"""
    from memoir_tui.core.rules.scope import is_gone

    if is_gone(meta):
        return True
    end = _date_ms(meta.get("valid_until"))
    return end is not None and end <= time.time_ns() // 1_000_000


def _date_ms(value: Any) -> int | None:
    from memoir_tui.core.format.identity import parse_iso_ms

    end = parse_iso_ms(value) if isinstance(value, str) else None
    if end is None and hasattr(value, "isoformat"):  # YAML read a bare date as a date
        end = parse_iso_ms(value.isoformat())
    return end


def out_of_window(text: str, now_ms: int) -> bool:
    """A file whose frontmatter says it is not valid at ``now_ms`` (FORMAT-LATEST §10:
    ``valid_from`` still ahead, ``valid_until`` now or past). Asked when a hit is shown,
    so a memory that expires (or starts) after it was indexed is judged by the clock."""
    if not text.startswith("---") or "valid_" not in text:
        return False
    window: dict[str, Any] = {}
    for line in text.splitlines()[1:]:  # the frontmatter's top-level keys, read without YAML
        if line.strip() == "---":
            break
        key, sep, value = line.partition(":")
        if sep and key in ("valid_from", "valid_until"):
            window[key] = value.strip().strip("\"'")
    start = _date_ms(window.get("valid_from"))
    end = _date_ms(window.get("valid_until"))
    return (start is not None and now_ms < start) or (end is not None and end <= now_ms)


def doc_from_text(
    path: str,
    text: str,
    *,
    tool: str,
    kind: str,
    project: str,
    always_loaded: bool,
    markdown: bool,
) -> Doc | None:
    """The document for one file, or None when it must never be returned."""
    from memoir_tui.core.format.entry_file import OPAQUE, parse_entry
    from memoir_tui.core.format.frontmatter import split

    entry = parse_entry(Path(path), text)
    meta = entry.meta
    if meta.get("hidden") in (True, "true") or (entry.type == "decision" and meta.get("hidden_at")):
        return None  # memoir's rule (a hidden or purged canonical memory too)
    if _gone(meta):
        return None  # superseded, deleted or past its valid_until (FORMAT-LATEST §10)
    if entry.type in ("goal", "next_action") and meta.get("done_at"):
        return None
    fm, body = split(text)
    body_line = text.count("\n", 0, len(text) - len(body)) if fm is not None else 0
    heads, rest = split_body(body)
    doc_type = entry.type if entry.type != OPAQUE or kind == "memory" else kind
    link = entry.link_name
    if entry.type != OPAQUE and link.startswith(entry.type + "_"):
        link = link[len(entry.type) + 1 :]
    link_words = link.replace("_", " ").replace("-", " ")
    extra = [
        _s(meta.get("why")),
        _s(meta.get("rejected")),
        entry.trigger if entry.trigger != entry.description else "",
        entry.how_to_apply,
    ]
    ident = ""
    if entry.type == "decision":
        from memoir_tui.core.format.identity import text_hash

        ident = text_hash(entry.name)
    always = _always_from_meta(meta) if meta else None
    entry_project = entry.project
    return Doc(
        path=path,
        tool=tool,
        type=doc_type,
        kind=kind,
        name=entry.name,
        link=link_words if link_words.lower() != entry.name.lower() else "",
        description=entry.description,
        rationale=" ".join(p for p in extra if p),
        project=_project_value(entry_project) if entry_project else project,
        # tags are labels the writer chose, like aliases: they weigh as much
        aliases=" ".join([*entry.aliases, *entry.tags]),
        headings=heads,
        body=rest,
        ident=ident,
        always_loaded=always_loaded if always is None else always,
        markdown=markdown,
        body_line=body_line,
        updated=_s(meta.get("updated")) or _s(meta.get("created")),
    )


def _project_value(value: str) -> str:
    """An entry's ``project``: an absolute path is normalised; a name is kept as written."""
    import os

    expanded = os.path.expanduser(value)
    return os.path.normpath(expanded) if os.path.isabs(expanded) else value


def session_docs(session_path: Path) -> tuple[list[Doc], set[str]]:
    """Live working-set items as documents, and the identity hashes of hidden decisions.

    Goes through ``working_set`` (the one place that decides what is live), so
    hidden or purged decisions and completed actions never become documents.
    """
    from memoir_tui.core.format.session import load_session
    from memoir_tui.core.rules.model import working_set

    loaded = load_session(session_path)
    ws = working_set(loaded.state)
    path = str(session_path)
    docs: list[Doc] = []
    for d in ws.decisions:
        lines = [d.text]
        if d.why:
            lines.append(f"why: {d.why}")
        if d.rejected:
            lines.append(f"rejected: {d.rejected}")
        docs.append(
            Doc(
                path=path,
                tool="memoir",
                type="decision",
                kind="session",
                name=d.text,
                link="",
                description="",
                project=_project_value(d.project) if d.project else "",
                rationale="\n".join(p for p in (d.why, d.rejected) if p),
                ident=d.key,
                text="\n".join(lines),
                updated=d.date,
                project_label=d.project_label,
            )
        )
    for kind, items in (
        ("next_action", ws.next_actions),
        ("goal", ws.goals),
        ("question", ws.open_questions),
    ):
        for item in items:
            docs.append(
                Doc(
                    path=path,
                    tool="memoir",
                    type=kind,
                    kind="session",
                    name=item.text,
                    link="",
                    description="",
                    project=_project_value(item.project) if item.project else "",
                    text=item.text,
                    updated=item.date,
                    project_label=item.project_label,
                )
            )
    for h in ws.history:
        # Session summaries are memory too: what was done, where, which files.
        details = []
        if h.files_touched:
            details.append("files: " + ", ".join(h.files_touched))
        if h.duration_min is not None:
            details.append(f"{h.duration_min:g} min on {h.machine_label or 'a machine'}")
        docs.append(
            Doc(
                path=path,
                tool="memoir",
                type="session",
                kind="session",
                name=h.summary,
                link="",
                description="",
                project=_project_value(h.project) if h.project else "",
                body="\n".join(details),
                text="\n".join([h.summary, *details]),
                updated=h.date,
                project_label=h.project_label,
            )
        )
    hidden = {d.key for d in ws.tombstones}
    return docs, hidden
