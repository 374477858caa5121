"""Native batch rows in the `--confirm-actions` handshake (pure over the observation).

Why: the engine answers each row `success: true` when the row only raised a pending control,
and a `confirm` row whose approved action failed also says `success: true`. Neither ran what
was asked, so both rows become failed steps and the batch a failure, with the first failed
step as `batchFailure` (a later row may have run: the steps say which).
"""

from __future__ import annotations

from typing import Any

from agent_browser_tools.engine.envelope import Envelope
from agent_browser_tools.planning.plan import ExecutionPlan
from agent_browser_tools.redaction import redact_text
from agent_browser_tools.results.categories import FailureCategory
from agent_browser_tools.results.classify import classify_failure
from agent_browser_tools.results.observation import Observation
from agent_browser_tools.taxonomy import CommandMatch
from agent_browser_tools.tools.agent_browser.confirm.confirm_controls import (
    Control,
    Decision,
    control_of,
    decision_of,
    inner_data,
    inner_failure,
)


def settle_rows(
    plan: ExecutionPlan, obs: Observation, envelope: Envelope
) -> tuple[int, Control, str] | None:
    """Fail pending and failed-confirmed rows; the last pending control `(step, control,
    command)` (a newer control replaces the engine's previous pending slot), else None."""
    steps = obs.extra.get("batchSteps")
    if not isinstance(steps, list):
        return None
    matches = plan.row_matches or ()
    changed = False
    last: tuple[int, Control, str] | None = None
    for index, row in enumerate(envelope.rows or ()):
        if not row.success or index >= len(steps):
            continue
        match = matches[index] if index < len(matches) else None
        command = match.spec.name if match is not None else " ".join(row.command[:1])
        verdict = _row_verdict(row.result, match, command)
        if verdict is None:
            continue
        error, category, control = verdict
        _fail_step(steps[index], error, category)
        changed = True
        if control is not None:
            last = (index + 1, control, command)
    if changed:
        _aggregate(obs, steps)
    return last


def _row_verdict(
    result: Any, match: CommandMatch | None, command: str
) -> tuple[str, FailureCategory, Control | None] | None:
    """Why a row that says success did not do what was asked, else None."""
    role = match.spec.confirmation if match is not None else None
    decision = decision_of(result, role)
    if decision is not None and decision.approved:
        error = inner_failure(decision)
        if error is not None:
            text = redact_text(error)
            category = classify_failure(text, command=(decision.action or command,))
            if category is FailureCategory.CONFIRMATION_REQUIRED:
                category = FailureCategory.UPSTREAM_ERROR
            return f"the confirmed action failed: {text}", category, None
        nested = control_of(inner_data(decision), None)
        if nested is not None:
            return _pending_text(nested), FailureCategory.CONFIRMATION_REQUIRED, nested
        return None
    control = control_of(result, match)
    if control is None:
        return None
    return _pending_text(control), FailureCategory.CONFIRMATION_REQUIRED, control


def _pending_text(control: Control) -> str:
    return f"`{control.action}` needs confirmation (id {control.id}); it has not run."


def _fail_step(step: dict[str, Any], error: str, category: FailureCategory) -> None:
    step.update(
        success=False, resultCategory="failure", error=error, failureCategory=category.value
    )
    step.pop("successCategory", None)
    step.pop("dispatchOnly", None)


def _aggregate(obs: Observation, steps: list[dict[str, Any]]) -> None:
    """The batch outcome from its (corrected) steps: the first failed step decides."""
    failed = next(s for s in steps if not s["success"])
    obs.success, obs.success_category = False, None
    obs.failure_category = FailureCategory(failed["failureCategory"])
    obs.error = f"step {failed['step']} ({' '.join(failed['command'])}) failed: {failed['error']}"
    obs.extra["batchFailure"] = {"failedStep": failed}
    if isinstance(obs.data, list):
        for entry, step in zip(obs.data, steps, strict=False):
            if isinstance(entry, dict) and not step["success"]:
                entry["success"] = False
                entry["error"] = step["error"]
    ok = sum(1 for s in steps if s["success"])
    obs.summary = f"Batch: {ok}/{len(steps)} steps succeeded."


def last_decision(plan: ExecutionPlan, envelope: Envelope) -> tuple[int, Decision] | None:
    """(0-based row, decision) of the last reached `confirm`/`deny` row the engine answered."""
    matches = plan.row_matches or ()
    found: tuple[int, Decision] | None = None
    for index, row in enumerate(envelope.rows or ()):
        match = matches[index] if index < len(matches) else None
        role = match.spec.confirmation if match is not None else None
        decision = decision_of(row.result, role) if row.success else None
        if decision is not None:
            found = (index, decision)
    return found
