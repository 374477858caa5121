"""Navigation and page-change summaries for mutation-capable commands (pure).

`navigationSummary.urlChanged` is true only against a known pre-command URL, so a same-URL
click (or one with no baseline) stays "dispatched, unverified" instead of being reported as an
observed navigation. A URL that differs only in its `#fragment` changed too (an in-page anchor
link, a hash router): it is observed, said as "URL changed to ..." and marked `sameDocument`,
never as a new page (the document, and the refs on it, stayed). "Application change
unverified" is said only when nothing was seen: no new URL or title, no DOM mutation caught by
the click probe, no covering dialog, no value or state read back as asked. Artifacts and
batches get their own summaries (`settle`, `_batch_summary`).
"""

from __future__ import annotations

from typing import Any, Literal

from agent_browser_tools.planning.plan import ExecutionPlan
from agent_browser_tools.results.observation import Observation
from agent_browser_tools.state.effects import Probe
from agent_browser_tools.state.models import Effect, SessionPageState, TargetObserved
from agent_browser_tools.state.stale_refs import normalize_url
from agent_browser_tools.taxonomy import PageEffect

UNVERIFIED_WARNING = "Action dispatched; application change unverified."

UrlMove = Literal["document", "fragment"]
"""How a URL moved: to another document URL (query significant), or only its `#fragment`."""


def url_move(before: str | None, after: str | None) -> UrlMove | None:
    """How `after` differs from a known `before` (None: unchanged, or either is unknown).

    Why the fragment counts: a click on `#section` changed the URL the model will see, which
    is evidence the click took; why it stays apart: the document did not change, so the ref
    rules (`normalize_url`) and the overlay check keep ignoring it."""
    if before is None or after is None:
        return None
    if normalize_url(after) != normalize_url(before):
        return "document"
    return "fragment" if after.strip() != before.strip() else None


def annotate(
    plan: ExecutionPlan,
    obs: Observation,
    prior: SessionPageState | None,
    probe: Probe | None,
    effects: list[Effect],
    *,
    dom_mutations: int | None = None,
) -> None:
    """Add `navigationSummary` / `pageChangeSummary` (and the unverified warning).

    `dom_mutations`: DOM changes the click probe counted during the command (None: not
    measured)."""
    if plan.is_batch:
        _batch_summary(plan, obs, prior, effects)
        return
    if plan.match is None or not obs.success:
        return
    spec = plan.match.spec
    before = prior.target.url if prior is not None and prior.target is not None else None
    observed = next((e for e in effects if isinstance(e, TargetObserved)), None)
    moved = url_move(before, probe.url) if probe is not None else None
    if probe is not None:
        nav: dict[str, Any] = {"url": probe.url, "title": probe.title, "urlChanged": bool(moved)}
        if moved == "fragment":
            nav["sameDocument"] = True
        obs.extra["navigationSummary"] = nav
    if not (spec.page_change_summary or spec.page_effect is not PageEffect.NONE):
        return
    summary = _summary(
        spec.name,
        spec.page_effect,
        spec.page_change_summary and not spec.read_only,
        observed,
        moved,
    )
    if summary is not None and not summary["observed"]:
        _seen_without_navigation(summary, prior, probe, dom_mutations)
    if summary is not None and not summary["observed"]:
        _read_back(obs, summary)
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
    moved: UrlMove | None,
) -> dict[str, Any] | None:
    """The compact change summary: observed navigation beats an unverified mutation; a
    fragment-only move is a same-document navigation (`url_move`)."""
    base = {"command": command, "nextActionIds": ["inspect-after-mutation"]}
    transition = effect in (PageEffect.NAVIGATES, PageEffect.HISTORY, PageEffect.TARGET_SWITCH)
    navigated = observed is not None and (moved == "document" or transition)
    if moved == "fragment" and observed is not None and not transition:
        return {
            **base,
            "changeType": "navigation",
            "observed": True,
            "sameDocument": True,
            "summary": f"{command}: URL changed to {observed.url} (same page)",
            "url": observed.url,
        }
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


def _seen_without_navigation(
    summary: dict[str, Any],
    prior: SessionPageState | None,
    probe: Probe | None,
    dom_mutations: int | None,
) -> None:
    """A same-URL mutation is observed when the title changed or the DOM did."""
    command = summary["command"]
    if probe is not None and title_changed(prior, probe):
        summary.update(observed=True, summary=f"{command}: title is now {probe.title}")
        summary["title"] = probe.title
    elif dom_mutations:
        summary.update(
            observed=True,
            summary=f"{command} changed the page ({dom_mutations} DOM mutations, same URL).",
        )


