"""Editing one entry of a JSON/JSONC or TOML config text, keeping every other byte.

Pure text in, text out: no files. Results are checked with an independent
JSONC stripper and ``tomllib``, never with the module's own reader.
"""

from __future__ import annotations

import json
import re
import tomllib
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from memoir_tui.core.hosts.config_splice import (
    UnparseableConfig,
    UnsafeEdit,
    json_entries,
    new_json_document,
    put_json_entry,
    put_toml_table,
    remove_json_entry,
    remove_toml_table,
    render_toml_table,
    toml_entries,
)
from tests.conftest import examples

FIXTURES = Path(__file__).parents[1] / "fixtures" / "mcp_configs"
NAME = "memoir-tui"
ENTRY: dict[str, Any] = {"command": "memoir-tui", "args": ["--mcp"]}
COMMENT_RE = re.compile(r"//[^\n]*|/\*.*?\*/", re.S)


def strip_jsonc(text: str) -> str:
    """An independent JSONC -> JSON converter for checking results (not the module's reader).

    Comments go, and so does a comma that only a closing bracket follows; strings are
    copied whole (a key such as ",}" keeps its comma)."""
    out: list[str] = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c == '"':
            j = i + 1
            while text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            out.append(text[i : j + 1])
            i = j + 1
        elif text.startswith("//", i):
            j = text.find("\n", i)
            i = n if j < 0 else j
        elif text.startswith("/*", i):
            i = text.index("*/", i) + 2
        elif c in "}]":
            while out and out[-1].isspace():
                out.pop()
            if out and out[-1] == ",":
                out.pop()  # a trailing comma
            out.append(c)
            i += 1
        else:
            out.append(c)
            i += 1
    return "".join(out)


def jsonc(text: str) -> Any:
    return json.loads(strip_jsonc(text.lstrip("\ufeff")))


def without(data: dict[str, Any], key: str, name: str = NAME) -> dict[str, Any]:
    data = json.loads(json.dumps(data, default=str))
    entries = data.get(key)
    if isinstance(entries, dict):
        entries.pop(name, None)
        if not entries:
            del data[key]
    return data


def fixture(name: str) -> str:
    return (FIXTURES / name).read_text(encoding="utf-8")


# --------------------------------------------------------------------------- JSON


def test_fresh_document_and_blank_text() -> None:
    fresh = new_json_document("mcpServers", NAME, ENTRY)
    assert fresh == (
        '{\n  "mcpServers": {\n    "memoir-tui": {\n      "command": "memoir-tui",\n'
        '      "args": [\n        "--mcp"\n      ]\n    }\n  }\n}\n'
    )
    # Blank text is an empty config: it holds nothing, and a put makes a fresh document.
    assert json_entries(" \n", "mcpServers") == {}
    assert put_json_entry("", "mcpServers", NAME, ENTRY) == fresh
    assert put_json_entry("\ufeff\n", "mcpServers", NAME, ENTRY) == "\ufeff" + fresh
    assert remove_json_entry("\n", "mcpServers", NAME, drop_empty_container=True) == "\n"


def test_put_of_the_same_value_returns_the_text_unchanged() -> None:
    text = '{ "mcpServers" : { "memoir-tui" : {"command":"memoir-tui","args":["--mcp"]} } }'
    assert put_json_entry(text, "mcpServers", NAME, ENTRY) is text
    assert remove_json_entry(text, "mcpServers", "other", drop_empty_container=True) is text


def test_duplicate_keys_are_all_removed() -> None:
    text = (
        '{\n  "mcpServers": {\n    "memoir-tui": {"command": "a"},\n'
        '    "x": {"command": "x"},\n    "memoir-tui": {"command": "b"}\n  }\n}\n'
    )
    assert json_entries(text, "mcpServers")[NAME] == {"command": "b"}  # the last one wins
    assert remove_json_entry(text, "mcpServers", NAME, drop_empty_container=True) == (
        '{\n  "mcpServers": {\n    "x": {"command": "x"}\n  }\n}\n'
    )


def test_indentation_style_is_detected() -> None:
    assert put_json_entry('{\n    "theme": 1\n}\n', "mcpServers", NAME, ENTRY) == (
        "{\n"
        '    "theme": 1,\n'
        '    "mcpServers": {\n'
        '        "memoir-tui": {\n'
        '            "command": "memoir-tui",\n'
        '            "args": [\n'
        '                "--mcp"\n'
        "            ]\n"
        "        }\n"
        "    }\n"
        "}\n"
    )
    tabs = put_json_entry(fixture("vscode_mcp.json"), "servers", NAME, {"type": "stdio", **ENTRY})
    assert '\n\t\t"memoir-tui": {\n\t\t\t"type": "stdio",\n' in tabs


