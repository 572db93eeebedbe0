"""``memoir_read``: the whole of one memory file, only from a host tool's own files."""

from __future__ import annotations

import os
import re
from typing import TYPE_CHECKING, Annotated

from pydantic import Field

from memoir_tui.core import EmptyTextError, MemoirError, Reply, withhold_lines
from memoir_tui.mcp.runtime import READ_ONLY, Runtime
from memoir_tui.mcp.warm_recall import WarmRecall, resolve_tool

if TYPE_CHECKING:
    from memoir_tui.core import Adapter, Memoir, Recall


def _read_candidates(engine: Recall, adapter: Adapter, raw: str) -> list[str]:
    """Absolute paths to try for ``raw``: itself, or relative to the tool's directories."""
    from memoir_tui.core import PathRefused

    if "\0" in raw:
        raise PathRefused("a path cannot contain NUL")
    if ".." in re.split(r"[\\/]", raw):
        raise PathRefused(f"{raw}: '..' is not allowed; give the path memoir_recall returned")
    expanded = os.path.expanduser(raw)
    if os.path.isabs(expanded):
        return [expanded]
    # the JavaScript tool takes a path relative to the tool's directory; try its
    # global directories, then the current project (the guard decides either way)
    bases = [str(p) for p in adapter.global_dirs(engine.home, engine.env, engine.store_root)]
    bases.append(engine.current_project())
    return [os.path.join(base, expanded) for base in bases]


def read(
    store: Memoir,
    warm: WarmRecall,
    tool: str,
    filepath: str | None = None,
    path: str | None = None,
) -> Reply:
    from memoir_tui.core import PathRefused, get_adapter

    tool_name = resolve_tool(tool)
    if tool_name is None:
        raise EmptyTextError("tool is empty: name the tool whose file to read")
    if filepath and path and filepath != path:
        raise MemoirError("give filepath or path, not two different paths")
    raw = filepath or path
    if raw is None or not raw.strip():
        raise EmptyTextError("filepath is empty: give a path memoir_recall or memoir_list returned")
    engine = warm.get()
    refusal: PathRefused | None = None
    for candidate in _read_candidates(engine, get_adapter(tool_name), raw.strip()):
        try:
            found, text = engine.read(tool_name, candidate)
        except PathRefused as err:
            refusal = refusal or err
            continue
        _refuse_forgotten(store, found, text, tool_name)
        text = withhold_lines(text)[0]  # never hands a secret on, whoever wrote it there
        return Reply(f"── {tool_name} / {found} ──\n\n{text}")
    assert refusal is not None
    raise refusal


def _refuse_forgotten(store: Memoir, path: str, text: str, tool: str) -> None:
    """A forgotten decision or a completed action is never returned, by path either."""
    from memoir_tui.core import PathRefused, doc_from_text, text_hash

    doc = doc_from_text(
        path, text, tool=tool, kind="memory", project="", always_loaded=False, markdown=True
    )
    forgotten = doc is None
    if not forgotten and doc.type == "decision":
        hidden = {d.key for d in store.working_set(all_projects=True).tombstones}
        forgotten = text_hash(doc.name) in hidden
    if forgotten:
        raise PathRefused(f"{path}: a forgotten decision or a completed action; not returned")


def register(rt: Runtime) -> None:
    @rt.tool("Read a memory file", READ_ONLY, structured_output=False)
    def memoir_read(
        tool: Annotated[
            str, Field(description='The file\'s tool: "claude", "cursor", "memoir", …')
        ],
        filepath: Annotated[
            str | None,
            Field(
                description="The file: the absolute path memoir_recall or memoir_list returned, "
                "or a path relative to the tool's directory"
            ),
        ] = None,
        path: Annotated[str | None, Field(description="Same as filepath")] = None,
    ) -> str:
        """Read the whole of one memory file. Only the tool's own memory, rules and
        instruction files are readable: never a path outside its directories, another
        file type, a credentials or settings file, or a symlink leading out."""
        return rt.plain(read, rt.warm, tool, filepath, path)
