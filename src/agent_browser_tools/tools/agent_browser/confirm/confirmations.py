"""Direct tool: the outcome of the engine's `--confirm-actions` handshake (pure over state).

Why: the engine's outer answer says `success` for things that are not success. A pending
control ran nothing; a `confirm` whose approved action failed, or asked again (a compound
command such as `a11y <url>` needs `a11y` and then `navigate`), still answers `confirmed:
true`. `settle` (right after `observe`) turns those into failures with the exact next
actions and keeps the session's provenance marker (`readConfirmation`: the compact command
and native action, never argv) in the journal; `conclude` (after the read-back) adds the
confirmation `pageChangeSummary`. A confirmed full snapshot installs its refs and may be used
once without another gated identity re-read (`refSnapshotFresh`, see `identity`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from agent_browser_tools import taxonomy
from agent_browser_tools.engine.envelope import Envelope, OutputMode
from agent_browser_tools.planning.plan import ExecutionPlan
from agent_browser_tools.redaction import redact_text, redact_url
from agent_browser_tools.results import next_actions as na
from agent_browser_tools.results.categories import FailureCategory
from agent_browser_tools.results.classify import classify_failure
from agent_browser_tools.results.observation import Observation
from agent_browser_tools.state.effects import refs_from_snapshot
from agent_browser_tools.state.models import (
    ConfirmationMarked,
    ConfirmationSource,
    Effect,
    FreshCaptureGranted,
    ReadConfirmation,
    RefsRecorded,
    SessionActivated,
    SessionClosed,
    SessionPageState,
    TargetObserved,
)
from agent_browser_tools.state.snapshot_payload import snapshot_payload
from agent_browser_tools.taxonomy import CommandMatch, ConfirmationRole, PageEffect
from agent_browser_tools.tools.agent_browser.confirm import confirm_batch
from agent_browser_tools.tools.agent_browser.confirm.confirm_controls import (
    Control,
    Decision,
    control_of,
    decision_of,
    inner_data,
    inner_failure,
)
from agent_browser_tools.tools.agent_browser.page import page_change

DECISION_IDS = ("confirm-pending-action", "deny-pending-action")
GUIDED = (
    "Approving opens the tab without navigating; open the URL only as a separate call the "
    "user's request covers. Denying must not navigate."
)


@dataclass
class Gate:
    """What `settle` decided: the marker to journal and show, and effects to add."""

    marker: ReadConfirmation | None = None
    effects: list[Effect] = field(default_factory=list)
    summary: dict[str, Any] | None = None
    fresh: bool = False
    closed: bool = False
    """The approved action closed the session: its state (marker included) is retired."""
    unrecorded: bool = False
    """A control without provenance took the engine's pending slot."""


def settle(
    plan: ExecutionPlan, prior: SessionPageState | None, obs: Observation, envelope: Envelope
) -> Gate:
    """Correct `obs` for pending, nested and failed confirmations; the marker to journal."""
    if plan.output_mode is not OutputMode.JSON or plan.session.key is None:
        return Gate()
    gate = _settled(plan, prior, obs, envelope)
    before = prior.read_confirmation if prior is not None else None
    if gate.unrecorded and gate.marker is None and before is not None and before.state == "pending":
        # The engine keeps one pending action: the new control replaced the recorded one.
        gate.marker = before.model_copy(update={"state": "cleared"})
    owner = plan.session.ownership
    if obs.failure_category is FailureCategory.CONFIRMATION_REQUIRED and owner is not None:
        # The daemon runs with this call's settings even though nothing else ran: a later
        # call (the offered `confirm`) must repeat them or the engine replaces the daemon
        # and the pending action is gone.
        gate.effects.append(
            SessionActivated(ownership=owner, launch_flags=plan.session.launch_flags)
        )
    return gate


