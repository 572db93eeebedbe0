"""The working-set verbs, on par with the JavaScript tool: ``goal``, ``next``, ``done``,
``unpark``, ``note``, ``ask``, ``why``, ``session``, ``resume``.

They say what the MCP tools say (``core.answers``), through the same store.
"""

from __future__ import annotations

import argparse

from memoir_tui.commands import open_store


def register(sub: argparse._SubParsersAction) -> None:
    def verb(name: str, help_text: str, run, *args: tuple[str, dict]) -> argparse.ArgumentParser:
        p = sub.add_parser(name, help=help_text)
        for flags, kwargs in args:
            p.add_argument(*flags.split("|"), **kwargs)
        p.set_defaults(run=run)
        return p

    text = ("text", {"help": "the text (at most 8 KB)"})
    every = ("--all-projects", {"action": "store_true", "help": "every project's items"})
    verb("goal", "set a goal for the current work", _goal, text)
    verb("next", "add a next action", _next, text)
    verb(
        "done",
        "complete a next action (its text, or words unique to it)",
        _done,
        ("match", {"help": "the action's text, or a substring matching one action"}),
    )
    verb(
        "unpark",
        "bring a parked next action back to the live list",
        _unpark,
        ("match", {"help": "the parked action's text, or a substring matching one"}),
    )
    verb(
        "note",
        "record a decision, with why and what was rejected",
        _note,
        text,
        ("--why", {"help": "why this choice over the others"}),
        ("--rejected", {"help": "the alternative considered and rejected"}),
    )
    verb("ask", "capture an open question", _ask, text)
    verb(
        "why",
        "look up decisions by keyword, with why and what was rejected",
        _why,
        ("query", {"help": "words to look for in the text, why or rejected"}),
        every,
    )
    verb(
        "session",
        "the working set: goals, actions, questions, decisions, sessions",
        _session,
        every,
    )
    verb(
        "resume",
        "a compact hand-off to start a session with",
        _resume,
        ("--project", {"help": "a project directory or name instead of this one"}),
    )


def _say(reply) -> int:
    print(reply.text)
    return 0


def _goal(ns: argparse.Namespace) -> int:
    from memoir_tui.core import answers

    return _say(answers.set_goal(open_store(ns), ns.text))


def _next(ns: argparse.Namespace) -> int:
    from memoir_tui.core import answers

    return _say(answers.add_next(open_store(ns), ns.text))


def _done(ns: argparse.Namespace) -> int:
    from memoir_tui.core import answers

    return _say(answers.complete_next(open_store(ns), ns.match))


def _unpark(ns: argparse.Namespace) -> int:
    outcome = open_store(ns).unpark_action(ns.match)
    print(outcome.message)
    return 0


def _note(ns: argparse.Namespace) -> int:
    from memoir_tui.core import answers

    return _say(answers.note(open_store(ns), ns.text, ns.why, ns.rejected))


def _ask(ns: argparse.Namespace) -> int:
    from memoir_tui.core import answers

    return _say(answers.ask(open_store(ns), ns.text))


def _why(ns: argparse.Namespace) -> int:
    from memoir_tui.core import answers

    return _say(answers.why(open_store(ns), ns.query, ns.all_projects))


def _session(ns: argparse.Namespace) -> int:
    from memoir_tui.core import answers

    return _say(answers.session(open_store(ns), ns.all_projects))


def _resume(ns: argparse.Namespace) -> int:
    from memoir_tui.core import answers

    return _say(answers.resume(open_store(ns), ns.project))
