"""A canonical memory hidden or purged here reads as hidden or purged to today's memoir:
its own frontmatter parser (``parseFrontmatter`` of ``src/commands/validate.js``), run
with node from the fetched memoir sources when they are present (``MEMOIR_JS_REPO``: a
bare git repository of camgitt/memoir), and its restore rule (purged > hidden > live;
the id must match the file and the project be shared|git:…|local:…)."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from memoir_tui.core.services.places import (
    hidden_form,
    parse_canonical,
    purged_form,
    render_canonical,
)

# A git checkout (or bare mirror) of memoir's public sources; the test skips without it.
JS_REPO = Path(os.environ["MEMOIR_JS_REPO"]) if os.environ.get("MEMOIR_JS_REPO") else None
MEMORY_ID = "a" * 64
NOW = "2026-12-03T10:00:00.000Z"
FIELDS = {
    "id": MEMORY_ID,
    "name": "launch",
    "type": "fact",
    "project": "git:0123456789abcdef0123456789abcdef",
    "updated": "2026-11-01T10:00:00.000Z",
    "revision": 2,
    "aliases": ["launch", "ship it"],
    "tags": [],
}


def memoir_parse(raw: str) -> dict:
    """memoir's own parseFrontmatter, cut from its sources and run by node."""
    if shutil.which("node") is None or JS_REPO is None or not JS_REPO.is_dir():
        pytest.skip("set MEMOIR_JS_REPO to memoir's sources (and have node) to run this")
    try:
        source = subprocess.run(
            ["git", "--git-dir", str(JS_REPO), "show", "HEAD:src/commands/validate.js"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout
    except subprocess.CalledProcessError:
        pytest.skip("the fetched memoir sources have no validate.js")
    start = source.find("function parseScalar")
    end = source.find("// ── Shared checks")
    if start < 0 or end < 0:
        pytest.skip("validate.js has another shape")
    code = source[start:end].replace("export function", "function")
    script = code + "\nconst raw = require('fs').readFileSync(0, 'utf8');\n"
    script += "process.stdout.write(JSON.stringify(parseFrontmatter(raw)));\n"
    proc = subprocess.run(
        ["node", "-e", script], input=raw, capture_output=True, text=True, check=True
    )
    return json.loads(proc.stdout)


def test_purged_reads_as_purged_to_memoir() -> None:
    raw = purged_form(MEMORY_ID, FIELDS, NOW)
    parsed = memoir_parse(raw)
    fields = parsed["fields"]
    assert parsed["error"] is None and parsed["body"] == "[purged]"
    assert fields == {
        "id": MEMORY_ID,
        "project": FIELDS["project"],
        "type": "fact",
        "hidden": True,
        "purged": True,
        "hidden_at": NOW,
        "updated": NOW,
        "revision": 3,
    }
    # memoir's restore accepts it and ranks it above every live or hidden copy
    assert fields["id"] == MEMORY_ID
    assert re.fullmatch(r"(?:shared|(?:git|local):[a-f0-9]{32})", fields["project"])


def test_hidden_reads_as_hidden_to_memoir_and_keeps_the_rest() -> None:
    raw = hidden_form(FIELDS, "Body line\nsecond", NOW)
    parsed = memoir_parse(raw)
    assert parsed["body"] == "Body line\nsecond"
    fields = parsed["fields"]
    assert fields["hidden"] is True and fields["hidden_at"] == NOW == fields["updated"]
    assert fields["revision"] == 3 and fields["aliases"] == ["launch", "ship it"]
    assert fields["name"] == "launch" and fields["tags"] == ""  # memoir: a bare key is ""


scalars = st.one_of(st.text(max_size=20), st.integers(-5, 5), st.booleans())
keys = st.from_regex(r"[a-z][a-z0-9_]{0,8}", fullmatch=True)


@given(st.dictionaries(keys, scalars, max_size=6), st.text(max_size=40))
def test_our_reader_reads_what_we_write(fields: dict, body: str) -> None:
    body = body.replace("\r", "")
    parsed = parse_canonical(render_canonical(fields, body))
    assert parsed is not None
    got, got_body = parsed
    assert got_body == body or body.startswith("---")
    for key, value in fields.items():
        if isinstance(value, str) and value.strip() != value:
            continue
        assert got[key] == value, key
