"""``memoir_recall``: ranked passages from every AI tool's memory files and this store."""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Annotated

from mcp.server.mcpserver import Context
from mcp.types import CallToolResult
from pydantic import Field

from memoir_tui.core import PassageOut, RecallView, Reply, shown_text, withhold_lines
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

RECALL_DEFAULT_LIMIT = 8
RECALL_MAX_LIMIT = 30
PASSAGE_BUDGET = 700  # bytes per passage (the default)

RecallModel = model_for(RecallView)  # the published output schema


def _why_text(why: dict[str, list[str]]) -> str:
    return "; ".join(f"{field} {', '.join(terms)}" for field, terms in why.items())


def _where(hit: PassageOut) -> str:
    if not hit.lines:
        return hit.path
    first, last = hit.lines[0][0], hit.lines[-1][1]
    return f"{hit.path}:{first}" + (f"-{last}" if last != first else "")


def _withheld_passage(hit: PassageOut) -> PassageOut:
    """The passage with every line a secret touches shown as withheld, and the name (a
    session item's name is its text) too."""
    return replace(hit, passage=withhold_lines(hit.passage)[0], name=shown_text(hit.name))


def recall(
    store: Memoir,
    warm: WarmRecall,
    query: str,
    limit: int = RECALL_DEFAULT_LIMIT,
    tool: str | None = None,
    project: str | None = None,
    all_projects: bool = False,
    type: str | None = None,
    since: str | None = None,
) -> Reply:
    from memoir_tui.core import clean_needle, shown

    query = clean_needle(query, "query")  # a needle, not a write: any text
    echoed = shown(query)  # never echoed as typed: a pasted token shows as [REDACTED:…]
    type_name = text_arg(type)
    since = text_arg(since)
    limit = max(1, min(int(limit), RECALL_MAX_LIMIT))
    tool_name = resolve_tool(tool)
    project = text_arg(project)
    from memoir_tui.core import elsewhere_hint

    engine, complete = warm.current()
    tools_filter = [tool_name] if tool_name else None
    hits = engine.search(
        query,
        limit=limit,
        tools=tools_filter,
        project=project,
        all_projects=all_projects,
        budget=PASSAGE_BUDGET,
        refresh=complete,
        types=[type_name] if type_name else None,
        since=since,
    )
    searched = scope = scope_label(engine, project, all_projects)  # data: without "since"
    building = "" if complete else building_note(engine)
    shown_hits = [_withheld_passage(PassageOut(**hit.to_json())) for hit in hits]
    where = f"{tool_name}'s files in " if tool_name else ""
    if type_name:
        where = f"{type_name} items of {where or ''}"
    if since:
        scope += f", changed since {since}"
    if not hits:
        hint = ""
        counts: dict[str, int] = {}
        if not all_projects:
            counts = engine.count_elsewhere(query, tools=tools_filter, project=project)
            hint = f"; {elsewhere_hint(counts, cli=False)}" if counts else ""
        data = RecallView(
            query=echoed,
            scope=searched,
            hits=[],
            complete=complete,
            note=building,
            elsewhere=counts,
        )
        text = f'Nothing found for "{echoed}" in {where}{scope}{hint}.'
        return Reply(f"{text}\n{building}" if building else text, data)
    data = RecallView(
        query=echoed, scope=searched, hits=shown_hits, complete=complete, note=building
    )
    lines = [f'{len(hits)} passage(s) for "{echoed}", best first ({where}{scope}):']
    if building:
        lines.insert(0, building)
    for number, hit in enumerate(data.hits, start=1):
        lines += [
            "",
            f"{number}. {hit.name}  [{hit.tool} · {hit.type}]  score {hit.score:.2f}",
            f"   {_where(hit)}",
            f"   matched: {_why_text(hit.why)}",
            *(f"   │ {line}" for line in hit.passage.splitlines()),
        ]
    lines += ["", "memoir_read(tool, filepath) returns a whole file."]
    return Reply("\n".join(lines), data)


def register(rt: Runtime) -> None:
    @rt.tool("Recall from memory", READ_ONLY)
    def memoir_recall(
        query: Annotated[str, Field(description="Keywords or topic to look for in memories")],
        limit: Annotated[int, Field(ge=1, le=30, description="Passages to return (1–30)")] = 8,
        tool: Annotated[
            str | None, Field(description='Only this tool\'s files: "claude", "cursor", …')
        ] = None,
        project: Annotated[
            str | None,
            Field(description="Search this project (path or name) instead of the current one"),
        ] = None,
        all_projects: Annotated[
            bool, Field(description="Search every project, not just the current one")
        ] = False,
        type: Annotated[
            str | None,
            Field(description='Only this type: "decision", "fact", "lesson", "rules", …'),
        ] = None,
        since: Annotated[
            str | None,
            Field(description='Only what changed since: "7d", "12h", "2026-05-01"'),
        ] = None,
        ctx: Context | None = None,
    ) -> Annotated[CallToolResult, RecallModel]:
        """Search every AI tool's memory, rules and instruction files and this store for what
        is known about a topic: ranked passages (best first) with file, tool, type, score
        and why each matched; the newer of equal matches first. Global files and the
        current project's are searched; forgotten decisions and completed actions are
        never returned."""
        if ctx is not None:
            rt.recall_roots(ctx)
        return rt.structured(
            recall, rt.warm, query, limit, tool, project, all_projects, type, since
        )
