"""``sync_status(store)``: everything the Sync pane, the CLI and MCP show. Read-only.

Without ``fetch=True`` it touches no network and takes no lock, so it is cheap
enough to call on every refresh; "behind" is then as of the last fetch.
"""

from __future__ import annotations

import contextlib
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Any

from memoir_tui.core.base.errors import MemoirError
from memoir_tui.core.sync.apply import MergeReport, file_digest, local_files
from memoir_tui.core.sync.config import (
    SyncConfig,
    load_sync_config,
    mask_url,
    sync_config_path,
)
from memoir_tui.core.sync.errors import NotConfiguredError
from memoir_tui.core.sync.state import SyncState

if TYPE_CHECKING:
    from memoir_tui.core.door.store import Store


@dataclass(frozen=True, slots=True)
class MachineInfo:
    id: str
    label: str
    last_seen: str | None  # the later of its last sync and its last store write
    last_push: str | None
    first_sync: str | None
    this_machine: bool


@dataclass(frozen=True, slots=True)
class SyncStatus:
    configured: bool
    store: str
    config_path: str
    remote: str | None = None  # credentials masked
    branch: str | None = None
    encrypted: bool = False
    work_dir: str | None = None
    machines: tuple[MachineInfo, ...] = ()
    ahead: int = 0  # local files changed since the remote last saw them
    behind: int = 0  # remote commits fetched but not merged yet
    local_changes: tuple[str, ...] = ()  # logical paths not pushed yet
    never_synced: bool = True
    last_sync: str | None = None
    last_action: str | None = None
    last_ok: bool | None = None
    last_result: str | None = None
    last_push: str | None = None
    last_rewrite: str | None = None
    last_merge: MergeReport | None = None
    remote_head: str | None = None
    quarantined: str | None = None
    problem: str | None = None  # why part of the status could not be read

    def to_dict(self) -> dict[str, Any]:
        out = asdict(self)
        out["machines"] = [asdict(m) for m in self.machines]
        out["local_changes"] = list(self.local_changes)
        out["last_merge"] = self.last_merge.to_dict() if self.last_merge else None
        return out

    def lines(self) -> list[str]:
        """A plain-text rendering for the CLI."""
        if not self.configured:
            return [f"sync: not set up for {self.store} (memoir-tui sync init REMOTE)"]
        mode = "on" if self.encrypted else "off"
        out = [
            f"remote:      {self.remote} (branch {self.branch})",
            f"encryption:  {mode}",
        ]
        if self.never_synced:
            out.append("last sync:   never")
        else:
            result = "ok" if self.last_ok else "FAILED"
            out.append(f"last sync:   {self.last_sync} ({self.last_action}, {result})")
            if self.last_result:
                out.append(f"             {self.last_result}")
        if self.last_push:
            out.append(f"last push:   {self.last_push}")
        if self.last_rewrite:
            out.append(f"last purge rewrite: {self.last_rewrite}")
        out.append(f"ahead:       {self.ahead} file(s) not pushed")
        for path in self.local_changes:
            out.append(f"               {path}")
        out.append(f"behind:      {self.behind} remote commit(s) not merged (as of last fetch)")
        if self.last_merge is not None:
            out.append(f"last merge:  {self.last_merge.summary()}")
            for note in self.last_merge.notes:
                out.append(f"             note: {note}")
        if self.quarantined:
            out.append(f"QUARANTINED: {self.quarantined}")
        if self.machines:
            out.append("machines:")
            for m in self.machines:
                star = " (this machine)" if m.this_machine else ""
                out.append(
                    f"  {m.label}{star}  id {m.id}  last seen {m.last_seen or '-'}  "
                    f"last push {m.last_push or '-'}"
                )
        if self.problem:
            out.append(f"problem:     {self.problem}")
        return out


def sync_status(store: Store, *, fetch: bool = False) -> SyncStatus:
    """The sync state of ``store``; never raises for an unconfigured or unreachable remote."""
    base = {"store": str(store.root), "config_path": str(sync_config_path(store.root))}
    try:
        config: SyncConfig = load_sync_config(store.root)
    except NotConfiguredError:
        return SyncStatus(configured=False, **base)
    except MemoirError as err:
        return SyncStatus(configured=False, problem=str(err), **base)
    from memoir_tui.core.sync.engine import SyncCopy, sync_lock

    copy = SyncCopy(store, config)
    problem = None
    behind = 0
    if fetch:
        try:
            with sync_lock(copy.work_dir, wait=5.0):
                git = copy.recover()
                git.fetch(config.remote, config.branch, copy.tracking)
        except MemoirError as err:
            problem = str(err)
    state = SyncState.load(copy.work_dir)
    if (copy.repo / "HEAD").is_file():
        with contextlib.suppress(MemoirError, OSError):
            git = copy.reader()
            tracking = git.rev_parse(copy.tracking)
            synced = git.rev_parse(copy.synced)
            behind = git.count(synced, tracking) if tracking != synced else 0
    changes: list[str] = []
    try:
        files, _skipped = local_files(store)
        changes = [
            p for p, d in sorted(files.items()) if file_digest(p, d) != state.remote_digests.get(p)
        ]
    except MemoirError as err:
        problem = problem or str(err)
    machines = tuple(
        MachineInfo(
            id=str(m.get("id")),
            label=str(m.get("label")),
            last_seen=m.get("last_seen"),
            last_push=m.get("last_push"),
            first_sync=m.get("first_sync"),
            this_machine=bool(m.get("this_machine")),
        )
        for m in state.machines
        if isinstance(m, dict)
    )
    return SyncStatus(
        configured=True,
        remote=mask_url(config.remote),
        branch=config.branch,
        encrypted=config.encrypt,
        work_dir=str(copy.work_dir),
        machines=machines,
        ahead=len(changes),
        behind=behind,
        local_changes=tuple(changes),
        never_synced=state.last_sync is None,
        last_sync=state.last_sync,
        last_action=state.last_action,
        last_ok=state.last_ok,
        last_result=state.last_result,
        last_push=state.last_push,
        last_rewrite=state.last_rewrite,
        last_merge=MergeReport.from_dict(state.last_merge),
        remote_head=state.remote_head,
        quarantined=state.quarantined,
        problem=problem,
        **base,
    )
