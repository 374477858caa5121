"""Direct tool, right after a snapshot: which elements are the very nodes of refs a page change
within the same document dropped?

Why: `back` between two views of one page (a pushState route, a restored page) leaves the
same document, but the engine numbers every element anew after it, and the wrapper drops the
refs a page change leaves. A model that remembers a ref from before (the field it saw first)
was refused although the element never changed. So the dropped refs are kept aside
(`SessionPageState.left`), and when the change log read just before this snapshot has their
document's token (`left_of_this_document`):

1. each element that reads exactly as one dropped ref did, and is the only one on each side
   that reads so, is a candidate (`refmap.left_candidates`);
2. the page proves each candidate the same node: the element at the engine's new ref was
   neither inserted nor changed (nor its labels) since that snapshot (`page_watch`, one
   small batch); a reading alone proves nothing (a wizard's "Continue" is a new node each
   step);
3. proven elements show their old ids (`shown_ids.Shown.kept`); the rest get new ones.

Cost: nothing unless the snapshot follows such a page change; then one batch for at most
`MAX_KEPT` candidates (a page of thousands keeps the first ones in document order).

A ref call right after such a change, with no snapshot in between, gets that snapshot from
the wrapper before its guard runs (`snapshot_first`: one journaled `snapshot -i`, after one
small `eval` that checks the page still shows that document): refs the model saw before the
change act when their elements are proven the same; the others are refused as no longer the
element that snapshot named (`not_kept`). So does a call with a ref the page retired because
its element showed something else: a node that reads exactly as the ref did again (a label
that rotated away and back) gets the ref back (`shown_ids.Shown.retired`). Without this such a
call was refused although its element was, at that moment, what the model saw.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from typing import Any

from agent_browser_tools.engine.envelope import Envelope, OutputMode
from agent_browser_tools.planning.plan import ExecutionPlan
from agent_browser_tools.results import next_actions as na
from agent_browser_tools.state.effects import refs_from_snapshot
from agent_browser_tools.state.models import RefSnapshot, RetiredRef, SessionPageState
from agent_browser_tools.state.snapshot_payload import snapshot_payload
from agent_browser_tools.state.stale_refs import StaleRef, describe_ref, ref_ids
from agent_browser_tools.tools.agent_browser.call import DirectCall
from agent_browser_tools.tools.agent_browser.confirm.confirm_gate import confirmation_gated
from agent_browser_tools.tools.agent_browser.helpers import helper_batch, helper_data
from agent_browser_tools.tools.agent_browser.refs import page_watch, ref_proof, refmap, shown_ids

MAX_KEPT = 200


async def kept_ids(call: DirectCall, envelope: Envelope) -> dict[str, str]:
    """Engine id -> old shown id of each element proven to be a dropped ref's node."""
    left = left_of_this_document(call)
    payload = snapshot_payload(envelope.data) if left is not None else None
    if left is None or left.epoch is None or payload is None or payload.refs is None:
        return {}
    infos = refs_from_snapshot({"refs": payload.refs}, payload.text)
    found = refmap.left_candidates(left.refs, infos)
    askable = [engine for engine in found if page_watch.askable(left.refs[found[engine]])]
    engines = sorted(askable, key=shown_ids.ref_number)[:MAX_KEPT]
    questions = [page_watch.Question(engine, left.refs[found[engine]]) for engine in engines]
    check = page_watch.check_rows(left.epoch, questions)
    if check is None:
        return {}
    answer = await helper_batch(call.rt, call.plan, check.rows)
    if answer is None or answer.rows is None:
        return {}
    proven = page_watch.proven_each(left.epoch, check, questions, answer.rows)
    return {engine: found[engine] for engine in engines if engine in proven}


def left_of_this_document(call: DirectCall) -> RefSnapshot | None:
    """The last refs of a document the session's page left, when the change log read just
    before this snapshot (`identity.begin_epoch`) is that document's."""
    if call.key is None or not call.epoch:
        return None
    return call.rt.log.state.session(call.key).left.get(call.epoch[0].token)


Nested = Callable[[Mapping[str, Any]], Awaitable[object]]
"""Runs one journaled call under the lock already held (the executor's `run`)."""


