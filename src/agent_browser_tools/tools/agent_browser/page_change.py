"""Navigation and page-change summaries for mutation-capable commands (pure).

`navigationSummary.urlChanged` is true only against a known pre-command URL, so a same-URL
click (or one with no baseline) stays "dispatched, unverified" instead of being reported as an
observed navigation.
"""

from __future__ import annotations

from typing import Any

from agent_browser_tools.planning.plan import ExecutionPlan
from agent_browser_tools.results.observation import Observation
from agent_browser_tools.state.effects import Probe
from agent_browser_tools.state.models import Effect, SessionPageState, TargetObserved
from agent_browser_tools.state.stale_refs import normalize_url
from agent_browser_tools.taxonomy import PageEffect

UNVERIFIED_WARNING = "Action dispatched; application change unverified."


def annotate(
    plan: ExecutionPlan,
    obs: Observation,
    prior: SessionPageState | None,
    probe: Probe | None,
    effects: list[Effect],
) -> None:
    """Add `navigationSummary` / `pageChangeSummary` (and the unverified warning)."""
    if plan.is_batch or plan.match is None or not obs.success:
        return
    spec = plan.match.spec
    before = prior.target.url if prior is not None and prior.target is not None else None
    observed = next((e for e in effects if isinstance(e, TargetObserved)), None)
    changed = False
    if probe is not None:
        changed = (
            before is not None
            and probe.url is not None
            and (normalize_url(probe.url) != normalize_url(before))
        )
        obs.extra["navigationSummary"] = {
            "url": probe.url,
            "title": probe.title,
            "urlChanged": changed,
        }
    if not (spec.page_change_summary or spec.page_effect is not PageEffect.NONE):
        return
    summary = _summary(
        spec.name,
        spec.page_effect,
        spec.page_change_summary and not spec.read_only,
        observed,
        changed,
    )
    if summary is None:
        return
    if not summary["observed"]:
        obs.warnings.append(UNVERIFIED_WARNING)
    obs.extra["pageChangeSummary"] = summary


def _summary(
    command: str,
    effect: PageEffect,
    mutating: bool,
    observed: TargetObserved | None,
    url_changed: bool,
) -> dict[str, Any] | None:
    """The compact change summary: observed navigation beats an unverified mutation."""
    base = {"command": command, "nextActionIds": ["inspect-after-mutation"]}
    navigated = observed is not None and (
        url_changed
        or effect in (PageEffect.NAVIGATES, PageEffect.HISTORY, PageEffect.TARGET_SWITCH)
    )
    if navigated and observed is not None:
        where = observed.title or observed.url
        summary: dict[str, Any] = {
            **base,
            "changeType": "navigation",
            "observed": True,
            "summary": f"{command}: now on {where}",
            "url": observed.url,
        }
        if observed.title:
            summary["title"] = observed.title
        return summary
    if mutating:
        return {
            **base,
            "changeType": "mutation",
            "observed": False,
            "summary": f"{command} dispatched; no application change was observed.",
        }
    return None


def confirmation_summary(
    command: str, summary: str, *, observed: bool, next_ids: list[str]
) -> dict[str, Any]:
    """The `confirmation` summary of a pending control or a confirm/deny decision.

    `observed` is false while nothing ran (pending); a decision the engine reported is
    observed, though what an approved action changed is verified separately."""
    return {
        "changeType": "confirmation",
        "observed": observed,
        "command": command,
        "summary": summary,
        "nextActionIds": next_ids,
    }
