"""`agent_browser_code`: sandboxed JavaScript cells over the persistent browser.

A cell is an async JavaScript body run in a fresh QuickJS worker process (`sandbox/`). Its
`browser()` calls run in this process through the direct tool's executor, bound to one browser
identity fixed before the code starts; its output is what it `emit`s (or returns) plus the
images it selects with `emitImage`. JavaScript state never outlives the cell; the browser does.

Outcome categories:

- uncaught exception, a syntax error, the 64 MiB heap cap (`InternalError: out of memory`), a
  deadlocked body, or a crashed worker -> `script-error` (with the JS message and line);
- deadline -> `timeout` (the worker is killed; an active inner call is cancelled and journaled
  as target-unknown); cancellation of the calling task -> the same clean-up, then re-raised
  (`aborted` is recorded on the host object);
- output/bridge violations -> `validation-error`: emitted JSON over 64 KiB, an invalid image
  handle, a worker message over 1 MiB or 8 MiB of IPC in total, an invalid `browser()`
  request shape (the outer result fails even when the code handled the observation), an
  `outputPath` that cannot be written or aliases a browser artifact;
- a selected image that vanished or changed on disk -> `artifact-missing`;
- an exception inside the wrapper while running an inner call -> `upstream-error` (the worker
  is stopped at once instead of waiting for a reply until the deadline).

Counting: `callCount` is every attempted `browser()` call; `rejectedCallCount` the ones refused
without dispatch (over the 25-call cap, invalid shape, another session/namespace, `close
--all`, deadline, still queued when the body finished); `failedCallCount` every call whose
observation has `success: false`, rejected ones included.
"""

from __future__ import annotations

import asyncio
import time

from agent_browser_tools.planning.file_policy import check_output_path
from agent_browser_tools.planning.policy import PolicyBlocked
from agent_browser_tools.redaction import redact_data, redact_text
from agent_browser_tools.results import response
from agent_browser_tools.results.categories import FailureCategory
from agent_browser_tools.results.observation import Observation
from agent_browser_tools.results.tool_result import ToolResult
from agent_browser_tools.runtime import Runtime
from agent_browser_tools.sandbox.bridge import BridgeOutcome, run_cell
from agent_browser_tools.tools.code import present as code_present
from agent_browser_tools.tools.code.cell import CodeCellHost, resolve_identity
from agent_browser_tools.tools.code.schema import MAX_CODE_BYTES, CodeInput

__all__ = ["CodeInput", "run"]


async def run(rt: Runtime, inp: CodeInput) -> ToolResult:
    """Execute one (validated) code cell and return its `ToolResult`."""
    size = len(inp.code.encode("utf-8"))
    if size > MAX_CODE_BYTES:
        return response.refused(
            f"code is {size} UTF-8 bytes, over the {MAX_CODE_BYTES}-byte limit; shorten it or "
            "split the work across cells."
        )
    if inp.outputPath is not None:
        try:
            check_output_path(inp.outputPath, rt.file_roots)
        except PolicyBlocked as exc:
            return response.policy_blocked(str(exc), None, exc.as_details())
    ident = resolve_identity(rt, inp.session, inp.namespace)
    loop = asyncio.get_running_loop()
    started = time.perf_counter()
    deadline = loop.time() + inp.timeoutMs / 1000
    host = CodeCellHost(rt, ident, deadline)
    try:
        outcome = await run_cell(inp.code, host, deadline=deadline)
    except asyncio.CancelledError:
        host.aborted = True
        raise
    elapsed_ms = (time.perf_counter() - started) * 1000
    return _result(rt, inp, host, outcome, elapsed_ms)


def _verdict(host: CodeCellHost, out: BridgeOutcome, timeout_ms: int) -> Observation:
    """The outer success/failure before images and the output file."""
    if out.status == "timeout":
        error = (
            f"the cell did not finish within timeoutMs={timeout_ms}; the sandbox was stopped. "
            "Browser actions already made are not rolled back; split the work or raise timeoutMs."
        )
        return Observation(success=False, failure_category=FailureCategory.TIMEOUT, error=error)
    if out.status == "violation":
        error = f"the cell broke an output/bridge limit: {out.violation}."
        return Observation(
            success=False, failure_category=FailureCategory.VALIDATION_ERROR, error=error
        )
    if out.status == "internal":
        error = f"the cell was stopped by an internal error: {out.crash}"
        return Observation(
            success=False, failure_category=FailureCategory.UPSTREAM_ERROR, error=error
        )
    if out.status == "crashed":
        error = out.crash or "the sandbox worker failed"
        return Observation(
            success=False, failure_category=FailureCategory.SCRIPT_ERROR, error=error
        )
    if out.status == "error":
        return Observation(
            success=False,
            failure_category=FailureCategory.SCRIPT_ERROR,
            error=redact_text(code_present.script_error_text(out.error)),
        )
    if host.invalid_inputs:
        error = "invalid browser() input: " + "; ".join(host.invalid_inputs[:5])
        return Observation(
            success=False, failure_category=FailureCategory.VALIDATION_ERROR, error=error
        )
    obs = Observation(success=True)
    if out.emits:
        obs.data = redact_data(out.emits[0] if len(out.emits) == 1 else list(out.emits))
    elif out.has_value:
        obs.data = redact_data(out.value)
    return obs


def _result(
    rt: Runtime, inp: CodeInput, host: CodeCellHost, out: BridgeOutcome, elapsed_ms: float
) -> ToolResult:
    obs = _verdict(host, out, inp.timeoutMs)
    # The cell's own literals can hold a typed or operator secret value: scrub before the
    # data reaches outputPath, the spill or the text.
    obs.data = rt.secrets.scrub_data(obs.data)
    obs.error = rt.secrets.scrub(obs.error) if obs.error else obs.error
    images = None
    if obs.success and host.selected:
        images = code_present.load_selected(rt, host)
        if images.error is not None:
            obs = Observation(success=False, failure_category=images.category, error=images.error)
    output_file = None
    if obs.success and inp.outputPath is not None:
        output_file = code_present.save_output(rt, inp.outputPath, obs, host)
        if output_file.get("status") == "failed":
            blocked = "policy" in output_file
            obs = Observation(
                success=False,
                failure_category=(
                    FailureCategory.POLICY_BLOCKED if blocked else FailureCategory.VALIDATION_ERROR
                ),
                error=f"outputPath was not written: {output_file.get('error')}",
            )
    code_present.add_recovery(rt, host, obs)
    return code_present.build_result(
        rt,
        host=host,
        out=out,
        obs=obs,
        images=images if obs.success else None,
        output_file=output_file,
        timeout_ms=inp.timeoutMs,
        elapsed_ms=elapsed_ms,
    )
