"""Direct tool, after a `find` missed its element: candidates from a fresh snapshot.

Why: a model that guessed a name or a role wrong learns nothing from "not found". One
journaled `snapshot -i` (the wrapper's own call, so its refs become the session's latest)
lists what is there, and the answer names the exact matches, the visible elements of the role,
the closest names, and the calls to retry with, for raw and compiled `find` alike.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from agent_browser_tools.planning.plan import ExecutionPlan
from agent_browser_tools.results import next_actions as na
from agent_browser_tools.results import selector_recovery as sr
from agent_browser_tools.results.categories import FailureCategory
from agent_browser_tools.results.observation import Observation
from agent_browser_tools.results.tool_result import ToolResult
from agent_browser_tools.state.models import ConversationState, RefInfo
from agent_browser_tools.tools.agent_browser.call import DirectCall

Nested = Callable[[Mapping[str, Any]], Awaitable[ToolResult]]


async def recover(call: DirectCall, obs: Observation, nested: Nested) -> None:
    """After a `find` selector miss: one journaled `snapshot -i` (`nested`) and candidates
    from it."""
    miss = selector_miss(call.plan, obs)
    if miss is None:
        return
    snapshot = await nested(miss.snapshot_params)
    apply_selector_miss(call.plan, call.rt.log.state, miss, obs, snapshot_failed=snapshot.is_error)


@dataclass(frozen=True)
class SelectorMiss:
    """A `find` that missed: what it looked for and the snapshot that lists current refs."""

    target: sr.FindTarget
    prefix: list[str]
    snapshot_params: dict[str, Any]


def selector_miss(plan: ExecutionPlan, obs: Observation) -> SelectorMiss | None:
    """After a `find` selector miss: the fresh `snapshot -i` to run (journaled, so its refs
    become the session's latest ref map), else None (pure)."""
    if plan.path[:1] != ("find",) or obs.failure_category is not FailureCategory.SELECTOR_NOT_FOUND:
        return None
    match, key = plan.match, plan.session.key
    if match is None or key is None:
        return None
    target = sr.find_target(match.operands, match.flag_value("--name"))
    if target is None:
        return None
    prefix = na.session_prefix(key, not plan.session.used_implicit_session)
    return SelectorMiss(target, prefix, {"args": [*prefix, "snapshot", "-i"]})


def apply_selector_miss(
    plan: ExecutionPlan,
    state: ConversationState,
    miss: SelectorMiss,
    obs: Observation,
    *,
    snapshot_failed: bool,
) -> None:
    """Candidates from the recovery snapshot now recorded in `state` (pure over `obs`)."""
    assert plan.session.key is not None
    entry = state.session(plan.session.key)
    if snapshot_failed or entry.ref_snapshot is None:
        obs.next_actions.append(na.refresh_interactive_refs(miss.prefix))
        return
    refs = entry.ref_snapshot.refs
    view = {
        "refs": {k: v.as_data() for k, v in refs.items()},
        "target": {"url": entry.ref_snapshot.target_url},
    }
    apply_find_recovery(obs, miss.target, refs, view, miss.prefix)


def apply_find_recovery(
    obs: Observation,
    target: sr.FindTarget,
    refs: Mapping[str, RefInfo],
    snapshot: Mapping[str, Any],
    prefix: Sequence[str],
) -> None:
    """Attach the diagnostics, visible sections and next actions (pure over `obs`)."""
    matches = sr.exact_matches(target, refs)
    fallback = sr.visible_ref_fallback(target, matches, snapshot, prefix)
    if fallback is not None:
        obs.extra["visibleRefFallback"] = fallback
        obs.warnings.append(sr.fallback_text(fallback))
        obs.next_actions += sr.visible_ref_actions(fallback)
    rich = sr.rich_input_recovery(target, matches, prefix)
    if rich is not None:
        obs.extra["richInputRecovery"] = rich
        obs.warnings.append(sr.rich_input_text(rich))
        obs.next_actions += sr.rich_input_actions(rich)
    if matches:
        return
    guesses = sr.name_candidate_fallback(target, sr.name_candidates(target, refs), prefix)
    if guesses is not None:
        obs.extra["nameCandidateFallback"] = guesses
        obs.warnings.append(sr.name_candidate_text(guesses))
        obs.next_actions += sr.name_candidate_actions(guesses)
    if not any(a.id == "refresh-interactive-refs" for a in obs.next_actions):
        obs.next_actions.append(na.refresh_interactive_refs(prefix))
