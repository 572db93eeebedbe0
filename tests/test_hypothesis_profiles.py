"""The Hypothesis profiles of tests/conftest.py: quick by default, soak on request."""

from __future__ import annotations

import ast
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


def test_a_test_may_name_a_deeper_soak():
    name = settings.get_current_profile_name()
    try:
        settings.load_profile("quick")
        assert examples(100, soak=4000) == 100 and examples(150) == 150
        settings.load_profile("soak")
        assert examples(100, soak=4000) == 4000 and examples(150) == 1500
    finally:
        settings.load_profile(name)


# --- every count through examples() -----------------------------------------------

TESTS = Path(__file__).parent


def fixed_counts(source: str) -> list[int]:
    """The lines where ``max_examples=`` is given something other than ``examples(…)``
    (a count the soak profile would not scale); registering a profile is where the scale
    is set, so ``register_profile`` is left out."""
    lines = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        if (func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")) == (
            "register_profile"
        ):
            continue
        for keyword in node.keywords:
            value = keyword.value
            through = isinstance(value, ast.Call) and getattr(value.func, "id", "") == "examples"
            if keyword.arg == "max_examples" and not through:
                lines.append(value.lineno)
    return lines


def test_the_guard_sees_a_fixed_count():
    assert fixed_counts("@settings(max_examples=150, deadline=None)\ndef t(): ...\n") == [1]
    assert fixed_counts("EXAMPLES = hypothesis.settings(max_examples=N)\n") == [1]
    assert fixed_counts("@settings(max_examples=examples(150, soak=3000))\ndef t(): ...\n") == []


def test_every_max_examples_in_the_tests_goes_through_examples():
    files = sorted(TESTS.rglob("*.py"))
    sources = {path: path.read_text(encoding="utf-8") for path in files}
    counted = [path for path, text in sources.items() if "max_examples=examples(" in text]
    assert len(counted) >= 10  # the walk reached the property tests
    fixed = [
        f"{path.relative_to(TESTS.parent)}:{line}"
        for path, text in sources.items()
        for line in fixed_counts(text)
    ]
    assert fixed == [], f"write these as max_examples=examples(n): {fixed}"
