"""Hypothesis strategies for sessions whose identities and dates collide often."""

from __future__ import annotations

from hypothesis import strategies as st

from memoir_tui.core.identity import iso_from_ms, text_hash

TEXTS = [
    "Use SQLite",
    "use sqlite ",
    "Ship the TUI",
    "ship the tui",
    "Write tests",
    "Fix lock",
    "Add sync",
]
BASE_MS = 1_780_000_000_000
DATES = [iso_from_ms(BASE_MS + i * 60_000) for i in range(6)] + ["", "not a date", "2026-13-45"]
MACHINES = ["m-aaaa", "m-bbbb", "m-cccc"]

texts = st.sampled_from(TEXTS)
dates = st.sampled_from(DATES)
maybe_date = st.one_of(st.none(), dates)
extra = st.dictionaries(st.sampled_from(["x_note", "x_rank"]), st.integers(0, 3), max_size=1)


def _item(date_field: str):
    return st.builds(
        lambda text, date, machine, more: {
            "text": text,
            **({date_field: date} if date is not None else {}),
            "machine_id": machine,
            **more,
        },
        texts,
        maybe_date,
        st.sampled_from(MACHINES),
        extra,
    )


@st.composite
def decisions(draw):
    text = draw(texts)
    d = {"text": text, "machine_id": draw(st.sampled_from(MACHINES))}
    date = draw(maybe_date)
    if date is not None:
        d["date"] = date
    if draw(st.booleans()):
        d["why"] = draw(st.sampled_from(["fast", "simple", "safe"]))
    kind = draw(st.sampled_from(["live", "live", "hidden", "purged"]))
    if kind in ("hidden", "purged"):
        d["hidden"] = True
        d["hidden_at"] = draw(dates)
    if kind == "purged":
        d = {k: v for k, v in d.items() if k not in ("why", "rejected")}
        d["text_hash"] = text_hash(text)
        d["text"] = "[purged]"
    d.update(draw(extra))
    return d


completed = st.builds(lambda t, d: {"text": t, "done_at": d}, texts, dates)
history = st.builds(
    lambda d, m, s: {"date": d, "machine_id": m, "summary": s, "files_touched": []},
    dates,
    st.sampled_from(MACHINES),
    st.sampled_from(["did a", "did b"]),
)
machines = st.dictionaries(
    st.sampled_from(MACHINES),
    st.builds(
        lambda label, seen: {"label": label, "last_seen": seen}, st.sampled_from(["a", "b"]), dates
    ),
    max_size=3,
)


# Built once: constructing strategies inside a draw re-validates them on every
# example, which cost more than the merges the laws check.
GOALS = _item("set_on")
NEXT_ACTIONS = _item("added")
OPEN_QUESTIONS = _item("asked")
DECISIONS = decisions()


def sessions(max_items: int = 4):
    def lst(strategy):
        return st.lists(strategy, max_size=max_items)

    goals, next_actions, done = lst(GOALS), lst(NEXT_ACTIONS), lst(completed)
    questions, decided, past = lst(OPEN_QUESTIONS), lst(DECISIONS), lst(history)

    @st.composite
    def session(draw):
        s = {
            "version": 1,
            "created_at": draw(dates),
            "updated_at": draw(dates),
            "machines": draw(machines),
            "current": {
                "goals": draw(goals),
                "next_actions": draw(next_actions),
                "completed_actions": draw(done),
                "open_questions": draw(questions),
                "decisions": draw(decided),
            },
            "history": draw(past),
        }
        if draw(st.booleans()):
            s["x_top"] = draw(st.integers(0, 5))
        if draw(st.booleans()):
            s["current"]["x_cur"] = draw(st.sampled_from(["a", "b"]))
        return s

    return session()
