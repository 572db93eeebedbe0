"""The faces' folders say what is in them, and stay that way: every screen is in
``dialogs/``, ``widgets/`` holds only widgets, ``ui/`` no widget, every pane is in
``panes/`` and named by the registry, and every subcommand runs from ``commands/``
(``cli.py`` keeps the parser, running a command and fault handling). Discovered by
importing every module of those folders and walking the parser, never listed."""

from __future__ import annotations

import argparse
import importlib
import inspect
import pkgutil
from types import ModuleType

from textual.screen import Screen
from textual.widget import Widget

from memoir_tui.cli import build_parser
from memoir_tui.panes.base import Pane
from memoir_tui.panes.registry import PANES

FOLDERS = ("panes", "dialogs", "widgets", "ui")


def modules_of(folder: str) -> list[ModuleType]:
    package = importlib.import_module(f"memoir_tui.{folder}")
    return [
        importlib.import_module(f"{package.__name__}.{info.name}")
        for info in pkgutil.iter_modules(package.__path__)
    ]


def own_classes(module: ModuleType) -> list[type]:
    return [
        c
        for _n, c in inspect.getmembers(module, inspect.isclass)
        if c.__module__ == module.__name__
    ]


def face_classes() -> list[type]:
    modules = [importlib.import_module("memoir_tui.app")]
    for folder in FOLDERS:
        modules += modules_of(folder)
    return [c for m in modules for c in own_classes(m)]


def misplaced_screens(classes: list[type]) -> list[str]:
    return [
        f"{c.__module__}.{c.__qualname__}"
        for c in classes
        if issubclass(c, Screen) and not c.__module__.startswith("memoir_tui.dialogs.")
    ]


def test_every_screen_is_a_dialog_in_dialogs() -> None:
    classes = face_classes()
    assert sum(issubclass(c, Screen) for c in classes) >= 20  # it found them
    assert misplaced_screens(classes) == []


def test_the_screen_rule_sees_a_screen_outside_dialogs() -> None:
    stray = type("StrayScreen", (Screen,), {"__module__": "memoir_tui.widgets.stray"})
    assert misplaced_screens([stray]) == ["memoir_tui.widgets.stray.StrayScreen"]


def test_widgets_holds_only_widgets_and_ui_none() -> None:
    no_widget = [
        m.__name__
        for m in modules_of("widgets")
        if not any(issubclass(c, Widget) for c in own_classes(m))
    ]
    assert no_widget == [], "a module with no widget belongs in ui/"
    widgets_in_ui = [
        f"{c.__module__}.{c.__qualname__}"
        for m in modules_of("ui")
        for c in own_classes(m)
        if issubclass(c, Widget)
    ]
    assert widgets_in_ui == [], "a widget belongs in widgets/"


def test_every_pane_is_in_panes_and_named_by_the_registry() -> None:
    panes = {
        f"{c.__module__}:{c.__qualname__}"
        for m in modules_of("panes")
        for c in own_classes(m)
        if issubclass(c, Pane) and c.PANE_ID
    }
    assert panes == {spec.location for spec in PANES}
    strays = [
        f"{c.__module__}.{c.__qualname__}"
        for c in face_classes()
        if issubclass(c, Pane) and not c.__module__.startswith("memoir_tui.panes.")
    ]
    assert strays == []


def subcommand_runs(parser: argparse.ArgumentParser, path: str = "") -> dict[str, object]:
    runs: dict[str, object] = {}
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                run = sub.get_default("run")
                if run is not None:
                    runs[f"{path}{name}"] = run
                runs.update(subcommand_runs(sub, f"{path}{name} "))
    return runs


def test_every_subcommand_runs_from_commands() -> None:
    runs = subcommand_runs(build_parser())
    assert {"validate", "merge", "forget", "config", "status", "trash list"} <= set(runs)
    outside = {
        name: getattr(run, "__module__", "?")
        for name, run in runs.items()
        if not getattr(run, "__module__", "").startswith("memoir_tui.commands.")
    }
    assert outside == {}
    cli = importlib.import_module("memoir_tui.cli")
    assert [n for n in vars(cli) if n.startswith("cmd_")] == []
