"""Accessible select for `agent_browser_action`: resolve one current combobox/listbox, select it.

The engine has no `find ... select`, so a select by role+name or by label must first learn the
control's current `@ref`. A fresh `snapshot -i` runs under the identity lock and the `select
@eN <values...>` runs under the same lock, so no other call can recycle refs in between; both
go through the direct executor (`lock_held=True`) so the snapshot's refs are journaled like any
other. Zero or several matching controls fail before any select is dispatched: selecting a
guessed control would change the wrong field.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from pydantic import ValidationError

from agent_browser_tools.planning.argv_rules import ArgvRejected
from agent_browser_tools.planning.plan import ExecutionPlan
from agent_browser_tools.planning.policy import PolicyBlocked
from agent_browser_tools.results import next_actions as na
from agent_browser_tools.results import response
from agent_browser_tools.results import selector_recovery as sr
from agent_browser_tools.results.categories import FailureCategory
from agent_browser_tools.results.observation import Observation
from agent_browser_tools.results.tool_result import ToolResult
from agent_browser_tools.runtime import Runtime
from agent_browser_tools.state.models import RefInfo
from agent_browser_tools.tools import agent_browser
from agent_browser_tools.tools.action.compile import Compiled
from agent_browser_tools.tools.agent_browser import Hooks

NAME = "agent_browser_action"
HooksFor = Callable[[Sequence[str], str], Hooks]


def _call(base: Mapping[str, Any], args: Sequence[str], *, output: bool) -> dict[str, Any]:
    params = {"args": list(args), **base}
    if not output:
        params.pop("outputPath", None)
    return params


async def accessible_select(
    rt: Runtime, compiled: Compiled, base: Mapping[str, Any], hooks_for: HooksFor
) -> ToolResult:
    """Snapshot, resolve exactly one combobox/listbox ref, select it: all under one lock.

    `base` holds the caller's `outputPath`/`timeoutMs`; `hooks_for(args, ref)` gives the
    action's hooks for the resolved select argv.
    """
    snap_params = _call(base, [*compiled.prefix, "snapshot", "-i"], output=False)
    try:
        # Previewed with the caller's outputPath, so a refused one stops before the snapshot.
        snap_plan = agent_browser.preview_plan(rt, {**base, **snap_params})
    except (ValidationError, ArgvRejected) as exc:
        return response.rejected(f"{NAME} input rejected: {exc}")
    except PolicyBlocked as exc:
        return response.policy_blocked(str(exc), None, exc.as_details())
    key = snap_plan.session.key
    async with rt.lock_for(key):
        fresh = key is not None and rt.log.state.session(key).fresh_capture is not None
        if not fresh:
            # A just-confirmed snapshot stands in for this one (under `--confirm-actions
            # snapshot` it would stop on its own pending control); the select spends it.
            snap: ToolResult = await agent_browser.run(rt, snap_params, lock_held=True)
            if snap.is_error or key is None:
                return _snapshot_failed(snap, compiled)
        assert key is not None
        entry = rt.log.state.session(key)
        refs = entry.ref_snapshot.refs if entry.ref_snapshot is not None else {}
        matches = sr.select_targets(refs, compiled.select_role, compiled.select_name)
        if len(matches) != 1:
            return _unresolved(rt, snap_plan, compiled, matches, refs)
        ref = "@" + matches[0][0]
        args = (*compiled.prefix, "select", ref, *compiled.values)
        params = _call(base, args, output=True)
        done: ToolResult = await agent_browser.run(
            rt, params, hooks=hooks_for(args, ref), lock_held=True
        )
        return done


def _select_wanted(compiled: Compiled) -> str:
    what = compiled.select_role or "combobox/listbox"
    return f"{what} named {compiled.select_name!r}" if compiled.select_name else what


def _snapshot_failed(snap: ToolResult, compiled: Compiled) -> ToolResult:
    head = (
        f"{NAME} select could not resolve its {_select_wanted(compiled)} target because the "
        "snapshot failed; nothing was selected."
    )
    details = {
        **snap.details,
        "compiledSemanticAction": compiled.semantic(None, None),
        "semanticSelect": {"status": "snapshot-failed"},
    }
    return response.failed_step(snap, head, details)


def _unresolved(
    rt: Runtime,
    snap_plan: ExecutionPlan,
    compiled: Compiled,
    matches: Sequence[tuple[str, RefInfo]],
    refs: Mapping[str, RefInfo],
) -> ToolResult:
    """No or several matching controls: fail before any select is dispatched.

    Missing is `selector-not-found` (the page lacks the target, like an engine miss); ambiguous
    is `validation-error` (the input does not identify one control; the fix is in the input).
    """
    prefix = na.session_prefix(snap_plan.session.key, not snap_plan.session.used_implicit_session)
    wanted = _select_wanted(compiled)
    shown = matches if matches else sr.select_targets(refs, None, None)
    listing = [sr.describe_ref(r, i) for r, i in shown[: sr.MAX_CANDIDATES]]
    lines = ", ".join(f"{c['ref']} {c.get('role')} {c.get('name', '')!r}" for c in listing)
    if not matches:
        obs = Observation(
            success=False,
            failure_category=FailureCategory.SELECTOR_NOT_FOUND,
            error=f"{NAME} select found no current visible {wanted} in a fresh snapshot -i, so "
            f"nothing was selected. Visible selects: {lines or 'none'}. Fix the label/name, or "
            "pass `selector` with the exact @ref or CSS selector.",
            next_actions=[na.refresh_interactive_refs(prefix)],
        )
    else:
        obs = Observation(
            success=False,
            failure_category=FailureCategory.VALIDATION_ERROR,
            error=f"{NAME} select matched {len(matches)} current visible {wanted}s ({lines}), "
            "so nothing was selected. Pass `selector` with the intended @ref, or a more "
            "specific role/name.",
            next_actions=_ambiguous_actions(prefix, listing, compiled.values),
        )
    status = "ambiguous" if matches else "missing"
    obs.extra["semanticSelect"] = {"status": status, "candidates": listing}
    extra = {"compiledSemanticAction": compiled.semantic(None, None)}
    return agent_browser.result_from_observation(rt, snap_plan, obs, None, extra_details=extra)


def _ambiguous_actions(
    prefix: Sequence[str], listing: Sequence[Mapping[str, Any]], values: Sequence[str]
) -> list[na.NextAction]:
    return [
        na.NextAction(
            id=sr.numbered("try-current-visible-ref", index, len(listing)),
            reason=f"Select in {c['ref']} ({c.get('role')} {c.get('name', '')!r}), one of the "
            "controls that matched.",
            safety="Several controls share this name; pick the one whose context is intended.",
            params={"args": [*prefix, "select", c["ref"], *values]},
        )
        for index, c in enumerate(listing)
    ]
