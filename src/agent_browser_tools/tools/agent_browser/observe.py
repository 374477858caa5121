"""Direct tool: engine envelope -> `Observation` (pure).

Categories come from the classifier chain; batch results get per-step categories plus the
aggregate; the redacted roll-up goes to `data`; recovery is attached as exact next actions.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from agent_browser_tools.engine.envelope import BatchRow, EngineFailure, Envelope, OutputMode
from agent_browser_tools.planning.plan import ExecutionPlan
from agent_browser_tools.redaction import (
    argv_secrets,
    redact_argv,
    redact_data,
    redact_text,
    scrub_exact,
)
from agent_browser_tools.redaction_native import redact_native_batch_text, redact_native_text
from agent_browser_tools.results import diagnostics, overlays
from agent_browser_tools.results import next_actions as na
from agent_browser_tools.results.categories import FailureCategory, SuccessCategory
from agent_browser_tools.results.classify import classify_failure, classify_success, getter_hint
from agent_browser_tools.results.observation import Observation
from agent_browser_tools.results.overlays import overlay_blockers
from agent_browser_tools.results.url_needles import correlatable
from agent_browser_tools.state.snapshot_payload import snapshot_payload
from agent_browser_tools.state.stale_refs import ref_ids
from agent_browser_tools.taxonomy import (
    CommandMatch,
    PageEffect,
)
from agent_browser_tools.tools.agent_browser.batches import timeout_recovery


def observe(plan: ExecutionPlan, envelope: Envelope) -> Observation:
    """The canonical observation of what the engine answered (pure, redacted)."""
    if plan.output_mode is OutputMode.TEXT:
        obs = _observe_text(plan, envelope)
    elif plan.is_batch and envelope.rows is not None:
        obs = observe_batch(plan, envelope)
    else:
        obs = observe_direct(plan, envelope)
    if isinstance(policy := envelope.extra.get("policy"), dict):
        obs.extra["policy"] = policy  # what the endpoint guard stopped or withheld
    if plan.output_mode is OutputMode.TEXT:
        return obs
    if isinstance(progress := envelope.extra.get("timeoutPartialProgress"), dict):
        obs.extra["timeoutPartialProgress"] = progress
    if not plan.is_batch and (lifecycle := _lifecycle(envelope.data)) is not None:
        obs.extra["lifecycle"] = lifecycle  # launch evidence; batch rows carry their own
    return obs


def _observe_text(plan: ExecutionPlan, envelope: Envelope) -> Observation:
    """Native text output, redacted like JSON data would be."""
    single = plan.match is not None and plan.path[:1] == ("storage",) and bool(plan.match.operands)
    if plan.is_batch:
        paths = [m.spec.path for m in plan.row_matches or () if m is not None]
        text = redact_native_batch_text(envelope.text or "", paths)
    else:
        text = redact_native_text(envelope.text or "", plan.path, single_key=single)
    # Upstream may quote a row's argv (`unknown flag '--password=…'`) in its output.
    literals = _argv_literals(plan)
    text = scrub_exact(text, literals)
    if envelope.success:
        category = (
            SuccessCategory.INSPECTION if plan.checked.inspection else SuccessCategory.COMPLETED
        )
        return Observation(success=True, data=text, success_category=category)
    error = scrub_exact(redact_text(envelope.error or ""), literals)
    obs = Observation(success=False, data=text or None, error=error)
    obs.failure_category = _failure_category(obs.error or "", plan.checked.command_tokens, envelope)
    return obs


def _argv_literals(plan: ExecutionPlan) -> list[str]:
    rows = plan.checked.batch.rows if plan.checked.batch is not None else ()
    return [s for argv in (plan.effective_args, *rows) for s in argv_secrets(argv)]


def _path_of(match: CommandMatch | None, tokens: Sequence[str]) -> tuple[str, ...]:
    return match.spec.path if match is not None else tuple(tokens[:2])


def _failure_category(
    error: str, command: Sequence[str], envelope: Envelope | None = None
) -> FailureCategory:
    failure = envelope.failure if envelope is not None else None
    return classify_failure(
        error,
        command=tuple(command),
        timed_out=failure is EngineFailure.TIMEOUT,
        missing_binary=failure is EngineFailure.MISSING_BINARY,
        parse_failure=failure is EngineFailure.PARSE_FAILURE,
    )


def _step(
    index: int, row: BatchRow, match: CommandMatch | None, planned: Sequence[str] | None
) -> dict[str, Any]:
    """One answered row as a step; its command is the model's row as planned (`planned`:
    the row the engine answered may differ, a `check` sent as one `click`)."""
    path = _path_of(match, row.command)
    step: dict[str, Any] = {
        "step": index,
        "command": redact_argv(list(planned) if planned else row.command),
        "success": row.success,
        "resultCategory": "success" if row.success else "failure",
    }
    if row.success:
        step["successCategory"] = SuccessCategory.COMPLETED.value
        step["result"] = redact_data(_visible(row.result), path=path)
        spec = match.spec if match is not None else None
        mutating = spec is not None and spec.page_change_summary and not spec.read_only
        if mutating and not _landed(row.result):
            step["dispatchOnly"] = True
    else:
        error = scrub_exact(redact_text(row.error or "failed"), argv_secrets(row.command))
        step["error"] = error
        step["failureCategory"] = _failure_category(error, row.command).value
    lifecycle = _lifecycle(row.result)
    if lifecycle is not None:
        step["lifecycle"] = lifecycle
    return step


def _landed(result: Any) -> bool:
    """A step that answered with the page it landed on (`open`: url, title) was observed; it
    is not "dispatched without an observed change" next to its own `Opened:` line."""
    return isinstance(result, Mapping) and isinstance(result.get("url"), str)


def _visible(data: Any) -> Any:
    if isinstance(data, Mapping):
        return {k: v for k, v in data.items() if k != "lifecycle"}
    return data


def _lifecycle(data: Any) -> dict[str, Any] | None:
    if isinstance(data, Mapping):
        life = data.get("lifecycle")
        if isinstance(life, Mapping):
            launch = life.get("effectiveLaunch")
            if isinstance(launch, Mapping) and isinstance(launch.get("browserLaunched"), bool):
                return {"effectiveLaunch": {"browserLaunched": launch["browserLaunched"]}}
    return None


def observe_batch(plan: ExecutionPlan, envelope: Envelope) -> Observation:
    """Aggregate and per-step outcomes of a native batch."""
    rows = envelope.rows or ()
    planned = plan.checked.batch.rows if plan.checked.batch else ()
    # The engine answers no empty row: answered row i is the i-th planned row with words.
    matches = [m for row, m in zip(planned, plan.row_matches or (), strict=False) if row]
    reached = [r for r in planned if r]
    steps = [
        _step(
            i,
            row,
            matches[i - 1] if i - 1 < len(matches) else None,
            reached[i - 1] if i - 1 < len(reached) else None,
        )
        for i, row in enumerate(rows, start=1)
    ]
    rollup = [
        {k: v for k, v in s.items() if k in ("success", "command", "result", "error")}
        for s in steps
    ]
    obs = Observation(success=envelope.success, data=rollup)
    obs.extra["batchSteps"] = steps
    if isinstance(stale := envelope.extra.get("staleRef"), dict):
        obs.extra["staleRef"] = stale  # a later segment refused before it ran
    ok = sum(1 for s in steps if s["success"])
    obs.summary = f"Batch: {ok}/{len(steps)} steps succeeded ({len(reached)} planned)."
    if envelope.success:
        obs.success_category = SuccessCategory.COMPLETED
        return obs
    failed = next((s for s in steps if not s["success"]), None)
    if failed is not None:
        obs.extra["batchFailure"] = {"failedStep": failed}
        obs.error = (
            f"step {failed['step']} ({' '.join(failed['command'])}) failed: {failed['error']}"
        )
        obs.failure_category = FailureCategory(failed["failureCategory"])
    else:
        obs.error = redact_text(envelope.error or "batch failed")
        obs.failure_category = _failure_category(obs.error, plan.checked.command_tokens, envelope)
    return obs


def observe_direct(plan: ExecutionPlan, envelope: Envelope) -> Observation:
    """Outcome of a single (non-batch) command."""
    path = plan.path
    pending = _pending_confirmation(envelope.data)
    if envelope.success and pending is not None:
        return _confirmation_required(plan, pending)
    if envelope.success:
        obs = Observation(success=True)
        obs.data = redact_data(_visible(envelope.data), path=path)
        obs.success_category = classify_success(
            inspection=plan.checked.inspection,
            pending_artifacts=0,
            unverified_artifacts=0,
            saved_file=False,
            artifact_count=0,
        )
        if envelope.warning:
            obs.warnings.append(redact_text(envelope.warning))
        if path == ("read",):
            _read_execution(plan, envelope.data, obs)
        return obs
    secrets = argv_secrets(plan.effective_args)
    error = scrub_exact(redact_text(envelope.error or "agent-browser failed"), secrets)
    obs = Observation(success=False, error=error)
    obs.failure_category = _failure_category(error, plan.checked.command_tokens, envelope)
    hint = getter_hint(error, tuple(plan.checked.command_tokens), _explicit_session(plan))
    if hint is not None:
        obs.warnings.extend(hint.lines)
        action = hint.next_action()
        if action is not None:
            obs.next_actions.append(action)
    return obs


def _read_execution(plan: ExecutionPlan, data: Any, obs: Observation) -> None:
    """`read` may fetch over HTTP without a browser; say which path ran, in words.

    The facts (source, CLI start, browser lifecycle, managed-session outcome) are otherwise
    only in details, which many hosts never show the model.
    """
    source = data.get("source") if isinstance(data, Mapping) else None
    lifecycle = _lifecycle(data)
    launched = lifecycle["effectiveLaunch"]["browserLaunched"] if lifecycle else None
    if isinstance(source, str):
        obs.extra["readSource"] = source
    browser = {True: "active", False: "not launched", None: "unknown"}[launched]
    life = data.get("lifecycle") if isinstance(data, Mapping) else None
    if not plan.session.used_implicit_session:
        session = "caller-selected session (not managed by the wrapper)"
    elif isinstance(life, Mapping) and life.get("reused") is True:
        session = "managed session reused"
    elif isinstance(life, Mapping) and life.get("launched") is True:
        session = "managed session started"
    else:
        session = "managed session outcome unknown"
    owner = "implicit managed" if plan.session.used_implicit_session else "caller-selected"
    obs.extra["readExecution"] = (
        f"Read execution: source {source or 'unknown'}; agent-browser CLI started and exited "
        f"0; {owner} session browser {browser}; {session}."
    )


def _pending_confirmation(data: Any) -> dict[str, Any] | None:
    """The engine's pending-confirmation payload (`confirmation_required: true`), if any."""
    if isinstance(data, Mapping) and data.get("confirmation_required") is True:
        ident = data.get("confirmation_id")
        if isinstance(ident, str) and ident:
            return {"id": ident, "action": data.get("action")}
    return None


