"""Presentation of a code cell: model-visible text, image blocks and `details`.

Prose first: a one-line verdict with call counts, the selected output as pretty JSON (cut to
the visible budget with the complete observation spilled, via `results.bounds`), then the
handled browser failures with their errors and exact next actions, which are never cut,
because a successful cell does not mean every inner command succeeded.
"""

from __future__ import annotations

import json
from typing import Any

from agent_browser_tools.planning.file_policy import check_output_path
from agent_browser_tools.planning.policy import PolicyBlocked
from agent_browser_tools.results import next_actions as na
from agent_browser_tools.results import response
from agent_browser_tools.results.bounds import bound_visible
from agent_browser_tools.results.categories import (
    FailureCategory,
    SuccessCategory,
    category_line,
)
from agent_browser_tools.results.observation import Observation
from agent_browser_tools.results.tool_result import ToolResult
from agent_browser_tools.runtime import Runtime
from agent_browser_tools.sandbox.bridge import BridgeOutcome, JsError
from agent_browser_tools.settings import image_responses
from agent_browser_tools.tools.code.cell import STEP_ROWS, CodeCellHost
from agent_browser_tools.tools.code.output import ImageSelection, load_images, write_output

ERROR_PREVIEW = 400


def script_error_text(error: JsError | None) -> str:
    if error is None:
        return "the cell failed without an error message"
    message = error.message
    if error.name == "InternalError" and "out of memory" in message:
        message += " (the cell's JavaScript heap is capped at 64 MiB)"
    where = f" (line {error.line})" if error.line is not None else ""
    return f"uncaught {error.name}: {message}{where}"


def load_selected(rt: Runtime, host: CodeCellHost) -> ImageSelection:
    """The cell's selected images, checked; with image responses omitted (an operator
    setting) the result names them but attaches none."""
    selection = load_images(host.selected_handles(), rt.settings.inline_image_max_bytes)
    if selection.error is None and image_responses(rt.settings) == "omit":
        selection.blocks, selection.omitted = [], True
    return selection


def save_output(rt: Runtime, raw: str, obs: Observation, host: CodeCellHost) -> dict[str, Any]:
    if obs.data is None:
        shown = raw[1:] if raw.startswith("@") else raw
        return {
            "status": "skipped",
            "path": shown,
            "source": "code-result",
            "reason": "the cell produced no data (no emit() and no return value)",
        }
    try:
        # Judged again at write time: the cell's calls may have changed the filesystem.
        check_output_path(raw, rt.file_roots)
    except PolicyBlocked as exc:
        shown = raw[1:] if raw.startswith("@") else raw
        return {
            "status": "failed",
            "path": shown,
            "source": "code-result",
            "error": str(exc),
            "policy": exc.as_details(),
        }
    return write_output(raw, rt.cwd, obs.data, host.artifact_paths)


def add_recovery(rt: Runtime, host: CodeCellHost, obs: Observation) -> None:
    """After a timeout that left the page target unknown, the exact way to re-verify it."""
    if obs.success or obs.failure_category is not FailureCategory.TIMEOUT:
        return
    key = host.ident.key
    if rt.log.state.session(key).target_unknown:
        prefix = na.session_prefix(key, host.ident.mode != "managed")
        obs.next_actions.append(na.verify_page_target(prefix, "verify-page-target-after-timeout"))


def _counts_line(host: CodeCellHost, out: BridgeOutcome) -> str:
    parts = [f"{host.call_count} browser call(s)", f"{host.failed_count} failed"]
    if host.rejected_count:
        parts.append(f"{host.rejected_count} rejected")
    return ", ".join(parts) + f"; {len(out.emits)} emission(s)"


def _failure_lines(host: CodeCellHost) -> list[str]:
    failures = host.failures()
    if not failures:
        return []
    lines = [
        f"Browser call failures ({host.failed_count} of {host.call_count} calls; listed even "
        "when the code handled them):"
    ]
    for row in failures:
        error = str(row.get("error") or "")
        if len(error) > ERROR_PREVIEW:
            error = error[:ERROR_PREVIEW] + "…"
        command = " ".join(row["args"]) or "(invalid request)"
        lines.append(f"- call {row['call']} `{command}`: {row['failureCategory']} - {error}")
        for action in row.get("nextActions", []):
            params = json.dumps(
                action.get("params", action.get("artifactPath", {})), ensure_ascii=False
            )
            lines.append(f"  next: {action.get('id')} ({action.get('tool')}): {params}")
    hidden = host.failed_count - len(failures)
    if hidden > 0:
        lines.append(f"- … {hidden} more in details.codeSteps")
    return lines


