"""The review dialogs: pinning a candidate (with its edits) and a candidate in full."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from rich.console import RenderableType
from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.widgets import Input, Label, Static

from memoir_tui.core import (
    CANDIDATE,
    Memoir,
    MemoirError,
    NearHidden,
    ReviewItem,
    TranscriptContext,
    context_around,
    day_or_raw,
    review,
)
from memoir_tui.dialogs.base import DetailScreen
from memoir_tui.dialogs.forms import DecisionFieldsDialog, form_buttons
from memoir_tui.ui.fields import (
    field_grid,
    home_relative,
)
from memoir_tui.ui.latest_read import LatestRead
from memoir_tui.widgets.item_table import (
    long_date,
)


@dataclass(frozen=True, slots=True)
class PinDraft:
    text: str
    why: str
    rejected: str


def near_hidden_text(match: NearHidden) -> str:
    if match.purged:
        return f"a purged decision (the same text; only its hash remains) · score {match.score:.0f}"
    hidden = f" · hidden {long_date(match.hidden_at)}" if match.hidden_at else ""
    return f"the forgotten decision {match.text!r} · score {match.score:.0f}{hidden}"


def candidate_details(
    item: ReviewItem, colours: dict[str, str] | None = None, label: str = ""
) -> Table:
    """A candidate with its full provenance, for the detail and confirm dialogs."""
    warning = (colours or {}).get("text-warning", "yellow")
    who = (
        "assistant (what the assistant said)" if item.assistant_sourced else "user (what you said)"
    )
    full = item.project_label if item.project_label != label else ""
    project = " · ".join(p for p in (label, full) if p) or item.project
    rows: list[tuple[str, RenderableType]] = [
        ("Text", item.text),
        ("Badges", " ".join(item.badges)),
        ("Source", who),
        ("Rule", item.extractor or "—"),
        ("Said at", long_date(item.timestamp) or "—"),
        ("Session", item.session_id or "—"),
        ("Transcript", home_relative(item.transcript) or "—"),
        ("Project", project or "— (global)"),
        ("Captured", long_date(item.captured_at) or "—"),
    ]
    if item.state != CANDIDATE:
        when = item.pinned_at if item.state == review.PINNED else item.rejected_at
        rows.append(("State", f"{item.state} {long_date(when)}".strip()))
    if item.near_hidden is not None:
        rows.append(("Near-hidden", Text(near_hidden_text(item.near_hidden), style=warning)))
    rows.append(("Id", Text(item.id, style="dim")))
    return field_grid(rows)


class PinCandidateScreen(DecisionFieldsDialog[PinDraft | None]):
    """Pin a candidate as a decision: edit its wording, add why and what was rejected.

    | Key(s) | Description |
    | :- | :- |
    | enter | Next field; pin from the last one. |
    | ctrl+s | Pin. |
    | escape | Cancel. |
    """

    def __init__(self, item: ReviewItem) -> None:
        super().__init__()
        self.item = item

    def compose(self) -> ComposeResult:
        item = self.item
        said = day_or_raw(item.timestamp or item.captured_at)
        facts = " · ".join(
            p
            for p in (" ".join(item.badges), item.extractor and f"rule {item.extractor}", said)
            if p
        )
        with VerticalScroll(id="dialog"):
            yield Label("Pin this candidate as a decision", classes="dialog--title")
            yield Static(facts, classes="dialog--hint", markup=False)
            if item.near_hidden is not None:
                yield Static(
                    f"Close to {near_hidden_text(item.near_hidden)}. Pinning it will need an "
                    "explicit confirmation.",
                    classes="dialog--warning",
                    markup=False,
                )
            yield from self.decision_fields(
                "Decision (edit the wording if needed)",
                Input(value=item.text, id="text", select_on_focus=False),
            )
            yield form_buttons("Pin (ctrl+s)")

    def action_save(self) -> None:
        values = self.decision_values()
        if values is not None:
            self.dismiss(PinDraft(*values))


class CandidateDetailScreen(DetailScreen):
    """A candidate with its full provenance (read-only).

    | Key(s) | Description |
    | :- | :- |
    | escape, enter, q | Close. |
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,enter,q", "close", "Close", id="review_detail.close"),
    ]

    def __init__(
        self, item: ReviewItem, colours: dict[str, str] | None = None, label: str = ""
    ) -> None:
        super().__init__()
        self.item = item
        self.colours = colours
        self.project_text = label

    def detail_title(self) -> str:
        if self.item.state == CANDIDATE:
            return "Candidate"
        return f"Review history ({self.item.state})"

    def detail_body(self) -> RenderableType:
        return candidate_details(self.item, self.colours, self.project_text)

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="dialog"):
            yield Label(self.detail_title(), classes="dialog--title", markup=False)
            with VerticalScroll(classes="dialog--body"):
                yield Static(self.detail_body(), id="detail-body")
                yield Label("Conversation", classes="dialog--label")
                yield Static("reading the transcript…", id="candidate-context", markup=False)
            yield Label("esc closes", classes="dialog--hint")

    def on_mount(self) -> None:
        store = getattr(self.app, "store", None)
        item = self.item
        self._conversation: LatestRead[TranscriptContext] = LatestRead(
            self, "candidate-context", self._show_context
        )
        self._conversation.start(lambda: conversation_of(store, item))

    def _show_context(self, context: TranscriptContext) -> None:
        self.query_one("#candidate-context", Static).update(conversation_text(context))


def conversation_of(store: Memoir | None, item: ReviewItem) -> TranscriptContext:
    """The messages around the candidate in its transcript (its message id is read from
    the queue file; core.transcript_context reads the transcript the safe way)."""
    uuid = ""
    if store is not None:
        try:
            loaded = store.review.load()
            for raw in review.well_formed_review_items(loaded.state.get("items")):
                if review.item_key(raw) == item.id:
                    value = raw.get("message_uuid")
                    uuid = value if isinstance(value, str) else ""
                    break
        except (MemoirError, OSError):
            uuid = ""
    return context_around(item.transcript, uuid, item.text)


def conversation_text(context: TranscriptContext) -> Text:
    """The messages, the candidate's marked ``▶``; or the sentence saying why none."""
    out = Text()
    for line in context.lines:
        who = "you" if line.source == "user" else "assistant"
        out.append("▶ " if line.here else "  ", "bold")
        out.append(f"{who}: ", "bold" if line.here else "dim")
        out.append(line.text + "\n", "" if line.here else "dim")
    if context.note:
        out.append(context.note, "italic dim")
    return out


# --- the pane ---------------------------------------------------------------------------------
