"""Hypothesis strategies for sessions whose identities and dates collide often."""

from __future__ import annotations

from hypothesis import strategies as st

from memoir_tui.core.format.identity import iso_from_ms, text_hash

TEXTS = [
    "Use SQLite",
    "use sqlite ",
    "Ship the TUI",
    "ship the tui",
    "Write tests",
    "Fix lock",
    "Add sync",
    "[purged]",  # a live item whose text is literally the purged marker
]
BASE_MS = 1_780_000_000_000
DATES = [iso_from_ms(BASE_MS + i * 60_000) for i in range(6)] + ["", "not a date", "2026-13-45"]
MACHINES = ["m-aaaa", "m-bbbb", "m-cccc"]
# Projects as today's memoir stamps them: none, two projects, and "shared".
PROJECTS = [None, None, "git:" + "a" * 32, "local:" + "b" * 32, "shared"]
projects = st.sampled_from(PROJECTS)

texts = st.sampled_from(TEXTS)
extra = st.dictionaries(st.sampled_from(["x_note", "x_rank"]), st.integers(0, 3), max_size=1)


class Parts:
    """The strategies a session is drawn from, over one set of dates. Built once per
    set: constructing strategies inside a draw re-validates them on every example,
    which cost more than the merges the laws check."""

    def __init__(self, date_values: list[str]) -> None:
        dates = st.sampled_from(date_values)
        maybe_date = st.one_of(st.none(), dates)
        self.dates = dates
        self.goals = self._item("set_on", maybe_date)
        self.next_actions = self._item("added", maybe_date)
        self.open_questions = self._item("asked", maybe_date)
        self.decisions = self._decisions(dates, maybe_date)
        self.completed = st.builds(
            lambda t, d, p: {"text": t, "done_at": d, **({"project": p} if p else {})},
            texts,
            dates,
            projects,
        )
        self.history = st.builds(
            lambda d, m, s: {"date": d, "machine_id": m, "summary": s, "files_touched": []},
            dates,
            st.sampled_from(MACHINES),
            st.sampled_from(["did a", "did b"]),
        )
        self.machines = st.dictionaries(
            st.sampled_from(MACHINES),
            st.builds(
                lambda label, seen: {"label": label, "last_seen": seen},
                st.sampled_from(["a", "b"]),
                dates,
            ),
            max_size=3,
        )

    @staticmethod
    def _item(date_field: str, maybe_date):
        # Sometimes hidden or purged: the JavaScript tool hides goals, actions and
        # questions too, and a purged copy there must keep its hash.
        @st.composite
        def item(draw):
            text = draw(texts)
            i = {"text": text, "machine_id": draw(st.sampled_from(MACHINES))}
            project = draw(projects)
            if project:
                i["project"] = project
            date = draw(maybe_date)
            if date is not None:
                i[date_field] = date
            kind = draw(st.sampled_from(["live", "live", "live", "hidden", "purged"]))
            if kind in ("hidden", "purged"):
                i["hidden"] = True
                at = draw(maybe_date)
                if at is not None:
                    i["hidden_at"] = at
            if kind == "purged":
                i["text_hash"] = text_hash(text)
                i["text"] = "[purged]"
            i.update(draw(extra))
            return i

        return item()

    @staticmethod
    def _decisions(dates, maybe_date):
        @st.composite
        def decision(draw):
            text = draw(texts)
            d = {"text": text, "machine_id": draw(st.sampled_from(MACHINES))}
            project = draw(projects)
            if project:
                d["project"] = project
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

        return decision()


ANY_DATES = Parts(DATES)  # unparseable and empty dates among them
VALID_DATES = Parts(DATES[:6])  # every date parseable (a missing one still happens)


def sessions(max_items: int = 4, *, valid_dates: bool = False):
    parts = VALID_DATES if valid_dates else ANY_DATES

    def lst(strategy):
        return st.lists(strategy, max_size=max_items)

    goals, next_actions, done = lst(parts.goals), lst(parts.next_actions), lst(parts.completed)
    questions, decided, past = lst(parts.open_questions), lst(parts.decisions), lst(parts.history)
    dates, machines = parts.dates, parts.machines

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
        for tombstones in ("completed_goals", "closed_questions"):
            if draw(st.booleans()):
                s["current"][tombstones] = draw(done)
        # The lists memoir >= 3.13 keeps past its caps (FORMAT-LATEST §4-5).
        if draw(st.booleans()):
            s["current"]["parked_actions"] = [
                {**i, "parked_at": draw(dates)} for i in draw(next_actions)
            ]
            s["current"]["archived_goals"] = draw(goals)
            s["current"]["archived_questions"] = draw(questions)
            s["current"]["archived_decisions"] = draw(decided)
        return s

    return session()
