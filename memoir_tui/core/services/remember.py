"""``memoir_remember``'s service: a new memory file where a host will load it.

The MCP tool (``mcp/tools/remember.py``) is a face over ``remember`` here. What it
decides, from the host-tool data in ``core.adapters``:

* **Where.** ``adapters.guard`` names the one file (``normalise_filename`` turns
  ``Build Notes.md`` into ``build-notes.md``; ``writable_file`` keeps it inside the
  target folder) and refuses a folder the host does not read as memory, naming the
  ones it does.
* **What the host needs to load it.** Activation frontmatter first (Cursor's
  ``alwaysApply: true`` and ``description``, Copilot's ``applyTo: "**"``, Windsurf's
  ``trigger: always_on``, Kiro's ``inclusion: always``, Continue's ``alwaysApply``),
  then memoir's own keys; and, where the host loads an index rather than the folder
  (Claude Code's ``MEMORY.md``), the file's index line, added or updated in the
  same commit as the file (``EntryFiles.create(index=…)``).
* **What the reply says.** Where the host will see it, and where it will not
  (past the index's loaded lines, another project's sessions).

Secrets are refused before anything is staged (and the transaction scans again);
an existing file is never replaced.
"""

from __future__ import annotations

import logging
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from memoir_tui.core.base.errors import EmptyTextError, MemoirError
from memoir_tui.core.rules.reply import Reply

if TYPE_CHECKING:
    from memoir_tui.core.hosts.adapters import Adapter
    from memoir_tui.core.recall import Recall
    from memoir_tui.core.services.entries import EntryFiles

log = logging.getLogger(__name__)

DEFAULT_WRITE_TOOL = "memoir"  # the store's own memory/: synced, recalled everywhere
DEFAULT_ENTRY_TYPE = "fact"
HOOK_CHARS = 150  # an index line's hook, at most

# Frontmatter keys a remembered memory may carry over from the content's own block.
_CARRIED_KEYS = ("description", "why", "rejected", "trigger", "how_to_apply")
_H1_RE = re.compile(r"^#\s+(.+?)\s*#*\s*$", re.MULTILINE)


@dataclass(frozen=True, slots=True)
class IndexLine:
    """A file's line in the index its host loads: ``- [Title](file.md) — hook``."""

    index: Path
    link: str  # the file name the line links to
    line: str


# --- the parts -----------------------------------------------------------------------------


def project_dir(engine: Recall, project: str) -> str:
    """``project`` as a directory memories may be written for: the current project or one
    memoir knows (configured roots, Claude Code's, the store's); a path, home-relative as
    the JavaScript tool takes it, or a known project's name."""
    from memoir_tui.core.hosts.adapters.guard import PathRefused

    current = os.path.normpath(engine.current_project())
    known = {os.path.normpath(p) for p in engine.projects()} | {current}
    expanded = os.path.expanduser(project)
    candidates = [os.path.normpath(os.path.join(str(engine.home), expanded))]
    if os.sep not in project:
        candidates += sorted(p for p in known if os.path.basename(p) == project)
    for candidate in candidates:
        if candidate in known and os.path.isdir(candidate):
            return candidate
    raise PathRefused(
        f"{project}: not a project memoir knows (this server's project is {current}); "
        "add it to [recall] project_roots in memoir-tui.toml to write memories for it"
    )


def strings(values: list[str] | None, what: str) -> list[str]:
    out: list[str] = []
    for value in values or []:
        text = " ".join(str(value).split())
        if text and text not in out:
            out.append(text)
    if len(out) > 50:
        raise MemoirError(f"{what}: at most 50")
    return out


def meta_for(
    content: str, filename: str, *, aliases: list[str], tags: list[str], created: str
) -> tuple[dict[str, Any], str]:
    """Frontmatter and body: the content's own block (if any) read for type, name and
    description; the type defaults to fact, the name to the first heading or the file name."""
    from memoir_tui.core.format import frontmatter
    from memoir_tui.core.format.entry_file import ENTRY_TYPES, LEGACY_TYPES, new_entry_meta

    parsed = frontmatter.parse(content)
    if parsed.error:
        raise MemoirError(f"content: {parsed.error}")
    meta, body = parsed.meta, parsed.body
    if not body.strip():
        raise EmptyTextError("content is empty: nothing to remember")
    raw_type = meta.get("type")
    entry_type = DEFAULT_ENTRY_TYPE
    if isinstance(raw_type, str) and raw_type in ENTRY_TYPES:
        entry_type = raw_type
    elif isinstance(raw_type, str) and LEGACY_TYPES.get(raw_type) in ENTRY_TYPES:
        entry_type = LEGACY_TYPES[raw_type]
    name = given_name if isinstance(given_name := meta.get("name"), str) else ""
    if not name.strip():
        heading = _H1_RE.search(body)
        stem = filename.split(".", 1)[0]
        name = heading.group(1) if heading else stem.replace("_", " ").replace("-", " ")
    extra: dict[str, Any] = {
        key: meta[key] for key in _CARRIED_KEYS if isinstance(meta.get(key), str) and meta[key]
    }
    for key, given in (("aliases", aliases), ("tags", tags)):
        own = meta.get(key)
        merged = list(given)
        for value in own if isinstance(own, list) else [own] if isinstance(own, str) else []:
            if isinstance(value, str) and value.strip() and value.strip() not in merged:
                merged.append(value.strip())
        if merged:
            extra[key] = merged
    entry = new_entry_meta(entry_type, " ".join(name.split()), created=created, **extra)
    return entry, body if body.endswith("\n") else body + "\n"


