"""Per-step next actions of a batch, and the failed step's actions at the top (pure).

Why: a batch answers for many commands at once; the model should not have to work out which
recovery belongs to which step. Each `batchSteps[]` row carries the exact follow-ups for its
own outcome (the same ones a direct call of that command would get), and on a failed batch
the top-level `nextActions` start with `batchFailure.failedStep.nextActions`, so one object
says what to do next. A successful step whose recording is pending carries its stop action.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from agent_browser_tools.planning.plan import ExecutionPlan
from agent_browser_tools.results import next_actions as na
from agent_browser_tools.results.observation import Observation
from agent_browser_tools.taxonomy import CommandMatch, PageEffect

_REF_MISSES = ("stale-ref", "selector-not-found")
_REFUSED_NAVIGATION = ("upstream-error", "policy-blocked")


def annotate(plan: ExecutionPlan, obs: Observation) -> None:
    """Set `nextActions` on each batch step that has any; lead the top level with the
    failed step's."""
    steps = obs.extra.get("batchSteps")
    if not plan.is_batch or not isinstance(steps, list):
        return
    prefix = na.session_prefix(plan.session.key, not plan.session.used_implicit_session)
    matches = plan.row_matches or ()
    pending = {
        entry.get("step")
        for entry in obs.extra.get("artifacts", [])
        if entry.get("state") == "pending"
    }
    failed_actions: list[na.NextAction] = []
    failed = obs.extra.get("batchFailure", {}).get("failedStep")
    for step in steps:
        index = step.get("step")
        match = matches[index - 1] if isinstance(index, int) and 0 < index <= len(matches) else None
        if step.get("success"):
            actions = _done_actions(prefix, step, index in pending)
        else:
            actions = _failed_actions(prefix, step, match)
        if actions:
            step["nextActions"] = [action.to_dict() for action in actions]
        if isinstance(failed, dict) and failed.get("step") == index and not step.get("success"):
            failed_actions = actions
            if actions:  # the failed step is a copy of its row: the same actions
                failed["nextActions"] = step["nextActions"]
    ids = {action.id for action in failed_actions}
    obs.next_actions = [*failed_actions, *(a for a in obs.next_actions if a.id not in ids)]


def _done_actions(
    prefix: Sequence[str], step: Mapping[str, Any], pending: bool
) -> list[na.NextAction]:
    """A pending recording must be stopped to exist; a dispatch-only mutation proved nothing
    about the page."""
    actions: list[na.NextAction] = []
    if pending:
        actions.append(
            na.NextAction(
                id="stop-pending-recording",
                reason="The recording file exists only after `record stop`; stop and verify it.",
                params={"args": [*prefix, "record", "stop"]},
            )
        )
    if step.get("dispatchOnly"):
        actions.append(na.inspect_after_mutation(prefix))
    return actions


def _failed_actions(
    prefix: Sequence[str], step: Mapping[str, Any], match: CommandMatch | None
) -> list[na.NextAction]:
    """The direct call's recovery for the same failure: fresh refs after a ref miss, the
    page after a refused navigation, the tabs after a lost tab, the overlay after a cover."""
    category = step.get("failureCategory")
    error = str(step.get("error") or "")
    actions: list[na.NextAction] = []
    if category in _REF_MISSES:
        actions.append(na.refresh_interactive_refs(prefix))
    navigates = match is not None and match.spec.page_effect is PageEffect.NAVIGATES
    if category in _REFUSED_NAVIGATION and navigates:
        actions.append(na.check_page_after_failed_navigation(prefix))
    if category == "tab-gone":
        actions += na.tab_gone_actions(prefix)
    if "is covered by" in error:
        actions.append(na.inspect_overlay_state(prefix))
    return actions