def _confirmation_required(plan: ExecutionPlan, pending: dict[str, Any]) -> Observation:
    """The action did not run: it waits for an explicit confirm/deny with the exact id."""
    prefix = na.session_prefix(plan.session.key, not plan.session.used_implicit_session)
    ident = pending["id"]
    obs = Observation(
        success=False,
        failure_category=FailureCategory.CONFIRMATION_REQUIRED,
        error=(
            f"`{pending.get('action') or plan.path[0]}` needs confirmation (id {ident}); it has "
            "not run. Confirm only if the user's request covers it."
        ),
    )
    obs.data = {"confirmationId": ident, "action": pending.get("action")}
    obs.next_actions += [
        na.NextAction(
            id="confirm-pending-action",
            reason="Approve the pending action with its exact native id.",
            safety="Only when the user's request authorizes this action.",
            params={"args": [*prefix, "confirm", ident]},
        ),
        na.NextAction(
            id="deny-pending-action",
            reason="Reject the pending action with its exact native id.",
            params={"args": [*prefix, "deny", ident]},
        ),
    ]
    return obs


def _explicit_session(plan: ExecutionPlan) -> str | None:
    key = plan.session.key
    return key.session if key is not None and not plan.session.used_implicit_session else None


_REFUSED_NAVIGATION = (FailureCategory.UPSTREAM_ERROR, FailureCategory.POLICY_BLOCKED)


