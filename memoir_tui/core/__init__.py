"""The headless core, and the one door every face opens it by: ``from memoir_tui.core import …``.

Faces (the app, its panes and dialogs, the MCP server, the CLI and its commands)
import what they use from here and nothing deeper (``tests/test_import_boundaries.py``);
the floors below (see docs/ARCHITECTURE.md) stay free to move a module without a face
noticing. The names are looked up on first use (``_WHERE``), as Textual's
``widgets/__init__.py`` does, so importing this package imports nothing else: the
session-start hook's lean path and the MCP server's start-up stay as lean as before.

Nothing under ``memoir_tui.core`` may import textual or mcp, nor this package itself
(a module of the core imports the floor module it needs).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

# name → "module:attribute", or "module" for a namespace module the face keeps as one
# (``answers``: the façade's answer functions; ``sync``: tests patch its ``run_sync``).
_WHERE: dict[str, str] = {
    # base
    "AmbiguousMatchError": "memoir_tui.core.base.errors:AmbiguousMatchError",
    "EmptyTextError": "memoir_tui.core.base.errors:EmptyTextError",
    "MemoirError": "memoir_tui.core.base.errors:MemoirError",
    "FileStamp": "memoir_tui.core.base.filestamp:FileStamp",
    "file_stamp": "memoir_tui.core.base.filestamp:file_stamp",
    "open_for_reading": "memoir_tui.core.base.safeio:open_for_reading",
    "read_json_safely": "memoir_tui.core.base.safeio:read_json_safely",
    "read_text_safely": "memoir_tui.core.base.safeio:read_text_safely",
    # format
    "day_or_raw": "memoir_tui.core.format.dates:day_or_raw",
    "parse_duration": "memoir_tui.core.format.durations:parse_duration",
    "parse_entry": "memoir_tui.core.format.entry_file:parse_entry",
    "frontmatter": "memoir_tui.core.format.frontmatter",
    "PURGED_TEXT": "memoir_tui.core.format.identity:PURGED_TEXT",
    "identity": "memoir_tui.core.format.identity:identity",
    "iso_now": "memoir_tui.core.format.identity:iso_now",
    "parse_date_ms": "memoir_tui.core.format.identity:parse_date_ms",
    "parse_iso_ms": "memoir_tui.core.format.identity:parse_iso_ms",
    "text_hash": "memoir_tui.core.format.identity:text_hash",
    "REVIEW_FILE": "memoir_tui.core.format.items:REVIEW_FILE",
    "Undo": "memoir_tui.core.format.items:Undo",
    "folded": "memoir_tui.core.format.items:folded",
    "plural": "memoir_tui.core.format.items:plural",
    "well_formed_items": "memoir_tui.core.format.items:well_formed_items",
    "DEFAULT_CAPS": "memoir_tui.core.format.merge:DEFAULT_CAPS",
    "JS_CAPS": "memoir_tui.core.format.merge:JS_CAPS",
    "contributes_to_merge": "memoir_tui.core.format.merge:contributes_to_merge",
    "is_hidden": "memoir_tui.core.format.merge:is_hidden",
    "merge_sessions": "memoir_tui.core.format.merge:merge_sessions",
    "review_file": "memoir_tui.core.format.review_file",
    "CANDIDATE": "memoir_tui.core.format.review_file:CANDIDATE",
    "NearHidden": "memoir_tui.core.format.review_file:NearHidden",
    "NearHiddenError": "memoir_tui.core.format.review_file:NearHiddenError",
    "ReviewItem": "memoir_tui.core.format.review_file:ReviewItem",
    "STATES": "memoir_tui.core.format.review_file:STATES",
    "load_review": "memoir_tui.core.format.review_file:load_review",
    "loaded_key": "memoir_tui.core.format.review_file:loaded_key",
    "well_formed_review_items": "memoir_tui.core.format.review_file:well_formed_review_items",
    "SecretFoundError": "memoir_tui.core.format.secrets:SecretFoundError",
    "ensure_no_secrets_together": "memoir_tui.core.format.secrets:ensure_no_secrets_together",
    "LoadedSession": "memoir_tui.core.format.session:LoadedSession",
    "MISSHAPEN": "memoir_tui.core.format.session:MISSHAPEN",
    "NEWER_VERSION": "memoir_tui.core.format.session:NEWER_VERSION",
    "NOT_REGULAR": "memoir_tui.core.format.session:NOT_REGULAR",
    "UNREADABLE": "memoir_tui.core.format.session:UNREADABLE",
    "encode_session": "memoir_tui.core.format.session:encode_session",
    "understood_state": "memoir_tui.core.format.session_peek:understood_state",
    "for_terminal": "memoir_tui.core.format.textsafe:for_terminal",
    "ERROR": "memoir_tui.core.format.validate:ERROR",
    "Finding": "memoir_tui.core.format.validate:Finding",
    "validate_entry": "memoir_tui.core.format.validate:validate_entry",
    "validate_paths": "memoir_tui.core.format.validate:validate_paths",
    # rules
    "GLOBAL": "memoir_tui.core.rules.labels:GLOBAL",
    "cut_middle": "memoir_tui.core.rules.labels:cut_middle",
    "label_of": "memoir_tui.core.rules.labels:label_of",
    "place_labels": "memoir_tui.core.rules.labels:place_labels",
    "queue_labels": "memoir_tui.core.rules.labels:queue_labels",
    "short_labels": "memoir_tui.core.rules.labels:short_labels",
    "DECISION_SORT_KEYS": "memoir_tui.core.rules.listing:DECISION_SORT_KEYS",
    "CompletedAction": "memoir_tui.core.rules.model:CompletedAction",
    "Decision": "memoir_tui.core.rules.model:Decision",
    "HistoryEntry": "memoir_tui.core.rules.model:HistoryEntry",
    "Item": "memoir_tui.core.rules.model:Item",
    "WorkingSet": "memoir_tui.core.rules.model:WorkingSet",
    "clean_needle": "memoir_tui.core.rules.needle:clean_needle",
    "shown": "memoir_tui.core.rules.needle:shown",
    "render_working_set": "memoir_tui.core.rules.render:render_working_set",
    "Reply": "memoir_tui.core.rules.reply:Reply",
    "find_git_dir": "memoir_tui.core.rules.scope:find_git_dir",
    "is_visible": "memoir_tui.core.rules.scope:is_visible",
    "project_identity": "memoir_tui.core.rules.scope:project_identity",
    "project_names": "memoir_tui.core.rules.scope:project_names",
    "same_project": "memoir_tui.core.rules.scope:same_project",
    "working_project": "memoir_tui.core.rules.scope:working_project",
    "SearchHit": "memoir_tui.core.rules.search:Hit",
    "Indexed": "memoir_tui.core.rules.search:Indexed",
    "build_index": "memoir_tui.core.rules.search:build_index",
    "search_index": "memoir_tui.core.rules.search:search_index",
    "working_set_lists": "memoir_tui.core.rules.search:working_set_lists",
    "in_review_scope": "memoir_tui.core.rules.waiting:in_review_scope",
    "waiting_count": "memoir_tui.core.rules.waiting:waiting_count",
    "shown_text": "memoir_tui.core.rules.withhold:shown_text",
    "withhold_lines": "memoir_tui.core.rules.withhold:withhold_lines",
    "withhold_secrets": "memoir_tui.core.rules.withhold:withhold_secrets",
    # door
    "AUDIT_FILE": "memoir_tui.core.door.audit:AUDIT_FILE",
    "AuditRecord": "memoir_tui.core.door.audit:AuditRecord",
    "read_audit": "memoir_tui.core.door.audit:read_audit",
    "Config": "memoir_tui.core.door.config:Config",
    "KNOWN_TOOLS": "memoir_tui.core.door.config:KNOWN_TOOLS",
    "caps_over_memoirs": "memoir_tui.core.door.config:caps_over_memoirs",
    "config_path": "memoir_tui.core.door.config:config_path",
    "js_footprint": "memoir_tui.core.door.config:js_footprint",
    "load_config": "memoir_tui.core.door.config:load_config",
    "remember_setting": "memoir_tui.core.door.config:remember_setting",
    "render_config": "memoir_tui.core.door.config:render_config",
    "release_for_exit": "memoir_tui.core.door.shutdown:release_for_exit",
    "Outcome": "memoir_tui.core.door.store:Outcome",
    "default_store_dir": "memoir_tui.core.door.store:default_store_dir",
    "take_notices": "memoir_tui.core.door.transaction:take_notices",
    # hosts
    "PathRefused": "memoir_tui.core.hosts.adapters.guard:PathRefused",
    "ADAPTERS": "memoir_tui.core.hosts.adapters:ADAPTERS",
    "Adapter": "memoir_tui.core.hosts.adapters:Adapter",
    "BY_NAME": "memoir_tui.core.hosts.adapters:BY_NAME",
    "CLAUDE_MEMORY_INDEX": "memoir_tui.core.hosts.adapters:CLAUDE_MEMORY_INDEX",
    "HOOK_VERBS": "memoir_tui.core.hosts.adapters:HOOK_VERBS",
    "describe_dir": "memoir_tui.core.hosts.adapters:describe_dir",
    "get_adapter": "memoir_tui.core.hosts.adapters:get_adapter",
    "hook_host": "memoir_tui.core.hosts.adapters:hook_host",
    "hook_hosts": "memoir_tui.core.hosts.adapters:hook_hosts",
    "instruction_files_shown": "memoir_tui.core.hosts.adapters:instruction_files_shown",
    "mcp_hosts": "memoir_tui.core.hosts.adapters:mcp_hosts",
    "resolve_tool": "memoir_tui.core.hosts.adapters:resolve_tool",
    "HookCommand": "memoir_tui.core.hosts.hook_install:HookCommand",
    "plan": "memoir_tui.core.hosts.hook_install:plan",
    "read_state": "memoir_tui.core.hosts.hook_install:read_state",
    "settings_paths": "memoir_tui.core.hosts.hook_install:settings_paths",
    "ConfigRefusedError": "memoir_tui.core.hosts.mcp_install:ConfigRefusedError",
    "InvalidProjectError": "memoir_tui.core.hosts.mcp_install:InvalidProjectError",
    "ServerSpec": "memoir_tui.core.hosts.mcp_install:ServerSpec",
    "UnknownToolError": "memoir_tui.core.hosts.mcp_install:UnknownToolError",
    "UnsupportedScopeError": "memoir_tui.core.hosts.mcp_install:UnsupportedScopeError",
    "apply_change": "memoir_tui.core.hosts.mcp_install:apply_change",
    "get_tool": "memoir_tui.core.hosts.mcp_install:get_tool",
    "manual_snippet": "memoir_tui.core.hosts.mcp_install:manual_snippet",
    "plan_install": "memoir_tui.core.hosts.mcp_install:plan_install",
    "plan_uninstall": "memoir_tui.core.hosts.mcp_install:plan_uninstall",
    # recall
    "EntryOut": "memoir_tui.core.recall.answers:EntryOut",
    "ListView": "memoir_tui.core.recall.answers:ListView",
    "PassageOut": "memoir_tui.core.recall.answers:PassageOut",
    "RecallView": "memoir_tui.core.recall.answers:RecallView",
    "doc_from_text": "memoir_tui.core.recall.extract:doc_from_text",
    "highlight_spans": "memoir_tui.core.recall.passages:highlight_spans",
    "semantic": "memoir_tui.core.recall.semantic",
    "elsewhere_hint": "memoir_tui.core.recall.service:elsewhere_hint",
    "project_folders": "memoir_tui.core.recall.service:working_project",
    "parse_query": "memoir_tui.core.recall.text:parse_query",
    "EntryInfo": "memoir_tui.core.recall:EntryInfo",
    "RecallHit": "memoir_tui.core.recall:Hit",
    "Recall": "memoir_tui.core.recall:Recall",
    # services
    "hide_decisions": "memoir_tui.core.services.bulk:hide_decisions",
    "ApplyResult": "memoir_tui.core.services.consolidate:ApplyResult",
    "ConsolidateError": "memoir_tui.core.services.consolidate:ConsolidateError",
    "KEEP": "memoir_tui.core.services.consolidate:KEEP",
    "Proposal": "memoir_tui.core.services.consolidate:Proposal",
    "Report": "memoir_tui.core.services.consolidate:Report",
    "ExportError": "memoir_tui.core.services.export:ExportError",
    "ExportExistsError": "memoir_tui.core.services.export:ExportExistsError",
    "ExportResult": "memoir_tui.core.services.export:ExportResult",
    "ExportTable": "memoir_tui.core.services.export:ExportTable",
    "decision_table": "memoir_tui.core.services.export:decision_table",
    "export_table": "memoir_tui.core.services.export:export_table",
    "format_for": "memoir_tui.core.services.export:format_for",
    "InjectChange": "memoir_tui.core.services.inject:InjectChange",
    "apply_inject": "memoir_tui.core.services.inject:apply_inject",
    "plan_inject": "memoir_tui.core.services.inject:plan_inject",
    "CANONICAL_NAME": "memoir_tui.core.services.places:CANONICAL_NAME",
    "read_canonical": "memoir_tui.core.services.places:read_canonical",
    "KeptReceipt": "memoir_tui.core.services.receipts:KeptReceipt",
    "purge_decision_kept": "memoir_tui.core.services.receipts:purge_decision_kept",
    "read_receipts": "memoir_tui.core.services.receipts:read_receipts",
    "remember": "memoir_tui.core.services.remember",
    "review": "memoir_tui.core.services.review",
    "lean_view": "memoir_tui.core.services.review:lean_view",
    "review_path": "memoir_tui.core.services.review:review_path",
    "Arrived": "memoir_tui.core.services.since:Arrived",
    "SinceReport": "memoir_tui.core.services.since:SinceReport",
    "arrived_from_elsewhere": "memoir_tui.core.services.since:arrived_from_elsewhere",
    "kind_of": "memoir_tui.core.services.since:kind_of",
    "record_open": "memoir_tui.core.services.since:record_open",
    "since_last_session": "memoir_tui.core.services.since:since_last_session",
    "ACTIVE": "memoir_tui.core.services.trash:ACTIVE",
    "TrashRecord": "memoir_tui.core.services.trash:TrashRecord",
    "parse_trash_duration": "memoir_tui.core.services.trash:parse_duration",
    # sync
    "sync": "memoir_tui.core.sync",
    "sync_config_path": "memoir_tui.core.sync.config:sync_config_path",
    "merge_files": "memoir_tui.core.sync.driver:merge_files",
    "register_driver": "memoir_tui.core.sync.driver:register_driver",
    "SecretsFoundError": "memoir_tui.core.sync:SecretsFoundError",
    "SyncMode": "memoir_tui.core.sync:SyncMode",
    "init_sync": "memoir_tui.core.sync:init_sync",
    "run_sync": "memoir_tui.core.sync:run_sync",
    "sync_status": "memoir_tui.core.sync:sync_status",
    # workflows
    "Scan": "memoir_tui.core.workflows.forget:Scan",
    "forget_everywhere": "memoir_tui.core.workflows.forget:forget_everywhere",
    "Memoir": "memoir_tui.core.workflows.memoir:Memoir",
    "open_memoir": "memoir_tui.core.workflows.memoir:open_memoir",
    "write_merged_session": "memoir_tui.core.workflows.memoir:write_merged_session",
    # capture
    "TranscriptContext": "memoir_tui.core.capture.context:TranscriptContext",
    "context_around": "memoir_tui.core.capture.context:context_around",
    "MAX_BYTES_PER_RUN": "memoir_tui.core.capture.run:MAX_BYTES_PER_RUN",
    "MAX_FILES_PER_RUN": "memoir_tui.core.capture.run:MAX_FILES_PER_RUN",
    "capture_transcripts": "memoir_tui.core.capture.run:capture",
    # loop
    "BRIEF": "memoir_tui.core.loop.agent_view:BRIEF",
    "HostView": "memoir_tui.core.loop.agent_view:HostView",
    "LoadedSource": "memoir_tui.core.loop.agent_view:LoadedSource",
    "agent_views": "memoir_tui.core.loop.agent_view:agent_views",
    "project_dir": "memoir_tui.core.loop.agent_view:project_dir",
    "shown_path": "memoir_tui.core.loop.agent_view:shown_path",
    "build_brief": "memoir_tui.core.loop.brief:build_brief",
    "Check": "memoir_tui.core.loop.doctor:Check",
    "Registration": "memoir_tui.core.loop.doctor:Registration",
    "WARN": "memoir_tui.core.loop.doctor:WARN",
    "check_hooks_file": "memoir_tui.core.loop.doctor:check_hooks_file",
    "check_registration": "memoir_tui.core.loop.doctor:check_registration",
    "mcp_registrations": "memoir_tui.core.loop.doctor:mcp_registrations",
    "project_registration_checks": "memoir_tui.core.loop.doctor:project_registration_checks",
    "run_doctor": "memoir_tui.core.loop.doctor:run_doctor",
    "summary": "memoir_tui.core.loop.doctor:summary",
    "read_event": "memoir_tui.core.loop.hook_run:read_event",
    "run_hook": "memoir_tui.core.loop.hook_run:run_hook",
    "FULL_PATH_ENV": "memoir_tui.core.loop.session_start:FULL_PATH_ENV",
    "brief_output": "memoir_tui.core.loop.session_start:brief_output",
    "event_cwd": "memoir_tui.core.loop.session_start:event_cwd",
    "inject_enabled": "memoir_tui.core.loop.session_start:inject_enabled",
    "lean_argv": "memoir_tui.core.loop.session_start:lean_argv",
    "nothing_new": "memoir_tui.core.loop.session_start:nothing_new",
    "store_root": "memoir_tui.core.loop.session_start:store_root",
    # the façade floor: answers, demo, and the floors as modules
    "package_version": "memoir_tui.core.answers:package_version",
    "refusal_text": "memoir_tui.core.answers:refusal_text",
    "DEMO_MACHINE_LABEL": "memoir_tui.core.demo:DEMO_MACHINE_LABEL",
    "create_demo_store": "memoir_tui.core.demo:create_demo_store",
    "remove_demo_store": "memoir_tui.core.demo:remove_demo_store",
}

__all__ = [
    "ACTIVE",
    "ADAPTERS",
    "AUDIT_FILE",
    "BRIEF",
    "BY_NAME",
    "CANDIDATE",
    "CANONICAL_NAME",
    "CLAUDE_MEMORY_INDEX",
    "DECISION_SORT_KEYS",
    "DEFAULT_CAPS",
    "DEMO_MACHINE_LABEL",
    "ERROR",
    "FULL_PATH_ENV",
    "GLOBAL",
    "HOOK_VERBS",
    "JS_CAPS",
    "KEEP",
    "KNOWN_TOOLS",
    "MAX_BYTES_PER_RUN",
    "MAX_FILES_PER_RUN",
    "MISSHAPEN",
    "NEWER_VERSION",
    "NOT_REGULAR",
    "PURGED_TEXT",
    "REVIEW_FILE",
    "STATES",
    "UNREADABLE",
    "WARN",
    "Adapter",
    "AmbiguousMatchError",
    "ApplyResult",
    "Arrived",
    "AuditRecord",
    "Check",
    "CompletedAction",
    "Config",
    "ConfigRefusedError",
    "ConsolidateError",
    "Decision",
    "EmptyTextError",
    "EntryInfo",
    "EntryOut",
    "ExportError",
    "ExportExistsError",
    "ExportResult",
    "ExportTable",
    "FileStamp",
    "Finding",
    "HistoryEntry",
    "HookCommand",
    "HostView",
    "Indexed",
    "InjectChange",
    "InvalidProjectError",
    "Item",
    "KeptReceipt",
    "ListView",
    "LoadedSession",
    "LoadedSource",
    "Memoir",
    "MemoirError",
    "NearHidden",
    "NearHiddenError",
    "Outcome",
    "PassageOut",
    "PathRefused",
    "Proposal",
    "Recall",
    "RecallHit",
    "RecallView",
    "Registration",
    "Reply",
    "Report",
    "ReviewItem",
    "Scan",
    "SearchHit",
    "SecretFoundError",
    "SecretsFoundError",
    "ServerSpec",
    "SinceReport",
    "SyncMode",
    "TranscriptContext",
    "TrashRecord",
    "Undo",
    "UnknownToolError",
    "UnsupportedScopeError",
    "WorkingSet",
    "agent_views",
    "apply_change",
    "apply_inject",
    "arrived_from_elsewhere",
    "brief_output",
    "build_brief",
    "build_index",
    "caps_over_memoirs",
    "capture_transcripts",
    "check_hooks_file",
    "check_registration",
    "clean_needle",
    "config_path",
    "context_around",
    "contributes_to_merge",
    "create_demo_store",
    "cut_middle",
    "day_or_raw",
    "decision_table",
    "default_store_dir",
    "describe_dir",
    "doc_from_text",
    "elsewhere_hint",
    "encode_session",
    "ensure_no_secrets_together",
    "event_cwd",
    "export_table",
    "file_stamp",
    "find_git_dir",
    "folded",
    "for_terminal",
    "forget_everywhere",
    "format_for",
    "frontmatter",
    "get_adapter",
    "get_tool",
    "hide_decisions",
    "highlight_spans",
    "hook_host",
    "hook_hosts",
    "identity",
    "in_review_scope",
    "init_sync",
    "inject_enabled",
    "instruction_files_shown",
    "is_hidden",
    "is_visible",
    "iso_now",
    "js_footprint",
    "kind_of",
    "label_of",
    "lean_argv",
    "lean_view",
    "load_config",
    "load_review",
    "loaded_key",
    "manual_snippet",
    "mcp_hosts",
    "mcp_registrations",
    "merge_files",
    "merge_sessions",
    "nothing_new",
    "open_for_reading",
    "open_memoir",
    "package_version",
    "parse_date_ms",
    "parse_duration",
    "parse_entry",
    "parse_iso_ms",
    "parse_query",
    "parse_trash_duration",
    "place_labels",
    "plan",
    "plan_inject",
    "plan_install",
    "plan_uninstall",
    "plural",
    "project_dir",
    "project_folders",
    "project_identity",
    "project_names",
    "project_registration_checks",
    "purge_decision_kept",
    "queue_labels",
    "read_audit",
    "read_canonical",
    "read_event",
    "read_json_safely",
    "read_receipts",
    "read_state",
    "read_text_safely",
    "record_open",
    "refusal_text",
    "register_driver",
    "release_for_exit",
    "remember",
    "remember_setting",
    "remove_demo_store",
    "render_config",
    "render_working_set",
    "resolve_tool",
    "review",
    "review_file",
    "review_path",
    "run_doctor",
    "run_hook",
    "run_sync",
    "same_project",
    "search_index",
    "semantic",
    "settings_paths",
    "short_labels",
    "shown",
    "shown_path",
    "shown_text",
    "since_last_session",
    "store_root",
    "summary",
    "sync",
    "sync_config_path",
    "sync_status",
    "take_notices",
    "text_hash",
    "understood_state",
    "validate_entry",
    "validate_paths",
    "waiting_count",
    "well_formed_items",
    "well_formed_review_items",
    "withhold_lines",
    "withhold_secrets",
    "working_project",
    "working_set_lists",
    "write_merged_session",
]  # exactly the keys of _WHERE (a test says so)


def __getattr__(name: str) -> Any:
    try:
        where = _WHERE[name]
    except KeyError:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}") from None
    module, _, attribute = where.partition(":")
    value = importlib.import_module(module)
    if attribute:
        value = getattr(value, attribute)
    globals()[name] = value  # looked up once
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_WHERE})


if TYPE_CHECKING:
    from memoir_tui.core import (
        sync as sync,
    )
    from memoir_tui.core.answers import (
        package_version as package_version,
    )
    from memoir_tui.core.answers import (
        refusal_text as refusal_text,
    )
    from memoir_tui.core.base.errors import (
        AmbiguousMatchError as AmbiguousMatchError,
    )
    from memoir_tui.core.base.errors import (
        EmptyTextError as EmptyTextError,
    )
    from memoir_tui.core.base.errors import (
        MemoirError as MemoirError,
    )
    from memoir_tui.core.base.filestamp import (
        FileStamp as FileStamp,
    )
    from memoir_tui.core.base.filestamp import (
        file_stamp as file_stamp,
    )
    from memoir_tui.core.base.safeio import (
        open_for_reading as open_for_reading,
    )
    from memoir_tui.core.base.safeio import (
        read_json_safely as read_json_safely,
    )
    from memoir_tui.core.base.safeio import (
        read_text_safely as read_text_safely,
    )
    from memoir_tui.core.capture.context import (
        TranscriptContext as TranscriptContext,
    )
    from memoir_tui.core.capture.context import (
        context_around as context_around,
    )
    from memoir_tui.core.capture.run import (
        MAX_BYTES_PER_RUN as MAX_BYTES_PER_RUN,
    )
    from memoir_tui.core.capture.run import (
        MAX_FILES_PER_RUN as MAX_FILES_PER_RUN,
    )
    from memoir_tui.core.capture.run import (
        capture as capture_transcripts,
    )
    from memoir_tui.core.demo import (
        DEMO_MACHINE_LABEL as DEMO_MACHINE_LABEL,
    )
    from memoir_tui.core.demo import (
        create_demo_store as create_demo_store,
    )
    from memoir_tui.core.demo import (
        remove_demo_store as remove_demo_store,
    )
    from memoir_tui.core.door.audit import (
        AUDIT_FILE as AUDIT_FILE,
    )
    from memoir_tui.core.door.audit import (
        AuditRecord as AuditRecord,
    )
    from memoir_tui.core.door.audit import (
        read_audit as read_audit,
    )
    from memoir_tui.core.door.config import (
        KNOWN_TOOLS as KNOWN_TOOLS,
    )
    from memoir_tui.core.door.config import (
        Config as Config,
    )
    from memoir_tui.core.door.config import (
        caps_over_memoirs as caps_over_memoirs,
    )
    from memoir_tui.core.door.config import (
        config_path as config_path,
    )
    from memoir_tui.core.door.config import (
        js_footprint as js_footprint,
    )
    from memoir_tui.core.door.config import (
        load_config as load_config,
    )
    from memoir_tui.core.door.config import (
        remember_setting as remember_setting,
    )
    from memoir_tui.core.door.config import (
        render_config as render_config,
    )
    from memoir_tui.core.door.shutdown import (
        release_for_exit as release_for_exit,
    )
    from memoir_tui.core.door.store import (
        Outcome as Outcome,
    )
    from memoir_tui.core.door.store import (
        default_store_dir as default_store_dir,
    )
    from memoir_tui.core.door.transaction import (
        take_notices as take_notices,
    )
    from memoir_tui.core.format import (
        frontmatter as frontmatter,
    )
    from memoir_tui.core.format import (
        review_file as review_file,
    )
    from memoir_tui.core.format.dates import (
        day_or_raw as day_or_raw,
    )
    from memoir_tui.core.format.durations import (
        parse_duration as parse_duration,
    )
    from memoir_tui.core.format.entry_file import (
        parse_entry as parse_entry,
    )
    from memoir_tui.core.format.identity import (
        PURGED_TEXT as PURGED_TEXT,
    )
    from memoir_tui.core.format.identity import (
        identity as identity,
    )
    from memoir_tui.core.format.identity import (
        iso_now as iso_now,
    )
    from memoir_tui.core.format.identity import (
        parse_date_ms as parse_date_ms,
    )
    from memoir_tui.core.format.identity import (
        parse_iso_ms as parse_iso_ms,
    )
    from memoir_tui.core.format.identity import (
        text_hash as text_hash,
    )
    from memoir_tui.core.format.items import (
        REVIEW_FILE as REVIEW_FILE,
    )
    from memoir_tui.core.format.items import (
        Undo as Undo,
    )
    from memoir_tui.core.format.items import (
        folded as folded,
    )
    from memoir_tui.core.format.items import (
        plural as plural,
    )
    from memoir_tui.core.format.items import (
        well_formed_items as well_formed_items,
    )
    from memoir_tui.core.format.merge import (
        DEFAULT_CAPS as DEFAULT_CAPS,
    )
    from memoir_tui.core.format.merge import (
        JS_CAPS as JS_CAPS,
    )
    from memoir_tui.core.format.merge import (
        contributes_to_merge as contributes_to_merge,
    )
    from memoir_tui.core.format.merge import (
        is_hidden as is_hidden,
    )
    from memoir_tui.core.format.merge import (
        merge_sessions as merge_sessions,
    )
    from memoir_tui.core.format.review_file import (
        CANDIDATE as CANDIDATE,
    )
    from memoir_tui.core.format.review_file import (
        STATES as STATES,
    )
    from memoir_tui.core.format.review_file import (
        NearHidden as NearHidden,
    )
    from memoir_tui.core.format.review_file import (
        NearHiddenError as NearHiddenError,
    )
    from memoir_tui.core.format.review_file import (
        ReviewItem as ReviewItem,
    )
    from memoir_tui.core.format.review_file import (
        load_review as load_review,
    )
    from memoir_tui.core.format.review_file import (
        loaded_key as loaded_key,
    )
    from memoir_tui.core.format.review_file import (
        well_formed_review_items as well_formed_review_items,
    )
    from memoir_tui.core.format.secrets import (
        SecretFoundError as SecretFoundError,
    )
    from memoir_tui.core.format.secrets import (
        ensure_no_secrets_together as ensure_no_secrets_together,
    )
    from memoir_tui.core.format.session import (
        MISSHAPEN as MISSHAPEN,
    )
    from memoir_tui.core.format.session import (
        NEWER_VERSION as NEWER_VERSION,
    )
    from memoir_tui.core.format.session import (
        NOT_REGULAR as NOT_REGULAR,
    )
    from memoir_tui.core.format.session import (
        UNREADABLE as UNREADABLE,
    )
    from memoir_tui.core.format.session import (
        LoadedSession as LoadedSession,
    )
    from memoir_tui.core.format.session import (
        encode_session as encode_session,
    )
    from memoir_tui.core.format.session_peek import (
        understood_state as understood_state,
    )
    from memoir_tui.core.format.textsafe import (
        for_terminal as for_terminal,
    )
    from memoir_tui.core.format.validate import (
        ERROR as ERROR,
    )
    from memoir_tui.core.format.validate import (
        Finding as Finding,
    )
    from memoir_tui.core.format.validate import (
        validate_entry as validate_entry,
    )
    from memoir_tui.core.format.validate import (
        validate_paths as validate_paths,
    )
    from memoir_tui.core.hosts.adapters import (
        ADAPTERS as ADAPTERS,
    )
    from memoir_tui.core.hosts.adapters import (
        BY_NAME as BY_NAME,
    )
    from memoir_tui.core.hosts.adapters import (
        CLAUDE_MEMORY_INDEX as CLAUDE_MEMORY_INDEX,
    )
    from memoir_tui.core.hosts.adapters import (
        HOOK_VERBS as HOOK_VERBS,
    )
    from memoir_tui.core.hosts.adapters import (
        Adapter as Adapter,
    )
    from memoir_tui.core.hosts.adapters import (
        describe_dir as describe_dir,
    )
    from memoir_tui.core.hosts.adapters import (
        get_adapter as get_adapter,
    )
    from memoir_tui.core.hosts.adapters import (
        hook_host as hook_host,
    )
    from memoir_tui.core.hosts.adapters import (
        hook_hosts as hook_hosts,
    )
    from memoir_tui.core.hosts.adapters import (
        instruction_files_shown as instruction_files_shown,
    )
    from memoir_tui.core.hosts.adapters import (
        mcp_hosts as mcp_hosts,
    )
    from memoir_tui.core.hosts.adapters import (
        resolve_tool as resolve_tool,
    )
    from memoir_tui.core.hosts.adapters.guard import (
        PathRefused as PathRefused,
    )
    from memoir_tui.core.hosts.hook_install import (
        HookCommand as HookCommand,
    )
    from memoir_tui.core.hosts.hook_install import (
        plan as plan,
    )
    from memoir_tui.core.hosts.hook_install import (
        read_state as read_state,
    )
    from memoir_tui.core.hosts.hook_install import (
        settings_paths as settings_paths,
    )
    from memoir_tui.core.hosts.mcp_install import (
        ConfigRefusedError as ConfigRefusedError,
    )
    from memoir_tui.core.hosts.mcp_install import (
        InvalidProjectError as InvalidProjectError,
    )
    from memoir_tui.core.hosts.mcp_install import (
        ServerSpec as ServerSpec,
    )
    from memoir_tui.core.hosts.mcp_install import (
        UnknownToolError as UnknownToolError,
    )
    from memoir_tui.core.hosts.mcp_install import (
        UnsupportedScopeError as UnsupportedScopeError,
    )
    from memoir_tui.core.hosts.mcp_install import (
        apply_change as apply_change,
    )
    from memoir_tui.core.hosts.mcp_install import (
        get_tool as get_tool,
    )
    from memoir_tui.core.hosts.mcp_install import (
        manual_snippet as manual_snippet,
    )
    from memoir_tui.core.hosts.mcp_install import (
        plan_install as plan_install,
    )
    from memoir_tui.core.hosts.mcp_install import (
        plan_uninstall as plan_uninstall,
    )
    from memoir_tui.core.loop.agent_view import (
        BRIEF as BRIEF,
    )
    from memoir_tui.core.loop.agent_view import (
        HostView as HostView,
    )
    from memoir_tui.core.loop.agent_view import (
        LoadedSource as LoadedSource,
    )
    from memoir_tui.core.loop.agent_view import (
        agent_views as agent_views,
    )
    from memoir_tui.core.loop.agent_view import (
        project_dir as project_dir,
    )
    from memoir_tui.core.loop.agent_view import (
        shown_path as shown_path,
    )
    from memoir_tui.core.loop.brief import (
        build_brief as build_brief,
    )
    from memoir_tui.core.loop.doctor import (
        WARN as WARN,
    )
    from memoir_tui.core.loop.doctor import (
        Check as Check,
    )
    from memoir_tui.core.loop.doctor import (
        Registration as Registration,
    )
    from memoir_tui.core.loop.doctor import (
        check_hooks_file as check_hooks_file,
    )
    from memoir_tui.core.loop.doctor import (
        check_registration as check_registration,
    )
    from memoir_tui.core.loop.doctor import (
        mcp_registrations as mcp_registrations,
    )
    from memoir_tui.core.loop.doctor import (
        project_registration_checks as project_registration_checks,
    )
    from memoir_tui.core.loop.doctor import (
        run_doctor as run_doctor,
    )
    from memoir_tui.core.loop.doctor import (
        summary as summary,
    )
    from memoir_tui.core.loop.hook_run import (
        read_event as read_event,
    )
    from memoir_tui.core.loop.hook_run import (
        run_hook as run_hook,
    )
    from memoir_tui.core.loop.session_start import (
        FULL_PATH_ENV as FULL_PATH_ENV,
    )
    from memoir_tui.core.loop.session_start import (
        brief_output as brief_output,
    )
    from memoir_tui.core.loop.session_start import (
        event_cwd as event_cwd,
    )
    from memoir_tui.core.loop.session_start import (
        inject_enabled as inject_enabled,
    )
    from memoir_tui.core.loop.session_start import (
        lean_argv as lean_argv,
    )
    from memoir_tui.core.loop.session_start import (
        nothing_new as nothing_new,
    )
    from memoir_tui.core.loop.session_start import (
        store_root as store_root,
    )
    from memoir_tui.core.recall import (
        EntryInfo as EntryInfo,
    )
    from memoir_tui.core.recall import (
        Hit as RecallHit,
    )
    from memoir_tui.core.recall import (
        Recall as Recall,
    )
    from memoir_tui.core.recall import (
        semantic as semantic,
    )
    from memoir_tui.core.recall.answers import (
        EntryOut as EntryOut,
    )
    from memoir_tui.core.recall.answers import (
        ListView as ListView,
    )
    from memoir_tui.core.recall.answers import (
        PassageOut as PassageOut,
    )
    from memoir_tui.core.recall.answers import (
        RecallView as RecallView,
    )
    from memoir_tui.core.recall.extract import (
        doc_from_text as doc_from_text,
    )
    from memoir_tui.core.recall.passages import (
        highlight_spans as highlight_spans,
    )
    from memoir_tui.core.recall.service import (
        elsewhere_hint as elsewhere_hint,
    )
    from memoir_tui.core.recall.service import (
        working_project as project_folders,
    )
    from memoir_tui.core.recall.text import (
        parse_query as parse_query,
    )
    from memoir_tui.core.rules.labels import (
        GLOBAL as GLOBAL,
    )
    from memoir_tui.core.rules.labels import (
        cut_middle as cut_middle,
    )
    from memoir_tui.core.rules.labels import (
        label_of as label_of,
    )
    from memoir_tui.core.rules.labels import (
        place_labels as place_labels,
    )
    from memoir_tui.core.rules.labels import (
        queue_labels as queue_labels,
    )
    from memoir_tui.core.rules.labels import (
        short_labels as short_labels,
    )
    from memoir_tui.core.rules.listing import (
        DECISION_SORT_KEYS as DECISION_SORT_KEYS,
    )
    from memoir_tui.core.rules.model import (
        CompletedAction as CompletedAction,
    )
    from memoir_tui.core.rules.model import (
        Decision as Decision,
    )
    from memoir_tui.core.rules.model import (
        HistoryEntry as HistoryEntry,
    )
    from memoir_tui.core.rules.model import (
        Item as Item,
    )
    from memoir_tui.core.rules.model import (
        WorkingSet as WorkingSet,
    )
    from memoir_tui.core.rules.needle import (
        clean_needle as clean_needle,
    )
    from memoir_tui.core.rules.needle import (
        shown as shown,
    )
    from memoir_tui.core.rules.render import (
        render_working_set as render_working_set,
    )
    from memoir_tui.core.rules.reply import (
        Reply as Reply,
    )
    from memoir_tui.core.rules.scope import (
        find_git_dir as find_git_dir,
    )
    from memoir_tui.core.rules.scope import (
        is_visible as is_visible,
    )
    from memoir_tui.core.rules.scope import (
        project_identity as project_identity,
    )
    from memoir_tui.core.rules.scope import (
        project_names as project_names,
    )
    from memoir_tui.core.rules.scope import (
        same_project as same_project,
    )
    from memoir_tui.core.rules.scope import (
        working_project as working_project,
    )
    from memoir_tui.core.rules.search import (
        Hit as SearchHit,
    )
    from memoir_tui.core.rules.search import (
        Indexed as Indexed,
    )
    from memoir_tui.core.rules.search import (
        build_index as build_index,
    )
    from memoir_tui.core.rules.search import (
        search_index as search_index,
    )
    from memoir_tui.core.rules.search import (
        working_set_lists as working_set_lists,
    )
    from memoir_tui.core.rules.waiting import (
        in_review_scope as in_review_scope,
    )
    from memoir_tui.core.rules.waiting import (
        waiting_count as waiting_count,
    )
    from memoir_tui.core.rules.withhold import (
        shown_text as shown_text,
    )
    from memoir_tui.core.rules.withhold import (
        withhold_lines as withhold_lines,
    )
    from memoir_tui.core.rules.withhold import (
        withhold_secrets as withhold_secrets,
    )
    from memoir_tui.core.services import (
        remember as remember,
    )
    from memoir_tui.core.services import (
        review as review,
    )
    from memoir_tui.core.services.bulk import (
        hide_decisions as hide_decisions,
    )
    from memoir_tui.core.services.consolidate import (
        KEEP as KEEP,
    )
    from memoir_tui.core.services.consolidate import (
        ApplyResult as ApplyResult,
    )
    from memoir_tui.core.services.consolidate import (
        ConsolidateError as ConsolidateError,
    )
    from memoir_tui.core.services.consolidate import (
        Proposal as Proposal,
    )
    from memoir_tui.core.services.consolidate import (
        Report as Report,
    )
    from memoir_tui.core.services.export import (
        ExportError as ExportError,
    )
    from memoir_tui.core.services.export import (
        ExportExistsError as ExportExistsError,
    )
    from memoir_tui.core.services.export import (
        ExportResult as ExportResult,
    )
    from memoir_tui.core.services.export import (
        ExportTable as ExportTable,
    )
    from memoir_tui.core.services.export import (
        decision_table as decision_table,
    )
    from memoir_tui.core.services.export import (
        export_table as export_table,
    )
    from memoir_tui.core.services.export import (
        format_for as format_for,
    )
    from memoir_tui.core.services.inject import (
        InjectChange as InjectChange,
    )
    from memoir_tui.core.services.inject import (
        apply_inject as apply_inject,
    )
    from memoir_tui.core.services.inject import (
        plan_inject as plan_inject,
    )
    from memoir_tui.core.services.places import (
        CANONICAL_NAME as CANONICAL_NAME,
    )
    from memoir_tui.core.services.places import (
        read_canonical as read_canonical,
    )
    from memoir_tui.core.services.receipts import (
        KeptReceipt as KeptReceipt,
    )
    from memoir_tui.core.services.receipts import (
        purge_decision_kept as purge_decision_kept,
    )
    from memoir_tui.core.services.receipts import (
        read_receipts as read_receipts,
    )
    from memoir_tui.core.services.review import (
        lean_view as lean_view,
    )
    from memoir_tui.core.services.review import (
        review_path as review_path,
    )
    from memoir_tui.core.services.since import (
        Arrived as Arrived,
    )
    from memoir_tui.core.services.since import (
        SinceReport as SinceReport,
    )
    from memoir_tui.core.services.since import (
        arrived_from_elsewhere as arrived_from_elsewhere,
    )
    from memoir_tui.core.services.since import (
        kind_of as kind_of,
    )
    from memoir_tui.core.services.since import (
        record_open as record_open,
    )
    from memoir_tui.core.services.since import (
        since_last_session as since_last_session,
    )
    from memoir_tui.core.services.trash import (
        ACTIVE as ACTIVE,
    )
    from memoir_tui.core.services.trash import (
        TrashRecord as TrashRecord,
    )
    from memoir_tui.core.services.trash import (
        parse_duration as parse_trash_duration,
    )
    from memoir_tui.core.sync import (
        SecretsFoundError as SecretsFoundError,
    )
    from memoir_tui.core.sync import (
        SyncMode as SyncMode,
    )
    from memoir_tui.core.sync import (
        init_sync as init_sync,
    )
    from memoir_tui.core.sync import (
        run_sync as run_sync,
    )
    from memoir_tui.core.sync import (
        sync_status as sync_status,
    )
    from memoir_tui.core.sync.config import (
        sync_config_path as sync_config_path,
    )
    from memoir_tui.core.sync.driver import (
        merge_files as merge_files,
    )
    from memoir_tui.core.sync.driver import (
        register_driver as register_driver,
    )
    from memoir_tui.core.workflows.forget import (
        Scan as Scan,
    )
    from memoir_tui.core.workflows.forget import (
        forget_everywhere as forget_everywhere,
    )
    from memoir_tui.core.workflows.memoir import (
        Memoir as Memoir,
    )
    from memoir_tui.core.workflows.memoir import (
        open_memoir as open_memoir,
    )
    from memoir_tui.core.workflows.memoir import (
        write_merged_session as write_merged_session,
    )
