"""Direct tool, last stage: details and presentation.

`conclude` finishes a spawned call (process facts, the caller's post hook, presentation);
`refused` finishes a call the guards stopped before dispatch; `finish` turns any observation
into the `ToolResult` with its details (inputs refused before planning: `response.rejected`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from agent_browser_tools.engine.envelope import Envelope, OutputMode
from agent_browser_tools.engine.runner import RawOutcome
from agent_browser_tools.last_made import LastMade
from agent_browser_tools.planning.file_policy import check_output_path
from agent_browser_tools.planning.plan import ExecutionPlan
from agent_browser_tools.planning.policy import PolicyBlocked
from agent_browser_tools.redaction import redact_argv, redact_text
from agent_browser_tools.results import response
from agent_browser_tools.results.bounds import Bounded, bound_json, bound_visible
from agent_browser_tools.results.categories import FailureCategory
from agent_browser_tools.results.observation import Observation, ProcessFacts
from agent_browser_tools.results.output_file import resolve_output_path
from agent_browser_tools.results.output_file import save as save_output
from agent_browser_tools.results.present import render_prose
from agent_browser_tools.results.tool_result import ImageBlock, ToolResult
from agent_browser_tools.runtime import Runtime
from agent_browser_tools.state.models import RefInfo, RefSnapshot
from agent_browser_tools.tools.agent_browser import summary
from agent_browser_tools.tools.agent_browser.browser import reopen_pending
from agent_browser_tools.tools.agent_browser.call import DirectCall, Spawned
from agent_browser_tools.tools.agent_browser.files import manifest_receipts, recording
from agent_browser_tools.tools.agent_browser.page import page_change

STDERR_DETAIL_LIMIT = 4_000


async def conclude(
    call: DirectCall, obs: Observation, spawned: Spawned, images: list[ImageBlock]
) -> ToolResult:
    """The page-change summary's last touch, process facts into details, the caller's post
    hook, then the result."""
    page_change.settle(call.plan, obs)
    _process_details(obs, spawned.raw, spawned.envelope)
    obs.warnings[:0] = call.warnings
    obs.next_actions[:0] = call.next_actions
    if call.browser_lost:
        obs.extra["browserLost"] = dict(call.browser_lost)
    if call.hooks.post is not None:
        await call.hooks.post(call.rt, call.plan, obs)
    return finish(
        call.rt,
        call.plan,
        obs,
        spawned.raw,
        images=images,
        output_path=call.output_path,
        extra_details=call.hooks.details,
        model_visible=call.hooks.model_visible,
        refs_before=_refs_before(call),
    )


def _refs_before(call: DirectCall) -> object:
    """The map `refsUnchanged` compares with: none for a `--search` or `--filter` view, whose
    answer carries the full latest map (the contract: the view shows matches, the map stays
    whole beside it)."""
    flags = call.hooks.snapshot
    if flags is not None and (flags.search is not None or flags.role is not None):
        return None
    return call.refs_at_start


async def refused(call: DirectCall, obs: Observation) -> ToolResult:
    """A call the guards stopped before dispatch: the post hook still sees it, and a pending
    recording's cleanup action is offered like on any failure."""
    obs.warnings[:0] = call.warnings
    recording.pending_followups(call, obs)
    obs.next_actions[:0] = call.next_actions
    if call.browser_lost:
        obs.extra["browserLost"] = dict(call.browser_lost)
    if call.hooks.post is not None:
        await call.hooks.post(call.rt, call.plan, obs)
    return finish(
        call.rt,
        call.plan,
        obs,
        None,
        extra_details=call.hooks.details,
        refs_before=call.refs_at_start,
    )


def _process_details(obs: Observation, raw: RawOutcome, envelope: Envelope) -> None:
    obs.process = ProcessFacts(
        exitCode=raw.exit_code,
        timedOut=raw.timed_out,
        timeoutMs=raw.timeout_ms,
        durationMs=round(raw.duration_ms, 1),
    )
    if envelope.stderr:
        obs.process["stderr"] = redact_text(envelope.stderr[-STDERR_DETAIL_LIMIT:])
    if envelope.parse_error:
        obs.process["parseError"] = envelope.parse_error


