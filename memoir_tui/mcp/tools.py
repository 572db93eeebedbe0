"""The MCP tools: the core's answers (``core.answers``) as typed MCP results.

The CLI verbs and these tools say the same things; the words and the choices
live in ``core.answers``. This module only adds what MCP clients get besides
the text: pydantic models with descriptions, from which the SDK publishes each
tool's output schema. Every read goes through the store's views, so no reply
can show a tombstone as live.
"""

from __future__ import annotations

from memoir_tui.core import answers
from memoir_tui.core.answers import Reply, package_version, refusal_text
from memoir_tui.mcp.schema import model_for

# The published output schemas: each built once from its core dataclass.
StatusView = model_for(answers.StatusView)
SessionView = model_for(answers.SessionView)
WhyView = model_for(answers.WhyView)
ResumeView = model_for(answers.ResumeView)
ReviewView = model_for(answers.ReviewView)

status = answers.status
session = answers.session
why = answers.why
resume = answers.resume
review_list = answers.review_list

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
