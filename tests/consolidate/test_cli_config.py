"""The consolidate, trash and inject commands, and the [consolidate] / [inject] config."""

from __future__ import annotations

import json

import pytest

from memoir_tui.__main__ import main
from memoir_tui.core.door.config import ConfigError, InjectConfig, load_config, render_config

from .conftest import tree_state


def pick(out: str, kind: str, ref: str = "") -> str:
    """A proposal id by kind (and a ref it names): the CLI runs on the real clock, so
    more of the fixture turns stale as time passes; the exact set is tested elsewhere."""
    return next(
        p["id"]
        for p in json.loads(out)["proposals"]
        if p["kind"] == kind and any(ref in r for r in p["refs"])
    )


@pytest.fixture
def cli(fx, monkeypatch, capsys):
    monkeypatch.setenv("HOME", str(fx.home))
    monkeypatch.setenv("MEMOIR_HOME", str(fx.store_dir))

    def run(*args: str) -> tuple[int, str, str]:
        code = main(list(args))
        out = capsys.readouterr()
        return code, out.out, out.err

    return run


def test_consolidate_report_apply_and_trash_restore(fx, cli):
    code, out, _ = cli("consolidate")
    assert code == 0
    assert (
        out.index("Duplicates (1)") < out.index("Near duplicates (1)") < out.index("Host index (3)")
    )
    assert "[ ] " in out and "actions: merge (default), trash, keep" in out

    code, out, _ = cli("consolidate", "--json")
    data = json.loads(out)
    assert len({p["kind"] for p in data["proposals"]}) == 12
    assert set(data["groups"]) >= {"Duplicates", "Host index"}
    ids = {"empty": pick(out, "empty"), "stale_entry": pick(out, "stale_entry", "old-staging")}

    before = tree_state(fx.store_dir, fx.home)
    code, out, err = cli("consolidate", "--apply", ids["empty"][:6])
    assert code == 1 and "refusing without confirmation" in err
    assert (fx.memory / "fact_empty.md").exists()

    code, out, _ = cli("consolidate", "--apply", ids["empty"], ids["stale_entry"], "--yes")
    assert code == 0 and "Undo with: memoir-tui trash restore" in out
    trash_id = out.rsplit("restore ", 1)[1].strip()
    assert not (fx.memory / "fact_empty.md").exists()

    code, out, _ = cli("trash", "list")
    assert trash_id in out and "removed" in out and "fact_old-staging-host.md" in out
    code, out, _ = cli("trash", "restore", trash_id[:15])
    assert code == 0 and f"restored {trash_id}" in out
    assert tree_state(fx.store_dir, fx.home) == before
    code, out, _ = cli("trash", "list")
    # What the restore overwrote is kept too, so the restore itself loses nothing.
    (line, *_items) = out.splitlines()
    assert f"before restoring {trash_id}" in line and "removed" not in out
    code, out, _ = cli("trash", "list", "--all", "--json")
    records = {r["id"]: r for r in json.loads(out)}
    assert records[trash_id]["status"] == "restored"
    code, _, err = cli("trash", "restore", "nope")
    assert code == 1 and "no trash record" in err


def test_consolidate_keep_and_action(fx, cli):
    code, out, _ = cli("consolidate", "--json")
    ids = {k: pick(out, k) for k in ("bloated", "duplicate", "near_duplicate")}
    code, out, _ = cli("consolidate", "--keep", ids["bloated"])
    assert code == 0 and "1 proposal(s) will not be proposed again" in out
    code, out, _ = cli("consolidate", "--json")
    assert ids["bloated"] not in out and json.loads(out)["dismissed"] == 1

    code, out, _ = cli("consolidate", "--apply", ids["duplicate"], "--action", "trash", "--yes")
    assert code == 0 and (fx.memory / "fact_api-base-url.md").exists()
    assert not (fx.memory / "fact_api-endpoint.md").exists()
    code, _, err = cli("consolidate", "--apply", ids["near_duplicate"], "--action", "fix", "--yes")
    assert code == 1 and "not allowed" in err
    code, _, err = cli("consolidate", "--apply", "zzzzzz", "--yes")
    assert code == 1 and "no proposal" in err


def test_trash_empty_command(fx, cli):
    code, out, _ = cli("consolidate", "--json")
    empty_id = pick(out, "empty")
    cli("consolidate", "--apply", empty_id, "--yes")
    code, out, _ = cli("trash", "empty", "--older-than", "30d")
    assert code == 0 and "0 record(s) emptied" in out
    code, out, _ = cli("trash", "empty", "--older-than", "0s")
    assert code == 0 and "1 record(s) emptied" in out
    code, _, err = cli("trash", "empty", "--older-than", "soon")
    assert code == 1 and "not a duration" in err


def test_inject_dry_run_then_write(fx, cli):
    claude = fx.home / ".claude" / "CLAUDE.md"
    code, out, _ = cli("inject", "--dry-run")
    assert code == 0 and "+<!-- memoir:session-block" in out and "dry run: nothing written" in out
    assert not claude.exists()
    code, out, _ = cli("inject")
    assert code == 0 and "created" in out and claude.is_file()
    code, out, _ = cli("inject")
    assert "unchanged" in out
    claude.write_text("<!-- /memoir:session-block -->\n")
    code, _, err = cli("inject")
    assert code == 1 and "damaged memoir block" in err
    code, _, err = cli("inject", "--target", "bogus")
    assert code == 1 and "unknown target" in err


def test_config_tables_parse_and_render(tmp_path):
    assert load_config(tmp_path).inject == InjectConfig()
    (tmp_path / "memoir-tui.toml").write_text(
        "[consolidate]\nnear_duplicate_threshold = 90\nstale_entry_days = 365\n"
        '[inject]\nenabled = true\ntargets = ["claude", "codex"]\nprojects = ["~/src/app"]\n'
        "max_block_chars = 2500\n"
    )
    cfg = load_config(tmp_path)
    assert cfg.consolidate.near_duplicate_threshold == 90.0
    assert cfg.consolidate.stale_entry_days == 365 and cfg.consolidate.bloat_lines == 200
    assert cfg.inject.enabled and cfg.inject.targets == ("claude", "codex")
    assert cfg.inject.max_block_chars == 2500 and cfg.inject.projects[0].name == "app"
    rendered = render_config(cfg)
    assert "[inject]\nenabled = true" in rendered and "stale_entry_days = 365" in rendered


@pytest.mark.parametrize(
    ("text", "key", "line"),
    [
        ("[inject]\nenabled = 'yes'\n", "inject.enabled", 2),
        ("[inject]\n\ntargets = ['claude', 'vim']\n", "inject.targets", 3),
        ("[inject]\nmax_block_chars = 5\n", "inject.max_block_chars", 2),
        (
            "[consolidate]\nnear_duplicate_threshold = 0\n",
            "consolidate.near_duplicate_threshold",
            2,
        ),
        ("[consolidate]\nstale_entry_days = -3\n", "consolidate.stale_entry_days", 2),
    ],
)
def test_config_errors_name_key_and_line(tmp_path, text, key, line):
    (tmp_path / "memoir-tui.toml").write_text(text)
    with pytest.raises(ConfigError) as err:
        load_config(tmp_path)
    assert err.value.key == key and err.value.line == line