def finish(
    rt: Runtime,
    plan: ExecutionPlan,
    obs: Observation,
    raw: RawOutcome | None,
    *,
    images: list[ImageBlock] | None = None,
    output_path: str | None = None,
    extra_details: Mapping[str, Any] | None = None,
    model_visible: bool = True,
    refs_before: object = None,
) -> ToolResult:
    """Render the observation and assemble details.

    Everything written here (the spill, `outputPath`, text, details) is scrubbed of the
    conversation's registered secret values first (`Runtime.secrets`). `model_visible=False`
    (a code cell's inner call, read as data) renders no text and spills nothing.
    `refs_before` is the session's ref map when the call began (see `_ref_snapshot`).
    """
    hidden = obs.process or ProcessFacts()
    scrub = rt.secrets
    output_line = _save_output(rt, plan, obs, output_path)
    observation = scrub.scrub_data(obs.to_dict())
    bounded = _bounded(rt, plan, obs, observation, output_line) if model_visible else Bounded("")
    details: dict[str, Any] = {
        "args": scrub.scrub_argv(redact_argv(plan.args)),
        "effectiveArgs": scrub.scrub_argv(redact_argv(plan.effective_args)),
        "command": " ".join(plan.path),  # the contract's command name: "click", "diff screenshot"
        "sessionMode": plan.session_mode,
        "usedImplicitSession": plan.session.used_implicit_session,
        "summary": summary.ordinary(plan, obs),  # replaced by the call's own, if any
        **observation,
        **hidden,
        **(extra_details or {}),
    }
    if plan.session.key is not None:
        details["sessionName"] = plan.session.key.session
        if plan.session.key.namespace is not None:
            details["namespace"] = plan.session.key.namespace
        _state_details(rt, plan, details, refs_before)
    if plan.checked.normalized_from:
        details["normalizedFrom"] = plan.checked.normalized_from
    if bounded.observation_path:
        details["observationPath"] = bounded.observation_path
    if bounded.spill_error:
        details["spillError"] = bounded.spill_error
    if not obs.success and obs.failure_category is FailureCategory.VALIDATION_ERROR:
        details["validationError"] = obs.error
    manifest_receipts.attach(rt, details)
    details = scrub.scrub_data(details)
    return response.from_observation(obs, text=bounded.text, details=details, images=images or ())


def _bounded(
    rt: Runtime,
    plan: ExecutionPlan,
    obs: Observation,
    observation: dict[str, Any],
    output_line: str | None,
) -> Bounded:
    """The visible text within the limit (the full observation spilled when needed)."""
    body, tail = _rendered(rt, plan, obs, output_line)
    if plan.caller_json and not (plan.checked.inspection and obs.success):
        compact_text = obs.context.get("snapshot_text")
        scrubbed = rt.secrets.scrub(compact_text) if isinstance(compact_text, str) else None
        return bound_json(observation, rt.spill_dir, compact_text=scrubbed)
    return bound_visible(body, tail, observation, rt.spill_dir)


def _rendered(
    rt: Runtime, plan: ExecutionPlan, obs: Observation, output_line: str | None
) -> tuple[str, str]:
    """The visible body and tail (scrubbed): native text, nothing for caller JSON, or prose."""
    if plan.output_mode is OutputMode.TEXT and plan.checked.inspection and obs.success:
        body, tail = str(obs.data or ""), ""
    elif plan.caller_json:
        body, tail = "", ""
    else:
        native = (
            obs.data if plan.output_mode is OutputMode.TEXT and isinstance(obs.data, str) else None
        )
        body, tail = render_prose(obs, plan.path, native_text=native, match=plan.match)
    if output_line and not plan.caller_json:
        tail = "\n".join(part for part in (output_line, tail) if part)
    return rt.secrets.scrub(body), rt.secrets.scrub(tail)


