"""Direct tool, under the lock and just before dispatch: is a ref still the element it named?

The static guard (`guards.py`) knows only what earlier results said. A page can re-render
without navigating: an index-keyed list patched in place shows another item in the same DOM
node, a checkbox re-sorts its list, a timer swaps a row. The engine resolves a ref by its DOM
node (falling back to role and name when the node is gone), so it would act on whatever that
node shows now. One re-read of the session's refs with the recorded snapshot's own scope,
compared with what the model's snapshot recorded, refuses such a call as `stale-ref`.

Cost: one small extra engine call for a call that uses refs, none otherwise: the page-side
change log (`page_watch`) proves the used refs unchanged in one batch; only when it cannot
(a change near the element, another document, a page it cannot read) does the full re-read
run. Limit: the page can still change in the few milliseconds between this check and the
dispatch.
"""

from __future__ import annotations

from agent_browser_tools.engine.envelope import OutputMode
from agent_browser_tools.state.stale_refs import StaleRef
from agent_browser_tools.tools.agent_browser.call import DirectCall
from agent_browser_tools.tools.agent_browser.confirm.confirm_gate import confirmation_gated
from agent_browser_tools.tools.agent_browser.helpers import helper_data
from agent_browser_tools.tools.agent_browser.refs import fresh_capture, page_watch
from agent_browser_tools.tools.agent_browser.refs.ref_proof import (
    Batch,
    at_step,
    refs_to_verify,
    verify_ids,
)


async def verify(call: DirectCall, run: Batch | None = None) -> StaleRef | None:
    """Prove the refs unchanged from the page's change log, else re-read the session's refs
    once and compare; None when every ref is still its element."""
    if call.key is None:
        return None
    entry = call.rt.log.state.session(call.key)
    ids = refs_to_verify(call.plan, entry)
    if not ids or entry.ref_snapshot is None:
        return None
    if entry.fresh_capture is not None:
        return await fresh_capture.check(call, entry.fresh_capture, ids)
    stale = await verify_ids(call, entry, ids, run)
    return at_step(call.plan, stale) if stale is not None else None


async def begin_epoch(call: DirectCall) -> None:
    """Before a direct snapshot: where the page's change log stands (one small `eval`), so
    its refs can later be proven unchanged without re-reading the page."""
    plan = call.plan
    if call.key is None or plan.is_batch or plan.match is None:
        return
    if not plan.match.spec.produces_refs:
        return
    if plan.output_mode is not OutputMode.JSON or confirmation_gated(call):
        return
    epoch = page_watch.epoch_of(await helper_data(call.rt, plan, page_watch.begin_args()))
    if epoch is not None:
        call.epoch.append(epoch)