def _navigates(plan: ExecutionPlan) -> bool:
    match = plan.match
    return (
        not plan.is_batch and match is not None and match.spec.page_effect is PageEffect.NAVIGATES
    )


def add_recovery(
    plan: ExecutionPlan,
    obs: Observation,
    *,
    target_unknown: bool,
    max_timeout_ms: int,
    network_source_enabled: bool = False,
) -> None:
    """Attach exact next actions for timeouts, unknown targets, tab_gone and mutations.

    `max_timeout_ms` is the operator's bound on `timeoutMs`: a suggested retry never asks for
    more than the server would accept. `network_source_enabled` says whether a failed-request
    source lookup can be called directly or needs its capability enabled first.
    """
    prefix = na.session_prefix(plan.session.key, not plan.session.used_implicit_session)
    category = obs.failure_category
    if not obs.success and category is FailureCategory.TIMEOUT:
        timeout_recovery.add(plan, obs, prefix, target_unknown, max_timeout_ms)
    if (
        not obs.success
        and category is FailureCategory.TIMEOUT
        and plan.timeout.source in ("dialog", "dialog-trigger")
    ):
        # A blocking alert/confirm/prompt stalls every page command: look, dismiss, or start
        # over, instead of repeating the call that opened it.
        obs.next_actions += na.dialog_timeout_actions(prefix)
    if not obs.success and category is FailureCategory.STALE_REF:
        _engine_stale_ref(plan, obs, prefix)
    if not obs.success and category in _REFUSED_NAVIGATION and _navigates(plan):
        obs.next_actions.append(na.check_page_after_failed_navigation(prefix))
    if not obs.success and category is FailureCategory.TAB_GONE and "browserLost" not in obs.extra:
        # A lost browser already carries its reopen call; a pinned tab that closed does not.
        obs.next_actions.extend(na.tab_gone_actions(prefix))
    if not obs.success and obs.error and "is covered by" in obs.error:
        obs.next_actions.append(na.inspect_overlay_state(prefix))
    if obs.success and plan.path == ("snapshot",) and isinstance(obs.data, Mapping):
        _overlay_blockers(obs, prefix)
    if obs.success and plan.match is not None and _mutates(plan.match):
        obs.next_actions.append(na.inspect_after_mutation(prefix))
    if obs.success and plan.path[:2] == ("network", "requests") and isinstance(obs.data, Mapping):
        _network_request_followups(plan, obs, obs.data, prefix, network_source_enabled)