def _body(obs: Observation, out: BridgeOutcome, host: CodeCellHost) -> str:
    if not obs.success:
        return f"Code cell failed: {obs.error}\n{_counts_line(host, out)}."
    lines = [f"Code cell completed: {_counts_line(host, out)}."]
    if obs.data is None:
        lines.append("No output (no emit() and no return value).")
    else:
        lines.append("Output:")
        lines.append(json.dumps(obs.data, indent=2, ensure_ascii=False, default=str))
    return "\n".join(lines)


def _tail(
    obs: Observation,
    host: CodeCellHost,
    images: ImageSelection | None,
    output_file: dict[str, Any] | None,
) -> str:
    lines = _failure_lines(host)
    if images is not None and images.rows:
        names = ", ".join(str(row["path"]) for row in images.rows)
        if images.omitted:
            lines.append(f"Images not attached (this server omits images): {names}.")
        else:
            lines.append(f"Images attached: {len(images.rows)} ({names}).")
    if output_file is not None and output_file.get("status") == "saved":
        lines.append(f"Output file: {output_file['absolutePath']} ({output_file['bytes']} bytes)")
    elif output_file is not None and output_file.get("status") == "skipped":
        lines.append(f"Output file not written: {output_file['reason']}.")
    if obs.next_actions:
        lines.append("Next actions:")
        for action in obs.next_actions:
            entry = action.to_dict()
            params = json.dumps(entry.get("params", entry.get("artifactPath")), ensure_ascii=False)
            lines.append(f"- {entry['id']} ({entry['tool']}): {params} - {entry['reason']}")
    if not obs.success:
        lines.append(category_line(False, obs.failure_category))
    return "\n".join(lines)


def _code_details(
    host: CodeCellHost, out: BridgeOutcome, timeout_ms: int, elapsed_ms: float
) -> dict[str, Any]:
    details: dict[str, Any] = {
        "codeRun": {
            "callCount": host.call_count,
            "emitCount": len(out.emits),
            "failedCallCount": host.failed_count,
            "rejectedCallCount": host.rejected_count,
            "timedOut": out.status == "timeout",
            "aborted": host.aborted,
        },
        "codeSteps": host.steps(),
        "sessionName": host.ident.session,
        "usedImplicitSession": host.ident.mode == "managed",
        "timeoutMs": timeout_ms,
        "durationMs": round(elapsed_ms, 1),
        "ipcBytes": {"toWorker": out.bytes_out, "fromWorker": out.bytes_in},
    }
    if host.call_count > STEP_ROWS:
        details["codeStepsOmitted"] = host.call_count - STEP_ROWS
    if host.ident.namespace is not None:
        details["namespace"] = host.ident.namespace
    if out.error is not None:
        details["scriptError"] = {
            "name": out.error.name,
            "message": out.error.message,
            "line": out.error.line,
        }
    if out.violation is not None:
        details["bridgeViolation"] = out.violation
    return details


def build_result(
    rt: Runtime,
    *,
    host: CodeCellHost,
    out: BridgeOutcome,
    obs: Observation,
    images: ImageSelection | None,
    output_file: dict[str, Any] | None,
    timeout_ms: int,
    elapsed_ms: float,
) -> ToolResult:
    if obs.success:
        obs.success_category = SuccessCategory.COMPLETED
    failures = host.failures()
    if failures:
        obs.extra["failures"] = failures
    observation = {**obs.to_dict(), **_code_details(host, out, timeout_ms, elapsed_ms)}
    if output_file is not None:
        observation["outputFile"] = output_file
    if images is not None and images.rows:
        observation["images"] = images.rows
    scrub = rt.secrets
    observation = scrub.scrub_data(observation)
    body = scrub.scrub(_body(obs, out, host))
    tail = scrub.scrub(_tail(obs, host, images, output_file))
    bounded = bound_visible(body, tail, observation, rt.spill_dir)
    if bounded.observation_path:
        observation["observationPath"] = bounded.observation_path
    if bounded.spill_error:
        observation["spillError"] = bounded.spill_error
    blocks = images.blocks if images is not None else ()
    return response.from_observation(obs, text=bounded.text, details=observation, images=blocks)