def used_ids(plan: ExecutionPlan) -> tuple[str, ...]:
    """Every ref id the call uses, in its direct command or any of its batch rows (pure)."""
    if plan.checked.batch is None:
        return ref_ids(plan.match) if plan.match is not None else ()
    found: list[str] = []
    for _step, match in ref_proof.batch_matches(plan):
        found += [i for i in ref_ids(match) if i not in found]
    return tuple(found)


def left_refs(plan: ExecutionPlan, entry: SessionPageState) -> dict[str, str] | None:
    """Each used id and what it named, when a snapshot now may show a used ref again: the
    session's refs were dropped by a page change and every used id is among the refs kept
    aside of the documents left, or a used ref was retired because its element showed
    something else (it may read as before again); else None (pure)."""
    if entry.closed or entry.target_unknown:
        return None
    if plan.output_mode is OutputMode.TEXT and plan.checked.inspection:
        return None  # the guard lets such a read through as it is
    ids = used_ids(plan)
    snapshot = entry.ref_snapshot
    if snapshot is not None:
        changed = [i for i in ids if i not in snapshot.refs and _changed(snapshot, i)]
        return {i: describe_ref(snapshot.retired[i].was) for i in changed} or None
    invalidation = entry.ref_invalidation
    if invalidation is None or invalidation.reason != "page-transition" or not entry.left:
        return None
    named: dict[str, str] = {}
    for ref in ids:
        info = next((kept.refs[ref] for kept in entry.left.values() if ref in kept.refs), None)
        if info is None:
            return None
        named[ref] = describe_ref(info)
    return named or None


def _changed(snapshot: RefSnapshot, ref: str) -> bool:
    """A ref the page retired because its element shows something else (not gone)."""
    old = snapshot.retired.get(ref)
    return old is not None and old.now is not None


def retired_refs(call: DirectCall) -> Mapping[str, RetiredRef]:
    """The session's retired refs, for an answer that may give one back (`shown_ids.Shown`)."""
    entry = call.rt.log.state.session(call.key) if call.key is not None else None
    snapshot = entry.ref_snapshot if entry is not None else None
    return snapshot.retired if snapshot is not None else {}


async def snapshot_first(call: DirectCall, nested: Nested) -> StaleRef | None:
    """Before the guard: the snapshot a ref call needs when it may show a used ref again (see
    `left_refs`), read with the scope of the snapshot those refs came from, so refs proven
    the same act; the refusal for the ones that are not."""
    if call.key is None:
        return None
    entry = call.rt.log.state.session(call.key)
    named = left_refs(call.plan, entry)
    if named is None or confirmation_gated(call):
        return None
    came_from = entry.ref_snapshot or await _left_document_here(call, entry)
    if came_from is None:
        return None  # another document: the guard refuses the refs as invalidated
    prefix = na.session_prefix(call.key, not call.plan.session.used_implicit_session)
    await nested({"args": [*prefix, *(came_from.read_args or ref_proof.DEFAULT_READ)]})
    stale = not_kept(named, call.rt.log.state.session(call.key))
    return ref_proof.at_step(call.plan, stale) if stale is not None else None


async def _left_document_here(call: DirectCall, entry: SessionPageState) -> RefSnapshot | None:
    """The refs kept aside of the document the page shows, when it is one of those left
    (its change log's token; one small `eval`), not a new document a snapshot would read in
    vain."""
    epoch = page_watch.epoch_of(await helper_data(call.rt, call.plan, page_watch.begin_args()))
    return entry.left.get(epoch.token) if epoch is not None else None


def not_kept(named: Mapping[str, str], entry: SessionPageState) -> StaleRef | None:
    """The refusal for used refs the snapshot after the page change did not show under their
    old ids (pure); None when each did (the guard and identity check then run as always)."""
    snapshot = entry.ref_snapshot
    if snapshot is None:
        return None  # the snapshot failed: the guard says why the refs are stale
    missing = [ref for ref in named if ref not in snapshot.refs and ref not in snapshot.retired]
    if not missing:
        return None
    said = "; ".join(f"@{ref} was {named[ref]}" for ref in missing)
    reason = (
        f"{said}. The page changed within the same document since that snapshot, and a fresh "
        "snapshot no longer shows that element as it was (it changed or is gone)."
    )
    return StaleRef(refs=tuple(missing), reason=reason, code="element-changed")
