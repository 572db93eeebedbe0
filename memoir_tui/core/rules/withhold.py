"""Secrets found in a session that is about to be copied somewhere else are held back.

A session can hold a secret that our door never let in: another tool wrote it,
or an older scanner missed it. Whatever copies a session's text out of the
store (``merge`` to another file or to stdout, a ``sync`` pull from a remote
written elsewhere) passes it through ``withhold_secrets`` first:

* a live item (goal, next action, question, decision, an unknown list's item,
  a history entry) holding a secret in any of its strings is left out;
* a tombstone (a hidden or purged item, a completion) is kept, in its purged
  form: the text becomes its hash, so the hiding or completion still spreads
  and the secret does not;
* any other value (an unknown field, a machine's entry) holding one is left out.

What was held back is said by list and rule, never by text. Pure: the input is
not changed.

What hands a session's text to someone else to read (the session-start brief, the
agent view, the MCP and CLI answers that return stored text) shows an item that holds
a secret as ``withheld_text(rule)`` instead: the reader learns that an item is there
and what kind of secret it holds, never the secret (``secret_in``).
"""

from __future__ import annotations

import copy
from typing import Any

from memoir_tui.core.format.identity import PURGED_TEXT, text_hash
from memoir_tui.core.format.items import is_hidden, is_purged, plural

WITHHELD = "withheld: looks like a secret"


def secret_in(*texts: str | None) -> str | None:
    """The kind of the first secret in any of ``texts`` (the fields of one item), or in
    two of them joined end to start (a key split between them); None when clean."""
    present = [t for t in texts if isinstance(t, str) and t]
    if not present:
        return None
    from memoir_tui.core.format.secrets import SecretFoundError, ensure_no_secrets_together

    try:
        ensure_no_secrets_together([(str(i), t) for i, t in enumerate(present)])
    except SecretFoundError as err:
        return err.rules[0] if err.rules else "secret"
    return None


def withheld_text(rule: str) -> str:
    """What is shown in place of an item that holds a secret."""
    return f"[{WITHHELD} ({rule})]"


def shown_text(text: str) -> str:
    """``text`` as it may be handed out: itself, or the withheld sentence."""
    rule = secret_in(text)
    return text if rule is None else withheld_text(rule)


def withhold_lines(text: str, kept: int | None = None) -> tuple[str, int]:
    """``text`` (a file or a passage of one) with every line a secret touches shown as
    withheld (a key over several lines withholds all of them), and where ``kept`` (an
    offset into ``text``, its end by default) falls in the new text."""
    from memoir_tui.core.format.secrets import find_secrets

    kept = len(text) if kept is None else kept
    findings = find_secrets(text)
    if not findings:
        return text, kept
    out: list[str] = []
    new_kept = 0
    at = 0
    for line in text.splitlines(keepends=True):
        end = at + len(line)
        hit = next((f for f in findings if f.start < end and f.end > at), None)
        body = line.rstrip("\r\n")
        shown = withheld_text(hit.rule) + line[len(body) :] if hit else line
        if at < kept:
            new_kept += len(shown) if end <= kept else min(len(shown), kept - at)
        out.append(shown)
        at = end
    return "".join(out), new_kept


# Tombstone lists: their items record a removal, so they are purged, never dropped.
_TOMBSTONE_LISTS = frozenset(
    {"completed_actions", "completed_goals", "closed_questions", "retracted_decisions"}
)


def _rules_in(value: Any) -> list[str]:
    """The rule of every secret in any string inside ``value`` (keys included)."""
    from memoir_tui.core.format.secrets import find_secrets

    rules: list[str] = []
    stack = [value]
    while stack:
        v = stack.pop()
        if isinstance(v, str):
            rules.extend(f.rule for f in find_secrets(v))
        elif isinstance(v, dict):
            stack.extend(v.keys())
            stack.extend(v.values())
        elif isinstance(v, list):
            stack.extend(v)
    return rules


def _purged(item: dict[str, Any]) -> dict[str, Any]:
    """The item as a tombstone without text: its hash, and only fields free of secrets."""
    out: dict[str, Any] = {}
    if isinstance(item.get("text"), str) and not is_purged(item):
        out["text_hash"] = text_hash(item["text"])
    for key, value in item.items():
        if key in ("text", "why", "rejected") or _rules_in(value):
            continue
        out[key] = value
    out["text"] = PURGED_TEXT
    if "done_at" not in item:  # a completion records its date, the rest are hidden
        out["hidden"] = True
    return out


def _withhold_list(name: str, items: list[Any], notes: dict[str, list[str]]) -> list[Any]:
    kept: list[Any] = []
    for item in items:
        rules = _rules_in(item)
        if not rules:
            kept.append(item)
            continue
        notes.setdefault(name, []).extend(rules[:1])
        if isinstance(item, dict) and (name in _TOMBSTONE_LISTS or is_hidden(item)):
            if name == "retracted_decisions":
                continue  # a hash and a date only: a secret there is in an unknown field
            kept.append(_purged(item))
    return kept


def withhold_secrets(state: dict[str, Any]) -> tuple[dict[str, Any], list[str]]:
    """``state`` without the secrets it holds, and one note per list that lost some."""
    out = copy.deepcopy(state)
    notes: dict[str, list[str]] = {}
    current = out.get("current")
    if isinstance(current, dict):
        for key in list(current):
            value = current[key]
            if isinstance(value, list):
                current[key] = _withhold_list(key, value, notes)
            elif _rules_in(value):
                notes.setdefault(key, []).extend(_rules_in(value)[:1])
                del current[key]
    for key in list(out):
        if key == "current":
            continue
        value = out[key]
        if key == "history" and isinstance(value, list):
            out[key] = _withhold_list(key, value, notes)
        elif key == "machines" and isinstance(value, dict):
            for uuid in [u for u, m in value.items() if _rules_in([u, m])]:
                notes.setdefault(key, []).extend(_rules_in([uuid, value[uuid]])[:1])
                del value[uuid]
        elif _rules_in(value):
            notes.setdefault(key, []).extend(_rules_in(value)[:1])
            del out[key]
    return out, [
        f"{name}: {plural(len(rules), 'item')} held back, holding a secret "
        f"({', '.join(dict.fromkeys(rules))})"
        for name, rules in notes.items()
    ]
