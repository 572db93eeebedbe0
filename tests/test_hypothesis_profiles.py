"""The Hypothesis profiles of tests/conftest.py: quick by default, soak on request."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from hypothesis import settings

from tests.conftest import PROFILE_VAR, examples
from tests.inner_pytest import run_inner_pytest

INNER = """
from hypothesis import given, settings, strategies as st
from tests.conftest import examples

@settings(max_examples=examples(40))
@given(st.integers())
def test_scaled(n):
    pass

@given(st.integers())
def test_plain(n):
    pass

def test_report():
    print("SCALED", test_scaled._hypothesis_internal_use_settings.max_examples)
    print("PLAIN", settings.default.max_examples, settings.default.deadline)
"""


def run_inner(tmp_path: Path, **env: str) -> subprocess.CompletedProcess[str]:
    (tmp_path / "test_inner.py").write_text(INNER)
    return run_inner_pytest(tmp_path, "-n0", "-s", env=env, drop=(PROFILE_VAR, "MERGE_EXAMPLES"))


def test_examples_scale_with_the_loaded_profile():
    name = settings.get_current_profile_name()
    try:
        settings.load_profile("quick")
        assert examples(400) == 400 and examples(1) == 1
        assert settings.default.deadline is None
        settings.load_profile("soak")
        assert examples(400) == 4000 and settings.default.max_examples == 1000
        assert settings.default.deadline is None  # inherited from quick
    finally:
        settings.load_profile(name)


@pytest.mark.parametrize(
    ("env", "scaled", "plain"),
    [({}, 40, 100), ({PROFILE_VAR: "soak"}, 400, 1000), ({PROFILE_VAR: "quick"}, 40, 100)],
    ids=["default", "soak", "quick"],
)
def test_the_environment_picks_the_profile(tmp_path, env, scaled, plain):
    proc = run_inner(tmp_path, **env)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert f"SCALED {scaled}\n" in proc.stdout and f"PLAIN {plain} None\n" in proc.stdout
    name = env.get(PROFILE_VAR, "quick")
    assert f"hypothesis profile {name!r}" in proc.stdout


@pytest.mark.parametrize(
    ("env", "says"),
    [({PROFILE_VAR: "long"}, "the profiles are"), ({"MERGE_EXAMPLES": "5000"}, "MERGE_EXAMPLES")],
    ids=["unknown-profile", "old-knob"],
)
def test_an_unknown_profile_or_the_old_knob_is_a_usage_error(tmp_path, env, says):
    proc = run_inner(tmp_path, **env)
    assert proc.returncode == pytest.ExitCode.USAGE_ERROR, proc.stdout + proc.stderr
    assert says in proc.stderr
