"""validate findings and the typed config file."""

from __future__ import annotations

import json

import pytest

from memoir_tui.core.door.config import ConfigError, load_config
from memoir_tui.core.format.merge import Caps
from memoir_tui.core.format.validate import ERROR, WARNING, validate_paths


def findings(tmp_path, name, text):
    path = tmp_path / name
    path.write_text(text)
    return {(f.severity, f.rule) for f in validate_paths([path])}


def test_decision_without_why_warns(tmp_path):
    assert (WARNING, "decision.why") in findings(
        tmp_path, "decision_a.md", "---\ntype: decision\nname: a\n---\n"
    )


def test_hidden_without_hidden_at_errors(tmp_path):
    got = findings(
        tmp_path, "decision_b.md", "---\ntype: decision\nname: b\nwhy: w\nhidden: true\n---\n"
    )
    assert (ERROR, "decision.hidden") in got


def test_lesson_rules_error_and_downgrade_for_legacy(tmp_path):
    got = findings(tmp_path, "lesson_a.md", "---\ntype: lesson\nname: a\n---\n")
    assert {(ERROR, "lesson.trigger"), (ERROR, "lesson.how_to_apply")} <= got
    legacy = findings(tmp_path, "feedback_a.md", "---\ntype: feedback\nname: a\n---\nno section\n")
    assert (WARNING, "lesson.how_to_apply") in legacy and (WARNING, "entry.legacy") in legacy
    assert not [f for f in legacy if f[0] == ERROR]


def test_next_action_requires_added(tmp_path):
    assert (ERROR, "next_action.added") in findings(
        tmp_path, "next_action_a.md", "---\ntype: next_action\nname: a\n---\n"
    )


def test_clean_entry_has_no_findings(tmp_path):
    text = "---\ntype: fact\nname: a\ndescription: one line\ncreated: 2026-01-01\ntags: [x]\n---\nbody\n"
    assert findings(tmp_path, "fact_a.md", text) == set()


def test_session_findings(tmp_path):
    bad = {
        "version": 1,
        "created_at": "2026-01-01",
        "updated_at": "2026-01-01",
        "machines": {},
        "current": {
            "goals": [],
            "next_actions": [{"text": ""}],
            "open_questions": [],
            "decisions": [{"text": "[purged]", "text_hash": "nothex", "date": "2026-01-01"}],
        },
        "history": [],
    }
    got = findings(tmp_path, "session.json", json.dumps(bad))
    assert {(ERROR, "item.text"), (ERROR, "decision.text_hash"), (ERROR, "decision.purged")} <= got
    assert (ERROR, "session.json") in findings(tmp_path, "session.json", "{nope")
    assert (ERROR, "session.version") in findings(tmp_path, "session.json", '{"version": 9}')


def test_config_defaults_and_values(tmp_path):
    assert load_config(tmp_path).caps == Caps()
    (tmp_path / "memoir-tui.toml").write_text("[store]\nlock_wait_seconds = 2\n[caps]\ngoals = 7\n")
    cfg = load_config(tmp_path)
    assert cfg.lock_wait_seconds == 2 and cfg.caps.goals == 7 and cfg.exists


@pytest.mark.parametrize(
    ("text", "key", "line"),
    [
        ("[caps]\n\ngoals = -1\n", "caps.goals", 3),
        ("[caps]\nhidden_decisions = 10\n", "caps.hidden_decisions", 2),
        ("[store]\nlock_wait_seconds = 'soon'\n", "store.lock_wait_seconds", 2),
        ("[recall]\ntools = ['nope']\n", "recall.tools", 2),
        ("this is = = not toml", "file", 1),
    ],
)
def test_config_errors_name_key_and_line(tmp_path, text, key, line):
    (tmp_path / "memoir-tui.toml").write_text(text)
    with pytest.raises(ConfigError) as err:
        load_config(tmp_path)
    assert err.value.key == key
    if line is not None:
        assert err.value.line == line and f":{line}:" in str(err.value)


def test_a_setting_is_remembered_and_every_other_line_kept(tmp_path) -> None:
    from memoir_tui.core.door.audit import read_audit
    from memoir_tui.core.door.config import load_config, remember_setting
    from memoir_tui.core.workflows.memoir import Memoir

    store = Memoir(tmp_path / "store")
    remember_setting(store, "app", "theme", "gruvbox")
    assert load_config(store.root).theme == "gruvbox"
    path = store.root / "memoir-tui.toml"
    path.write_text('# mine\n[caps]\ngoals = 3  # three\n\n[app]\ntheme = "nord"\n')
    remember_setting(store, "app", "theme", "dracula")
    assert path.read_text() == '# mine\n[caps]\ngoals = 3  # three\n\n[app]\ntheme = "dracula"\n'
    assert load_config(store.root).caps.goals == 3
    assert read_audit(store.root, limit=1)[0].operation == "remember_setting"
    with pytest.raises(ConfigError):
        remember_setting(store, "app", "theme", 'x"\n[evil]')


@pytest.mark.parametrize("name", ["Ünï.md", "-x.md", ".x.md", "a..b.md", "Fact_A.md"])
def test_names_this_project_would_not_write_are_warned_about(tmp_path, name):
    text = "---\ntype: fact\nname: a\ndescription: one line\n---\nbody\n"
    assert findings(tmp_path, name, text) == {(WARNING, "entry.file-name")}
