"""Direct tool, before the lock: validate the input, strip wrapper flags, plan.

Planning is pure; it runs once to learn the browser identity whose lock to take and again under
that lock (state may have moved while waiting), with the same nonce.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping
from contextlib import asynccontextmanager
from dataclasses import replace
from typing import Any

from pydantic import ValidationError

from agent_browser_tools import taxonomy
from agent_browser_tools.engine.target import SUPPORTED_ENGINE_VERSIONS
from agent_browser_tools.input_limits import input_problem
from agent_browser_tools.planning.argv_rules import ArgvRejected
from agent_browser_tools.planning.arity import check_arity
from agent_browser_tools.planning.file_policy import confine
from agent_browser_tools.planning.idle_timeout import check_idle_timeout
from agent_browser_tools.planning.inputs import AgentBrowserInput, explain_validation_error
from agent_browser_tools.planning.known_surface import check_known
from agent_browser_tools.planning.plan import ExecutionPlan, build_plan
from agent_browser_tools.planning.policy import (
    PolicyBlocked,
    WrapperGrant,
    check_model_policy,
    check_timeout,
)
from agent_browser_tools.planning.secret_slots import check_secret_slots
from agent_browser_tools.planning.session_scope import acts_on_whole_dir, check_session_names
from agent_browser_tools.planning.sessions import native_session_default
from agent_browser_tools.private_fs import PrivateDirError
from agent_browser_tools.redaction import redact_argv
from agent_browser_tools.results.response import caller_wants_json
from agent_browser_tools.runtime import Runtime
from agent_browser_tools.taxonomy import PageEffect
from agent_browser_tools.tools.agent_browser.call import DirectCall, DirectRequest, Refused
from agent_browser_tools.tools.agent_browser.hooks import Hooks
from agent_browser_tools.tools.agent_browser.page import network_filter
from agent_browser_tools.tools.agent_browser.page import snapshot as snapshot_flow

NAME = "agent_browser"
ALLOWED = "args, stdin, outputPath, timeoutMs and sessionMode"
LOCK_ATTEMPTS = 3


def validate(call: Mapping[str, Any] | AgentBrowserInput, hooks: Hooks) -> DirectRequest:
    """A typed request from raw params (validated here) or an already validated input.

    Raw params (a code cell's `browser()` call, a compound tool's step) meet the same generic
    limits as a direct call at the registry (`input_limits`).
    Raises `Refused` with the explanation for a bad input or misused wrapper flags.
    """
    params: Mapping[str, Any]
    if isinstance(call, AgentBrowserInput):
        inp, params = call, call.model_dump(exclude_none=True)
    else:
        params = call
        problem = input_problem(params)
        if problem is not None:
            raise Refused(problem.message)
        try:
            inp = AgentBrowserInput.model_validate(params)
        except ValidationError as exc:
            raise Refused(explain_validation_error(exc, NAME, ALLOWED)) from None
    try:
        inp, hooks = _wrapper_flags(inp, hooks)
    except ValueError as exc:
        raise Refused(str(exc)) from None
    return DirectRequest(inp, params, hooks, caller_wants_json(params))


def _wrapper_flags(inp: AgentBrowserInput, hooks: Hooks) -> tuple[AgentBrowserInput, Hooks]:
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
    updated = replace(hooks, post=post, details=details, snapshot=snapshot)
    return inp.model_copy(update={"args": clean}), updated


def plan_request(
    rt: Runtime, inp: AgentBrowserInput, nonce: str, grant: WrapperGrant | None = None
) -> ExecutionPlan:
    """The pure plan for `inp` against the conversation's current state.

    Raises `ArgvRejected` for a broken argv rule, `PolicyBlocked` for what the operator's
    policy does not let the model ask for (`grant`: the wrapper's own granted command).
    """
    try:
        _ = rt.sockets  # the conversation's socket dir must be private before anything runs
    except PrivateDirError as exc:
        raise ArgvRejected(f"refused before running: {exc}") from None
    if not rt.engine_known:
        # What no supported release knows is refused before even the engine's `--version`.
        with taxonomy.surface(SUPPORTED_ENGINE_VERSIONS[-1]):
            early = _build(rt, inp, nonce).checked
            check_known(early, local_flags=False, every_release=True)
            check_arity(early)
    rt.engine_surface()  # the taxonomy of the engine that will run the call
    plan = _build(rt, inp, nonce)
    # An unknown command is a wrong argument before it is anything the policy judges.
    check_known(plan.checked, local_flags=False)
    check_model_policy(plan.checked, rt.policy, grant)
    check_idle_timeout(plan, rt.settings.idle_timeout_ms)
    check_session_names(plan.checked)
    check_secret_slots(plan.checked)
    check_timeout(inp.timeoutMs, rt.policy)
    confined = confine(inp, plan.checked, rt.file_roots)
    # After the file roots: a path in a flag-like position (`upload #f -x /etc/passwd`, a
    # file to the engine) is refused as the path it is.
    check_known(plan.checked)
    check_arity(plan.checked)
    if confined is inp:
        return plan
    # Relative paths were made absolute for the engine; `details.args` keeps the caller's.
    return replace(_build(rt, confined, nonce), args=plan.args)


def _build(rt: Runtime, inp: AgentBrowserInput, nonce: str) -> ExecutionPlan:
    # The engine reads only the config file its env names, so the session default does too.
    return build_plan(
        inp,
        rt.log.state,
        rt.settings,
        root_id=rt.root_id,
        native_default=native_session_default(rt.child_env, rt.cwd),
        nonce=nonce,
    )


def plan_now(rt: Runtime, inp: AgentBrowserInput) -> ExecutionPlan:
    """The plan a call would get now (raises `ArgvRejected`)."""
    return plan_request(rt, inp, _nonce(rt))


def _nonce(rt: Runtime) -> str:
    return f"{rt.conversation_id}:{rt.log.state.last_seq}"


def _closes_namespace(plan: ExecutionPlan) -> bool:
    """`close --all` ends every session of the namespace, so it waits for all of them."""
    rows = plan.row_matches if plan.row_matches is not None else (plan.match,)
    return any(
        m is not None and m.spec.page_effect is PageEffect.CLOSE and m.has_flag("--all")
        for m in rows
    )


@asynccontextmanager
async def planned_under_lock(
    rt: Runtime, request: DirectRequest, lock_held: bool
) -> AsyncIterator[DirectCall]:
    """Plan, take the identity lock, plan again under it; yields the call holding the lock.

    `lock_held=True` when the caller (a compound tool) already holds this identity's lock.
    Raises `Refused` for a rejected argv or a session that kept changing while waiting.
    """
    nonce = _nonce(rt)
    try:
        plan = plan_request(rt, request.inp, nonce, request.hooks.grant)
    except ArgvRejected as exc:
        raise Refused(str(exc)) from None
    except PolicyBlocked as exc:
        raise Refused(str(exc), exc) from None
    if lock_held:
        yield DirectCall(rt, request, plan)
        return
    for _attempt in range(LOCK_ATTEMPTS):
        async with rt.lock_for(
            plan.session.key,
            whole_namespace=_closes_namespace(plan),
            whole_dir=acts_on_whole_dir(plan),
        ):
            try:
                fresh = plan_request(rt, request.inp, nonce, request.hooks.grant)
            except ArgvRejected as exc:
                raise Refused(str(exc)) from None
            except PolicyBlocked as exc:
                raise Refused(str(exc), exc) from None
            if fresh.session.key == plan.session.key:
                yield DirectCall(rt, request, fresh)
                return
            plan = fresh
    raise Refused("the browser session kept changing while waiting; retry")
