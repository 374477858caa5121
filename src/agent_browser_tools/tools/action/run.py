"""`agent_browser_action`: click, check, fill or select by stable locator, compiled to native argv.

The tool is a compiler, not a second executor: every call becomes ordinary native argv
(`find <locator> <value> <action> [text]`, `click <selector>`, `select <selector> <value...>`)
and runs through the `agent_browser` executor, so it gets the same guards, journal, categories
and recovery. Only two things are its own:

- an accessible select (role combobox/listbox + name, or label + values; `select_control`) resolves
  one current `@ref` from a fresh `snapshot -i` taken under the identity lock, then selects
  that ref under the same lock, so no other call can recycle refs in between. The engine has no
  `find ... select`, and guessing among several controls would select the wrong one;
- recovery: a stale compiled `find` may be retried after a refresh (it names its target, not a
  ref), while a stale direct or select ref only gets refresh guidance; selector misses on any
  `find` (raw or compiled) get current-ref candidates from the direct tool's follow-ups.

Input rules are strict and checked before anything is dispatched: a contradictory call would
otherwise run a command the agent did not mean.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from agent_browser_tools.planning.plan import ExecutionPlan
from agent_browser_tools.redaction import redact_argv
from agent_browser_tools.results import next_actions as na
from agent_browser_tools.results import response
from agent_browser_tools.results.categories import FailureCategory
from agent_browser_tools.results.observation import Observation
from agent_browser_tools.results.tool_result import ToolResult
from agent_browser_tools.runtime import Runtime
from agent_browser_tools.tools import agent_browser
from agent_browser_tools.tools.action.compile import ActionRejected, Compiled, compile_action
from agent_browser_tools.tools.action.schema import NAME, ActionInput
from agent_browser_tools.tools.action.select_control import accessible_select
from agent_browser_tools.tools.agent_browser import Hooks, PostHook

__all__ = ["NAME", "ActionInput", "ActionRejected", "compile_action", "run"]


def _call(inp: ActionInput, args: Sequence[str], *, output: bool = True) -> dict[str, Any]:
    params: dict[str, Any] = {"args": list(args)}
    if output and inp.outputPath is not None:
        params["outputPath"] = inp.outputPath
    if inp.timeoutMs is not None:
        params["timeoutMs"] = inp.timeoutMs
    return params


async def run(rt: Runtime, inp: ActionInput) -> ToolResult:
    """Compile and execute one (validated) action through the direct executor."""
    try:
        compiled = compile_action(inp)
    except ActionRejected as exc:
        return response.rejected(f"{NAME} input rejected: {exc}")
    if compiled.args is None:
        base = {k: v for k, v in _call(inp, ()).items() if k != "args"}
        return await accessible_select(
            rt, compiled, base, lambda args, ref: _hooks(compiled, args, ref)
        )
    hooks = _hooks(compiled, compiled.args, compiled.selector)
    result: ToolResult = await agent_browser.run(rt, _call(inp, compiled.args), hooks=hooks)
    return result


def _hooks(compiled: Compiled, args: Sequence[str], selector: str | None) -> Hooks:
    details = {"compiledSemanticAction": compiled.semantic(args, selector)}
    return Hooks(tool=NAME, post=_stale_recovery(compiled), details=details)


def _stale_recovery(compiled: Compiled) -> PostHook:
    """Stale refs: always refresh; only a compiled `find` may then retry, because it names its
    target by locator, while a direct or select `@ref` would hit the same stale ref again."""

    async def post(rt: Runtime, plan: ExecutionPlan, obs: Observation) -> None:
        if obs.success or obs.failure_category is not FailureCategory.STALE_REF:
            return
        prefix = na.session_prefix(plan.session.key, not plan.session.used_implicit_session)
        if not any(a.id == "refresh-interactive-refs" for a in obs.next_actions):
            obs.next_actions.append(na.refresh_interactive_refs(prefix))
        if compiled.is_find:
            obs.next_actions.append(
                na.NextAction(
                    id="retry-semantic-action-after-stale-ref",
                    reason="Retry the same semantic target via its compiled find command after "
                    "the upstream stale-ref failure proves the prior action did not execute.",
                    safety="Use only for the same intended target; direct stale @refs still "
                    "require a fresh snapshot or stable locator before retrying.",
                    params={"args": redact_argv(plan.args)},
                )
            )

    return post
