"""Our writers of entry files stamp ``updated`` (FORMAT §2), keeping every other byte."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from memoir_tui.core.format import frontmatter
from memoir_tui.core.format.entry_file import stamp_updated

WHEN = "2026-12-03T20:00:00.000Z"
_words = st.text(alphabet="abcdefgh xyz", min_size=1, max_size=20).map(str.strip).filter(bool)


@given(
    nl=st.sampled_from(["\n", "\r\n"]),
    created=st.booleans(),
    updated=st.one_of(st.none(), st.sampled_from(["2026-01-01", "'2025-05-05T10:00:00Z'"])),
    extra=st.lists(st.tuples(st.sampled_from(["tags_x", "source", "zz"]), _words), max_size=3),
    body=st.text(alphabet="abc\n-:#", max_size=60),
)
def test_stamping_sets_updated_and_keeps_every_other_key_and_the_body(
    nl, created, updated, extra, body
):
    lines = ["type: fact", "name: n"]
    if created:
        lines.append("created: 2026-01-01")
    lines += [f"{k}: {v}" for k, v in dict(extra).items()]
    if updated is not None:
        lines.append(f"updated: {updated}")
    text = "---" + nl + nl.join(lines) + nl + "---" + nl + body
    before = frontmatter.parse(text)
    out = stamp_updated(text, WHEN)
    after = frontmatter.parse(out)
    assert str(after.meta["updated"]) == WHEN
    assert {k: v for k, v in after.meta.items() if k != "updated"} == {
        k: v for k, v in before.meta.items() if k != "updated"
    }
    assert after.body == before.body and out.endswith(body)
    assert stamp_updated(out, WHEN) == out  # idempotent


@given(text=st.text(max_size=80))
def test_text_that_is_not_a_typed_entry_is_left_as_it_is(text):
    fm, _ = frontmatter.split(text)
    if fm is None or "type:" not in fm:
        assert stamp_updated(text, WHEN) == text


def test_an_editor_edit_of_an_entry_stamps_updated_unless_the_person_set_it(store):
    path = store.memory_dir / "fact_deploy.md"
    store.memory_dir.mkdir(parents=True, exist_ok=True)
    path.write_text("---\ntype: fact\nname: deploy\nupdated: 2026-01-01\n---\nblue\n")
    edit = store.entries.begin_edit(path)
    edit.draft.write_text(edit.draft.read_text().replace("blue", "green"))
    store.entries.finish_edit(edit)
    meta = frontmatter.parse(path.read_text()).meta
    assert str(meta["updated"]) != "2026-01-01" and path.read_text().endswith("green\n")
    edit = store.entries.begin_edit(path)
    text = edit.draft.read_text()
    edit.draft.write_text(
        text.replace(f"updated: {meta['updated']}", "updated: 2020-02-02").replace("green", "red")
    )
    store.entries.finish_edit(edit)
    assert "updated: 2020-02-02\n" in path.read_text()


def test_forget_of_lines_in_an_entry_stamps_updated(store):
    store.memory_dir.mkdir(parents=True, exist_ok=True)
    path = store.memory_dir / "fact_code.md"
    path.write_text("---\ntype: fact\nname: code\nupdated: 2026-01-01\n---\nQuillfeather\nkeep\n")
    store.forget.apply("Quillfeather", purge=True)
    text = path.read_text()
    assert "Quillfeather" not in text and text.endswith("keep\n")
    assert "updated: 2026-01-01" not in text and "updated: " in text
