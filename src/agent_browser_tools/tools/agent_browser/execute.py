"""`agent_browser`: one native agent-browser command with the wrapper guarantees.

`run` is the whole order of a direct call; each stage is a module of this package:
validate and plan (`request`), lock, refuse before dispatch (`guards`), journal the intent and
find credential fields and register what is typed into them (`secret_fields`, at most one
read), spawn the engine (here), observe the answer (`observe`, pure; huge values go to files:
`value_spill`), read back what changed (`followups`: at most one probe call, snapshot
completion), scrub recorded files (`recorded_files`), record effects in the journal (`record`),
recover a selector miss (`followups` decides, this module runs the snapshot) and present
(`finish`). Every result leaves through `Runtime.scrub_result`. No stage module imports this one.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from functools import partial
from typing import Any

from agent_browser_tools.engine.discovery import EngineNotFound, EngineTooOld
from agent_browser_tools.engine.envelope import Envelope, parse_outcome
from agent_browser_tools.engine.runner import RawOutcome
from agent_browser_tools.planning.inputs import AgentBrowserInput
from agent_browser_tools.planning.plan import ExecutionPlan
from agent_browser_tools.planning.policy import PolicyBlocked
from agent_browser_tools.planning.session_scope import acts_on_whole_dir
from agent_browser_tools.redaction import redact_argv
from agent_browser_tools.results import response
from agent_browser_tools.results.categories import FailureCategory
from agent_browser_tools.results.observation import CELL, Observation, keys_for
from agent_browser_tools.results.response import caller_wants_json
from agent_browser_tools.results.tool_result import ToolResult
from agent_browser_tools.runtime import Runtime
from agent_browser_tools.state.models import TargetUnknown
from agent_browser_tools.tools.agent_browser import (
    finish,
    followups,
    gc_pause,
    participants,
    record,
)
from agent_browser_tools.tools.agent_browser.batches import batch_progress, segments, stepwise
from agent_browser_tools.tools.agent_browser.call import DirectCall, DirectRequest, Refused, Spawned
from agent_browser_tools.tools.agent_browser.files import (
    artifacts,
    recorded_files,
    value_spill,
)
from agent_browser_tools.tools.agent_browser.hooks import Hooks
from agent_browser_tools.tools.agent_browser.observe import observe
from agent_browser_tools.tools.agent_browser.page import (
    overlay_probe,
    page_change,
    stopped_page,
    webmcp,
)
from agent_browser_tools.tools.agent_browser.refs import refmap, same_document
from agent_browser_tools.tools.agent_browser.request import (
    NAME,
    plan_now,
    planned_under_lock,
    validate,
)
from agent_browser_tools.tools.agent_browser.safety import (
    endpoint_guard,
    host_hook,
    secret_fields,
)

__all__ = ["NAME", "OBSERVATION_KEYS", "handle", "preview_plan", "run", "run_observation"]


@gc_pause.during
async def run(
    rt: Runtime,
    params: Mapping[str, Any] | AgentBrowserInput,
    *,
    hooks: Hooks | None = None,
    lock_held: bool = False,
) -> ToolResult:
    """One `agent_browser` call, stage by stage. `hooks` let advanced tools add details and
    verdicts; `lock_held=True` when a compound caller already holds this identity's lock."""
    try:
        request = _validated(rt, params, hooks)
        async with planned_under_lock(rt, request, lock_held) as call:
            refusal = await _guard(call)
            if refusal is not None:
                return rt.scrub_result(refusal)
            found = await secret_fields.inspect(call)
            spawned = await _spawn(call)
            if isinstance(spawned, ToolResult):
                return rt.scrub_result(spawned)
            spawned = secret_fields.redacted(spawned, found, rt.secrets)
            obs = value_spill.cut(call, observe(call.plan, spawned.envelope))
            secret_fields.annotate(obs, found)
            effects = await followups.read_back(call, obs, spawned)
            images = await artifacts.collect(call, obs, spawned)
            recorded_files.scrub(obs, rt.secrets)
            await record.complete(call, obs, effects, spawned)
            await _follow_up(call, obs)
            return rt.scrub_result(await finish.conclude(call, obs, spawned, images))
    except Refused as exc:
        return rt.scrub_result(_rejected(params, exc))


def _validated(
    rt: Runtime, params: Mapping[str, Any] | AgentBrowserInput, hooks: Hooks | None
) -> DirectRequest:
    """The validated request; `{{secret:NAME}}` must name an operator secret (the refusal
    lists the known names). A new call also starts its own WebMCP catalog collection."""
    webmcp.begin_call()
    request = validate(params, hooks or Hooks())
    rt.restore_workspace()
    if not rt.cwd.is_dir():
        raise Refused(
            f"the execution directory {rt.cwd} no longer exists, so relative paths and the engine "
            "have nowhere to run; recreate it, or point AGENT_BROWSER_TOOLS_CWD / [tools] cwd (or "
            "the client's first root) at an existing directory."
        )
    unknown = rt.secrets.unknown_names([*request.inp.args, request.inp.stdin or ""])
    if unknown:
        raise Refused(rt.secrets.unknown_message(unknown))
    return request


