"""Secret scanning of outgoing files, before anything leaves the machine.

Only what would be new on the remote is judged: a file's findings whose matched
value already sits in the remote's copy of that file left the machine before
(pushed elsewhere, perhaps with ``--allow-secrets``) and do not block again.
A finding names the file, the place (a JSON path or a line) and the rule,
never the value.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from memoir_tui.core.sync.errors import SecretFindingRef


def _strings(value: Any, where: str = "") -> Iterator[tuple[str, str]]:
    if isinstance(value, str):
        yield where or "(value)", value
    elif isinstance(value, dict):
        for key, item in value.items():
            yield from _strings(item, f"{where}.{key}" if where else str(key))
    elif isinstance(value, list):
        for i, item in enumerate(value):
            yield from _strings(item, f"{where}[{i}]")


def _texts(path: str, data: bytes) -> list[tuple[str, str, bool]]:
    """(where, text, is_whole_file) pieces of a file to scan."""
    text = data.decode("utf-8", "replace")
    if path.endswith(".json"):
        try:
            value = json.loads(text)
        except ValueError:
            return [("file", text, True)]
        return [(where, s, False) for where, s in _strings(value)]
    return [("file", text, True)]


def scan_outgoing(
    outgoing: dict[str, bytes], remote: dict[str, bytes], paths: list[str]
) -> list[SecretFindingRef]:
    from memoir_tui.core.format.secrets import find_secrets

    findings: list[SecretFindingRef] = []
    for path in paths:
        data = outgoing.get(path)
        if data is None:
            continue
        before = remote.get(path)
        known = "\x00".join(t for _w, t, _f in _texts(path, before)) if before else ""
        for where, text, whole in _texts(path, data):
            for found in find_secrets(text):
                value = text[found.start : found.end]
                if value and value in known:
                    continue
                place = f"line {text.count(chr(10), 0, found.start) + 1}" if whole else where
                findings.append(SecretFindingRef(path, place, found.rule))
    return findings
