"""``memoir_list``: the memory, rules and instruction files of every detected AI tool."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

from mcp.types import CallToolResult
from pydantic import Field

from memoir_tui.core import EntryOut, ListView, Reply
from memoir_tui.mcp.runtime import READ_ONLY, Runtime
from memoir_tui.mcp.schema import model_for
from memoir_tui.mcp.warm_recall import (
    WarmRecall,
    building_note,
    resolve_tool,
    scope_label,
    text_arg,
)

if TYPE_CHECKING:
    from memoir_tui.core import Memoir

LIST_SHOWN = 200

ListModel = model_for(ListView)  # the published output schema


def list_entries(
    store: Memoir,
    warm: WarmRecall,
    tool: str | None = None,
    project: str | None = None,
    all_projects: bool = False,
) -> Reply:
    from memoir_tui.core import BY_NAME

    tool_name = resolve_tool(tool)
    project = text_arg(project)
    engine, complete = warm.current()
    found = [
        e
        for e in engine.entries(
            tools=[tool_name] if tool_name else None,
            project=project,
            all_projects=all_projects,
            refresh=complete,
        )
        if e.kind != "session"  # working-set items: memoir_session lists those
    ]
    by_tool: dict[str, int] = {}
    for e in found:
        by_tool[e.tool] = by_tool.get(e.tool, 0) + 1
    shown = [EntryOut(**e.to_json()) for e in found[:LIST_SHOWN]]
    scope = scope_label(engine, project, all_projects)
    data = ListView(tool=tool_name, scope=scope, total=len(found), by_tool=by_tool, entries=shown)
    building = "" if complete else building_note(engine)
    if not found:
        what = f"{tool_name} memory files" if tool_name else "memory files"
        text = f"No {what} found ({scope})."
        return Reply(f"{text}\n{building}" if building else text, data)
    lines = [f"Memory files ({len(found)} total; {scope}):"]
    if building:
        lines.insert(0, building)
    current = None
    for e in shown:
        if e.tool != current:
            current = e.tool
            label = BY_NAME[e.tool].label if e.tool in BY_NAME else e.tool
            lines += ["", f"{label} — {e.tool} ({by_tool[e.tool]} files)"]
        extras = [e.type]
        if e.always_loaded:
            extras.append("always loaded")
        if e.project:
            extras.append(f"project {e.project}")
        line = f"- {e.name} [{', '.join(extras)}]"
        if e.description:
            line += f" — {e.description}"
        lines += [line, f"  {e.path}"]
    if len(found) > len(shown):
        lines += ["", f"({len(found) - len(shown)} more: pass tool=… to narrow the list)"]
    return Reply("\n".join(lines), data)


def register(rt: Runtime) -> None:
    @rt.tool("List memory files", READ_ONLY)
    def memoir_list(
        tool: Annotated[
            str | None,
            Field(description='Only this tool: "claude", "cursor", "memoir", …; empty for all'),
        ] = None,
        project: Annotated[
            str | None, Field(description="List this project's files (path or name)")
        ] = None,
        all_projects: Annotated[bool, Field(description="List every project's files")] = False,
    ) -> Annotated[CallToolResult, ListModel]:
        """List the memory, rules and instruction files of every detected AI tool, by
        tool: name, type, description and absolute path (global files and the current
        project's)."""
        return rt.structured(list_entries, rt.warm, tool, project, all_projects)
