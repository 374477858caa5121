"""Direct tool, after the engine answered: probe, observe, record, present.

`conclude` does the post-dispatch work for a spawned call; `finish` turns any observation
(including pre-dispatch rejections) into the `ToolResult` with its details.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from agent_browser_tools.engine.envelope import EngineFailure, Envelope, OutputMode
from agent_browser_tools.engine.runner import RawOutcome
from agent_browser_tools.planning.plan import ExecutionPlan
from agent_browser_tools.redaction import (
    argv_secrets,
    redact_argv,
    redact_native_batch_text,
    redact_native_text,
    redact_text,
    redact_url,
    scrub_exact,
)
from agent_browser_tools.results.bounds import bound_json, bound_visible
from agent_browser_tools.results.categories import FailureCategory
from agent_browser_tools.results.observation import Observation
from agent_browser_tools.results.output_file import resolve_output_path
from agent_browser_tools.results.output_file import save as save_output
from agent_browser_tools.results.present import render_json, render_prose
from agent_browser_tools.results.tool_result import ImageBlock, TextBlock, ToolResult
from agent_browser_tools.runtime import Runtime
from agent_browser_tools.state.effects import (
    Probe,
    failure_effects,
    success_effects,
    text_mode_effects,
)
from agent_browser_tools.state.journal import scrub_effect
from agent_browser_tools.state.models import Effect, ManagedSessionSelected
from agent_browser_tools.taxonomy.lookup import PageEffect
from agent_browser_tools.tools.agent_browser import artifacts as artifact_flow
from agent_browser_tools.tools.agent_browser import observe as direct_observe
from agent_browser_tools.tools.agent_browser import page_change
from agent_browser_tools.tools.agent_browser import snapshot as snapshot_flow
from agent_browser_tools.tools.agent_browser.helpers import helper_call
from agent_browser_tools.tools.agent_browser.hooks import Hooks
from agent_browser_tools.tools.agent_browser.sessions import headed_handoff, settle_fresh

STDERR_DETAIL_LIMIT = 4_000


def rejected(message: str, params: Mapping[str, Any], wants_json: bool) -> ToolResult:
    """A validation failure before any planning or spawn.

    Validation messages quote the refused argv, so they get the argv's own redaction.
    """
    args = params.get("args") if isinstance(params, Mapping) else None
    tokens = [str(a) for a in args] if isinstance(args, list) else None
    message = scrub_exact(redact_text(message), argv_secrets(tokens or ()))
    obs = Observation(
        success=False, failure_category=FailureCategory.VALIDATION_ERROR, error=message
    )
    details: dict[str, Any] = {
        "args": redact_argv(tokens) if tokens is not None else None,
        "validationError": message,
        **obs.to_dict(),
    }
    text = render_json(obs) if wants_json else "\n".join(render_prose(obs, ()))
    return ToolResult(content=(TextBlock(text=text),), details=details, is_error=True)


async def run_probe(rt: Runtime, plan: ExecutionPlan) -> Probe | None:
    """One extra engine call: `get url` and `get title` in a single fail-fast batch."""
    stdin = json.dumps([["get", "url"], ["get", "title"]])
    envelope = await helper_call(rt, plan, ["batch", "--bail"], stdin=stdin)
    if envelope is None:
        return None
    url = title = None
    for row in envelope.rows or ():
        if row.success and isinstance(row.result, Mapping):
            url = url or _str(row.result.get("url"))
            title = title or _str(row.result.get("title"))
    if not url:
        return None
    return Probe(url=redact_url(url), title=redact_text(title) if title else None)


def _str(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


def _wants_probe(plan: ExecutionPlan, envelope: Envelope) -> bool:
    if plan.output_mode is not OutputMode.JSON or plan.session.key is None:
        return False
    if envelope.failure in (EngineFailure.TIMEOUT, EngineFailure.MISSING_BINARY):
        return False
    if plan.is_batch:
        reached = [m for m, _ in zip(plan.row_matches or (), envelope.rows or (), strict=False)]
        return any(
            m is not None and (m.spec.navigation_summary or m.spec.failure_probe) for m in reached
        )
    spec = plan.match.spec if plan.match is not None else None
    if spec is None:
        return False
    if envelope.success:
        # Anything that may navigate (keys, taps, locator clicks, evals) is probed too: an
        # unobserved navigation would let old refs pass the stale-ref guard on the new page.
        return spec.navigation_summary or spec.page_effect is PageEffect.MAY_NAVIGATE
    return spec.failure_probe


def _effects(plan: ExecutionPlan, envelope: Envelope, probe: Probe | None) -> list[Effect]:
    owner = plan.session.ownership
    launch = plan.session.launch_flags
    if plan.output_mode is OutputMode.TEXT:
        return (
            []
            if plan.checked.inspection
            else text_mode_effects(plan.match, plan.checked.command_tokens)
        )
    if not plan.is_batch:
        tokens = plan.checked.command_tokens
        if envelope.success:
            return success_effects(
                plan.match, tokens, envelope.data, probe=probe, ownership=owner, launch_flags=launch
            )
        return failure_effects(
            plan.match,
            tokens,
            envelope.error,
            timed_out=envelope.failure is EngineFailure.TIMEOUT,
            probe=probe,
        )
    effects: list[Effect] = []
    for match, row in zip(plan.row_matches or (), envelope.rows or (), strict=False):
        if row.success:
            effects += success_effects(
                match, row.command, row.result, probe=None, ownership=owner, launch_flags=launch
            )
        else:
            effects += failure_effects(match, row.command, row.error, timed_out=False, probe=None)
    if envelope.failure is EngineFailure.TIMEOUT:
        effects += failure_effects(None, ("batch",), envelope.error, timed_out=True, probe=None)
    if probe is not None:
        effects += success_effects(
            None,
            ("get", "url"),
            {"url": probe.url, "title": probe.title},
            probe=None,
            ownership=None,
            launch_flags=(),
        )
    return effects


def _observe(plan: ExecutionPlan, envelope: Envelope) -> Observation:
    if plan.output_mode is OutputMode.TEXT:
        single = (
            plan.match is not None and plan.path[:1] == ("storage",) and bool(plan.match.operands)
        )
        if plan.is_batch:
            paths = [m.spec.path for m in plan.row_matches or () if m is not None]
            text = redact_native_batch_text(envelope.text or "", paths)
        else:
            text = redact_native_text(envelope.text or "", plan.path, single_key=single)
        # Upstream may quote a row's argv (`unknown flag '--password=…'`) in its output.
        literals = _argv_literals(plan)
        text = scrub_exact(text, literals)
        if envelope.success:
            return Observation(success=True, data=text, success_category=_text_category(plan))
        error = scrub_exact(redact_text(envelope.error or ""), literals)
        obs = Observation(success=False, data=text or None, error=error)
        obs.failure_category = direct_observe.classify_text_failure(plan, envelope, obs.error or "")
        return obs
    if plan.is_batch and envelope.rows is not None:
        return direct_observe.observe_batch(plan, envelope)
    return direct_observe.observe_direct(plan, envelope)


def _argv_literals(plan: ExecutionPlan) -> list[str]:
    rows = plan.checked.batch.rows if plan.checked.batch is not None else ()
    return [s for argv in (plan.effective_args, *rows) for s in argv_secrets(argv)]


def _text_category(plan: ExecutionPlan) -> Any:
    from agent_browser_tools.results.categories import SuccessCategory

    return SuccessCategory.INSPECTION if plan.checked.inspection else SuccessCategory.COMPLETED


async def conclude(
    rt: Runtime,
    plan: ExecutionPlan,
    call_id: str,
    raw: RawOutcome,
    envelope: Envelope,
    output_path: str | None = None,
    hooks: Hooks | None = None,
) -> ToolResult:
    """Everything after the engine answered a spawned call."""
    key = plan.session.key
    prior = rt.log.state.session(key) if key is not None else None
    if raw.stdout_path is not None:
        # The runner's overflow file holds raw, unredacted engine output: never keep it.
        raw.stdout_path.unlink(missing_ok=True)
    obs = _observe(plan, envelope)
    pending = obs.failure_category is FailureCategory.CONFIRMATION_REQUIRED
    probe = await run_probe(rt, plan) if _wants_probe(plan, envelope) and not pending else None
    # Scrubbed now, not only when journaled: summaries built from effects quote their URLs.
    effects = [] if pending else [scrub_effect(e) for e in _effects(plan, envelope, probe)]
    page_change.annotate(plan, obs, prior, probe, effects)
    if plan.path == ("snapshot",) and obs.success and plan.output_mode is OutputMode.JSON:
        snapshot_flow.compact(rt, obs)
        if hooks is not None and hooks.snapshot is not None:
            previous = prior.ref_snapshot.refs if prior and prior.ref_snapshot else None
            await snapshot_flow.apply_views(rt, plan, obs, hooks.snapshot, previous)
    if key is not None and plan.output_mode is OutputMode.JSON and not pending:
        delta_effects = await snapshot_flow.complete_delta(rt, plan, obs, envelope)
        effects += [scrub_effect(e) for e in delta_effects]
    entries = artifact_flow.verify(plan, envelope, raw, rt.cwd)
    images = artifact_flow.attach(plan, obs, entries, rt.settings.inline_image_max_bytes)
    if key is not None and obs.success and plan.session.used_implicit_session:
        if rt.log.state.managed_session != key.session:
            effects.append(ManagedSessionSelected(session=key.session))
        if rt.root_id == rt.conversation_id or plan.session.fresh:
            # A sub-agent shares its root's browser; only the root closes it.
            rt.owned_sessions.add(key)
    await settle_fresh(rt, plan, obs, effects)
    if plan.output_mode is OutputMode.JSON and not plan.is_batch:
        headed_handoff(plan, obs, envelope.data)
    if key is not None:
        rt.log.complete(call_id, key, obs.success, effects)
    unknown = key is not None and rt.log.state.session(key).target_unknown
    direct_observe.add_recovery(plan, obs, target_unknown=unknown)
    _process_details(obs, raw, envelope)
    if plan.path[:1] == ("find",) and obs.failure_category is FailureCategory.SELECTOR_NOT_FOUND:
        # Imported here: the recovery snapshot runs through the executor, which imports us.
        from agent_browser_tools.tools.action.run import recover_find_miss

        await recover_find_miss(rt, plan, obs)
    if hooks is not None and hooks.post is not None:
        await hooks.post(rt, plan, obs)
    extra = hooks.details if hooks is not None else None
    return finish(rt, plan, obs, raw, images=images, output_path=output_path, extra_details=extra)


def _process_details(obs: Observation, raw: RawOutcome, envelope: Envelope) -> None:
    obs.extra.setdefault("_details", {}).update(
        {
            "exitCode": raw.exit_code,
            "timedOut": raw.timed_out,
            "timeoutMs": raw.timeout_ms,
            "durationMs": round(raw.duration_ms, 1),
        }
    )
    if envelope.stderr:
        obs.extra["_details"]["stderr"] = redact_text(envelope.stderr[-STDERR_DETAIL_LIMIT:])
    if envelope.parse_error:
        obs.extra["_details"]["parseError"] = envelope.parse_error


def finish(
    rt: Runtime,
    plan: ExecutionPlan,
    obs: Observation,
    raw: RawOutcome | None,
    *,
    images: list[ImageBlock] | None = None,
    output_path: str | None = None,
    extra_details: Mapping[str, Any] | None = None,
) -> ToolResult:
    """Render the observation and assemble details."""
    hidden = obs.extra.pop("_details", {})
    output_line = _save_output(rt, plan, obs, output_path)
    observation = obs.to_dict()
    if plan.output_mode is OutputMode.TEXT and plan.checked.inspection and obs.success:
        body, tail = str(obs.data or ""), ""
    elif plan.caller_json:
        body, tail = "", ""
    else:
        native = (
            obs.data if plan.output_mode is OutputMode.TEXT and isinstance(obs.data, str) else None
        )
        body, tail = render_prose(obs, plan.path, native_text=native)
    if output_line and not plan.caller_json:
        tail = "\n".join(part for part in (output_line, tail) if part)
    if plan.caller_json and not (plan.checked.inspection and obs.success):
        compact_text = obs.context.get("snapshot_text")
        bounded = bound_json(
            observation,
            rt.spill_dir,
            compact_text=compact_text if isinstance(compact_text, str) else None,
        )
    else:
        bounded = bound_visible(body, tail, observation, rt.spill_dir)
    details: dict[str, Any] = {
        "args": redact_argv(plan.args),
        "effectiveArgs": redact_argv(plan.effective_args),
        "command": list(plan.path),
        "sessionMode": plan.session_mode,
        "usedImplicitSession": plan.session.used_implicit_session,
        **observation,
        **hidden,
        **(extra_details or {}),
    }
    if plan.session.key is not None:
        details["sessionName"] = plan.session.key.session
        if plan.session.key.namespace is not None:
            details["namespace"] = plan.session.key.namespace
        _state_details(rt, plan, details)
    if plan.checked.normalized_from:
        details["normalizedFrom"] = plan.checked.normalized_from
    if bounded.observation_path:
        details["observationPath"] = bounded.observation_path
    if bounded.spill_error:
        details["spillError"] = bounded.spill_error
    if not obs.success and obs.failure_category is FailureCategory.VALIDATION_ERROR:
        details["validationError"] = obs.error
    content: tuple[TextBlock | ImageBlock, ...] = (TextBlock(text=bounded.text), *(images or ()))
    return ToolResult(content=content, details=details, is_error=not obs.success)


def _save_output(
    rt: Runtime, plan: ExecutionPlan, obs: Observation, output_path: str | None
) -> str | None:
    """Write `outputPath` for a successful result; a failed write fails the result."""
    if not output_path or not obs.success:
        return None
    try:
        target = resolve_output_path(output_path, rt.cwd)
    except ValueError as exc:
        info: dict[str, Any] = {"status": "failed", "path": output_path, "error": str(exc)}
    else:
        artifact_paths = [e["path"] for e in obs.extra.get("artifacts", [])]
        text = "\n".join(render_prose(obs, plan.path))
        info = save_output(target, obs.data, text, artifact_paths, rt.cwd)
    obs.extra["outputFile"] = info
    if info["status"] == "saved":
        return f"Output file: {info['path']} ({info['bytes']} bytes)"
    obs.success = False
    obs.success_category = None
    obs.failure_category = FailureCategory.VALIDATION_ERROR
    obs.error = f"outputPath not written: {info['error']}"
    return None


def _state_details(rt: Runtime, plan: ExecutionPlan, details: dict[str, Any]) -> None:
    assert plan.session.key is not None
    entry = rt.log.state.session(plan.session.key)
    if entry.ref_snapshot is not None:
        details["refSnapshot"] = {
            "refs": {
                k: v.model_dump(exclude_none=True) for k, v in entry.ref_snapshot.refs.items()
            },
            "target": {"url": entry.ref_snapshot.target_url},
        }
    if entry.ref_invalidation is not None:
        details["refSnapshotInvalidation"] = entry.ref_invalidation.model_dump()
    if entry.target_unknown:
        details["sessionTabTargetUnknown"] = True
    elif entry.target is not None:
        details["sessionTabTarget"] = entry.target.model_dump(exclude_none=True)