def _read_back(obs: Observation, summary: dict[str, Any]) -> None:
    """A value or state read back as asked (`actionEffect.verified`) is an observed change:
    saying "unverified" next to a verified value would be noise."""
    effect = obs.extra.get("actionEffect")
    if isinstance(effect, dict) and effect.get("verified") is True:
        summary.update(observed=True, summary=f"{summary['command']}: read back as asked.")


def title_changed(prior: SessionPageState | None, probe: Probe | None) -> bool:
    """The post-action title differs from a known one before it."""
    before = prior.target.title if prior is not None and prior.target is not None else None
    return probe is not None and bool(probe.title) and bool(before) and probe.title != before


def _batch_summary(
    plan: ExecutionPlan,
    obs: Observation,
    prior: SessionPageState | None,
    effects: list[Effect],
) -> None:
    """A batch's roll-up from step evidence: where it ended up when that is a new page,
    else its dispatch-only steps as unverified (read-only batches get none)."""
    steps = obs.extra.get("batchSteps") or []
    before = prior.target.url if prior is not None and prior.target is not None else None
    landed = next(
        (
            e
            for e in reversed(effects)
            if isinstance(e, TargetObserved)
            and (before is None or normalize_url(e.url) != normalize_url(before))
        ),
        None,
    )
    base = {"command": "batch", "nextActionIds": ["inspect-after-mutation"]}
    if landed is not None:
        where = landed.title or landed.url
        summary = {**base, "changeType": "navigation", "observed": True, "url": landed.url}
        summary["summary"] = f"batch: now on {where}"
        if landed.title:
            summary["title"] = landed.title
        obs.extra["pageChangeSummary"] = summary
        return
    dispatched = [s["step"] for s in steps if s.get("dispatchOnly")]
    if not dispatched:
        return
    listed = ", ".join(str(step) for step in dispatched)
    obs.extra["pageChangeSummary"] = {
        **base,
        "changeType": "mutation",
        "observed": False,
        "summary": f"batch steps {listed} dispatched; no application change was observed.",
    }
    if obs.success:
        obs.warnings.insert(0, f"{UNVERIFIED_WARNING[:-1]} (dispatch-only steps {listed}).")


def saw_overlay(obs: Observation, command: str) -> None:
    """A dialog now covers the page: an observed change, not an unverified one."""
    summary = obs.extra.get("pageChangeSummary")
    if not isinstance(summary, dict) or summary.get("changeType") != "mutation":
        return
    summary.update(
        observed=True,
        summary=f"{command}: a dialog now covers the page (see overlayBlockers).",
        nextActionIds=["inspect-overlay-state", *summary.get("nextActionIds", [])],
    )
    if UNVERIFIED_WARNING in obs.warnings:
        obs.warnings.remove(UNVERIFIED_WARNING)


def settle(plan: ExecutionPlan, obs: Observation) -> None:
    """Last touch before presentation: artifacts win the summary (a batch rolls them up),
    and `nextActionIds` name only next actions the result really carries."""
    entries = obs.extra.get("artifacts") or []
    if entries:
        command = "batch" if plan.is_batch else " ".join(plan.path)
        obs.extra["pageChangeSummary"] = _artifact_summary(command, entries)
    summary = obs.extra.get("pageChangeSummary")
    if isinstance(summary, dict):
        present = [a.id for a in obs.next_actions] + _step_action_ids(obs)
        wanted = [i for i in summary.get("nextActionIds", []) if i in present]
        summary["nextActionIds"] = wanted or [i for i in present if i in _ARTIFACT_ACTIONS]


_ARTIFACT_ACTIONS = frozenset({"stop-pending-recording"})


def _step_action_ids(obs: Observation) -> list[str]:
    """Ids of per-step `nextActions` inside `batchSteps` (the contract lets a batch summary
    name those too)."""
    ids: list[str] = []
    for step in obs.extra.get("batchSteps") or []:
        for action in step.get("nextActions") or []:
            ident = action.get("id") if isinstance(action, dict) else getattr(action, "id", None)
            if isinstance(ident, str):
                ids.append(ident)
    return ids


def _artifact_summary(command: str, entries: list[dict[str, Any]]) -> dict[str, Any]:
    """`changeType: artifact`: how many files the call produced and, for one, its path."""
    verified = [e for e in entries if e.get("state") == "verified"]
    summary: dict[str, Any] = {
        "command": command,
        "changeType": "artifact",
        "observed": bool(verified),
        "artifactCount": len(entries),
        "summary": f"{command}: {len(verified)} of {len(entries)} artifact(s) verified on disk.",
        "nextActionIds": [],
    }
    if len(entries) == 1:
        summary["savedFilePath"] = entries[0].get("path")
    return summary


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