def _network_request_followups(
    plan: ExecutionPlan,
    obs: Observation,
    data: Mapping[str, Any],
    prefix: list[str],
    source_enabled: bool,
) -> None:
    """Detail/clear/HAR follow-ups, and the source lookup for an actionable failed row."""
    rows = diagnostics.request_rows(data)
    chosen = diagnostics.select_request_id(rows)
    obs.next_actions += na.network_request_actions(prefix, chosen)
    if chosen is not None and _source_lookup_fits(rows, chosen):
        obs.next_actions += na.network_source_actions(
            plan.session.key,
            not plan.session.used_implicit_session,
            chosen,
            enabled=source_enabled,
        )


def _source_lookup_fits(rows: Sequence[Mapping[str, Any]], request_id: str) -> bool:
    """Only an actionable failed row whose URL gives the source lookup something to search
    for earns a lookup action; a favicon miss or an opaque URL would only cost a call."""
    row = next((r for r in rows if r.get("requestId") == request_id), None)
    if row is None:
        return False
    verdict = diagnostics.classify_network_request_failure(row).verdict
    return verdict == "actionable" and correlatable(str(row.get("url") or ""))


def _engine_stale_ref(plan: ExecutionPlan, obs: Observation, prefix: list[str]) -> None:
    """A ref the engine itself refused: the same reason field and next action as the guard's.

    `Unknown ref` means the engine has no such id; `Could not locate element` means the node
    behind the ref is gone and no element with its role and name is left either.
    """
    failed = obs.extra.get("batchFailure", {}).get("failedStep")
    step = failed.get("step") if isinstance(failed, Mapping) else None
    if plan.is_batch and isinstance(step, int):
        matches = plan.row_matches or ()
        match = matches[step - 1] if 0 < step <= len(matches) else None
    else:
        match = plan.match
    refs = ["@" + r for r in ref_ids(match)] if match is not None else []
    unknown = "unknown ref" in (obs.error or "").lower()
    code = "engine-unknown-ref" if unknown else "engine-element-not-found"
    obs.extra.setdefault("staleRef", {"refs": refs, "step": step, "reason": code})
    if not any(a.id == "refresh-interactive-refs" for a in obs.next_actions):
        obs.next_actions.append(na.refresh_interactive_refs(prefix))


def _overlay_blockers(obs: Observation, prefix: list[str]) -> None:
    payload = snapshot_payload(obs.data)
    found = (
        overlay_blockers(payload.refs, payload.text)
        if payload is not None and payload.refs is not None
        else None
    )
    if found is not None:
        overlays.attach(obs, found, prefix)


def _mutates(match: CommandMatch) -> bool:
    spec = match.spec
    return spec.page_effect in (
        PageEffect.NAVIGATES,
        PageEffect.MAY_NAVIGATE,
        PageEffect.HISTORY,
    ) or (spec.page_change_summary and not spec.read_only)