def test_crlf_newlines_are_kept() -> None:
    original = '{\r\n  "theme": "x"\r\n}\r\n'
    text = put_json_entry(original, "mcpServers", NAME, ENTRY)
    assert text.count("\n") == text.count("\r\n")
    assert remove_json_entry(text, "mcpServers", NAME, drop_empty_container=True) == original


def test_byte_order_mark_is_kept() -> None:
    original = '\ufeff{\n  "theme": "x"\n}\n'
    text = put_json_entry(original, "mcpServers", NAME, ENTRY)
    assert text.startswith("\ufeff")
    assert json_entries(text, "mcpServers") == {NAME: ENTRY}
    assert remove_json_entry(text, "mcpServers", NAME, drop_empty_container=True) == original


def test_an_emptied_container_stays_or_goes_as_asked() -> None:
    text = put_json_entry('{"numStartups": 1}', "mcpServers", NAME, ENTRY)
    assert remove_json_entry(text, "mcpServers", NAME, drop_empty_container=True) == (
        '{"numStartups": 1}'
    )
    assert remove_json_entry(text, "mcpServers", NAME, drop_empty_container=False) == (
        '{"numStartups": 1, "mcpServers": {}}'
    )
    # A container with a comment inside is the user's: it stays even when asked to go.
    commented = '{\n  "a": 1,\n  "mcpServers": {\n    // mine\n    "memoir-tui": {}\n  }\n}\n'
    kept = remove_json_entry(commented, "mcpServers", NAME, drop_empty_container=True)
    assert "// mine" in kept and jsonc(kept) == {"a": 1, "mcpServers": {}}


@pytest.mark.parametrize(
    "original",
    [
        # Last member followed by a line comment and no comma: the comma goes before the comment.
        '{\n  "a": 1 // one\n}\n',
        # A comment-only container.
        '{\n  "context_servers": {\n    // none yet\n  },\n  "b": [1, 2,],\n}\n',
        # One-line object with a block comment.
        '{"a": /* c */ 1}',
        # Closing brace on the last member's line.
        '{\n  "a": {"x": 1}}',
    ],
)
def test_jsonc_edge_cases(original: str) -> None:
    entry = {"source": "custom", **ENTRY}
    text = put_json_entry(original, "context_servers", NAME, entry)
    for comment in COMMENT_RE.findall(original):
        assert comment in text
    assert jsonc(text)["context_servers"][NAME] == entry
    restored = remove_json_entry(text, "context_servers", NAME, drop_empty_container=True)
    assert jsonc(restored) == jsonc(original)
    for comment in COMMENT_RE.findall(original):
        assert comment in restored


def test_comments_next_to_the_entry_are_not_swallowed() -> None:
    text = (
        '{\n  "context_servers": {\n    "x": {"command": "x"}, // keep me\n'
        '    "memoir-tui": {"command": "old"}}\n}\n'
    )
    removed = remove_json_entry(text, "context_servers", NAME, drop_empty_container=True)
    assert "// keep me" in removed
    assert jsonc(removed) == {"context_servers": {"x": {"command": "x"}}}


@pytest.mark.parametrize("name", ["claude.json", "windsurf_mcp_config.json"])
def test_strict_json_stays_strict(name: str) -> None:
    # Our edits never add a trailing comma or a comment to a text that had none.
    text = put_json_entry(fixture(name), "mcpServers", NAME, ENTRY)
    json.loads(text)
    json.loads(remove_json_entry(text, "mcpServers", NAME, drop_empty_container=False))


@pytest.mark.parametrize(
    ("content", "reason"),
    [
        ("{not json", "invalid JSON at line 1, column 2"),
        ('{"mcpServers": {}', "unterminated object"),
        ("[1, 2]", "top level is not a JSON object"),
        ('"just a string"', "top level is not a JSON object"),
        ('{"mcpServers": []}', "'mcpServers' is not a JSON object"),
        ('{\n  /* unterminated\n  "a": 1\n}', "unterminated /* comment"),
        ('{"a": 1} trailing', "unexpected text after the top-level value"),
        ('{"a": NaN}', "invalid JSON"),
        pytest.param("[" * 100_000, "nested too deeply", id="deep"),
    ],
)
def test_unparseable_json_is_refused_with_a_reason(content: str, reason: str) -> None:
    for edit in (
        lambda: json_entries(content, "mcpServers"),
        lambda: put_json_entry(content, "mcpServers", NAME, ENTRY),
        lambda: remove_json_entry(content, "mcpServers", NAME, drop_empty_container=True),
    ):
        with pytest.raises(UnparseableConfig) as err:
            edit()
        assert reason in err.value.reason


