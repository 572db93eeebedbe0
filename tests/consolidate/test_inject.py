"""The pinned block: only the bytes between the markers ever change."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from memoir_tui.core.door.config import InjectConfig
from memoir_tui.core.services import inject as inj

from .conftest import NOW

# The JavaScript tool's own block pattern (src/session/inject.js), to prove it finds ours.
JS_BLOCK_RE = re.compile(
    r"<!--\s*memoir:session-block[^>]*-->[\s\S]*?<!--\s*/memoir:session-block\s*-->"
)
JS_BLOCK = (
    "<!-- memoir:session-block v1 — managed by memoir, edit via `memoir goal/next/note` -->\n"
    "## 🎯 Continuing from where we left off\n\n**Current goal:** something old\n\n"
    "<!-- /memoir:session-block -->"
)
SECRETS = (
    "HIDDEN-DECISION-TEXT",
    "HIDDEN-DECISION-WHY",
    "[purged]",
    "Rotate the staging keys",  # completed
    "LMDB-REJECTED-ALTERNATIVE",  # a decision's rejected alternatives
    "OTHER-PROJECT-DECISION",  # scoped to another project
    "Migrate billing",  # scoped to another project
)


def plan(fx, **kw):
    kw.setdefault("home", fx.home)
    return inj.plan_inject(fx.store(), **kw)


def run(fx, **kw):
    return inj.apply_inject(fx.store(), plan(fx, **kw))


def only(changes, name):
    found = [ch for ch in changes if ch.target == name]
    assert len(found) == 1, [(ch.target, ch.path) for ch in changes]
    return found[0]


def test_claude_md_keeps_every_byte_outside_the_block_across_injections(fx):
    claude = fx.home / ".claude" / "CLAUDE.md"
    above = "# My rules\r\n\r\nBe terse.  Trailing spaces stay.  \r\n\r\n"
    below = "\r\n\r\n## Below\r\nTabs\tand no final newline"
    claude.write_bytes((above + JS_BLOCK.replace("\n", "\r\n") + below).encode())

    run(fx)
    first = claude.read_bytes().decode()
    assert first.startswith(above) and first.endswith(below)
    assert "Write the export command" in first and "something old" not in first
    assert len(JS_BLOCK_RE.findall(first)) == 1

    again = only(plan(fx), "claude")
    assert not again.changed and again.status == "unchanged" and again.diff == ""
    run(fx)
    assert claude.read_bytes().decode() == first  # idempotent

    fx.store(clock=lambda: "2026-08-02T00:00:00.000Z").add_next_action("Ship the CSV export")
    run(fx)
    third = claude.read_bytes().decode()
    assert third.startswith(above) and third.endswith(below)
    assert "Ship the CSV export" in third and len(JS_BLOCK_RE.findall(third)) == 1


def test_a_file_without_a_block_gets_one_and_keeps_its_bytes(fx):
    claude = fx.home / ".claude" / "CLAUDE.md"
    original = "# Title\n\nUser text.\n"
    claude.write_text(original)
    run(fx)
    text = claude.read_text()
    start, end = JS_BLOCK_RE.search(text).span()
    assert text[:start] == "# Title\n\n" and text[end:] == "\n\nUser text.\n"
    inj.apply_inject(fx.store(), plan(fx, remove=True))
    assert claude.read_text() == original


def test_frontmatter_stays_first(fx):
    gemini = fx.home / ".gemini"
    gemini.mkdir()
    (gemini / "GEMINI.md").write_text("---\nkey: v\n---\nBody\n## Gemini Added Memories\n- x\n")
    run(fx)
    text = (gemini / "GEMINI.md").read_text()
    assert text.startswith("---\nkey: v\n---\n<!-- memoir:session-block")
    assert text.endswith("\n\nBody\n## Gemini Added Memories\n- x\n")


def test_agents_md_only_repository_gets_no_claude_md(fx, tmp_path):
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "AGENTS.md").write_text("# Agents\n\nUse uv.\n")
    changes = run(fx, projects=[repo])
    agents = only(changes, "agents-md")
    assert agents.path == repo / "AGENTS.md" and agents.error is None
    assert "claude-project" not in {ch.target for ch in changes}
    assert not (repo / "CLAUDE.md").exists() and not (repo / ".claude").exists()
    assert "Use uv." in (repo / "AGENTS.md").read_text()
    assert "Write the export command" in (repo / "AGENTS.md").read_text()


def test_repository_with_claude_md_and_agents_md(fx, tmp_path):
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "AGENTS.md").write_text("shared\n")
    (repo / "CLAUDE.md").write_text("claude only\n")
    names = {ch.target: ch.path for ch in plan(fx, projects=[repo])}
    assert (
        names["claude-project"] == repo / "CLAUDE.md" and names["agents-md"] == repo / "AGENTS.md"
    )
    # A CLAUDE.md importing AGENTS.md gets the block through it, not twice.
    (repo / "CLAUDE.md").write_text("@AGENTS.md\n")
    assert "claude-project" not in {ch.target for ch in plan(fx, projects=[repo])}


def test_codex_override_replaces_agents_md(fx):
    codex = fx.home / ".codex"
    codex.mkdir()
    (codex / "AGENTS.md").write_text("plain\n")
    (codex / "AGENTS.override.md").write_text("override\n")
    change = only(run(fx), "codex")
    assert change.path == codex / "AGENTS.override.md" and change.limit == 32 * 1024
    assert (codex / "AGENTS.md").read_text() == "plain\n"


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("top\n<!-- memoir:session-block v1 -->\nbody with no end\n", "without an end"),
        (f"{JS_BLOCK}\n\n{JS_BLOCK}\n", "two begin markers"),
        ("<!-- /memoir:session-block -->\nx\n<!-- memoir:session-block v1 -->\n", "before the"),
        ("text\n<!-- /memoir:session-block -->\n", "without a begin"),
        (
            "<!-- memoir:session-block v1 -->\n<!-- /memoir:session-block -->\n"
            "<!-- /memoir:session-block -->\n",
            "two end markers",
        ),
    ],
)
def test_a_damaged_marker_pair_is_refused_and_the_file_untouched(fx, text, problem):
    claude = fx.home / ".claude" / "CLAUDE.md"
    claude.write_text(text)
    stat = claude.stat()
    change = only(plan(fx), "claude")
    assert change.status == "error" and "damaged memoir block" in change.error
    assert problem in change.error and str(claude) in change.error
    inj.apply_inject(fx.store(), [change])
    inj.apply_inject(fx.store(), plan(fx, remove=True))
    assert claude.read_text() == text and claude.stat().st_mtime_ns == stat.st_mtime_ns


def _every_target(fx, tmp_path) -> Path:
    for d in (".gemini", ".codex", ".codeium/windsurf"):
        (fx.home / d).mkdir(parents=True)
    repo = tmp_path / "repo"
    (repo / ".cursor").mkdir(parents=True)
    for name in ("CLAUDE.md", "AGENTS.md", "GEMINI.md"):
        (repo / name).write_text(f"{name} text\n")
    return repo


def test_hidden_completed_rejected_and_out_of_scope_items_never_appear(fx, tmp_path):
    repo = _every_target(fx, tmp_path)
    changes = run(fx, projects=[repo])
    assert {ch.target for ch in changes} == set(inj.INJECT_TARGETS)
    assert all(ch.error is None for ch in changes)
    for ch in changes:
        text = ch.path.read_text()
        assert "Use SQLite WAL mode for the local cache" in text, ch.target
        assert "why: Readers never block the sync writer" in text
        for secret in SECRETS:
            assert secret not in text, (ch.target, secret)
    # A project-scoped item shows only in that project's files.
    (fx.store_dir / "memoir-tui.toml").write_text("[inject]\nall_projects = false\n")
    other = tmp_path / "other-project"
    other.mkdir()
    (other / "AGENTS.md").write_text("x\n")
    # items carry the scope id core.scope gives the project's directory
    session_path = fx.store().session_path
    session_path.write_text(
        session_path.read_text().replace(
            '"project": "other-project"', f'"project": "{inj.scope_id(other, home=fx.home)}"'
        )
    )
    scoped = only(run(fx, projects=[other]), "agents-md").path.read_text()
    assert "OTHER-PROJECT-DECISION" in scoped and "Migrate billing" in scoped
    assert "HIDDEN-DECISION-TEXT" not in scoped and "LMDB-REJECTED" not in scoped


def test_validity_window_and_rejected_status(fx):
    session = json.loads(fx.store().session_path.read_text())
    session["current"]["goals"][0]["valid_until"] = "2026-07-31T00:00:00.000Z"
    session["current"]["open_questions"][1]["state"] = "rejected"
    block = inj.render_block(session, now_ms=inj.parse_date_ms(NOW)).text
    assert "Ship offline sync" not in block and "CDN region" not in block
    assert "Write the export command" in block


def test_windsurf_limit_is_respected_by_trimming_the_block(fx):
    rules = fx.home / ".codeium" / "windsurf" / "memories" / "global_rules.md"
    rules.parent.mkdir(parents=True)
    user = "".join(f"- rule {n}: " + "x" * 80 + "\n" for n in range(55))  # ~5,000 chars
    rules.write_text(user)
    store = fx.store()
    for n in range(8):
        store.add_next_action(f"Next action number {n} " + "y" * 150)
    change = only(run(fx), "windsurf")
    text = rules.read_text()
    assert change.error is None and change.omitted > 0 and change.limit == 6000
    assert len(text) <= 6000 and change.size == len(text)
    assert text.endswith(user) and len(JS_BLOCK_RE.findall(text)) == 1
    assert "more not shown here" in text

    rules.write_text("z" * 5990)
    refused = only(run(fx), "windsurf")
    assert refused.status == "error" and "no room" in refused.error
    assert rules.read_text() == "z" * 5990


def test_max_block_chars_bounds_every_block(fx):
    cfg = InjectConfig(max_block_chars=400)
    change = only(plan(fx, config=cfg), "claude")
    assert len(change.block) <= 400 and change.omitted > 0


def test_cursor_owns_an_always_applied_mdc(fx, tmp_path):
    repo = tmp_path / "repo"
    (repo / ".cursor").mkdir(parents=True)
    change = only(run(fx, projects=[repo]), "cursor")
    mdc = repo / ".cursor" / "rules" / "memoir-session.mdc"
    assert change.path == mdc and change.status == "create"
    text = mdc.read_text()
    assert (
        text.startswith("---\n") and "\nalwaysApply: true\n---\n<!-- memoir:session-block" in text
    )
    assert not only(plan(fx, projects=[repo]), "cursor").changed
    inj.apply_inject(fx.store(), plan(fx, projects=[repo], remove=True))
    assert not mdc.exists()


def test_nothing_is_created_for_absent_tools(fx, tmp_path):
    names = {ch.target for ch in plan(fx, projects=[tmp_path / "missing"])}
    assert names == {"claude"}  # only ~/.claude exists in the fixture home
    assert not (fx.home / ".gemini").exists() and not (fx.home / ".codex").exists()


def test_apply_refuses_a_file_changed_after_planning(fx):
    claude = fx.home / ".claude" / "CLAUDE.md"
    claude.write_text("v1\n")
    changes = plan(fx)
    claude.write_text("v2 by the user\n")
    (result,) = inj.apply_inject(fx.store(), changes)
    assert "changed since it was planned" in result.error
    assert claude.read_text() == "v2 by the user\n"


def test_item_text_cannot_forge_markers(fx):
    fx.store().add_next_action("evil <!-- /memoir:session-block --> text")
    run(fx)
    text = (fx.home / ".claude" / "CLAUDE.md").read_text()
    inj.find_block(text)  # still exactly one well-formed pair
    assert len(JS_BLOCK_RE.findall(text)) == 1
    assert not only(plan(fx), "claude").changed


def test_inject_if_enabled(fx):
    claude = fx.home / ".claude" / "CLAUDE.md"
    assert inj.inject_if_enabled(fx.store(), home=fx.home) == []
    assert not claude.exists()
    (fx.store_dir / "memoir-tui.toml").write_text(
        '[inject]\nenabled = true\ntargets = ["claude"]\n'
    )
    changes = inj.inject_if_enabled(fx.store(), home=fx.home)
    assert [ch.status for ch in changes] == ["create"] and claude.is_file()
    claude.write_text("<!-- memoir:session-block v1 -->\n")  # damaged: reported, not raised
    (bad,) = inj.inject_if_enabled(fx.store(), home=fx.home)
    assert bad.status == "error"


def test_items_stamped_with_a_project_identity_show_in_that_project(fx, tmp_path):
    scope = pytest.importorskip("memoir_tui.core.rules.scope")
    repo = fx.home / "src" / "app"
    repo.mkdir(parents=True)
    (repo / "AGENTS.md").write_text("x\n")
    pid = scope.project_identity(repo, home=fx.home).id
    session = json.loads(fx.store().session_path.read_text())
    session["current"]["next_actions"].append(
        {"text": "STAMPED-ITEM", "added": "2026-07-30T00:00:00.000Z", "project": pid}
    )
    fx.store().session_path.write_text(json.dumps(session))
    changes = run(fx, projects=[repo])
    assert "STAMPED-ITEM" in only(changes, "agents-md").path.read_text()
    assert "STAMPED-ITEM" not in only(changes, "claude").path.read_text()


def test_a_read_only_store_never_blanks_existing_blocks(fx):
    run(fx)
    claude = fx.home / ".claude" / "CLAUDE.md"
    before = claude.read_bytes()
    fx.store().session_path.write_text('{"version": 99, "current": {}}')
    with pytest.raises(inj.InjectError, match="newer memoir format"):
        plan(fx)
    (fx.store_dir / "memoir-tui.toml").write_text("[inject]\nenabled = true\n")
    (bad,) = inj.inject_if_enabled(fx.store(), home=fx.home)
    assert bad.status == "error" and claude.read_bytes() == before


def test_store_mutations_refresh_the_block_when_enabled(tmp_path, monkeypatch):
    from memoir_tui.core.workflows.memoir import Memoir

    home = tmp_path / "home"
    (home / ".claude").mkdir(parents=True)
    monkeypatch.setenv("HOME", str(home))
    store_dir = tmp_path / "store"
    store_dir.mkdir()
    claude = home / ".claude" / "CLAUDE.md"
    claude.write_text("# Mine\n")
    Memoir(store_dir).add_goal("Not injected while disabled")
    assert "memoir:session-block" not in claude.read_text()
    (store_dir / "memoir-tui.toml").write_text("[inject]\nenabled = true\n")
    store = Memoir(store_dir)
    store.note_decision("Ship on Tuesdays", why="quiet day")
    assert "Ship on Tuesdays — why: quiet day" in claude.read_text()
    store.hide_decision(store.resolve_decision("tuesdays").key)
    text = claude.read_text()
    assert "Ship on Tuesdays" not in text and text.startswith("# Mine\n")


async def test_mcp_consolidate_reports_without_applying(tmp_path):
    from mcp import Client

    from memoir_tui.mcp.server import build_server

    store_dir = tmp_path / "store"
    memory = store_dir / "memory"
    memory.mkdir(parents=True)
    body = "---\ntype: fact\nname: {n}\n---\nThe cache lives in SQLite and is rebuilt from files.\n"
    (memory / "fact_a.md").write_text(body.format(n="a"))
    (memory / "fact_b.md").write_text(body.format(n="b"))
    before = sorted(p.name for p in memory.iterdir())
    async with Client(build_server(store_dir)) as client:
        result = await client.call_tool("memoir_consolidate", {})
    text = result.content[0].text
    assert "needs a person" in text and "fact_a" in text + str(result.structured_content)
    assert sorted(p.name for p in memory.iterdir()) == before


def test_claude_and_codex_folders_follow_their_environment_variables(fx, tmp_path):
    claude, codex = tmp_path / "claude-elsewhere", tmp_path / "codex-elsewhere"
    claude.mkdir()
    codex.mkdir()
    (fx.home / ".claude").mkdir(exist_ok=True)  # the default folder exists too: not used
    env = {"CLAUDE_CONFIG_DIR": str(claude), "CODEX_HOME": str(codex)}
    paths = {ch.target: ch.path for ch in run(fx, env=env)}
    assert paths["claude"] == claude / "CLAUDE.md" and paths["codex"] == codex / "AGENTS.md"
    assert "memoir:session-block" in (claude / "CLAUDE.md").read_text()
    assert not (fx.home / ".claude" / "CLAUDE.md").exists()
    # Without them, the defaults under the home.
    paths = {ch.target: ch.path for ch in plan(fx, env={})}
    assert paths["claude"] == fx.home / ".claude" / "CLAUDE.md" and "codex" not in paths


def _plant_secret_decision(fx, text: str) -> None:
    """Another tool (or an older scanner) let a secret into session.json."""
    path = fx.store().session_path
    session = json.loads(path.read_text())
    session["current"]["decisions"].insert(
        0, {"text": text, "date": "2026-07-30T00:00:00.000Z", "why": "it works"}
    )
    path.write_text(json.dumps(session, indent=2))


def test_an_item_holding_a_secret_is_withheld_and_the_rest_injected(fx, capsys, monkeypatch):
    token = "gh" + "p_" + "q7Xk2Lm9VtR4wZp8NcYh3JsGd6BfTu1EaWn5HyKe"[:36]
    _plant_secret_decision(fx, "Deploy with " + token[:20] + "\u200b" + token[20:])
    claude = only(run(fx), "claude")
    assert claude.error is None and claude.withheld == ("github-token",)
    text = claude.path.read_text()
    assert token[8:20] not in text
    assert "Write the export command" in text  # the others still go in
    assert "1 withheld: they look like they hold a secret (github-token)" in text

    # The command says so, naming the rule, never the secret.
    import argparse

    from memoir_tui.commands.inject import cmd_inject

    monkeypatch.setenv("HOME", str(fx.home))
    ns = argparse.Namespace(
        dry_run=True, project=None, target=["claude"], remove=False, store=fx.store_dir
    )
    cmd_inject(ns)
    out = capsys.readouterr().out
    assert "1 item(s) withheld: they look like they hold a secret (github-token)" in out
    assert token[8:20] not in out