def _settled(
    plan: ExecutionPlan, prior: SessionPageState | None, obs: Observation, envelope: Envelope
) -> Gate:
    if plan.is_batch:
        return _batch(plan, prior, obs, envelope)
    match = plan.match
    role = match.spec.confirmation if match is not None else None
    if not envelope.success:
        return _undecided(plan, prior, obs) if role in _DECIDING else Gate()
    decision = decision_of(envelope.data, role)
    if decision is not None:
        return _decided(plan, prior, obs, decision)
    control = control_of(envelope.data, match)
    if control is None:
        return Gate()
    command = match.spec.name if match is not None else " ".join(plan.path)
    return _pending(plan, obs, control, command, _source(match))


def conclude(gate: Gate, plan: ExecutionPlan, obs: Observation) -> list[Effect]:
    """After the read-back: the marker's details, the summary, and the effects to journal."""
    if gate.marker is not None:
        key = plan.session.key
        assert key is not None
        shown: dict[str, Any] = {"id": gate.marker.id, "sessionName": key.session}
        if key.namespace is not None:
            shown["namespace"] = key.namespace
        shown.update(gate.marker.model_dump(exclude_none=True, exclude={"id"}))
        if gate.fresh:
            shown["refSnapshotFresh"] = True
        obs.extra["readConfirmation"] = shown
    current = obs.extra.get("pageChangeSummary")
    navigated = isinstance(current, dict) and current.get("changeType") == "navigation"
    if gate.summary is not None and not navigated:
        obs.extra["pageChangeSummary"] = gate.summary
    marked: list[Effect] = [ConfirmationMarked(marker=gate.marker)] if gate.marker else []
    closed: list[Effect] = [SessionClosed()] if gate.closed else []
    return [*gate.effects, *marked, *closed]


_DECIDING = (ConfirmationRole.APPROVE, ConfirmationRole.DENY)


def _undecided(plan: ExecutionPlan, prior: SessionPageState | None, obs: Observation) -> Gate:
    """A failed or expired decision: inspect the session; never retry another id."""
    obs.next_actions.append(
        _inspect_session(plan, "The decision failed or nothing was pending; check the session.")
    )
    before = prior.read_confirmation if prior is not None else None
    if before is not None and before.state == "pending":
        return Gate(marker=before.model_copy(update={"state": "cleared"}))
    return Gate()


def _source(match: CommandMatch | None) -> ConfirmationSource:
    if match is not None and match.spec.confirmation is ConfirmationRole.URL_READ:
        return "native-explicit-url-read" if match.operands else "native-guarded-action"
    return "native-guarded-action"


def _prefix(plan: ExecutionPlan) -> list[str]:
    return na.session_prefix(plan.session.key, not plan.session.used_implicit_session)


def _inspect_session(plan: ExecutionPlan, reason: str) -> na.NextAction:
    return na.NextAction(
        id="inspect-session-after-confirmation",
        reason=reason,
        safety="Do not approve another id; ask again with the exact pending id only.",
        params={"args": [*_prefix(plan), "session", "info"]},
    )


def _offered(plan: ExecutionPlan, control: Control) -> list[na.NextAction]:
    """Exact approve/deny only for a control the engine really sends in that shape; anything
    else gets the session inspection (approving an id nothing vouches for is never offered)."""
    if control.genuine:
        return decision_actions(_prefix(plan), control.id)
    return [_inspect_session(plan, "The pending answer is not one the engine sends; inspect.")]


def _offer_decisions(
    plan: ExecutionPlan, obs: Observation, control: Control, command: str, text: str
) -> dict[str, Any]:
    """Replace any earlier decision actions with this control's, and its `confirmation`
    summary naming exactly what was offered."""
    obs.next_actions = [a for a in obs.next_actions if a.id not in DECISION_IDS]
    offered = _offered(plan, control)
    obs.next_actions += offered
    return page_change.confirmation_summary(
        command, text, observed=False, next_ids=[action.id for action in offered]
    )


def decision_actions(prefix: list[str], ident: str) -> list[na.NextAction]:
    """The exact approve/deny pair for one native id (never another id, never automatic)."""
    return [
        na.NextAction(
            id=DECISION_IDS[0],
            reason="Approve the pending action with its exact native id.",
            safety="Only when the user's request authorizes this action.",
            params={"args": [*prefix, "confirm", ident]},
        ),
        na.NextAction(
            id=DECISION_IDS[1],
            reason="Reject the pending action with its exact native id.",
            params={"args": [*prefix, "deny", ident]},
        ),
    ]


