"""``memoir_forget``: forget a recorded decision, permanently (a tombstone)."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import Field

from memoir_tui.core import Memoir, Reply, answers
from memoir_tui.mcp.runtime import Runtime, writes


def register(rt: Runtime) -> None:
    @rt.tool(
        "Forget a decision (permanent)",
        writes(idempotent=False, destructive=True),
        structured_output=False,
    )
    def memoir_forget(
        text: Annotated[
            str,
            Field(
                description="The decision's exact text or its 64-hex identity hash (either "
                "is found in every project), or a substring matching exactly one visible "
                "decision of this project"
            ),
        ],
        purge: Annotated[
            bool,
            Field(
                description="Also redact the text, why and rejected in place, keeping only a "
                "hash (for leaked secrets). Default false."
            ),
        ] = False,
        all_projects: Annotated[
            bool, Field(description="Match a substring against every project's decisions")
        ] = False,
        everywhere: Annotated[
            bool,
            Field(
                description="Forget the text (case-insensitive, also inside longer text) in "
                "every place: session lists, review queue, entry files, host tools' memory, "
                "rules and instruction files (their lines holding it are removed), the recall "
                "index and the sync copy; answers with a receipt of every place checked, "
                "what changed and where it still is. Bulk: call with dry_run first."
            ),
        ] = False,
        dry_run: Annotated[
            bool, Field(description="Say what would change; change nothing. Default false.")
        ] = False,
    ) -> str:
        """Forget a recorded decision, permanently: it is hidden from memoir_session,
        memoir_why and memoir_resume here and on every synced replica (a tombstone; there
        is no un-forget). Use it when a decision is wrong, obsolete or captured by mistake.
        Refuses a text matching several decisions and lists them; nothing changes then.
        With everywhere, forgets a text in every place this tool knows, with a receipt."""
        return rt.plain(forget_within_roots, text, purge, all_projects, everywhere, dry_run)

    def forget_within_roots(store: Memoir, *args: Any) -> Reply:
        """With everywhere, the project folders of every root the client declared are
        searched too (forgetting reaches everywhere the client works)."""
        store.forget.within(rt.scope.get("roots", ()))
        return answers.forget(store, *args)
