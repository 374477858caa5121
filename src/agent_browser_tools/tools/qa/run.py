"""`agent_browser_qa`: a diagnostic verdict for a URL or for the current page.

The flat input compiles to one fixed native `batch --bail` (see `qa_compile`), which runs
through the ordinary `agent_browser` executor (guards, journal, artifacts, categories). A post
hook judges the reached rows (`qa_verdict`) and turns any failed check into `qa-failure`, even
when the upstream batch itself succeeded. Attached QA first verifies, under the session lock,
that the session has a live nonempty page URL; otherwise it returns exact tab/URL recovery and
runs nothing.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any
from urllib.parse import urldefrag

from pydantic import ValidationError

from agent_browser_tools.engine.discovery import EngineNotFound, EngineTooOld
from agent_browser_tools.planning.argv_rules import ArgvRejected
from agent_browser_tools.planning.plan import ExecutionPlan
from agent_browser_tools.planning.policy import PolicyBlocked
from agent_browser_tools.redaction import redact_url
from agent_browser_tools.results import next_actions as na
from agent_browser_tools.results import response
from agent_browser_tools.results.categories import FailureCategory
from agent_browser_tools.results.next_actions import NextAction
from agent_browser_tools.results.observation import Observation
from agent_browser_tools.results.tool_result import ToolResult
from agent_browser_tools.runtime import Runtime
from agent_browser_tools.tools import agent_browser
from agent_browser_tools.tools.agent_browser import Hooks, PostHook, current_page_url
from agent_browser_tools.tools.agent_browser import result_from_observation as finish
from agent_browser_tools.tools.qa.compile import (
    ALLOWED,
    BATCH_ARGS,
    NAME,
    CompiledQa,
    QaInput,
    QaRejected,
    compile_qa,
)
from agent_browser_tools.tools.qa.verdict import CHECK_ROLES, QaVerdict, evaluate

BLANK_URLS = frozenset({"", "about:blank"})
# Failures the executor already names precisely, when the batch produced no rows to judge (or
# the artifact check failed closed): QA keeps them instead of folding them into qa-failure.
KEPT_CATEGORIES = frozenset(
    {
        FailureCategory.ABORTED,
        FailureCategory.ARTIFACT_MISSING,
        FailureCategory.CONFIRMATION_REQUIRED,
        FailureCategory.MISSING_BINARY,
        FailureCategory.PARSE_FAILURE,
        FailureCategory.STALE_REF,
        FailureCategory.TAB_DRIFT,
        FailureCategory.TIMEOUT,
        FailureCategory.VALIDATION_ERROR,
    }
)


async def run(rt: Runtime, inp: QaInput) -> ToolResult:
    """Compile and run one (validated) QA call; returns its `ToolResult`."""
    try:
        compiled = compile_qa(inp)
    except QaRejected as exc:
        return response.rejected(f"{NAME} input rejected: {exc}. {NAME} accepts {ALLOWED}.")
    call = agent_browser.compiled_call(
        list(BATCH_ARGS),
        compiled.stdin,
        session_mode=inp.sessionMode,
        timeout_ms=inp.timeoutMs,
        output_path=inp.outputPath,
    )
    rerun = inp.model_dump(exclude_none=True)
    hooks = Hooks(tool=NAME, post=_post(compiled, rerun), details=compiled.details())
    if not compiled.attached:
        result: ToolResult = await agent_browser.run(rt, call, hooks=hooks)
        return result
    return await _run_attached(rt, call, compiled, hooks, rerun)


async def _run_attached(
    rt: Runtime,
    call: dict[str, Any],
    compiled: CompiledQa,
    hooks: Hooks,
    rerun: dict[str, Any],
) -> ToolResult:
    try:
        plan = agent_browser.preview_plan(rt, call)
    except (ValidationError, ArgvRejected) as exc:
        return response.rejected(f"{NAME} input rejected: {exc}", call)
    except PolicyBlocked as exc:
        return response.policy_blocked(str(exc), call, exc.as_details())
    async with rt.lock_for(plan.session.key):
        refusal, live_url = await _verify_target(rt, plan)
        if refusal is not None:
            _refusal_verdict(refusal, compiled)
            return finish(rt, plan, refusal, None, extra_details=hooks.details)
        note = _drift_note(rt, plan, live_url)
        checked = dataclasses.replace(hooks, post=_post(compiled, rerun, live_url, note))
        result: ToolResult = await agent_browser.run(rt, call, hooks=checked, lock_held=True)
        return result


# ----- attached target verification ---------------------------------------------------------


def _prefix(plan: ExecutionPlan) -> list[str]:
    return na.session_prefix(plan.session.key, not plan.session.used_implicit_session)


async def _verify_target(rt: Runtime, plan: ExecutionPlan) -> tuple[Observation | None, str | None]:
    """(refusal, live URL): the session must show a live, nonempty, non-blank page URL."""
    key = plan.session.key
    if key is None:
        return _refuse(plan, "attached QA needs a browser session", None), None
    entry = rt.log.state.session(key)
    remembered = entry.target.url if entry.target is not None else None
    if entry.target_unknown:
        reason = (
            "the session's page target is unknown (a page change was not observed), so attached "
            "QA could check a page you have not seen"
        )
        return _refuse(plan, reason, None), None
    if plan.session.ownership == "managed" and not entry.active:
        reason = "no page is open in this conversation's browser yet"
        return _refuse(plan, reason, None), None
    try:
        url = await current_page_url(rt, plan)
    except (EngineNotFound, EngineTooOld) as exc:
        obs = Observation(
            success=False, failure_category=FailureCategory.MISSING_BINARY, error=str(exc)
        )
        return obs, None
    if url is None or url.strip() in BLANK_URLS:
        shown = "no URL" if url is None else (url or "an empty URL")
        reason = f"the live page URL could not be verified ({shown})"
        return _refuse(plan, reason, remembered), None
    return None, url


def _drift_note(rt: Runtime, plan: ExecutionPlan, live_url: str | None) -> str | None:
    """A warning when the live page is not the one this conversation last observed."""
    key = plan.session.key
    target = rt.log.state.session(key).target if key is not None else None
    if live_url is None or target is None:
        return None
    if urldefrag(target.url).url == urldefrag(live_url).url:
        return None
    return (
        f"Checked the live page {redact_url(live_url)}, not the last observed page "
        f"{redact_url(target.url)}; the session moved since it was last seen."
    )


def _refuse(plan: ExecutionPlan, reason: str, remembered: str | None) -> Observation:
    prefix = _prefix(plan)
    obs = Observation(
        success=False,
        failure_category=FailureCategory.TAB_DRIFT,
        error=(
            f"Attached QA did not run: {reason}. Verify the tab with `get url` (or pick one from "
            "`tab list`), or use URL QA to open the page."
        ),
    )
    obs.next_actions += [
        NextAction(
            id="verify-page-target",
            reason="Read the session's live page URL before checking the current page.",
            params={"args": [*prefix, "get", "url"]},
        ),
        NextAction(
            id="list-tabs",
            reason="List the session's tabs and select the one to check with `tab <id>`.",
            params={"args": [*prefix, "tab", "list"]},
        ),
    ]
    if remembered and remembered not in BLANK_URLS and redact_url(remembered) == remembered:
        obs.next_actions.append(
            NextAction(
                id="qa-remembered-url",
                tool=NAME,
                reason="Open the last page this session showed and check it there.",
                safety="Navigates the session and resets its diagnostic buffers.",
                params={"url": remembered},
            )
        )
    obs.extra["qaTargetVerification"] = {"verified": False, "reason": reason}
    return obs


def _refusal_verdict(obs: Observation, compiled: CompiledQa) -> None:
    reason = obs.extra.get("qaTargetVerification", {}).get("reason", obs.error)
    failed = f"target verification failed: {reason}"
    verdict = QaVerdict(
        passed=False,
        failed_checks=[failed],
        not_run_checks=[s.label for s in compiled.steps if s.role in CHECK_ROLES],
        summary=f"QA preset failed: {failed}",
    )
    obs.extra["qaPreset"] = verdict.to_dict()


# ----- verdict ----------------------------------------------------------------------------


def _post(
    compiled: CompiledQa,
    rerun: dict[str, Any],
    live_url: str | None = None,
    note: str | None = None,
) -> PostHook:
    async def post(rt: Runtime, plan: ExecutionPlan, obs: Observation) -> None:
        apply_verdict(plan, obs, compiled, rerun, live_url)
        if note is not None:
            obs.warnings.append(note)

    return post


def apply_verdict(
    plan: ExecutionPlan,
    obs: Observation,
    compiled: CompiledQa,
    rerun: Mapping[str, Any],
    live_url: str | None,
) -> None:
    """Judge the batch and make the result pass or fail on the QA verdict."""
    rows = obs.extra.get("batchSteps")
    steps = rows if isinstance(rows, list) else []
    artifacts = obs.extra.get("artifacts")
    verdict = evaluate(
        compiled.steps,
        steps,
        batch_error=None if obs.success else obs.error,
        artifacts=artifacts if isinstance(artifacts, list) else [],
    )
    obs.extra["qaPreset"] = verdict.to_dict()
    if live_url is not None:
        obs.extra["qaTargetVerification"] = {"verified": True, "url": redact_url(live_url)}
    _observed_navigation(compiled, steps)
    obs.warnings += verdict.warnings
    obs.summary = verdict.summary
    if obs.success and verdict.passed:
        return
    # A watchdog stop stays a timeout even when steps before it finished (the partial
    # progress and its retry of the rest are the executor's); an expectation's own wait
    # timing out is a failed check (`qa-failure`).
    stopped = "timeoutPartialProgress" in obs.extra
    kept = obs.failure_category in KEPT_CATEGORIES and (
        not steps or obs.failure_category is FailureCategory.ARTIFACT_MISSING or stopped
    )
    obs.success = False
    obs.success_category = None
    obs.error = verdict.summary
    if kept:
        return
    obs.failure_category = FailureCategory.QA_FAILURE
    obs.next_actions = _next_actions(plan, verdict, compiled, rerun)


def _observed_navigation(compiled: CompiledQa, steps: list[Any]) -> None:
    """The QA's own readiness wait and checks observe the opened page, so its `open` step is
    not a dispatch-only mutation."""
    for step, row in zip(compiled.steps, steps, strict=False):
        if step.role == "open" and isinstance(row, dict):
            row.pop("dispatchOnly", None)


def _next_actions(
    plan: ExecutionPlan, verdict: QaVerdict, compiled: CompiledQa, rerun: Mapping[str, Any]
) -> list[NextAction]:
    prefix = _prefix(plan)

    def browser(action_id: str, reason: str, *argv: str) -> NextAction:
        return NextAction(id=action_id, reason=reason, params={"args": [*prefix, *argv]})

    found = verdict.findings
    actions: list[NextAction] = []
    if found & {"assertion", "step"}:
        actions.append(
            browser(
                "inspect-page-after-qa-failure", "See what the page shows now.", "snapshot", "-i"
            )
        )
    if "console" in found:
        actions.append(browser("read-console", "Read the console messages in full.", "console"))
    if "network" in found and verdict.request_id is not None:
        actions.append(
            browser(
                "inspect-network-request",
                "Show headers, body and timing of the failed request.",
                "network",
                "request",
                verdict.request_id,
            )
        )
    if found & {"new-errors", "unverified-errors"}:
        actions.append(browser("read-page-errors", "Read the page errors in full.", "errors"))
    url = str(rerun.get("url", ""))
    if "unverified-errors" in found and not compiled.attached and redact_url(url) == url:
        # Only echo the caller's URL back when it carries nothing redaction would hide.
        actions.append(
            NextAction(
                id="rerun-qa-in-fresh-session",
                tool=NAME,
                reason="A fresh browser starts with an empty page-error buffer.",
                params={**rerun, "sessionMode": "fresh"},
            )
        )
    return actions
