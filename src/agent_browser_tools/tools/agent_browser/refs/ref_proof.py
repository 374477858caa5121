"""Is a ref still the element it named? The proof and the re-read, shared by the checks.

The engine resolves a ref by its DOM node (falling back to role and name when the node is
gone), so it would act on whatever that node shows now. The cheap proof (`page_watch`: one
small batch) shows the used refs unchanged; when it cannot, one re-read of the session's refs
with the recorded snapshot's own scope, compared with what the model's snapshot recorded,
decides. Used before the dispatch (`identity`), between batch segments (`segments`), after a
page change (`same_document`) and by the read-back (`action_readback`).
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import replace

from agent_browser_tools.engine.envelope import BatchRow
from agent_browser_tools.planning.plan import ExecutionPlan
from agent_browser_tools.state.effects import refs_from_snapshot
from agent_browser_tools.state.journal import scrub_effect
from agent_browser_tools.state.models import RefInfo, RefsRecorded, SessionPageState
from agent_browser_tools.state.snapshot_payload import snapshot_payload
from agent_browser_tools.state.stale_refs import (
    StaleRef,
    identity_mismatch,
    ref_ids,
    unverified,
)
from agent_browser_tools.taxonomy import CommandMatch, resolve_command, split_global_flags
from agent_browser_tools.tools.agent_browser.call import DirectCall
from agent_browser_tools.tools.agent_browser.confirm.confirm_controls import control_of
from agent_browser_tools.tools.agent_browser.confirm.confirm_gate import confirmation_gated
from agent_browser_tools.tools.agent_browser.helpers import helper_call, helper_data
from agent_browser_tools.tools.agent_browser.refs import page_watch, refmap

DEFAULT_READ = ("snapshot", "-i")


def refs_to_verify(plan: ExecutionPlan, entry: SessionPageState) -> tuple[str, ...]:
    """The refs this call will hand the engine that the recorded snapshot knows (pure).

    In a batch, every step's known refs (a `snapshot` step in between changes nothing on the
    page): an element that already changed refuses the batch before anything runs. Steps
    after one that can change the page are re-read again where they run (`segments`).
    """
    snapshot = entry.ref_snapshot
    if plan.session.key is None or snapshot is None:
        return ()
    if not plan.is_batch:
        ids = ref_ids(plan.match) if plan.match is not None else ()
        return tuple(i for i in ids if i in snapshot.refs)
    found: list[str] = []
    for _step, match in batch_matches(plan):
        found += [i for i in ref_ids(match) if i in snapshot.refs and i not in found]
    return tuple(found)


def batch_matches(plan: ExecutionPlan) -> list[tuple[int, CommandMatch]]:
    """(1-based step, match) of each batch row the taxonomy knows."""
    rows = plan.checked.batch.rows if plan.checked.batch is not None else ()
    out: list[tuple[int, CommandMatch]] = []
    for step, row in enumerate(rows, start=1):
        match = resolve_command(split_global_flags(row)[1]) if row else None
        if match is not None:
            out.append((step, match))
    return out


def at_step(plan: ExecutionPlan, stale: StaleRef) -> StaleRef:
    """In a batch, the refusal names the first step that uses the refused ref."""
    if not plan.is_batch or not stale.refs:
        return stale
    step = next((n for n, m in batch_matches(plan) if stale.refs[0] in ref_ids(m)), None)
    if step is None:
        return stale
    return replace(stale, step=step, reason=f"step {step}: {stale.reason}")


def current_refs(data: object) -> dict[str, RefInfo] | None:
    """The refs of a re-read snapshot, scrubbed exactly as recorded refs are (pure)."""
    payload = snapshot_payload(data)
    if payload is None or payload.refs is None:
        return None
    refs = refs_from_snapshot({"refs": payload.refs}, payload.text)
    scrubbed = scrub_effect(RefsRecorded(refs=refs))
    return scrubbed.refs if isinstance(scrubbed, RefsRecorded) else refs


def check(ids: tuple[str, ...], recorded: Mapping[str, RefInfo], data: object) -> StaleRef | None:
    """The refusal for shown `ids` given the engine's re-read `data`, else None (pure).

    The re-read speaks engine ids; each shown ref is looked up under its engine id.
    """
    engine = current_refs(data)
    if engine is None:
        return _helper_pending(ids, data) or unverified(ids)
    fresh = {
        ref: engine[info.engine or ref]
        for ref, info in recorded.items()
        if (info.engine or ref) in engine
    }
    return identity_mismatch(ids, recorded, fresh)


def _helper_pending(ids: tuple[str, ...], data: object) -> StaleRef | None:
    """The re-read itself stopped on a `--confirm-actions` control: say it was the wrapper's
    own helper (not the requested command, which was not dispatched)."""
    control = control_of(data, None)
    if control is None:
        return None
    shown = ", ".join("@" + i for i in ids)
    reason = (
        f"{shown} could not be checked: the wrapper's identity re-read `snapshot` is itself "
        f"gated by --confirm-actions (helper pending id {control.id}); the requested command "
        "was not dispatched. Run `snapshot -i`, confirm it, then use its refs once."
    )
    return StaleRef(refs=ids, reason=reason, code="identity-unverified")


Batch = Callable[[page_watch.Check], Awaitable[Sequence[BatchRow]]]
"""Runs a check's rows inside the call's pre-dispatch batch (`pre_dispatch`) and answers
them laid out as `Check.rows` (the script's answer, then the reads')."""


async def verify_ids(
    call: DirectCall, entry: SessionPageState, ids: tuple[str, ...], run: Batch | None = None
) -> StaleRef | None:
    """The cheap proof first (`page_watch`: one small batch), the full re-read when it fails;
    the checkbox states either one saw go to `call.checked` (for `check`/`uncheck`)."""
    assert entry.ref_snapshot is not None
    states = await _proven(call, entry, ids, run)
    if states is not None:
        call.checked.clear()
        call.checked.update(states)
        return None
    data = await reread(call, entry)
    call.checked.clear()
    call.checked.update(refmap.checked_states(data))
    return check(ids, entry.ref_snapshot.refs, data)


async def _proven(
    call: DirectCall, entry: SessionPageState, ids: tuple[str, ...], run: Batch | None
) -> page_watch.Checked:
    snapshot = entry.ref_snapshot
    if snapshot is None or snapshot.epoch is None or confirmation_gated(call):
        return None
    if any(i not in snapshot.refs for i in ids):
        return None  # an id the latest snapshot no longer holds: no proof
    questions = [
        page_watch.Question(refmap.engine_id(i, snapshot.refs), snapshot.refs[i]) for i in ids
    ]
    check = page_watch.check_rows(snapshot.epoch, questions)
    if check is None:
        return None
    if run is not None:
        answered = await run(check)
    else:
        envelope = await helper_call(call.rt, call.plan, ["batch"], stdin=json.dumps(check.rows))
        answered = envelope.rows or () if envelope is not None else ()
    call.ref_marks.append(page_watch.engine_marks(check, questions, answered))
    return page_watch.proven(snapshot.epoch, check, questions, answered)


async def reread(call: DirectCall, entry: SessionPageState) -> object:
    """The session's refs now, in engine ids, read with the recorded snapshot's own scope
    (one engine call)."""
    snapshot = entry.ref_snapshot
    read = list(snapshot.read_args or DEFAULT_READ) if snapshot is not None else DEFAULT_READ
    return await helper_data(call.rt, call.plan, list(read))