def _save_output(
    rt: Runtime, plan: ExecutionPlan, obs: Observation, output_path: str | None
) -> str | None:
    """Write `outputPath` for a successful result; a failed write fails the result.
    Recording results export their receipt whatever the outcome (`recording.receipt`)."""
    receipt = recording.exports_receipt(plan)
    if not output_path or not (obs.success or receipt):
        return None
    info: dict[str, Any]
    try:
        # Judged again at write time: the call itself may have changed the filesystem.
        check_output_path(output_path, rt.file_roots)
        target = resolve_output_path(output_path, rt.cwd)
    except PolicyBlocked as exc:
        info = {"status": "failed", "path": output_path, "error": str(exc)}
        obs.extra["outputFile"] = info
        obs.success, obs.success_category = False, None
        obs.failure_category, obs.error = FailureCategory.POLICY_BLOCKED, str(exc)
        return None
    except ValueError as exc:
        info = {"status": "failed", "path": output_path, "error": str(exc)}
    else:
        artifact_paths = [e["path"] for e in obs.extra.get("artifacts", [])]
        text = rt.secrets.scrub("\n".join(render_prose(obs, plan.path, match=plan.match)))
        data = rt.secrets.scrub_data(recording.receipt(plan, obs) if receipt else obs.data)
        info = save_output(target, data, text, artifact_paths, rt.cwd)
        if receipt and info["status"] == "saved":
            info["source"] = "recording-receipt"
    obs.extra["outputFile"] = info
    if info["status"] == "saved":
        return f"Output file: {info['path']} ({info['bytes']} bytes)"
    if not obs.success:
        return None  # a failed recording keeps its own failure
    obs.success = False
    obs.success_category = None
    obs.failure_category = FailureCategory.VALIDATION_ERROR
    obs.error = f"outputPath not written: {info['error']}"
    return None


_DUMPED: LastMade[dict[str, dict[str, Any]]] = LastMade()


def _dumped_refs(refs: Mapping[str, RefInfo]) -> dict[str, dict[str, Any]]:
    """`details.refSnapshot.refs` as plain data. Every call repeats the session's latest ref
    map, which can hold thousands of refs: the dump of the (immutable) map is kept until the
    next snapshot replaces it; each call gets its own map of the same (read-only) records."""
    return dict(_DUMPED.get_or_make((refs,), lambda: {k: v.as_data() for k, v in refs.items()}))


REFS_ALWAYS_REPEATED = 500
"""A ref map this small travels in every answer; a larger one only in an answer whose call
recorded it, and other answers name it by its size."""


def _ref_snapshot(snapshot: RefSnapshot, refs_before: object) -> dict[str, Any]:
    """`details.refSnapshot`. Why not the whole map every time: on a page of thousands of
    refs it is megabytes, which every click would serialize, scrub and spill to a file of
    its own, for a map the call did not change (`refsUnchanged`: the answer of the call that
    recorded it carried it; `snapshot -i` reads it again). A snapshot that read the same map
    again (the same ids, elements and anchors) did not change it either."""
    target = {"url": snapshot.target_url}
    refs = snapshot.refs
    if len(refs) > REFS_ALWAYS_REPEATED and (refs is refs_before or refs == refs_before):
        return {"refCount": len(refs), "refsUnchanged": True, "target": target}
    return {"refs": _dumped_refs(refs), "target": target}


def _state_details(
    rt: Runtime, plan: ExecutionPlan, details: dict[str, Any], refs_before: object
) -> None:
    key = plan.session.key
    assert key is not None
    entry = rt.log.state.session(key)
    if entry.ref_snapshot is not None:
        details["refSnapshot"] = _ref_snapshot(entry.ref_snapshot, refs_before)
    if entry.ref_invalidation is not None:
        details["refSnapshotInvalidation"] = entry.ref_invalidation.contract_details()
    if reopen_pending.pending(entry):
        details.setdefault("sessionTabReopenPending", True)
    if entry.target_unknown:
        details["sessionTabTargetUnknown"] = True
    elif entry.target is not None:
        details["sessionTabTarget"] = entry.target.model_dump(exclude_none=True)
