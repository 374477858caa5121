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
    observed_url = next((e.url for e in effects if isinstance(e, TargetObserved)), None)
    title = next((e.title for e in effects if isinstance(e, TargetObserved)), None)
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
    command = spec.name
    navigated = spec.page_effect is PageEffect.NAVIGATES and observed_url is not None
    if probe is not None and obs.extra["navigationSummary"]["urlChanged"]:
        navigated = True
    summary: dict[str, Any]
    if navigated:
        summary = {
            "changeType": "navigation",
            "observed": True,
            "command": command,
            "summary": f"{command}: now on {title or observed_url}",
            "url": observed_url,
            "nextActionIds": ["inspect-after-mutation"],
        }
        if title:
            summary["title"] = title
    elif spec.page_effect in (PageEffect.HISTORY, PageEffect.TARGET_SWITCH) and observed_url:
        summary = {
            "changeType": "navigation",
            "observed": True,
            "command": command,
            "summary": f"{command}: page is {title or observed_url}",
            "url": observed_url,
            "nextActionIds": ["inspect-after-mutation"],
        }
    elif spec.page_change_summary and not spec.read_only:
        summary = {
            "changeType": "mutation",
            "observed": False,
            "command": command,
            "summary": f"{command} dispatched; no application change was observed.",
            "nextActionIds": ["inspect-after-mutation"],
        }
        obs.warnings.append(UNVERIFIED_WARNING)
    else:
        return
    obs.extra["pageChangeSummary"] = summary