async def handle(rt: Runtime, inp: AgentBrowserInput) -> ToolResult:
    """The registry's handler: the input is already validated."""
    return await run(rt, inp)


def _rejected(params: Mapping[str, Any] | AgentBrowserInput, refused: Refused) -> ToolResult:
    """A validation failure or policy refusal, as JSON when the caller's argv asked for it."""
    raw = params.model_dump() if isinstance(params, AgentBrowserInput) else params
    wants_json = caller_wants_json(raw)
    if refused.policy is not None:
        return response.policy_blocked(
            str(refused), raw, refused.policy.as_details(), wants_json=wants_json
        )
    return response.rejected(str(refused), raw, wants_json=wants_json)


async def _guard(call: DirectCall) -> ToolResult | None:
    """The steps before the dispatch, in `participants.BEFORE_DISPATCH` order; the first
    that refuses ends the call (a policy refusal is a `policy-blocked` rejection). The
    managed browser is owned from here on: the steps may already start it."""
    record.own_at_spawn(call)
    nested = partial(_nested, call)
    try:
        for step in participants.BEFORE_DISPATCH:
            refusal = await step.run(call, nested)
            if refusal is not None:
                return await finish.refused(call, refusal)
    except PolicyBlocked as exc:
        raise Refused(str(exc), exc) from None
    return None


async def _spawn(call: DirectCall) -> Spawned | ToolResult:
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
    dispatch; the answer still carries engine ids (`_spawn` shows them)."""
    plan = call.plan
    guard = endpoint_guard.script_guard(plan)
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
    envelope = endpoint_guard.settle(envelope, guard)
    return raw, await stopped_page.add(call, batch_progress.whole(plan, envelope, call.rt.cwd))


async def _follow_up(call: DirectCall, obs: Observation) -> None:
    """Recovery snapshots (a selector miss, a covering dialog), then the final change summary."""
    await _recover_selector_miss(call, obs)
    with host_hook.internal():  # the wrapper's own snapshot is not the host's to veto
        await overlay_probe.run(call, obs, partial(_nested, call))
    page_change.settle(call.plan, obs)


async def _nested(call: DirectCall, params: Mapping[str, Any]) -> ToolResult:
    """One more journaled call of the wrapper's own under the lock this call holds."""
    return await run(call.rt, params, lock_held=True)


async def _recover_selector_miss(call: DirectCall, obs: Observation) -> None:
    """After a `find` selector miss: one journaled `snapshot -i` and candidates from it."""
    miss = followups.selector_miss(call.plan, obs)
    if miss is None:
        return
    with host_hook.internal():
        snapshot = await run(call.rt, miss.snapshot_params, lock_held=True)
    followups.apply_selector_miss(
        call.plan, call.rt.log.state, miss, obs, snapshot_failed=snapshot.is_error
    )


def preview_plan(rt: Runtime, params: Mapping[str, Any]) -> ExecutionPlan:
    """The plan a call would get now (raises `ValidationError` / `ArgvRejected`); used by
    compound tools to learn the browser identity whose lock they must hold."""
    return plan_now(rt, AgentBrowserInput.model_validate(params))


CORE_KEYS = frozenset(
    {
        "success",
        "resultCategory",
        "successCategory",
        "failureCategory",
        "summary",
        "data",
        "error",
        "warnings",
        "nextActions",
    }
)
"""`Observation.to_dict`'s own fields."""

SESSION_KEYS = frozenset({"sessionName", "namespace", "observationPath", "timedOut"})
"""Detail keys `finish` adds that a code cell also needs: which browser, where the full
observation spilled, and whether the watchdog fired."""

OBSERVATION_KEYS = CORE_KEYS | SESSION_KEYS | keys_for(CELL)
"""What `run_observation` returns to code cells: the `CELL`-marked `ObservationExtras`."""


async def run_observation(rt: Runtime, params: Mapping[str, Any]) -> dict[str, Any]:
    """Run one call through the same executor and return its canonical observation as data.

    Used by code cells: the observation is JSON-safe and carries no rendering, so a cell can
    branch on `success` and `failureCategory` exactly like a direct caller would.
    """
    result = await run(rt, params, hooks=Hooks(model_visible=False))
    observation = {k: v for k, v in result.details.items() if k in OBSERVATION_KEYS}
    if not observation.get("timedOut"):
        observation.pop("timedOut", None)
    return observation
