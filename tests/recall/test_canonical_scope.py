"""Today's memoir's canonical memories (``<store>/memories/<64 hex>.md``, FORMAT-LATEST §11)
carry a ``project`` in their frontmatter; recall applies it as it does every source's
(FORMAT-LATEST §10): a search scoped to a project shows that project's memories, the
``shared`` ones and global ones, never another project's; every hit carries its project;
and a memory hidden, deleted, superseded or outside its ``valid_from``/``valid_until``
window is never shown — judged by the clock when it is shown, not only when indexed."""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
import time
from pathlib import Path

import pytest
from mcp import ClientSession, StdioServerParameters, stdio_client
from mcp.types import ListRootsResult, Root

from memoir_tui.core.rules.scope import project_identity
from tests.trust.test_forget_everywhere import env_for

WORD = "zorbex"
LATER = "2031-06-01T00:00:00.000Z"  # the clock a test moves to
LATER_MS = 1_938_038_400_000

# (name, extra frontmatter) of memories of the project "alpha" that must never be shown
INVISIBLE = {
    "hidden-bool": {"hidden": True},
    "hidden-string": {"hidden": "true"},
    "deleted": {"deleted": True},
    "status-deleted": {"status": "deleted"},
    "status-hidden": {"status": "hidden"},
    "status-superseded": {"status": "superseded"},
    "superseded-by": {"superseded_by": "abc"},
    "expired": {"valid_until": "2020-01-01T00:00:00.000Z"},
    "not-yet": {"valid_from": "2999-01-01T00:00:00.000Z"},
    "purged": {"hidden": True, "purged": True},
}


def memory(store: Path, name: str, project: str, body: str, **extra: object) -> Path:
    memory_id = hashlib.sha256(f"{project}\0{name}.md".encode()).hexdigest()
    lines = [
        "---",
        f'id: "{memory_id}"',
        f'name: "{name}"',
        'type: "fact"',
        f'project: "{project}"',
        'source_tool: "memoir"',
        'updated: "2026-11-01T10:00:00.000Z"',
        "revision: 1",
        *(f"{k}: {json.dumps(v)}" for k, v in extra.items()),
        "---",
        body,
    ]
    path = store / "memories" / f"{memory_id}.md"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(lines) + "\n")
    return path


def build(home: Path) -> dict[str, object]:
    store = home / ".config" / "memoir"
    alpha, beta = home / "work" / "alpha", home / "work" / "beta"
    for folder in (alpha, beta):
        folder.mkdir(parents=True)
        subprocess.run(["git", "init", "-q"], cwd=folder, check=True)
    ids = {
        "alpha": project_identity(alpha, home=home).id,
        "beta": project_identity(beta, home=home).id,
    }
    memory(store, "a", ids["alpha"], f"{WORD} alpha memory")
    memory(store, "b", ids["beta"], f"{WORD} beta memory")
    memory(store, "s", "shared", f"{WORD} shared memory")
    for name, extra in INVISIBLE.items():
        memory(store, name, ids["alpha"], f"{WORD} {name} memory", **extra)
    return {"store": store, "alpha_dir": alpha, "beta_dir": beta, **ids}


def cli(home: Path, cwd: Path, *args: str) -> list[dict]:
    proc = subprocess.run(
        [sys.executable, "-m", "memoir_tui", "recall", WORD, "--json", "-n", "50", *args],
        cwd=cwd,
        env=env_for(home),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def seen(hits: list[dict]) -> dict[str, str]:
    """passage word → the project the hit carries."""
    return {h["passage"].split()[1]: h["project"] for h in hits}


def test_the_cli_scopes_canonical_memories_by_their_project(tmp_path: Path) -> None:
    home = tmp_path / "home"
    w = build(home)
    alpha, beta = w["alpha_dir"], w["beta_dir"]
    assert isinstance(alpha, Path) and isinstance(beta, Path)
    # inside alpha: its own, shared; never beta's, never an invisible one
    assert seen(cli(home, alpha)) == {"alpha": w["alpha"], "shared": "shared"}
    assert seen(cli(home, beta)) == {"beta": w["beta"], "shared": "shared"}
    # the project named by its id (as memoir stamps it), by its folder, or by its name
    for named in (str(w["beta"]), str(beta), "beta"):
        assert seen(cli(home, alpha, "--project", named)) == {
            "beta": w["beta"],
            "shared": "shared",
        }, named
    # every project: all three, each with its own project; still no invisible one
    assert seen(cli(home, alpha, "--all-projects")) == {
        "alpha": w["alpha"],
        "beta": w["beta"],
        "shared": "shared",
    }
    # home is no project: every project is shown (README), the invisible ones never
    assert set(seen(cli(home, home))) == {"alpha", "beta", "shared"}


def test_a_window_is_judged_by_the_clock_when_shown(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from memoir_tui.core.recall import Recall

    home = tmp_path / "home"
    w = build(home)
    store, alpha = w["store"], w["alpha_dir"]
    assert isinstance(store, Path) and isinstance(alpha, Path)
    memory(store, "until", str(w["alpha"]), f"{WORD} until memory", valid_until=LATER)
    memory(store, "from", str(w["alpha"]), f"{WORD} from memory", valid_from=LATER)
    env = {"HOME": str(home), "XDG_CONFIG_HOME": str(home / ".config")}
    with Recall(store, home=home, env=env, cache_dir=tmp_path / "cache", cwd=alpha) as recall:
        now = {h.passage.split()[1] for h in recall.search(WORD, limit=50)}
        assert now == {"alpha", "shared", "until"}
        # the clock passes LATER; the files are unchanged, so the index is not re-read
        monkeypatch.setattr(time, "time_ns", lambda: LATER_MS * 1_000_000)
        later = {h.passage.split()[1] for h in recall.search(WORD, limit=50)}
        assert later == {"alpha", "shared", "from"}


async def test_mcp_recall_scopes_them_to_the_clients_root(tmp_path: Path) -> None:
    home = tmp_path / "home"
    w = build(home)
    alpha = w["alpha_dir"]
    assert isinstance(alpha, Path)

    async def roots(_context: object) -> ListRootsResult:
        return ListRootsResult(roots=[Root(uri=alpha.as_uri(), name="alpha")])

    params = StdioServerParameters(
        command=sys.executable, args=["-m", "memoir_tui", "--mcp"], env=env_for(home), cwd="/"
    )
    async with (
        stdio_client(params) as (r, w_),
        ClientSession(r, w_, list_roots_callback=roots) as session,
    ):
        await session.initialize()
        scoped = await session.call_tool("memoir_recall", {"query": WORD, "limit": 30})
        every = await session.call_tool(
            "memoir_recall", {"query": WORD, "limit": 30, "all_projects": True}
        )
    assert not scoped.is_error and not every.is_error
    assert scoped.structured_content is not None and every.structured_content is not None
    assert seen(scoped.structured_content["hits"]) == {"alpha": w["alpha"], "shared": "shared"}
    assert seen(every.structured_content["hits"]) == {
        "alpha": w["alpha"],
        "beta": w["beta"],
        "shared": "shared",
    }
