"""The review queue: captured candidates wait here until a person pins or rejects them.

Nothing an assistant merely said becomes a pinned memory without a person
seeing it. The queue is its own file in the store, ``review.json``, changed only through
the store's transaction (``core.transaction``: locked, atomic, audited), and
merged across machines by ``merge_review`` with
the session's rules (FORMAT §4): union by identity (the text's ``text_hash``),
one winner per identity chosen on a total order, so the merge is commutative,
associative and idempotent; tombstones are sticky.

An item's ``state`` moves one way: ``candidate`` → ``pinned`` or
``rejected``. In a merge the furthest state wins whatever the dates
(``rejected`` > ``pinned`` > ``candidate``: a person's "no" is never undone by
a stale replica), then the newer date of that state, then canonical JSON. A
rejected item is a tombstone: the same text is never proposed again.

``ReviewQueue`` is the service (``store.review``); the file format and its merge
rule are ``core.review_file``, which the door reads and writes.

Pinning goes through ``Store.note_decision`` in the same transaction as the
queue change, so a pin is one atomic commit. Before it does, the text is
compared with every hidden decision: the same identity hash (the only thing a
purged decision keeps) or a fuzzy score at or above the threshold flags the
item ``near_hidden`` and pinning refuses unless forced — a rewording must not
quietly bring back what a person forgot.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from memoir_tui.core.base.errors import AmbiguousMatchError, MemoirError, NoMatchError
from memoir_tui.core.format.identity import (
    PURGED_TEXT,
    canonical_json,
    identity,
    parse_date_ms,
    text_hash,
)
from memoir_tui.core.format.items import (
    PROVENANCE_FIELDS,
    REVIEW,
    REVIEW_FILE,
    SESSION,
    Outcome,
    Undo,
    readable_date,
)
from memoir_tui.core.format.review_file import (
    CANDIDATE,
    MIN_PREFIX,
    NEAR_HIDDEN_THRESHOLD,
    PINNED,
    REJECTED,
    CandidateStateError,
    LoadedReview,
    NearHidden,
    NearHiddenError,
    ReviewItem,
    item_key,
    load_review,
    loaded_key,
    merge_review,
    state_of,
    well_formed_review_items,
)

_NEAR_CACHE_MAX = 20_000  # texts remembered (the queue holds at most 1,000 candidates)

if TYPE_CHECKING:
    from memoir_tui.core.door.store import Store
    from memoir_tui.core.rules.model import Decision, WorkingSet
    from memoir_tui.core.services.working_set import WorkingSetService


def similarity(a: str, b: str) -> float:
    """0–100: the best of plain and token-set similarity on normalised text.

    Token-set similarity scores 100 when one text's words contain the
    other's, which is the point (a rewording that adds words), so it only
    counts when both texts have at least three distinct words.
    """
    from rapidfuzz import fuzz, utils

    pa, pb = utils.default_process(a), utils.default_process(b)
    if not pa or not pb:
        return 0.0
    score = fuzz.ratio(pa, pb)
    if min(len(set(pa.split())), len(set(pb.split()))) >= 3:
        score = max(score, fuzz.token_set_ratio(pa, pb))
    return float(score)


def near_hidden_match(
    text: str, tombstones: Iterable[Decision], *, threshold: float = NEAR_HIDDEN_THRESHOLD
) -> NearHidden | None:
    """The hidden decision ``text`` matches or resembles, if any.

    Purged decisions keep only a hash, so they match only the same identity;
    hidden ones also match fuzzily at ``threshold`` or above.
    """
    key = text_hash(text)
    best: NearHidden | None = None
    for d in tombstones:
        if d.key == key:
            return NearHidden(
                d.key, PURGED_TEXT if d.purged else d.text, 100.0, d.hidden_at, d.purged
            )
        if d.purged:
            continue
        score = similarity(text, d.text)
        if score >= threshold and (best is None or score > best.score):
            best = NearHidden(d.key, d.text, score, d.hidden_at, False)
    return best


def _resolve(state: Mapping[str, Any], candidate_id: str) -> dict[str, Any]:
    """The item whose id is ``candidate_id`` or starts with it (4+ hex characters)."""
    needle = candidate_id.strip().lower()
    items = well_formed_review_items(state.get("items"))
    exact = [i for i in items if item_key(i) == needle]
    if exact:
        return exact[0]
    if len(needle) < MIN_PREFIX:
        raise NoMatchError(f"give at least {MIN_PREFIX} characters of a candidate id")
    hits = [i for i in items if item_key(i).startswith(needle)]
    if not hits:
        raise NoMatchError(f"no review item has the id {candidate_id!r}")
    if len(hits) > 1:
        raise AmbiguousMatchError(
            f"{len(hits)} review items start with {candidate_id!r}; give more of the id",
            [h["text"] for h in hits],
        )
    return hits[0]


def hidden_decisions(working: WorkingSetService) -> tuple[Decision, ...]:
    """``store.working_set(all_projects=True).tombstones``: the hidden and purged
    decisions of every project, from a view that leaves out the session's history
    (which holds no decision; only project labels named nowhere else differ)."""
    return lean_view(working).tombstones


def lean_view(working: WorkingSetService) -> WorkingSet:
    """``store.working_set(all_projects=True)`` without the session history, whose
    10,000 entries the queue and the audit log never read: every list, tombstone and
    machine is the same; a project label named only by a history entry is not known."""
    state = working.store.load().state
    return working.view({k: v for k, v in state.items() if k != "history"}, all_projects=True)


def review_path(store: Store) -> Path:
    return store.root / REVIEW_FILE


@dataclass(frozen=True, slots=True)
class EnqueueReport:
    added: tuple[str, ...]  # ids
    duplicates: int  # already in the queue (any state, so rejected texts stay out)
    known: int  # already a visible decision
    forgotten: int  # the very identity of a hidden or purged decision
    near_hidden: int  # added, but flagged


def _redact(text: str | None) -> str | None:
    if text is None:
        return None
    from memoir_tui.core.format.secrets import redact

    return redact(text)


class ReviewQueue:
    """``store.review``: the captured candidates, and the acts a person takes on them.

    Every change is one store transaction over the queue (and, for a pin, the
    session too), so it is locked, atomic and audited like every other change.
    """

    def __init__(self, store: Store, working: WorkingSetService) -> None:
        self.store = store
        self.working = working  # a pin is a decision noted in the same commit
        # text → its near-hidden note, valid for one set of hidden decisions and one
        # threshold (a re-read of the same queue compares no text again)
        self._near: tuple[tuple[Any, ...], dict[str, NearHidden | None]] = ((), {})

    @property
    def path(self) -> Path:
        return self.store.root / REVIEW_FILE

    def load(self) -> LoadedReview:
        """The queue as it is on disk (a damaged file reads as empty, with a notice)."""
        return load_review(self.path)

    def enqueue(
        self,
        candidates: Iterable[Mapping[str, Any]],
        *,
        threshold: float = NEAR_HIDDEN_THRESHOLD,
    ) -> EnqueueReport:
        """Add candidate items (``Candidate.to_item()`` dicts) that are new to the queue."""
        from memoir_tui.core.format.textsafe import clean_input

        store = self.store
        # the door's text rule: no control or bidi character, one line (as a pin writes it)
        batch = [
            {**c, "text": clean_input(c["text"])}
            for c in candidates
            if isinstance(c, Mapping) and isinstance(c.get("text"), str)
        ]
        # forgotten anywhere counts: a rewording must not bring back another project's forgetting
        ws = self.working.working_set(all_projects=True)
        visible = {d.key for d in ws.decisions}
        hidden = {d.key for d in ws.tombstones}
        added: list[str] = []
        duplicates = known = forgotten = flagged = 0
        with store.transaction("capture_candidate", files=(REVIEW,)) as tx:
            items = tx.review.setdefault("items", [])
            present = {item_key(i) for i in well_formed_review_items(items)}
            machine = store.machine.id
            for candidate in batch:
                key = item_key(candidate)
                if key in present:
                    duplicates += 1
                    continue
                if key in visible:
                    known += 1
                    continue
                if key in hidden:
                    forgotten += 1
                    continue
                item = {k: v for k, v in candidate.items() if k not in ("state", "near_hidden")}
                item.update(id=key, state=CANDIDATE, captured_at=store.clock(), machine_id=machine)
                match = near_hidden_match(candidate["text"], ws.tombstones, threshold=threshold)
                if match is not None:
                    item["near_hidden"] = match.as_dict()
                    flagged += 1
                items.append(item)
                present.add(key)
                added.append(key)
                tx.audit("capture_candidate", "review", key)
        return EnqueueReport(tuple(added), duplicates, known, forgotten, flagged)

    def list_items(
        self,
        *,
        states: Sequence[str] = (CANDIDATE,),
        threshold: float = NEAR_HIDDEN_THRESHOLD,
    ) -> list[ReviewItem]:
        """Queue items in the given states, newest message first; near-hidden re-checked now."""
        return self.items_of(self.load(), states=states, threshold=threshold)

    def items_of(
        self,
        loaded: LoadedReview,
        *,
        states: Sequence[str] = (CANDIDATE,),
        threshold: float = NEAR_HIDDEN_THRESHOLD,
    ) -> list[ReviewItem]:
        """``list_items`` over a queue already read."""
        near = self._near_hidden_of(hidden_decisions(self.working), threshold)
        out: list[ReviewItem] = []
        for raw in well_formed_review_items(loaded.state.get("items")):
            state = state_of(raw)
            if state not in states:
                continue
            key = loaded_key(raw)
            if state == CANDIDATE:
                out.append(ReviewItem.from_dict(raw, near(raw["text"]), key=key))
            else:
                out.append(ReviewItem.from_dict(raw, key=key))
        # Newest said first; ties by capture time, then identity, so the order is stable.
        out.sort(key=lambda i: (parse_date_ms(i.timestamp), parse_date_ms(i.captured_at), i.id))
        out.reverse()
        return out

    def _near_hidden_of(
        self, tombstones: Sequence[Decision], threshold: float
    ) -> Callable[[str], NearHidden | None]:
        """``near_hidden_match`` as a stored note reads back (its score rounded), remembered
        per text while the hidden decisions and the threshold stay the same."""
        signature = (
            threshold,
            *((d.key, d.text, d.hidden_at, d.purged) for d in tombstones),
        )
        known, cache = self._near
        if known != signature:
            cache = {}
            self._near = (signature, cache)

        def near(text: str) -> NearHidden | None:
            try:
                return cache[text]
            except KeyError:
                pass
            if len(cache) >= _NEAR_CACHE_MAX:
                cache.clear()
            match = near_hidden_match(text, tombstones, threshold=threshold)
            found = NearHidden.from_dict(match.as_dict()) if match is not None else None
            cache[text] = found
            return found

        return near

    def get_item(self, candidate_id: str) -> ReviewItem:
        return ReviewItem.from_dict(_resolve(self.load().state, candidate_id))

    def pin(
        self,
        candidate_id: str,
        *,
        text: str | None = None,
        why: str | None = None,
        rejected: str | None = None,
        force: bool = False,
        threshold: float = NEAR_HIDDEN_THRESHOLD,
    ) -> Outcome:
        """Pin a candidate: write it as a decision and mark it ``pinned``, in one commit.

        ``text`` replaces the candidate's wording (the queue item keeps its own
        identity and records ``pinned_text``). Every text passes the secret
        redactor first. A text close to a hidden decision is flagged on the item
        and refused with ``NearHiddenError`` unless ``force``.
        """
        store = self.store
        refused: NearHidden | None = None
        outcome: Outcome | None = None
        with store.transaction("pin_candidate", files=(REVIEW, SESSION)) as tx:
            item = _resolve(tx.review, candidate_id)
            current = state_of(item)
            if current == PINNED:
                raise CandidateStateError(
                    f"already pinned on {readable_date(item.get('pinned_at'))}"
                )
            if current == REJECTED:
                raise CandidateStateError(
                    f"this candidate was rejected on {readable_date(item.get('rejected_at'))}; "
                    "rejections are permanent, so note the decision directly if you mean it"
                )
            from memoir_tui.core.format.secrets import redact
            from memoir_tui.core.format.textsafe import clean_input

            final_text = clean_input(redact(text) if text is not None else item["text"])
            tombstones = self.working.view(tx.session, all_projects=True).tombstones
            match = near_hidden_match(final_text, tombstones, threshold=threshold)
            if match is not None:
                item["near_hidden"] = match.as_dict()
            else:
                item.pop("near_hidden", None)
            if match is not None and not force:
                refused = match  # the flag is saved; the refusal is raised after the commit
            else:
                provenance = {k: item[k] for k in PROVENANCE_FIELDS if isinstance(item.get(k), str)}
                outcome = self.working.note_decision(
                    final_text, _redact(why), _redact(rejected), provenance=provenance
                )
                item["state"] = PINNED
                item["pinned_at"] = store.clock()
                item["pinned_key"] = outcome.key
                item["pinned_by"] = store.machine.id
                if identity(final_text) != identity(item["text"]):
                    item["pinned_text"] = final_text
                if match is not None:
                    item["forced"] = True
                tx.audit("pin_candidate", "review", item_key(item))
        if refused is not None:
            raise NearHiddenError(refused)
        assert outcome is not None
        requeue = Undo("requeue_candidate", "back to the queue", (("id", item_key(item)),))
        undo = (
            Undo(outcome.undo.op, f"unpin: {final_text}", outcome.undo.args, (requeue,))
            if outcome.undo is not None
            else None
        )
        return Outcome(True, f"pinned: {outcome.message}", outcome.key, undo=undo)

    def reject(self, candidate_id: str) -> Outcome:
        """Reject a candidate for ever: a tombstone keeps the same text from being proposed."""
        store = self.store
        with store.transaction("reject_candidate", files=(REVIEW,)) as tx:
            item = _resolve(tx.review, candidate_id)
            current = state_of(item)
            if current == PINNED:
                raise CandidateStateError(
                    "this candidate is already pinned as a decision; forget the decision instead"
                )
            text, key = item["text"], item_key(item)
            if current == REJECTED:
                return Outcome(False, f"already rejected: {text}", key)
            item["state"] = REJECTED
            item["rejected_at"] = store.clock()
            item["rejected_by"] = store.machine.id
            tx.audit("reject_candidate", "review", key)
        undo = Undo("requeue_candidate", f"back to the queue: {text}", (("id", key),))
        return Outcome(True, f"rejected: {text}", key, undo=undo)

    def requeue(self, candidate_id: str) -> Outcome:
        """Undo a pin or a reject here: the item waits in the queue again. (A replica that
        already saw the pin or the "no" keeps it: in a merge the furthest state wins, so a
        person's decision is never undone by a stale copy.)"""
        with self.store.transaction("requeue_candidate", files=(REVIEW,)) as tx:
            item = _resolve(tx.review, candidate_id)
            if item.get("purged") is True:
                raise CandidateStateError("a purged candidate cannot come back")
            if state_of(item) == CANDIDATE:
                return Outcome(False, f"already waiting: {item['text']}", item_key(item))
            for field in (
                "pinned_at",
                "pinned_key",
                "pinned_by",
                "pinned_text",
                "forced",
                "rejected_at",
                "rejected_by",
            ):
                item.pop(field, None)
            item["state"] = CANDIDATE
            item["captured_at"] = self.store.clock()
            tx.audit("requeue_candidate", "review", item_key(item))
        return Outcome(True, f"back in the queue: {item['text']}", item_key(item))

    def merge_replica(self, remote: Mapping[str, Any]) -> Outcome:
        """Merge another replica's review queue into this store's."""
        with self.store.transaction("merge_review", files=(REVIEW,)) as tx:
            merged = merge_review(tx.review, remote)
            changed = canonical_json(merged) != canonical_json(merge_review(tx.review, tx.review))
            tx.review.clear()
            tx.review.update(merged)
        return Outcome(changed, "review queue merged" if changed else "review queue unchanged")

    def pin_all(self, ids: Sequence[str]) -> Outcome:
        """Pin each candidate as captured; near-hidden ones are skipped, never forced."""
        pinned = skipped = 0
        failures: list[str] = []
        for cid in ids:
            try:
                self.pin(cid)
                pinned += 1
            except NearHiddenError:
                skipped += 1
            except MemoirError as err:
                failures.append(str(err))
        message = f"pinned {pinned} of {len(ids)} candidates"
        if skipped:
            message += (
                f"; {skipped} close to a forgotten decision stayed in the queue "
                "(pin them one at a time)"
            )
        if failures:
            message += f"; {len(failures)} failed: {failures[0]}"
        return Outcome(pinned > 0, message)

    def reject_all(self, ids: Sequence[str]) -> Outcome:
        """Reject each candidate; those already decided are reported, not changed."""
        rejected = 0
        failures: list[str] = []
        for cid in ids:
            try:
                rejected += self.reject(cid).changed
            except MemoirError as err:
                failures.append(str(err))
        message = f"rejected {rejected} of {len(ids)} candidates"
        if failures:
            message += f"; {len(failures)} failed: {failures[0]}"
        return Outcome(rejected > 0, message)
