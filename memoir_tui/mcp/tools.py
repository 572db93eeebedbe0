"""The MCP tools: the core's answers (``core.answers``) as typed MCP results.

The CLI verbs and these tools say the same things; the words and the choices
live in ``core.answers``. This module only adds what MCP clients get besides
the text: pydantic models with descriptions, from which the SDK publishes each
tool's output schema. Every read goes through the store's views, so no reply
can show a tombstone as live.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict
from typing import Any, TypeVar

from pydantic import BaseModel, Field

from memoir_tui.core import answers
from memoir_tui.core.answers import package_version, refusal_text
from memoir_tui.core.memoir import Memoir
from memoir_tui.core.reply import Reply

# --- structured output -------------------------------------------------------------


class ItemOut(BaseModel):
    """A goal, next action or open question."""

    text: str
    date: str = Field(description="ISO date-time it was set, added or asked")
    machine: str = Field(description="label of the machine that recorded it")
    project: str = Field(default="", description="its project (folder or remote); '' = global")


class DecisionOut(BaseModel):
    """A visible decision (forgotten ones are never listed)."""

    text: str
    why: str = ""
    rejected: str = ""
    date: str = ""
    machine: str = ""
    project: str = Field(default="", description="its project (folder or remote); '' = global")


class ScopeOut(BaseModel):
    """Which project an answer covers, and what it leaves out."""

    project: str | None = Field(description="the project answered for; null: every project")
    other_projects: int = Field(
        description="live goals, next actions, questions and decisions other projects hold "
        "that this answer leaves out (all_projects=true shows them)"
    )


class SessionOut(BaseModel):
    """A past work session from the history, newest first."""

    date: str
    machine: str
    summary: str
    files_touched: list[str] = []
    duration_min: float | None = None


class MachineOut(BaseModel):
    label: str
    last_seen: str


class SessionView(BaseModel):
    """The live working set: goals, next actions, open questions, decisions, history."""

    goals: list[ItemOut]
    next_actions: list[ItemOut]
    open_questions: list[ItemOut]
    decisions: list[DecisionOut] = Field(description="newest visible decisions shown")
    decisions_total: int = Field(description="how many visible decisions the store holds")
    history: list[SessionOut]
    machines: list[MachineOut]
    scope: ScopeOut
    notice: str | None = None


class WhyView(BaseModel):
    query: str
    decisions: list[DecisionOut]
    scope: ScopeOut
    other_projects_matching: int = Field(
        default=0, description="decisions of other projects that match but are left out"
    )


class ResumeView(BaseModel):
    """A compact hand-off for the next session."""

    project: str | None = None
    goals: list[ItemOut]
    next_actions: list[ItemOut]
    open_questions: list[ItemOut]
    decisions: list[DecisionOut]
    sessions: list[SessionOut]
    notice: str | None = None


class StatusView(BaseModel):
    version: str
    store: str
    session_file: bool = Field(description="whether session.json exists yet")
    read_only: bool = Field(description="the session is from a newer format; writes refused")
    lock_held: bool = Field(description="a session.json.lock file exists right now")
    config_file: str | None = Field(description="memoir-tui.toml in use, or null for defaults")
    machine_id: str | None = Field(description="this machine's UUID, null until the first write")
    machine_label: str
    counts: dict[str, int]
    caps: dict[str, int]
    scope: ScopeOut
    notice: str | None = None


class CandidateOut(BaseModel):
    """A captured candidate decision waiting for review."""

    id: str = Field(description="short id; any unique prefix of 4+ characters works")
    text: str
    source: str = Field(description="'user' or 'assistant': who said it in the transcript")
    extractor: str
    session_id: str
    timestamp: str
    project: str
    badges: list[str]
    near_hidden: str | None = Field(
        default=None, description="a forgotten decision this one resembles, if any"
    )


class ReviewView(BaseModel):
    candidates: list[CandidateOut]
    total: int
    notice: str | None = Field(
        default=None, description="the queue file is damaged or from a newer version"
    )
    elsewhere: int = Field(
        default=0, description="candidates of other projects left out (all_projects shows them)"
    )


M = TypeVar("M", bound=BaseModel)


def _typed(model: type[M], answer: Callable[..., Reply]) -> Callable[..., Reply]:
    """The core's answer with its data as ``model`` (the tool's published output schema)."""

    def tool(store: Memoir, *args: Any) -> Reply:
        reply = answer(store, *args)
        return Reply(reply.text, model.model_validate(asdict(reply.data)))

    tool.__name__ = answer.__name__
    return tool


status = _typed(StatusView, answers.status)
session = _typed(SessionView, answers.session)
why = _typed(WhyView, answers.why)
resume = _typed(ResumeView, answers.resume)
review_list = _typed(ReviewView, answers.review_list)

set_goal = answers.set_goal
add_next = answers.add_next
complete_next = answers.complete_next
ask = answers.ask
note = answers.note
forget = answers.forget
review_pin = answers.review_pin
review_reject = answers.review_reject
consolidate_report = answers.consolidate_report
sync_status_report = answers.sync_status_report

__all__ = [
    "Reply",
    "ResumeView",
    "ReviewView",
    "SessionView",
    "StatusView",
    "WhyView",
    "add_next",
    "ask",
    "complete_next",
    "consolidate_report",
    "forget",
    "note",
    "package_version",
    "refusal_text",
    "resume",
    "review_list",
    "review_pin",
    "review_reject",
    "session",
    "set_goal",
    "status",
    "sync_status_report",
    "why",
]