def _pending(
    plan: ExecutionPlan,
    obs: Observation,
    control: Control,
    command: str,
    source: ConfirmationSource,
    *,
    nested: bool = False,
) -> Gate:
    """A pending control: a failure with its own exact actions; provenance when genuine."""
    obs.success, obs.success_category = False, None
    obs.failure_category = FailureCategory.CONFIRMATION_REQUIRED
    if nested:
        obs.error = (
            f"The approved `{command}` asks again: native `{control.action}` needs "
            f"confirmation (id {control.id}); it has not run."
        )
        obs.data = {"confirmationId": control.id, "action": control.action or None}
    summary = _offer_decisions(
        plan,
        obs,
        control,
        command,
        f"`{command}` waits for confirmation (id {control.id}); nothing ran.",
    )
    if not control.genuine:
        obs.warnings.append(
            "The pending answer has fields the engine does not send; it is not recorded as "
            "confirmation provenance."
        )
        return Gate(summary=summary, unrecorded=True)
    if control.after_url is not None and control.guidance is not None:
        data = obs.data if isinstance(obs.data, dict) else {}
        data["afterConfirmation"] = ["open", redact_url(control.after_url)]
        data["guidance"] = redact_text(control.guidance)
        obs.data = data
        obs.warnings.append(f"Engine guidance (not run): {redact_text(control.guidance)} {GUIDED}")
    marker = ReadConfirmation(
        id=control.id,
        source=source,
        state="pending",
        command=command,
        action=control.action,
        capabilities=control.capabilities,
    )
    return Gate(marker=marker, summary=summary)


def _decided(
    plan: ExecutionPlan, prior: SessionPageState | None, obs: Observation, decision: Decision
) -> Gate:
    """`confirm`/`deny` answered: clear the marker, or keep it pending for a nested control."""
    before = prior.read_confirmation if prior is not None else None
    known = before if before is not None and before.state == "pending" else None
    command = known.command if known is not None and known.command else decision.action or "?"
    source = known.source if known is not None else "native-guarded-action"
    ident = known.id if known is not None else _operand(plan)
    cleared = ReadConfirmation(
        id=ident, source=source, state="cleared", command=command, action=decision.action
    )
    if not decision.approved:
        summary = page_change.confirmation_summary(
            command, f"Denied `{command}`; it did not run.", observed=True, next_ids=[]
        )
        return Gate(marker=cleared, summary=summary)
    error = inner_failure(decision)
    if error is not None:
        _failed(obs, command, error)
        return Gate(marker=cleared)
    nested = control_of(inner_data(decision), None)
    if nested is not None:
        return _pending(plan, obs, nested, command, source, nested=True)
    gate = Gate(marker=cleared)
    gate.summary = page_change.confirmation_summary(
        command, f"Approved `{command}`; it ran.", observed=True, next_ids=[]
    )
    _fresh_capture(gate, command, decision)
    spec = taxonomy.command(tuple(command.split()))
    gate.closed = spec is not None and spec.page_effect is PageEffect.CLOSE
    return gate


def _operand(plan: ExecutionPlan) -> str:
    match = plan.match
    return match.operands[0] if match is not None and match.operands else "?"


def _failed(obs: Observation, command: str, error: str) -> None:
    """The approved action failed: a tool failure whatever the outer answer says."""
    text = redact_text(error)
    obs.success, obs.success_category = False, None
    obs.failure_category = classify_failure(text, command=tuple(command.split()))
    if obs.failure_category is FailureCategory.CONFIRMATION_REQUIRED:
        obs.failure_category = FailureCategory.UPSTREAM_ERROR
    obs.error = f"The confirmed `{command}` failed: {text}"


