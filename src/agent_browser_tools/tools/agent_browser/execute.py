"""`agent_browser`: one native agent-browser command with the wrapper guarantees.

Pipeline: validate -> plan (pure) -> guards (pure) -> journal intent -> run -> probe (at most
one extra engine call) -> observe (pure) -> journal completion -> present (pure).
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from typing import Any

from pydantic import ValidationError

from agent_browser_tools.engine.discovery import EngineNotFound, EngineTooOld
from agent_browser_tools.engine.envelope import OutputMode, parse_outcome
from agent_browser_tools.planning.argv_rules import ArgvRejected
from agent_browser_tools.planning.inputs import explain_validation_error, parse_input
from agent_browser_tools.planning.plan import ExecutionPlan, build_plan
from agent_browser_tools.planning.sessions import native_session_default
from agent_browser_tools.redaction import redact_argv
from agent_browser_tools.results import next_actions as na
from agent_browser_tools.results.categories import FailureCategory
from agent_browser_tools.results.observation import Observation
from agent_browser_tools.runtime import Runtime
from agent_browser_tools.state.models import TargetUnknown
from agent_browser_tools.state.stale_refs import guard_batch, guard_direct, guard_unknown_target
from agent_browser_tools.taxonomy.lookup import PageEffect
from agent_browser_tools.tools.agent_browser import artifacts as artifact_flow
from agent_browser_tools.tools.agent_browser import finish as direct_finish
from agent_browser_tools.tools.agent_browser import network_filter
from agent_browser_tools.tools.agent_browser import snapshot as snapshot_flow
from agent_browser_tools.tools.agent_browser.finish import finish, rejected
from agent_browser_tools.tools.agent_browser.hooks import Hooks

NAME = "agent_browser"
ALLOWED = "args, stdin, outputPath, timeoutMs and sessionMode"


def _caller_wants_json(params: Mapping[str, Any]) -> bool:
    args = params.get("args") if isinstance(params, Mapping) else None
    if not isinstance(args, list):
        return False
    chosen = None
    for index, token in enumerate(args):
        if token == "--json":
            nxt = args[index + 1] if index + 1 < len(args) else None
            chosen = nxt if nxt in ("true", "false") else "true"
    return chosen == "true"


async def run(
    rt: Runtime,
    params: Mapping[str, Any],
    *,
    hooks: Hooks | None = None,
    lock_held: bool = False,
) -> Any:
    """Execute one `agent_browser` call and return its `ToolResult`.

    `hooks` let advanced tools add metadata/verdicts; `lock_held=True` when the caller already
    holds this identity's lock (a compound action that must not interleave with others).
    """
    hooks = hooks or Hooks()
    wants_json = _caller_wants_json(params)
    try:
        inp = parse_input(params)
    except ValidationError as exc:
        return rejected(explain_validation_error(exc, NAME, ALLOWED), params, wants_json)
    try:
        inp, hooks = _wrapper_flags(inp, hooks)
    except ValueError as exc:
        return rejected(str(exc), params, wants_json)
    native_default = native_session_default(rt.settings.env, rt.cwd)
    nonce = f"{rt.conversation_id}:{rt.log.state.last_seq}"
    try:
        plan = _plan(rt, inp, native_default, nonce)
    except ArgvRejected as exc:
        return rejected(str(exc), params, wants_json)
    if lock_held:
        return await _run_locked(rt, inp, plan, params, wants_json, hooks)
    for _attempt in range(3):
        async with rt.lock_for(plan.session.key, whole_namespace=_closes_namespace(plan)):
            # State may have moved while waiting for the lock: plan again with the same nonce
            # and run only if the browser identity is still the one we hold.
            try:
                fresh_plan = _plan(rt, inp, native_default, nonce)
            except ArgvRejected as exc:
                return rejected(str(exc), params, wants_json)
            if fresh_plan.session.key != plan.session.key:
                plan = fresh_plan
                continue
            return await _run_locked(rt, inp, fresh_plan, params, wants_json, hooks)
    return rejected("the browser session kept changing while waiting; retry", params, wants_json)


async def _run_locked(
    rt: Runtime,
    inp: Any,
    plan: ExecutionPlan,
    params: Mapping[str, Any],
    wants_json: bool,
    hooks: Hooks,
) -> Any:
    blocked = _guard(rt, plan)
    if blocked is not None:
        if hooks.post is not None:
            await hooks.post(rt, plan, blocked)
        return finish(rt, plan, blocked, None, extra_details=hooks.details)
    alias = artifact_flow.preflight(plan, rt.cwd, inp.outputPath)
    if alias is not None:
        return rejected(alias, params, wants_json)
    return await _execute(rt, plan, inp.outputPath, hooks)


def preview_plan(rt: Runtime, params: Mapping[str, Any]) -> ExecutionPlan:
    """The plan a call would get now (raises `ValidationError` / `ArgvRejected`); used by
    compound tools to learn the browser identity whose lock they must hold."""
    inp = parse_input(params)
    native_default = native_session_default(rt.settings.env, rt.cwd)
    return _plan(rt, inp, native_default, f"{rt.conversation_id}:{rt.log.state.last_seq}")


def _wrapper_flags(inp: Any, hooks: Hooks) -> tuple[Any, Hooks]:
    """Strip wrapper-only flags before planning; their work happens after the engine answers.

    `details.args` keeps the caller's request; `effectiveArgs` shows what the engine ran.
    Raises ValueError (a preparation failure) for misused snapshot flags.
    """
    clean, snapshot = snapshot_flow.split_flags(list(inp.args))
    clean, network = network_filter.split_network_flags(clean)
    if snapshot is None and network is None:
        return inp, hooks
    details = {**hooks.details, "args": redact_argv(inp.args)}
    post = hooks.post
    if network is not None and post is None:
        post = network_filter.make_post(network, clean)
    updated = Hooks(hooks.tool, post, details, snapshot=snapshot)
    return inp.model_copy(update={"args": clean}), updated


def _closes_namespace(plan: ExecutionPlan) -> bool:
    """`close --all` ends every session of the namespace, so it waits for all of them."""
    rows = plan.row_matches if plan.row_matches is not None else (plan.match,)
    return any(
        m is not None and m.spec.page_effect is PageEffect.CLOSE and m.has_flag("--all")
        for m in rows
    )


def _plan(rt: Runtime, inp: Any, native_default: str | None, nonce: str) -> ExecutionPlan:
    return build_plan(
        inp,
        rt.log.state,
        rt.settings,
        root_id=rt.root_id,
        native_default=native_default,
        nonce=nonce,
    )


def _guard(rt: Runtime, plan: ExecutionPlan) -> Observation | None:
    """Stale refs and unknown targets fail before anything is dispatched."""
    key = plan.session.key
    if key is None or (plan.output_mode is OutputMode.TEXT and plan.checked.inspection):
        return None
    entry = rt.log.state.session(key)
    prefix = na.session_prefix(key, not plan.session.used_implicit_session)
    matches = plan.row_matches if plan.row_matches is not None else (plan.match,)
    step = guard_unknown_target(matches, entry)
    if step is not None:
        where = f"step {step}" if plan.is_batch else "this command"
        obs = Observation(
            success=False,
            failure_category=FailureCategory.TAB_DRIFT,
            error=(
                f"The session's page target is unknown, so {where} could act on a page you have "
                "not seen. Run `get url` first (then `snapshot -i`)."
            ),
        )
        obs.next_actions.append(na.verify_page_target(prefix, "verify-page-target"))
        obs.extra["sessionTabTargetUnknown"] = True
        return obs
    stale = guard_batch(plan.checked.batch.rows, entry) if plan.checked.batch else None
    if stale is None and not plan.is_batch:
        stale = guard_direct(plan.match, entry)
    if stale is None:
        return None
    obs = Observation(
        success=False,
        failure_category=FailureCategory.STALE_REF,
        error=f"Stale ref blocked before dispatch: {stale.reason} Run `snapshot -i` and use the "
        "current refs.",
    )
    obs.next_actions.append(na.refresh_interactive_refs(prefix))
    obs.extra["staleRef"] = {"refs": ["@" + r for r in stale.refs], "step": stale.step}
    return obs


async def _execute(rt: Runtime, plan: ExecutionPlan, output_path: str | None, hooks: Hooks) -> Any:
    call_id = rt.next_call_id()
    key = plan.session.key
    if key is not None:
        rt.log.intent(call_id, hooks.tool, key, tuple(redact_argv(plan.effective_args)))
    try:
        raw = await rt.spawn(
            plan.effective_args, timeout_ms=plan.timeout.timeout_ms, stdin=plan.stdin
        )
    except (EngineNotFound, EngineTooOld) as exc:
        if key is not None:
            rt.log.complete(call_id, key, False, ())
        obs = Observation(
            success=False, failure_category=FailureCategory.MISSING_BINARY, error=str(exc)
        )
        return finish(rt, plan, obs, None, extra_details=hooks.details)
    except asyncio.CancelledError:
        if key is not None:
            summary = "The call was cancelled while the command ran; the page state is unknown."
            rt.log.complete(call_id, key, False, (TargetUnknown(summary=summary),))
        raise
    envelope = parse_outcome(raw, plan.output_mode)
    return await direct_finish.conclude(rt, plan, call_id, raw, envelope, output_path, hooks)


OBSERVATION_KEYS = frozenset(
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
        "sessionName",
        "namespace",
        "navigationSummary",
        "pageChangeSummary",
        "batchSteps",
        "batchFailure",
        "artifacts",
        "artifactVerification",
        "imageObservations",
        "managedSessionOutcome",
        "sessionTabTargetUnknown",
        "staleRef",
        "timedOut",
        "observationPath",
        "outputFile",
        "readExecution",
        "readSource",
        "snapshotDeltaRefs",
    }
)


async def run_observation(rt: Runtime, params: Mapping[str, Any]) -> dict[str, Any]:
    """Run one call through the same executor and return its canonical observation as data.

    Used by code cells: the observation is JSON-safe and carries no rendering, so a cell can
    branch on `success` and `failureCategory` exactly like a direct caller would.
    """
    result = await run(rt, params)
    observation = {k: v for k, v in result.details.items() if k in OBSERVATION_KEYS}
    if not observation.get("timedOut"):
        observation.pop("timedOut", None)
    return observation


async def handle(rt: Runtime, inp: Any) -> Any:
    """The registry's entry point; `inp` is an `AgentBrowserInput` it has already validated.

    Temporary: it hands `run` the same mapping back (the model has no aliases, and a dropped
    None field means "not given"), until `run` takes the typed input itself.
    """
    return await run(rt, inp.model_dump(exclude_none=True))
