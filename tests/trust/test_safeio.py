"""``core/safeio.py`` on its own: where a write lands, what a read refuses, and the nesting
bound (a property over generated JSON)."""

from __future__ import annotations

import json
import os

import pytest
from hypothesis import given
from hypothesis import strategies as st

from memoir_tui.core.base.safeio import (
    LinkOutsideError,
    UnsafeFileError,
    nesting_depth,
    parse_json_bounded,
    read_file_safely,
    write_file_safely,
    write_target,
)

leaves = st.none() | st.booleans() | st.integers() | st.text(alphabet="[]{}\"\\'ab ,:")
values = st.recursive(
    leaves,
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=3), inner, max_size=3)
    ),
    max_leaves=20,
)


def depth(value) -> int:
    if isinstance(value, list):
        return 1 + max((depth(v) for v in value), default=0)
    if isinstance(value, dict):
        return 1 + max((depth(v) for v in value.values()), default=0)
    return 0


@given(values)
def test_nesting_depth_is_the_json_depth_whatever_the_strings_hold(value) -> None:
    assert nesting_depth(json.dumps(value)) == depth(value)


def test_a_deep_document_is_refused_before_parsing() -> None:
    with pytest.raises(ValueError):
        parse_json_bounded("[" * 100_000 + "]" * 100_000)
    assert parse_json_bounded("[[1]]") == [[1]]


def test_a_link_inside_is_followed_and_one_outside_refused(tmp_path) -> None:
    inside = tmp_path / "home"
    (inside / "shared").mkdir(parents=True)
    (inside / "shared" / "real.md").write_text("a")
    (inside / "link.md").symlink_to(inside / "shared" / "real.md")
    assert write_target(inside / "link.md", within=inside) == inside / "shared" / "real.md"
    (tmp_path / "victim").write_text("keep")
    (inside / "out.md").symlink_to(tmp_path / "victim")
    with pytest.raises(LinkOutsideError) as caught:
        write_file_safely(inside / "out.md", b"x", within=inside)
    assert str(inside / "out.md") in str(caught.value)
    assert str(tmp_path / "victim") in str(caught.value)
    assert (tmp_path / "victim").read_text() == "keep"
    (inside / "sub").symlink_to(tmp_path)  # a folder linked out
    with pytest.raises(LinkOutsideError):
        write_file_safely(inside / "sub" / "new.md", b"x", within=inside)
    assert not (tmp_path / "new.md").exists()


def test_a_write_keeps_the_mode_and_replaces_rather_than_follows(tmp_path) -> None:
    path = tmp_path / "f"
    path.write_bytes(b"old")
    os.chmod(path, 0o640)
    write_file_safely(path, b"new", within=tmp_path)
    assert path.read_bytes() == b"new" and (os.stat(path).st_mode & 0o777) == 0o640
    write_file_safely(tmp_path / "g", b"x", within=tmp_path)
    assert os.stat(tmp_path / "g").st_mode & 0o777 == 0o600


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
def test_reads_refuse_a_fifo_a_folder_a_device_and_an_oversized_file(tmp_path) -> None:
    os.mkfifo(tmp_path / "fifo")
    (tmp_path / "zero").symlink_to("/dev/zero")
    (tmp_path / "big").write_bytes(b"x" * 11)
    for name, said in (("fifo", "a FIFO"), ("zero", "a device"), (".", "a folder")):
        with pytest.raises(UnsafeFileError, match=said):
            read_file_safely(tmp_path / name)
    with pytest.raises(UnsafeFileError, match="larger than"):
        read_file_safely(tmp_path / "big", max_bytes=10)
    assert read_file_safely(tmp_path / "big", max_bytes=11) == b"x" * 11
