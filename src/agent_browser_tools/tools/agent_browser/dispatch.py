"""Direct tool, the engine round trip: journal the intent, run the engine, show its refs.

One engine call, or one per batch segment when later steps need their refs re-read
(`segments`, `stepwise`). Refs go out as engine ids (`refmap.to_engine`) and page scripts
behind the endpoint guard made at this moment (`dispatch_guard`); the answer comes back with
the refs the model was shown (`refmap.envelope_to_model`), the page a stopped call left
(`stopped_page`) and, for a batch, its progress (`batch_progress`).
"""

from __future__ import annotations

import asyncio

from agent_browser_tools.engine.discovery import EngineNotFound, EngineTooOld
from agent_browser_tools.engine.envelope import Envelope, parse_outcome
from agent_browser_tools.engine.runner import RawOutcome
from agent_browser_tools.grid_errors import GridUnavailable
from agent_browser_tools.planning.session_scope import acts_on_whole_dir
from agent_browser_tools.redaction import redact_argv
from agent_browser_tools.results.categories import FailureCategory
from agent_browser_tools.results.observation import Observation
from agent_browser_tools.results.tool_result import ToolResult
from agent_browser_tools.state.models import TargetUnknown
from agent_browser_tools.tools.agent_browser import finish
from agent_browser_tools.tools.agent_browser.batches import batch_progress, segments, stepwise
from agent_browser_tools.tools.agent_browser.browser import grid_answer
from agent_browser_tools.tools.agent_browser.call import DirectCall, Spawned
from agent_browser_tools.tools.agent_browser.page import stopped_page
from agent_browser_tools.tools.agent_browser.refs import refmap, same_document
from agent_browser_tools.tools.agent_browser.safety import dispatch_guard


async def spawn(call: DirectCall) -> Spawned | ToolResult:
    """Journal the intent, run the engine once, parse its answer.

    A missing engine finishes the call here; a cancelled call journals an unknown page target
    (the command may have run) before the cancellation propagates.
    """
    rt, plan, key = call.rt, call.plan, call.key
    call_id = rt.next_call_id()
    if key is not None:
        echoed = rt.secrets.scrub_argv(redact_argv(plan.effective_args))
        rt.log.intent(call_id, call.hooks.tool, key, tuple(echoed))
    try:
        raw, envelope = await _run_engine(call)
    except (EngineNotFound, EngineTooOld) as exc:
        if key is not None:
            rt.log.complete(call_id, key, False, ())
        obs = Observation(
            success=False, failure_category=FailureCategory.MISSING_BINARY, error=str(exc)
        )
        return finish.finish(rt, plan, obs, None, extra_details=call.hooks.details)
    except GridUnavailable as exc:
        if key is not None:
            rt.log.complete(call_id, key, False, ())
        obs = grid_answer.grid_unavailable(call, exc)
        return finish.finish(rt, plan, obs, None, extra_details=call.hooks.details)
    except asyncio.CancelledError:
        if key is not None:
            summary = "The call was cancelled while the command ran; the page state is unknown."
            rt.log.complete(call_id, key, False, (TargetUnknown(summary=summary),))
        raise
    if key is None:
        return Spawned(call_id, raw, envelope)
    restarted = refmap.launched(envelope)
    kept = {} if restarted else await same_document.kept_ids(call, envelope)
    retired = same_document.retired_refs(call)
    high = rt.log.state.ref_high
    shown = refmap.Shown(call.ref_table, high, restarted, kept=kept, retired=retired)
    return Spawned(call_id, raw, refmap.envelope_to_model(envelope, shown), shown, restarted)


async def _run_engine(call: DirectCall) -> tuple[RawOutcome, Envelope]:
    """One engine call, or one per batch segment when later steps need their refs re-read.

    Refs go out as engine ids and page scripts behind the endpoint guard, made now, at
    dispatch; the answer still carries engine ids (`spawn` shows them)."""
    plan = call.plan
    guard = dispatch_guard.script_guard(plan, call.rt.grid_endpoints)
    entry = call.rt.log.state.session(call.key) if call.key is not None else None
    parts = segments.split(plan, entry) if entry is not None else None
    parts = stepwise.expand(plan, parts) if entry is not None else None
    if parts is not None:
        raw, merged = await segments.run(call, parts, guard)
        return raw, await stopped_page.add(call, merged)
    args, stdin = refmap.to_engine(plan, call.ref_table, call.checked, guard)
    raw = await call.rt.spawn(
        args,
        timeout_ms=plan.timeout.timeout_ms,
        stdin=stdin,
        session=call.key,
        whole_dir=acts_on_whole_dir(plan),
    )
    try:
        envelope = parse_outcome(raw, plan.output_mode)
    finally:
        raw.discard_stdout()  # raw, unredacted engine output: never kept
    envelope = dispatch_guard.settle(envelope, guard, call.rt.grid_endpoints)
    return raw, await stopped_page.add(call, batch_progress.whole(plan, envelope, call.rt.cwd))