def hook_of(meta: dict[str, Any], body: str) -> str:
    """One line saying what the memory is: its description, else its first line of text."""
    description = meta.get("description")
    text = description if isinstance(description, str) and description.strip() else ""
    if not text:
        lines = [line.strip() for line in body.splitlines() if line.strip()]
        prose = [line for line in lines if not line.startswith("#")] or lines
        text = prose[0].lstrip("#>*-").strip() if prose else ""
    text = " ".join(text.split())
    if len(text) > HOOK_CHARS:
        text = text[: HOOK_CHARS - 1].rstrip() + "…"
    return text


def for_host(adapter: Adapter, meta: dict[str, Any], body: str) -> tuple[dict[str, Any], str]:
    """The frontmatter and body the host needs to load the file: its activation keys first.

    A key of the content's own that the host reads otherwise (a lesson's ``trigger`` in a
    Windsurf rule) keeps its text in the body instead, so nothing said is lost."""
    host: dict[str, Any] = {}
    if adapter.write_description:
        own = meta.get("description")
        host["description"] = own if isinstance(own, str) and own.strip() else hook_of(meta, body)
    for key, value in adapter.write_meta:
        host[key] = value
        own = meta.get(key)
        if own is not None and own != value:
            body = f"**{key.replace('_', ' ').capitalize()}:** {own}\n\n{body}"
    return {**host, **{k: v for k, v in meta.items() if k not in host}}, body


def index_line(adapter: Adapter, target: Path, meta: dict[str, Any], body: str) -> IndexLine:
    title = " ".join(str(meta.get("name") or target.stem).split())
    title = title.replace("\\", "\\\\").replace("[", "\\[").replace("]", "\\]")
    hook = hook_of(meta, body)
    line = f"- [{title}]({target.name})" + (f" — {hook}" if hook else "")
    assert adapter.write_index is not None
    return IndexLine(target.parent / adapter.write_index, target.name, line)


def _linked(line: str, link: str) -> bool:
    match = re.match(r"^\s*[-*+]\s+\[(?:[^\]\\]|\\.)*\]\(\s*<?(?:\./)?([^)>\s]+)>?", line)
    return match is not None and match.group(1) == link


def with_index_line(text: str, entry: IndexLine) -> str:
    """``text`` (an index, maybe empty) with ``entry``'s line: the first line linking the
    same file is replaced, later ones dropped, else the line is appended."""
    lines = text.splitlines()
    out: list[str] = []
    placed = False
    for line in lines:
        if _linked(line, entry.link):
            if not placed:
                out.append(entry.line)
                placed = True
            continue
        out.append(line)
    if not placed:
        out.append(entry.line)
    return "\n".join(out) + "\n"


def index_position(adapter: Adapter, text: str, link: str) -> tuple[int, bool]:
    """(1-based line of ``link``'s index line, whether the host loads all of it: within
    its first ``write_index_limit`` lines and bytes); (0, False) when it is not there."""
    size = 0
    for number, line in enumerate(text.splitlines(keepends=True), start=1):
        size += len(line.encode("utf-8"))
        if _linked(line, link):
            if adapter.write_index_limit is None:
                return number, True
            max_lines, max_bytes = adapter.write_index_limit
            return number, number <= max_lines and size <= max_bytes
    return 0, False


# --- the service ---------------------------------------------------------------------------


