"""One rule for entry names: what ``slugify`` makes is what writing accepts, and the
writers (entry files, host memories) and the validator use that rule alone."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from memoir_tui.core.format.entry_file import EntryError, render_entry
from memoir_tui.core.format.names import SLUG_LIMIT, is_entry_name, slugify
from memoir_tui.core.hosts.adapters.guard import PathRefused, normalise_filename
from memoir_tui.core.sync.layout import SYNCED_NAME_RE


@given(st.text(max_size=200))
def test_a_slug_is_always_a_writable_name(text: str) -> None:
    slug = slugify(text)
    if slug:
        assert is_entry_name(slug + ".md")
        assert len(slug) <= SLUG_LIMIT
        assert slugify(slug) == slug


@given(st.text(max_size=60))
def test_every_name_normalise_gives_is_one_render_entry_accepts(text: str) -> None:
    try:
        name = normalise_filename(text)
    except PathRefused:
        return
    assert is_entry_name(name)
    render_entry(Path("/nowhere") / name, {"type": "fact", "name": "a"}, "")


@given(st.from_regex(r"\A[a-z0-9][a-z0-9._-]{0,120}\.md\Z"))
def test_every_entry_name_is_also_carried_by_sync(name: str) -> None:
    assert SYNCED_NAME_RE.match(name)


@pytest.mark.parametrize("name", ["Bad Name.md", "x", "-x.md", "a..b.md", "x" * 122 + ".md"])
def test_entry_files_are_never_written_under_another_name(name: str) -> None:
    assert not is_entry_name(name)
    with pytest.raises(EntryError):
        render_entry(Path("/nowhere") / name, {"type": "fact", "name": "a"}, "")


def test_a_host_ending_is_the_entry_name_with_its_suffix() -> None:
    assert is_entry_name("deploy.mdc", ".mdc") and not is_entry_name("deploy.mdc")
    assert is_entry_name("deploy.instructions.md", ".instructions.md")
    render_entry(Path("/nowhere/deploy.mdc"), {"type": "fact", "name": "a"}, "", suffix=".mdc")