def _fresh_capture(gate: Gate, command: str, decision: Decision) -> None:
    """A confirmed complete snapshot installs its refs, usable once without a re-read."""
    spec = taxonomy.command(tuple(command.split()))
    data = inner_data(decision)
    payload = snapshot_payload(data)
    if spec is None or not spec.produces_refs or payload is None or payload.refs is None:
        return
    url = data.get("origin") or data.get("url") if isinstance(data, dict) else None
    if not isinstance(url, str) or not url:
        return
    refs = refs_from_snapshot({"refs": payload.refs}, payload.text)
    gate.effects += [
        TargetObserved(url=url),
        RefsRecorded(refs=refs, target_url=url),
        FreshCaptureGranted(url=url),
    ]
    gate.fresh = True


def _batch(
    plan: ExecutionPlan, prior: SessionPageState | None, obs: Observation, envelope: Envelope
) -> Gate:
    """Rows in order: the last control or decision sets the marker; a confirmed snapshot in
    the final row installs its refs with one-use freshness."""
    found = confirm_batch.settle_rows(plan, obs, envelope)
    decided = confirm_batch.last_decision(plan, envelope)
    before = prior.read_confirmation if prior is not None else None
    known = before if before is not None and before.state == "pending" else None
    if decided is not None and (found is None or decided[0] + 1 > found[0]):
        return _batch_decision(plan, known, envelope, *decided)
    if found is None:
        return Gate()
    step, control, command = found
    if decided is not None and decided[0] + 1 == step and known is not None and known.command:
        command = known.command  # nested: the approved row asked again
    summary = _offer_decisions(
        plan,
        obs,
        control,
        command,
        f"step {step} `{command}` waits for confirmation (id {control.id}).",
    )
    if not control.genuine:
        return Gate(summary=summary, unrecorded=True)
    source = known.source if known is not None and command == known.command else None
    marker = ReadConfirmation(
        id=control.id,
        source=source or "native-guarded-action",
        state="pending",
        command=command,
        action=control.action,
    )
    return Gate(marker=marker, summary=summary)


def _batch_decision(
    plan: ExecutionPlan,
    known: ReadConfirmation | None,
    envelope: Envelope,
    index: int,
    decision: Decision,
) -> Gate:
    """A decision row after every control: the marker is cleared."""
    command = known.command if known is not None and known.command else decision.action or "?"
    marker = ReadConfirmation(
        id=known.id if known is not None else "?",
        source=known.source if known is not None else "native-guarded-action",
        state="cleared",
        command=command,
        action=decision.action,
    )
    gate = Gate(marker=marker)
    planned = plan.checked.batch.rows if plan.checked.batch is not None else ()
    final = index == len(envelope.rows or ()) - 1 == len(planned) - 1
    if decision.approved and final and inner_failure(decision) is None:
        _fresh_capture(gate, command, decision)
    return gate


def decision_refusal(plan: ExecutionPlan, entry: SessionPageState) -> Observation | None:
    """A `confirm`/`deny` naming another id than the session's recorded pending control.

    Why: 0.39.4 does not check the id; it decides whatever is pending now, which may be a
    later control (or a wrapper helper's). A decision with the exact pending id, or on a
    session with no recorded marker, goes through."""
    match, marker = plan.match, entry.read_confirmation
    if plan.is_batch or match is None or marker is None or not match.operands:
        return None
    if match.spec.confirmation not in _DECIDING:
        return None
    ident = match.operands[0]
    if (marker.state == "pending") == (ident == marker.id):
        # The exact pending id; or a new id after the recorded one was decided (a control
        # the wrapper did not record may be pending).
        return None
    verb = match.spec.name
    if marker.state == "pending":
        why = f"the pending confirmation is {marker.id} (`{marker.command}`), not {ident}"
    else:
        why = f"confirmation {ident} was already decided"
    obs = Observation(
        success=False,
        failure_category=FailureCategory.VALIDATION_ERROR,
        error=(
            f"`{verb} {ident}` was not sent: {why}. The engine would apply it to whatever is "
            "pending now, so only the exact pending id is accepted."
        ),
    )
    if marker.state == "pending":
        obs.next_actions += decision_actions(_prefix(plan), marker.id)
    return obs