json_scalars = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=6)
)
json_values = st.recursive(
    json_scalars,
    lambda children: (
        st.lists(children, max_size=3) | st.dictionaries(st.text(max_size=4), children, max_size=3)
    ),
    max_leaves=8,
)


@settings(max_examples=examples(150), deadline=None)
@given(
    doc=st.dictionaries(
        st.text(max_size=6).filter(lambda k: k != "mcpServers"), json_values, max_size=4
    ),
    servers=st.none()
    | st.dictionaries(
        st.text(max_size=6).filter(lambda k: k != NAME),
        st.dictionaries(st.text(max_size=4), json_values, max_size=2),
        max_size=3,
    ),
    indent=st.sampled_from([None, 0, 1, 2, 4, "\t"]),
    ensure_ascii=st.booleans(),
    final_newline=st.booleans(),
)
def test_any_json_text_round_trips(
    doc: dict[str, Any],
    servers: dict[str, Any] | None,
    indent: int | str | None,
    ensure_ascii: bool,
    final_newline: bool,
) -> None:
    # A container we added goes again (a shared settings file); one that was there stays.
    data = dict(doc) if servers is None else {**doc, "mcpServers": servers}
    original = json.dumps(data, indent=indent, ensure_ascii=ensure_ascii)
    original += "\n" if final_newline else ""

    text = put_json_entry(original, "mcpServers", NAME, ENTRY)
    installed = json.loads(text)
    assert installed["mcpServers"][NAME] == ENTRY
    assert without(installed, "mcpServers") == without(data, "mcpServers")
    assert put_json_entry(text, "mcpServers", NAME, ENTRY) == text

    drop = servers is None
    assert remove_json_entry(text, "mcpServers", NAME, drop_empty_container=drop) == original


@settings(max_examples=examples(150), deadline=None)
@given(
    doc=st.dictionaries(
        st.text(max_size=6).filter(lambda k: k != "context_servers"), json_values, max_size=4
    ),
    servers=st.none()
    | st.dictionaries(
        st.text(max_size=6).filter(lambda k: k != NAME),
        st.dictionaries(st.text(max_size=4), json_values, max_size=2),
        min_size=1,
        max_size=3,
    ),
    indent=st.sampled_from([2, 4, "\t"]),
    comment_lines=st.sets(st.integers(min_value=0, max_value=40)),
    comment_tails=st.sets(st.integers(min_value=0, max_value=40)),
)
def test_any_jsonc_text_keeps_its_comments(
    doc: dict[str, Any],
    servers: dict[str, Any] | None,
    indent: int | str,
    comment_lines: set[int],
    comment_tails: set[int],
) -> None:
    data = dict(doc) if servers is None else {**doc, "context_servers": servers}
    lines = json.dumps(data, indent=indent, ensure_ascii=False).split("\n")
    out: list[str] = []
    for number, line in enumerate(lines):
        if number in comment_lines:
            out.append(f'// note {number} {{ }} "q"')
        out.append(line + (f" /* tail {number} */" if number in comment_tails else ""))
    original = "\n".join(out) + "\n"
    comments = COMMENT_RE.findall(original)

    text = put_json_entry(original, "context_servers", NAME, ENTRY)
    assert all(comment in text for comment in comments)
    parsed = jsonc(text)
    assert parsed["context_servers"][NAME] == ENTRY
    assert without(parsed, "context_servers") == without(data, "context_servers")
    assert put_json_entry(text, "context_servers", NAME, ENTRY) == text

    restored = remove_json_entry(text, "context_servers", NAME, drop_empty_container=True)
    assert all(comment in restored for comment in comments)
    assert jsonc(restored) == data


# --------------------------------------------------------------------------- TOML


def test_toml_table_is_appended_and_every_other_byte_kept() -> None:
    original = fixture("codex_config.toml")
    text = put_toml_table(original, "mcp_servers", NAME, ENTRY)
    assert text.startswith(original)
    assert text[len(original) :] == (
        '\n[mcp_servers.memoir-tui]\ncommand = "memoir-tui"\nargs = ["--mcp"]\n'
    )
    data = tomllib.loads(text)
    # The header-looking lines inside strings and the multi-line array were not mistaken for ours.
    assert "[mcp_servers.memoir-tui]" in data["notes"]
    assert data["mcp_servers"]["github"]["matrix"] == [["a", "b"], ["c"]]
    assert toml_entries(text, "mcp_servers")[NAME] == ENTRY
    assert put_toml_table(text, "mcp_servers", NAME, ENTRY) is text
    assert remove_toml_table(text, "mcp_servers", NAME) == original


