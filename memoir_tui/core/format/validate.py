"""Checking entry files and session files against the format.

Each finding names the file, a stable rule id and a sentence. Errors make
``memoir-tui validate`` exit 1; warnings do not. Errors that only a legacy
dialect explains are downgraded to warnings (FORMAT §2).
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from memoir_tui.core.format.entry_file import ENTRY_TYPES, OPAQUE, Entry, EntryError, read_entry
from memoir_tui.core.format.identity import is_iso_date, is_text_hash
from memoir_tui.core.format.items import DATE_FIELDS, SESSION_VERSION
from memoir_tui.core.format.names import is_entry_name

ERROR = "error"
WARNING = "warning"
ENTRY_SCHEMA_VERSION = 1


@dataclass(frozen=True, slots=True)
class Finding:
    path: Path
    severity: str
    rule: str
    message: str

    def line(self) -> str:
        return f"{self.path}: {self.severity} [{self.rule}] {self.message}"


def _is_date(value: Any) -> bool:
    return is_iso_date(value)


# --- entries -----------------------------------------------------------------


def validate_entry(entry: Entry) -> list[Finding]:
    out: list[Finding] = []
    legacy_severity = WARNING if entry.legacy else ERROR

    def add(severity: str, rule: str, message: str) -> None:
        out.append(Finding(entry.path, severity, rule, message))

    if entry.parse_error:
        add(ERROR, "frontmatter.parse", entry.parse_error)
        return out
    meta = entry.meta
    if "no frontmatter" in entry.dialects:
        add(
            WARNING,
            "entry.legacy",
            "no frontmatter: read as an opaque legacy entry named by its first heading",
        )
        return out
    raw_type = meta.get("type")
    if raw_type is None and "metadata.type" not in entry.dialects:
        add(ERROR, "entry.type", "missing `type` (one of: " + ", ".join(ENTRY_TYPES) + ")")
    elif entry.type == OPAQUE and raw_type != "project":
        nested = (
            meta.get("metadata", {}).get("type") if isinstance(meta.get("metadata"), dict) else None
        )
        add(
            ERROR,
            "entry.type",
            f"unknown type {(raw_type or nested)!r}; one of: " + ", ".join(ENTRY_TYPES),
        )
    if entry.dialects:
        add(WARNING, "entry.legacy", "legacy dialect: " + ", ".join(entry.dialects))
    if not isinstance(meta.get("name"), str) or not meta.get("name", "").strip():
        add(legacy_severity, "entry.name", "missing `name`")
    desc = meta.get("description")
    if desc is not None and (not isinstance(desc, str) or "\n" in desc):
        add(WARNING, "entry.description", "`description` should be one line of text")
    for key in ("created", "updated"):
        if key in meta and not _is_date(meta[key]):
            add(ERROR, "entry.date", f"`{key}` is not an ISO 8601 date: {meta[key]!r}")
    if "schema_version" in meta:
        sv = meta["schema_version"]
        if isinstance(sv, bool) or not isinstance(sv, int) or sv < 1:
            add(ERROR, "entry.schema_version", "`schema_version` must be an integer >= 1")
        elif sv > ENTRY_SCHEMA_VERSION:
            add(
                WARNING,
                "entry.schema_version",
                f"schema_version {sv} is newer than this reader knows ({ENTRY_SCHEMA_VERSION})",
            )
    for key in ("tags", "aliases"):
        if key in meta and not (
            isinstance(meta[key], list) and all(isinstance(v, str) for v in meta[key])
        ):
            add(ERROR, f"entry.{key}", f"`{key}` must be a list of strings")
    if "project" in meta and not isinstance(meta["project"], str):
        add(ERROR, "entry.project", "`project` must be a string (absent = global)")
    if "origin" in meta and not isinstance(meta["origin"], dict):
        add(ERROR, "entry.origin", "`origin` must be a mapping (tool, session_id, machine_id)")
    if not is_entry_name(entry.path.name):
        add(
            WARNING,
            "entry.file-name",
            "file names should be lowercase slugs, ideally type-prefixed",
        )
    _type_rules(entry, add, legacy_severity)
    return out


def _type_rules(entry: Entry, add: Any, legacy_severity: str) -> None:
    meta = entry.meta
    t = entry.type
    if t == "decision":
        if not meta.get("why"):
            add(
                WARNING, "decision.why", "decision without `why`: say why, so it is not relitigated"
            )
        if "date" in meta and not _is_date(meta["date"]):
            add(ERROR, "entry.date", f"`date` is not an ISO 8601 date: {meta['date']!r}")
        hidden, hidden_at = meta.get("hidden"), meta.get("hidden_at")
        if hidden and not hidden_at:
            add(ERROR, "decision.hidden", "`hidden` without `hidden_at` (both or neither)")
        if hidden_at and not hidden:
            add(ERROR, "decision.hidden", "`hidden_at` without `hidden` (both or neither)")
        if hidden_at and not _is_date(hidden_at):
            add(ERROR, "entry.date", f"`hidden_at` is not an ISO 8601 date: {hidden_at!r}")
        if "superseded_by" in meta and not isinstance(meta["superseded_by"], str):
            add(ERROR, "decision.superseded_by", "`superseded_by` must be a link name")
    elif t == "lesson":
        if not entry.trigger:
            add(legacy_severity, "lesson.trigger", "lesson without `trigger` (required)")
        if not entry.how_to_apply:
            add(legacy_severity, "lesson.how_to_apply", "lesson without `how_to_apply` (required)")
        fc = meta.get("fired_count")
        if fc is not None and (isinstance(fc, bool) or not isinstance(fc, int) or fc < 0):
            add(ERROR, "lesson.fired_count", "`fired_count` must be an integer >= 0")
    elif t == "preference":
        scope = meta.get("scope")
        if scope is not None and scope not in ("global", "project"):
            add(ERROR, "preference.scope", "`scope` must be `global` or `project`")
    elif t == "goal":
        for key in ("set_on", "done_at"):
            if key in meta and not _is_date(meta[key]):
                add(ERROR, "entry.date", f"`{key}` is not an ISO 8601 date: {meta[key]!r}")
    elif t == "next_action":
        if "added" not in meta:
            add(legacy_severity, "next_action.added", "next_action without `added` (required)")
        for key in ("added", "done_at"):
            if key in meta and not _is_date(meta[key]):
                add(ERROR, "entry.date", f"`{key}` is not an ISO 8601 date: {meta[key]!r}")


# --- sessions ---------------------------------------------------------------------


def validate_session_data(path: Path, data: Any) -> list[Finding]:
    out: list[Finding] = []

    def add(severity: str, rule: str, message: str) -> None:
        out.append(Finding(path, severity, rule, message))

    if not isinstance(data, dict):
        add(ERROR, "session.shape", "the top level must be an object")
        return out
    version = data.get("version")
    if isinstance(version, bool) or not isinstance(version, int):
        add(ERROR, "session.version", "missing or non-integer `version`")
    elif version > SESSION_VERSION:
        add(
            ERROR,
            "session.version",
            f"version {version} is newer than this reader ({SESSION_VERSION}); read-only",
        )
        return out
    for key in ("created_at", "updated_at"):
        if not _is_date(data.get(key)):
            add(ERROR, "session.date", f"`{key}` is missing or not an ISO 8601 date")
    machines = data.get("machines")
    if not isinstance(machines, dict):
        add(ERROR, "session.machines", "`machines` must be an object of UUID → {label, last_seen}")
    else:
        for uid, m in machines.items():
            if (
                not isinstance(m, dict)
                or not isinstance(m.get("label"), str)
                or not _is_date(m.get("last_seen"))
            ):
                add(
                    ERROR,
                    "session.machines",
                    f"machine {uid}: needs a `label` and an ISO `last_seen`",
                )
    current = data.get("current")
    if not isinstance(current, dict):
        add(ERROR, "session.current", "`current` must be an object")
        current = {}
    for list_key, date_field in DATE_FIELDS.items():
        items = current.get(list_key)
        if items is None:
            if list_key != "completed_actions":
                add(ERROR, "session.current", f"`current.{list_key}` is missing")
            continue
        if not isinstance(items, list):
            add(ERROR, "session.current", f"`current.{list_key}` must be a list")
            continue
        for n, item in enumerate(items):
            where = f"current.{list_key}[{n}]"
            if (
                not isinstance(item, dict)
                or not isinstance(item.get("text"), str)
                or not item["text"]
            ):
                add(ERROR, "item.text", f"{where}: every item needs a non-empty `text`")
                continue
            if date_field not in item:
                sev = ERROR if list_key == "completed_actions" else WARNING
                add(sev, "item.date", f"{where}: missing `{date_field}` (counts as the epoch)")
            elif not _is_date(item[date_field]):
                add(
                    WARNING,
                    "item.date",
                    f"{where}: `{date_field}` is not an ISO date (counts as the epoch)",
                )
            if list_key == "decisions":
                out.extend(_decision_item_rules(path, where, item))
    history = data.get("history")
    if not isinstance(history, list):
        add(ERROR, "session.history", "`history` must be a list")
    else:
        for n, h in enumerate(history):
            if not isinstance(h, dict) or not _is_date(h.get("date")):
                add(ERROR, "history.date", f"history[{n}]: needs an ISO `date`")
    return out


def _decision_item_rules(path: Path, where: str, item: dict[str, Any]) -> list[Finding]:
    out = []
    hidden = item.get("hidden")
    if hidden and not item.get("hidden_at"):
        out.append(
            Finding(path, ERROR, "decision.hidden", f"{where}: `hidden` without `hidden_at`")
        )
    if hidden and hidden is not True:
        out.append(
            Finding(
                path, WARNING, "decision.hidden", f"{where}: `hidden` should be written as true"
            )
        )
    if "text_hash" in item:
        if not is_text_hash(item["text_hash"]):
            out.append(
                Finding(
                    path,
                    ERROR,
                    "decision.text_hash",
                    f"{where}: `text_hash` must be 64 lowercase hex digits",
                )
            )
        if not hidden:
            out.append(
                Finding(
                    path, ERROR, "decision.purged", f"{where}: purged (`text_hash`) but not hidden"
                )
            )
        if "why" in item or "rejected" in item:
            out.append(
                Finding(
                    path,
                    ERROR,
                    "decision.purged",
                    f"{where}: purged decision still carries why/rejected",
                )
            )
    elif not item.get("why") and not hidden:
        out.append(Finding(path, WARNING, "decision.why", f"{where}: decision without `why`"))
    return out


MAX_SESSION_BYTES = 64 * 1024 * 1024


def validate_session_file(path: Path) -> list[Finding]:
    from memoir_tui.core.base.fsutil import read_regular

    try:
        raw = read_regular(path, max_bytes=MAX_SESSION_BYTES)  # never a FIFO or a device
    except OSError as exc:
        return [Finding(path, ERROR, "file.read", f"cannot be read: {exc.strerror}")]
    try:
        data = json.loads(raw.decode("utf-8"))
    except (ValueError, UnicodeDecodeError, RecursionError) as exc:
        return [Finding(path, ERROR, "session.json", f"not valid JSON: {exc}")]
    return validate_session_data(path, data)


def validate_entry_file(path: Path) -> list[Finding]:
    try:
        entry = read_entry(path)
    except EntryError as exc:
        return [Finding(path, ERROR, "file.read", str(exc).split(": ", 1)[-1])]
    return validate_entry(entry)


def _targets(paths: Iterable[Path]) -> Iterator[Path]:
    for p in paths:
        if p.is_dir():
            for dirpath, dirnames, filenames in os.walk(p):
                dirnames[:] = sorted(d for d in dirnames if not d.startswith("."))
                for name in sorted(filenames):
                    if name.endswith(".md") or name == "session.json":
                        yield Path(dirpath) / name
        else:
            yield p


def validate_paths(paths: Iterable[Path]) -> list[Finding]:
    findings: list[Finding] = []
    for path in _targets(paths):
        if not path.exists():
            findings.append(Finding(path, ERROR, "file.missing", "no such file"))
        elif path.suffix == ".json":
            findings.extend(validate_session_file(path))
        else:
            findings.extend(validate_entry_file(path))
    return findings
