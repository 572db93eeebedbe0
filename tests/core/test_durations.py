"""One duration parser: capture's ``--since``, recall's ``since`` and the trash's
``--older-than`` read the same text the same way; the trash keeps its own error."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from memoir_tui.core.base.errors import MemoirError
from memoir_tui.core.format.durations import UNIT_SECONDS, DurationError, parse_duration
from memoir_tui.core.services.trash import TrashError
from memoir_tui.core.services.trash import parse_duration as trash_duration

parts = st.lists(
    st.tuples(st.integers(0, 10_000), st.sampled_from(sorted(UNIT_SECONDS))), min_size=1, max_size=4
)


@given(parts)
def test_a_compound_duration_is_the_sum_of_its_parts(ps: list[tuple[int, str]]) -> None:
    text = "".join(f"{n}{unit}" for n, unit in ps)
    seconds = sum(n * UNIT_SECONDS[unit] for n, unit in ps)
    assert parse_duration(text) == seconds
    assert parse_duration(f" {text.upper()} ") == seconds
    assert trash_duration(text) == seconds


@given(st.text(max_size=12))
def test_the_trash_accepts_exactly_what_the_parser_accepts(text: str) -> None:
    try:
        seconds = parse_duration(text)
    except DurationError as err:
        assert isinstance(err, MemoirError)
        with pytest.raises(TrashError, match="is not a duration"):
            trash_duration(text)
    else:
        assert trash_duration(text) == int(seconds)