def test_toml_table_in_the_middle_is_replaced_and_neighbours_kept() -> None:
    original = (
        'model = "x"\n'
        "\n"
        '[mcp_servers."memoir-tui"]\n'
        'command = "/old/path/memoir-tui"\n'
        "\n"
        "# env for our server\n"
        '[mcp_servers."memoir-tui".env]\n'
        'MEMOIR_HOME = "/old"\n'
        "\n"
        "# Settings for the other server\n"
        "[mcp_servers.other]\n"
        'command = "other"\n'
    )
    value = {"command": "C:\\Tools\\memoir-tui.exe", "env": {"MEMOIR_HOME": 'q"uo\\te ü'}}
    text = put_toml_table(original, "mcp_servers", NAME, value)
    assert text == (
        'model = "x"\n'
        "\n"
        "# Settings for the other server\n"
        "[mcp_servers.other]\n"
        'command = "other"\n'
        "\n"
        "[mcp_servers.memoir-tui]\n"
        'command = "C:\\\\Tools\\\\memoir-tui.exe"\n'
        'env = { MEMOIR_HOME = "q\\"uo\\\\te ü" }\n'
    )
    assert tomllib.loads(text)["mcp_servers"][NAME] == value
    assert remove_toml_table(text, "mcp_servers", NAME) == (
        'model = "x"\n\n# Settings for the other server\n[mcp_servers.other]\ncommand = "other"\n'
    )


def test_toml_crlf_and_a_missing_final_newline() -> None:
    original = 'model = "x"\r\n\r\n[profiles.a]\r\nmodel = "y"\r\n'
    text = put_toml_table(original, "mcp_servers", NAME, ENTRY)
    assert text.count("\n") == text.count("\r\n")
    assert remove_toml_table(text, "mcp_servers", NAME) == original

    text = put_toml_table('model = "x"', "mcp_servers", NAME, ENTRY)
    assert text == 'model = "x"\n\n' + render_toml_table("mcp_servers", NAME, ENTRY)
    assert remove_toml_table(text, "mcp_servers", NAME) == 'model = "x"\n'  # a newline comes back


@pytest.mark.parametrize(
    "content",
    [
        '[mcp_servers]\nmemoir-tui = { command = "old" }\n',
        'mcp_servers.memoir-tui.command = "old"\n',
    ],
)
def test_toml_entry_in_a_form_we_do_not_rewrite_is_refused(content: str) -> None:
    for edit in (
        lambda: put_toml_table(content, "mcp_servers", NAME, ENTRY),
        lambda: remove_toml_table(content, "mcp_servers", NAME),
    ):
        with pytest.raises(UnsafeEdit, match="dotted keys or an inline table"):
            edit()


def test_toml_inline_container_cannot_be_extended() -> None:
    with pytest.raises(UnsafeEdit, match="invalid"):
        put_toml_table('mcp_servers = { other = { command = "x" } }\n', "mcp_servers", NAME, ENTRY)


@pytest.mark.parametrize(
    ("content", "reason"),
    [
        ("model = \n", "invalid TOML"),
        ("[mcp_servers]\n[mcp_servers]\n", "invalid TOML"),
        ("mcp_servers = 3\n", "'mcp_servers' is not a table"),
        ("[[mcp_servers]]\nname = 'x'\n", "'mcp_servers' is not a table"),
    ],
)
def test_unparseable_toml_is_refused_with_a_reason(content: str, reason: str) -> None:
    for edit in (
        lambda: toml_entries(content, "mcp_servers"),
        lambda: put_toml_table(content, "mcp_servers", NAME, ENTRY),
        lambda: remove_toml_table(content, "mcp_servers", NAME),
    ):
        with pytest.raises(UnparseableConfig) as err:
            edit()
        assert reason in err.value.reason


def test_rendered_toml_values() -> None:
    table = render_toml_table(
        "mcp_servers",
        "odd name",
        {"args": ['say "hi"', "tab\there"], "on": True, "n": 3, "env": {"WEIRD KEY": "ü"}},
    )
    assert table.startswith('[mcp_servers."odd name"]\n')
    assert tomllib.loads(table)["mcp_servers"]["odd name"] == {
        "args": ['say "hi"', "tab\there"],
        "on": True,
        "n": 3,
        "env": {"WEIRD KEY": "ü"},
    }


def test_the_checker_keeps_commas_inside_strings() -> None:
    # Found by the property test: a key ",}" lost its comma in the old checker.
    assert json.loads(strip_jsonc('{",}": null, "a": [1, 2,], // x\n}')) == {
        ",}": None,
        "a": [1, 2],
    }
