"""`agent_browser`: one native agent-browser command with the wrapper guarantees.

`run` is the whole order of a direct call; each stage is a module of this package and each
feature a participant listed in `participants`, in order:

1. validate and plan (`request`), lock; a spill read (`results.spill_reader`) is answered here;
2. the steps before the dispatch (`participants.BEFORE_DISPATCH`: any may refuse);
3. the engine round trip (`dispatch`): journal the intent, run the engine;
4. the answer before and after it is observed (`participants.ON_ANSWER`, `observe`,
   `participants.ON_OBSERVATION`);
5. the read-back (`followups`: at most one post-action batch, snapshot completion), the
   answer's files (`participants.AFTER_READ_BACK`), the journal (`record`);
6. the wrapper's own recovery calls (`participants.FOLLOW_UPS`) and the result (`finish`).

Every result leaves through `Runtime.scrub_result`. No stage module imports this one, and
this one names no feature.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import partial
from typing import Any

from agent_browser_tools.planning.inputs import AgentBrowserInput
from agent_browser_tools.planning.plan import ExecutionPlan
from agent_browser_tools.planning.policy import PolicyBlocked
from agent_browser_tools.results import response, spill_reader
from agent_browser_tools.results.observation import CELL, keys_for
from agent_browser_tools.results.response import caller_wants_json
from agent_browser_tools.results.tool_result import ToolResult
from agent_browser_tools.runtime import Runtime
from agent_browser_tools.tools.agent_browser import (
    dispatch,
    finish,
    followups,
    gc_pause,
    participants,
    record,
)
from agent_browser_tools.tools.agent_browser.call import (
    Answer,
    DirectCall,
    DirectRequest,
    Refused,
    Spawned,
)
from agent_browser_tools.tools.agent_browser.hooks import Hooks
from agent_browser_tools.tools.agent_browser.observe import observe
from agent_browser_tools.tools.agent_browser.request import (
    NAME,
    plan_now,
    planned_under_lock,
    validate,
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
        if spill_reader.asks(request.inp.args):  # a saved output, read without the engine
            return rt.scrub_result(
                spill_reader.answer(
                    rt.spill_dir, request.params, request.inp.args, rt.secrets.scrub
                )
            )
        async with planned_under_lock(rt, request, lock_held) as call:
            refusal = await _guard(call)
            if refusal is not None:
                return rt.scrub_result(refusal)
            spawned = await dispatch.spawn(call)
            if isinstance(spawned, ToolResult):
                return rt.scrub_result(spawned)
            return rt.scrub_result(await _after_dispatch(call, spawned))
    except Refused as exc:
        return rt.scrub_result(_rejected(params, exc))


def _validated(
    rt: Runtime, params: Mapping[str, Any] | AgentBrowserInput, hooks: Hooks | None
) -> DirectRequest:
    """The validated request; `{{secret:NAME}}` must name an operator secret (the refusal
    lists the known names). A new call first starts afresh what `participants.CALL_START`
    names."""
    for start in participants.CALL_START:
        start()
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


async def _after_dispatch(call: DirectCall, spawned: Spawned) -> ToolResult:
    """The answer filtered, observed and refined, read back, journaled and followed up, in
    the order the participants' lists and the stages give; then the result."""
    for filtered in participants.ON_ANSWER:
        spawned = filtered.run(call, spawned)
    answer = Answer(spawned, observe(call.plan, spawned.envelope))
    await _walk(participants.ON_OBSERVATION, call, answer)
    answer.effects = await followups.read_back(call, answer.obs, answer.spawned)
    await _walk(participants.AFTER_READ_BACK, call, answer)
    await record.complete(call, answer.obs, answer.effects, answer.spawned)
    await _walk(participants.FOLLOW_UPS, call, answer)
    return await finish.conclude(call, answer.obs, answer.spawned, answer.images)


async def _walk(
    steps: Sequence[participants.AfterDispatch], call: DirectCall, answer: Answer
) -> None:
    nested = partial(_nested, call)
    for step in steps:
        await step.run(call, answer, nested)


async def _nested(call: DirectCall, params: Mapping[str, Any]) -> ToolResult:
    """One more journaled call of the wrapper's own under the lock this call holds."""
    return await run(call.rt, params, lock_held=True)


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
