"""Project labels: the shortest distinguishing tail, unique, stable, a tail of the name."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from memoir_tui.core.rules.labels import (
    GLOBAL,
    SHARED,
    cut_middle,
    label_of,
    place_labels,
    short_labels,
    tail_labels,
)
from memoir_tui.core.rules.model import working_set
from tests.conftest import examples

EXAMPLES = settings(max_examples=examples(100, soak=4000))

# Few distinct words, so names share tails often (the interesting case).
_word = st.sampled_from(["web", "api", "acme", "tideline-web", "code", "global", "x", "", "~"])
_name = st.lists(_word, min_size=1, max_size=5).map("/".join).filter(bool)
_names = st.lists(_name, max_size=12)


def _is_tail(label: str, name: str) -> bool:
    parts, tail = name.split("/"), label.split("/")
    return parts[len(parts) - len(tail) :] == tail


@EXAMPLES
@given(_names)
def test_labels_are_unique_tails_and_never_a_reserved_word(names: list[str]) -> None:
    labels = tail_labels(names)
    assert set(labels) == set(names)
    shown = list(labels.values())
    assert len(set(shown)) == len(shown), labels  # distinct projects, distinct labels
    for name, label in labels.items():
        assert label and _is_tail(label, name)
        assert label not in (GLOBAL, SHARED) or label == name


@EXAMPLES
@given(_names, st.randoms())
def test_labels_are_stable_whatever_the_order(names: list[str], rnd) -> None:
    shuffled = names[:]
    rnd.shuffle(shuffled)
    assert tail_labels(names) == tail_labels(shuffled + names[:1])


@EXAMPLES
@given(_names, _name)
def test_a_new_project_changes_only_labels_it_shares_a_last_word_with(
    names: list[str], new: str
) -> None:
    before, after = tail_labels(names), tail_labels([*names, new])
    for name, label in before.items():
        if name.split("/")[-1] != new.split("/")[-1]:
            assert after[name] == label


@EXAMPLES
@given(_names)
def test_a_label_is_the_shortest_tail_no_other_name_ends_with(names: list[str]) -> None:
    for name, label in tail_labels(names).items():
        parts = name.split("/")
        k = len(label.split("/"))
        if label == name:
            continue
        shorter = "/".join(parts[-(k - 1) :]) if k > 1 else None
        if shorter and shorter not in ("", "~"):
            others = [n for n in names if n != name] + [GLOBAL, SHARED]
            assert any(_is_tail(shorter, o) for o in others), (name, label)


def test_examples_people_read() -> None:
    labels = tail_labels(
        [
            "github.com/acme/tideline-web",
            "github.com/other/tideline-web",
            "github.com/acme/billing-service",
            "~/code/notes",
            "~/jobs/notes",
            "~/scratch",
            "~/code/global",
            "b/x",
            "a/b/x",
        ]
    )
    assert labels == {
        "github.com/acme/tideline-web": "acme/tideline-web",
        "github.com/other/tideline-web": "other/tideline-web",
        "github.com/acme/billing-service": "billing-service",
        "~/code/notes": "code/notes",
        "~/jobs/notes": "jobs/notes",
        "~/scratch": "scratch",
        "~/code/global": "code/global",
        "b/x": "b/x",
        "a/b/x": "a/b/x",
    }
    ids = {"git:1": "github.com/acme/tideline-web", "git:2": "gitlab.com/acme/billing"}
    short = short_labels(ids)
    assert short == {"git:1": "tideline-web", "git:2": "billing"}
    assert label_of("", short) == GLOBAL
    assert label_of("shared", short) == SHARED
    assert label_of("git:1", short) == "tideline-web"


def test_the_working_set_labels_items_by_the_projects_present() -> None:
    def decision(text: str, project: str, label: str) -> dict:
        return {
            "text": text,
            "date": "2026-01-01T00:00:00Z",
            "project": project,
            "project_label": label,
        }

    state = {
        "current": {
            "decisions": [
                decision("one", "git:" + "a" * 32, "github.com/acme/tideline-web"),
                decision("two", "git:" + "b" * 32, "github.com/other/tideline-web"),
                decision("three", "git:" + "c" * 32, "github.com/acme/billing"),
            ]
        }
    }
    ws = working_set(state, project=None, all_projects=True)
    shown = {d.text: d.project_label for d in ws.decisions}
    assert shown == {
        "one": "acme/tideline-web",
        "two": "other/tideline-web",
        "three": "billing",
    }
    scoped = working_set(
        state,
        project="git:" + "a" * 32,
        all_projects=False,
        here_label="github.com/acme/tideline-web",
    )
    assert scoped.project_label == "acme/tideline-web"


@EXAMPLES
@given(st.text(min_size=0, max_size=80), st.integers(min_value=0, max_value=90))
def test_a_path_is_cut_in_the_middle_keeping_more_of_its_tail(text: str, width: int) -> None:
    cut = cut_middle(text, width)
    assert len(cut) <= max(width, 0)
    if len(text) <= width:
        assert cut == text
    elif width >= 2:
        head, _, tail = cut.partition("…")
        assert text.startswith(head) and text.endswith(tail)
        assert len(tail) >= len(head) and len(head) + len(tail) == width - 1


def test_a_long_path_keeps_its_file_name() -> None:
    path = "~/.claude/projects/-home-dev-code-tideline-web/memory/deploy_pipeline.md"
    assert cut_middle(path, 40) == "~/.claude/pro…/memory/deploy_pipeline.md"


def test_an_entry_folder_that_is_a_session_project_takes_its_label(tmp_path, monkeypatch) -> None:
    import subprocess

    monkeypatch.setenv("HOME", str(tmp_path))
    web = tmp_path / "code" / "web"
    web.mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(web)], check=True)
    subprocess.run(
        ["git", "-C", str(web), "remote", "add", "origin", "git@github.com:acme/tideline-web.git"],
        check=True,
    )
    notes = tmp_path / "notes" / "tideline-web"
    notes.mkdir(parents=True)
    from memoir_tui.core.rules.scope import project_identity

    web_id = project_identity(web, home=tmp_path).id
    names = {web_id: "github.com/acme/tideline-web"}
    labels = place_labels([str(web), str(notes), web_id], names)
    # the folder of a project the session knows: that project's label, on every pane
    assert labels[str(web)] == labels[web_id] == "acme/tideline-web"
    # a folder the session does not know: its tail among the others
    assert labels[str(notes)] == "notes/tideline-web"
