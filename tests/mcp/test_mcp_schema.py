"""The MCP tools' modules and their answer types, each declared once.

* every module under ``mcp/tools/`` (found, not listed) is registered by the server,
  once, and declares exactly the tool named after it;
* every answer type in core (a dataclass of ``core.answers`` or
  ``core.recall.answers``, found, not listed) becomes a model with the dataclass's
  name, docstring, fields in order, descriptions, required fields and defaults; and
  every structured tool publishes the model of the very type its answer returns.

The published bytes themselves are pinned by ``tests/fixtures/mcp_tools_snapshot.json``
(``test_mcp_server.py``).
"""

from __future__ import annotations

import dataclasses
import importlib
import inspect
import pkgutil
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from mcp import Client
from mcp.server.mcpserver import MCPServer

from memoir_tui.core import answers
from memoir_tui.core.recall import answers as recall_answers
from memoir_tui.core.workflows.memoir import Memoir
from memoir_tui.mcp import schema, server
from memoir_tui.mcp import tools as tools_package
from memoir_tui.mcp.runtime import CallGate, Runtime
from memoir_tui.mcp.warm_recall import close_all


def tool_modules() -> dict[str, ModuleType]:
    return {
        info.name: importlib.import_module(f"{tools_package.__name__}.{info.name}")
        for info in pkgutil.iter_modules(tools_package.__path__)
    }


def answer_types() -> list[type]:
    return [
        cls
        for module in (answers, recall_answers)
        for _, cls in inspect.getmembers(module, dataclasses.is_dataclass)
        if cls.__module__ == module.__name__ and cls.__name__.endswith(("Out", "View"))
    ]


def test_every_tool_module_is_registered_once() -> None:
    found = tool_modules()
    assert len(found) == 19
    assert sorted(m.__name__ for m in server.TOOLS) == sorted(m.__name__ for m in found.values())


@pytest.mark.parametrize("name", sorted(tool_modules()))
async def test_a_tool_module_declares_the_tool_named_after_it(name: str, tmp_path: Path) -> None:
    bare = MCPServer("probe")
    tool_modules()[name].register(Runtime(bare, tmp_path, CallGate()))
    assert [t.name for t in await bare.list_tools()] == [f"memoir_{name}"]


def test_the_answer_types_are_found() -> None:
    names = {cls.__name__ for cls in answer_types()}
    assert {"StatusView", "SessionOut", "ReviewView", "RecallView", "ListView"} <= names
    assert len(names) == 15


@pytest.mark.parametrize("cls", answer_types(), ids=lambda c: c.__name__)
def test_a_model_says_what_its_dataclass_declares(cls: type) -> None:
    model = schema.model_for(cls)
    assert schema.model_for(cls) is model  # built once: nested uses share one $defs entry
    assert model.__name__ == cls.__name__
    published = model.model_json_schema()
    own_doc = cls.__doc__ if not cls.__doc__.startswith(f"{cls.__name__}(") else None
    assert published.get("description") == (inspect.cleandoc(own_doc) if own_doc else None)
    fields = dataclasses.fields(cls)
    assert list(model.model_fields) == [f.name for f in fields]
    required = {
        f.name
        for f in fields
        if f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING
    }
    assert set(published.get("required", ())) == required
    for f in fields:
        prop = published["properties"][f.name]
        assert prop.get("description") == f.metadata.get("description"), f.name
        if f.default is not dataclasses.MISSING:
            assert prop["default"] == f.default, f.name
        elif "default" in f.metadata:
            assert prop["default"] == f.metadata["default"], f.name
        else:
            assert "default" not in prop, f.name


def test_a_default_factory_is_kept_unless_the_field_names_its_default() -> None:
    session_out = schema.model_for(answers.SessionOut).model_json_schema()
    assert session_out["properties"]["files_touched"]["default"] == []
    recall_view = schema.model_for(recall_answers.RecallView)
    assert "default" not in recall_view.model_json_schema()["properties"]["elsewhere"]
    made = [recall_view.model_validate({"query": "q", "scope": "s", "hits": []}) for _ in "ab"]
    assert made[0].elsewhere == {} and made[0].elsewhere is not made[1].elsewhere


def test_structured_data_is_written_as_the_schema_says() -> None:
    passage = recall_answers.PassageOut(
        path="/m.md",
        tool="claude",
        type="fact",
        name="n",
        score=1,  # an int where the schema says number
        passage="p",
        why={"name": ["n"]},
        project="",
        kind="memory",
        always_loaded=False,
        lines=[(1, 2)],  # type: ignore[list-item]  # tuples, as Hit.lines holds them
    )
    data = schema.structured(recall_answers.RecallView(query="q", scope="s", hits=[passage]))
    assert data["hits"][0]["score"] == 1.0 and isinstance(data["hits"][0]["score"], float)
    assert data["hits"][0]["lines"] == [[1, 2]]
    assert data["complete"] is True and data["elsewhere"] == {}
    with pytest.raises(TypeError, match="not a dataclass"):
        schema.model_for(dict)


STRUCTURED_CALLS: list[tuple[str, dict[str, Any]]] = [
    ("memoir_status", {}),
    ("memoir_session", {}),
    ("memoir_why", {"query": "anything"}),
    ("memoir_resume", {}),
    ("memoir_review", {}),
    ("memoir_recall", {"query": "anything"}),
    ("memoir_list", {}),
]


async def test_every_structured_tool_publishes_the_model_of_what_it_answers(
    store_dir: Path, store: Memoir
) -> None:
    """A tool's output schema is the model of a core answer type (its title names it),
    and what the tool answers validates against that model and comes back unchanged."""
    store.add_goal("a goal")
    try:
        async with Client(server.build_server(store_dir)) as client:
            listed = {t.name: t for t in (await client.list_tools()).tools}
            by_name = {cls.__name__: cls for cls in answer_types()}
            typed = {
                n for n, t in listed.items() if (t.output_schema or {}).get("title") in by_name
            }
            assert typed == {name for name, _ in STRUCTURED_CALLS}
            for name, args in STRUCTURED_CALLS:
                result = await client.call_tool(name, args)
                assert not result.is_error, result.content
                title = listed[name].output_schema["title"]
                model = schema.model_for(by_name[title])
                assert model.model_validate(result.structured_content).model_dump(mode="json") == (
                    result.structured_content
                )
    finally:
        close_all()  # the recall call's watcher thread and index connection