def remember(
    entries: EntryFiles,
    engine: Recall,
    content: str,
    filename: str,
    tool: str | None = None,
    project: str | None = None,
    aliases: list[str] | None = None,
    tags: list[str] | None = None,
    *,
    tool_name: str | None = None,
) -> Reply:
    """Write a new memory file for ``tool_name`` (an adapter name; ``tool`` as given is
    for messages only) and say where its host will and will not see it."""
    from memoir_tui.core.door.transaction import FileExistsRefusal
    from memoir_tui.core.format.frontmatter import render
    from memoir_tui.core.format.secrets import ensure_no_secrets
    from memoir_tui.core.hosts.adapters import MAX_FILE_BYTES, get_adapter
    from memoir_tui.core.hosts.adapters.guard import normalise_filename

    if not isinstance(content, str) or not content.strip():
        raise EmptyTextError("content is empty: nothing to remember")
    from memoir_tui.core.format.textsafe import clean_input

    # a markdown file: its lines are kept; control and bidi characters never go in
    content = clean_input(content, lines=True)
    alias_list = strings(aliases, "aliases")
    tag_list = strings(tags, "tags")
    # secrets first: nothing below may carry one to disk (a refusal names the rule only)
    ensure_no_secrets(content, "content")
    ensure_no_secrets(filename if isinstance(filename, str) else "", "filename")
    ensure_no_secrets("\n".join(alias_list), "aliases")
    ensure_no_secrets("\n".join(tag_list), "tags")
    name = normalise_filename(filename)

    tool_name = tool_name or DEFAULT_WRITE_TOOL
    adapter = get_adapter(tool_name)
    tool_name = adapter.name  # any alias (the one resolver) names its adapter
    project = project.strip() if isinstance(project, str) and project.strip() else None
    where_dir = project_dir(engine, project) if project else None
    if tool_name == "memoir":
        # the store's memory/ is one directory: a project memory says so in its frontmatter
        target = engine.write_target(tool_name, name)
        owner = where_dir
    elif where_dir is None and "<project>" in (adapter.write_project or ""):
        # as the JavaScript tool: Claude Code's "global" memory is the home directory's project
        target = engine.write_target(tool_name, name, project=engine.home)
        owner = str(engine.home)
    else:
        target = engine.write_target(tool_name, name, project=where_dir)
        owner = where_dir
    # a name without a heading or frontmatter comes from the file name as it was given
    given = filename.strip()
    given = given[: -len(".md")] if given.lower().endswith(".md") else given
    meta, body = meta_for(
        content, given, aliases=alias_list, tags=tag_list, created=entries.store.clock()
    )
    if tool_name == "memoir" and where_dir:
        meta["project"] = where_dir
    meta, body = for_host(adapter, meta, body)
    document = render(meta, body)
    ensure_no_secrets(document, "the memory")
    if len(document.encode("utf-8")) > MAX_FILE_BYTES:
        raise MemoirError(f"the memory is larger than {MAX_FILE_BYTES // 1024} KB")
    index = index_line(adapter, target, meta, body) if adapter.write_index else None
    try:
        # one door: locked, atomic, audited; refused if the name exists, even if it appears;
        # the host's index line in the same commit
        entries.create(
            target,
            meta,
            body,
            op="remember",
            suffix=adapter.write_suffix,
            index=(index.index, lambda old: with_index_line(old, index)) if index else None,
        )
    except FileExistsRefusal:
        raise MemoirError(
            f"{target} already exists; memoir_remember never replaces a file. "
            "Choose another filename (memoir_read shows the existing one)."
        ) from None
    changed = [target, *([index.index] if index else [])]
    engine.notify_changed(changed)
    log.info("remembered %s", target)
    return Reply(_reply(engine, adapter, target, meta, index, owner, filename, name))


def _reply(
    engine: Recall,
    adapter: Adapter,
    target: Path,
    meta: dict[str, Any],
    index: IndexLine | None,
    owner: str | None,
    given: str,
    name: str,
) -> str:
    details = [f"type {meta['type']}", f'name "{meta["name"]}"']
    if meta.get("aliases"):
        details.append("aliases " + ", ".join(meta.get("aliases", [])))
    if meta.get("tags"):
        details.append("tags " + ", ".join(meta["tags"]))
    activation = [f"{k}: {v}" for k, v in adapter.write_meta]
    if activation:
        details.append("frontmatter " + ", ".join(activation))
    where = f"{adapter.label}" + (f", project {owner}" if owner else "")
    parts = [f"Remembered in {target} ({where}): {'; '.join(details)}."]
    if given.strip() != name and given.strip() + ".md" != name:
        parts.append(f'The file name "{given.strip()}" was written as {name}.')
    if adapter.write_loads:
        scope = (
            "every project"
            if owner is None
            else owner
            if adapter.write_index
            else f"project {owner}"
        )
        parts.append(adapter.write_loads.format(where=scope) + ".")
    if index is not None:
        try:
            from memoir_tui.core.base.safeio import read_text_safely

            text = read_text_safely(index.index, max_bytes=64 * 1024 * 1024)
        except OSError:
            text = ""
        number, loaded = index_position(adapter, text, index.link)
        if loaded:
            parts.append(f"This file is listed there ({index.index.name} line {number}).")
        else:
            lines, size = adapter.write_index_limit or (0, 0)
            parts.append(
                f"It is listed at line {number} of {index.index}, past the first {lines} lines "
                f"or {size // 1024} KB the host loads: it will not see this file until the "
                "index is shortened."
            )
    in_scope = any(e.path == str(target) for e in engine.entries(tools=[adapter.name]))
    parts.append(
        "memoir_recall finds it now."
        if in_scope
        else "It is outside this server's project scope: memoir_recall finds it with "
        "all_projects=true."
    )
    return " ".join(parts)
