"""One day formatter: ``dates.day`` / ``dates.day_or_raw`` show every byte the five
copies they replaced showed. The old copies are kept here as the oracle, each called
the way its call site calls the new one."""

from __future__ import annotations

import re
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from memoir_tui.core.format.dates import day, day_or_raw

# --- the replaced copies, verbatim ---------------------------------------------------


def render_day(iso: str) -> str:  # core/render.py `_day`
    return iso[:10] if iso else "—"


def consolidate_day(iso: Any) -> str:  # core/consolidate.py `_day`
    return iso[:10] if isinstance(iso, str) else "?"


def answers_day(iso: str) -> str:  # core/answers.py `_day`
    return iso[:10]


_ISO_DAY = re.compile(r"\d{4}-\d{2}-\d{2}(?:[T ]|$)")


def short_date(value: str) -> str:  # widgets/item_table.py `short_date`
    return value[:10] if _ISO_DAY.match(value) else value


def search_inline(date: str) -> str:  # core/search.py `h.date[:10]`
    return date[:10]


# --- what the call sites are given ---------------------------------------------------

iso_stamps = st.datetimes().map(lambda d: d.isoformat(timespec="milliseconds") + "Z")
iso_days = st.dates().map(lambda d: d.isoformat())
near_iso = st.from_regex(r"\A\d{4}-\d{2}-\d{2}[T Zx:.0-9-]{0,14}\Z")
texts = st.one_of(iso_stamps, iso_days, near_iso, st.just(""), st.text(max_size=30))
anything = st.one_of(texts, st.none(), st.integers(), st.dates(), st.lists(st.text(), max_size=2))


@given(texts)
def test_every_text_call_site_shows_what_its_copy_showed(value: str) -> None:
    assert (day(value) or "—") == render_day(value)
    assert day(value) == answers_day(value)
    assert day(value) == search_inline(value)
    assert day_or_raw(value) == short_date(value)


@given(anything)
def test_consolidate_shows_a_question_mark_for_what_is_not_text(value: Any) -> None:
    assert day(value, missing="?") == consolidate_day(value)


def test_the_day_of_a_stamp_is_its_first_ten_characters() -> None:
    assert day("2026-06-18T16:55:01.123Z") == "2026-06-18"
    assert day("") == ""
    assert day(None, missing="?") == "?"
    assert day_or_raw("yesterday") == "yesterday"
    assert day_or_raw("2026-06-18 16:55") == "2026-06-18"
