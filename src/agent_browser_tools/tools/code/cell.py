"""The parent side of `browser()` for one code cell: identity, admission, dispatch, records.

Every inner call goes through `agent_browser.run_observation`, the direct tool's executor, so
journaling (intent before dispatch, completion after), page/ref state and managed-session
ownership are exactly those of a direct call. This module only decides what may be
dispatched and keeps the cell's audit records:

- Every inner argv is bound to the cell's identity (`code_scope`). Inner args that select
  another session/namespace or run `close --all` get a failed `validation-error` observation
  and are not dispatched.
- Admission: at most `MAX_CALLS` attempted calls; request shapes are validated (an invalid
  shape also fails the outer result); each inner watchdog is clamped to the cell's remaining
  budget.
- Image observations returned in this cell get cell-local handle ids and are remembered with
  their size/mtime, so `emitImage` can only select what this cell saw.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import secrets
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from agent_browser_tools.input_limits import input_problem
from agent_browser_tools.planning.argv_rules import ArgvRejected
from agent_browser_tools.planning.inputs import parse_input
from agent_browser_tools.planning.plan import build_plan
from agent_browser_tools.planning.sessions import native_session_default
from agent_browser_tools.redaction import redact_argv, redact_text
from agent_browser_tools.results.categories import FailureCategory
from agent_browser_tools.results.observation import Observation
from agent_browser_tools.runtime import Runtime
from agent_browser_tools.tools import agent_browser
from agent_browser_tools.tools.code.scope import (
    BrowserRequest,
    CellIdentity,
    inner_prefix,
    resolve_identity,
    scope_violation,
)

__all__ = ["MAX_CALLS", "CodeCellHost", "ImageHandle", "resolve_identity"]

MAX_CALLS = 25
MIN_CALL_BUDGET_MS = 50
STEP_ROWS = 50
FAILURE_ROWS = 30


@dataclass(frozen=True)
class ImageHandle:
    id: str
    path: str
    resolved: str
    size: int
    mtime_ns: int
    mime_type: str | None


@dataclass
class CallRecord:
    index: int
    args: list[str]
    success: bool
    failure_category: str | None = None
    error: str | None = None
    rejected: bool = False
    next_actions: list[Any] = field(default_factory=list)
    duration_ms: float = 0.0

    def step_row(self) -> dict[str, Any]:
        row: dict[str, Any] = {"index": self.index, "args": self.args, "success": self.success}
        if self.failure_category:
            row["failureCategory"] = self.failure_category
        if self.rejected:
            row["rejected"] = True
        row["durationMs"] = round(self.duration_ms, 1)
        return row

    def failure_row(self) -> dict[str, Any]:
        row: dict[str, Any] = {
            "call": self.index,
            "args": self.args,
            "failureCategory": self.failure_category,
            "error": self.error,
        }
        if self.rejected:
            row["rejected"] = True
        if self.next_actions:
            row["nextActions"] = self.next_actions
        return row


def _safe_args(request: Any) -> list[str]:
    args = request.get("args") if isinstance(request, dict) else None
    if not isinstance(args, list):
        return []
    return redact_argv([str(a) for a in args])


class CodeCellHost:
    """Implements `sandbox.bridge.CellHost` over a `Runtime`."""

    def __init__(self, rt: Runtime, ident: CellIdentity, deadline: float) -> None:
        self.rt = rt
        self.ident = ident
        self.deadline = deadline
        self.token = secrets.token_hex(4)
        self.records: list[CallRecord] = []
        self.by_call_id: dict[int, CallRecord] = {}
        self.invalid_inputs: list[str] = []
        self.images: dict[str, ImageHandle] = {}
        self.selected: list[str] = []
        self.artifact_paths: list[str] = []
        self.aborted = False

    # -- counts -------------------------------------------------------------------------

    @property
    def call_count(self) -> int:
        return len(self.records)

    @property
    def failed_count(self) -> int:
        return sum(1 for r in self.records if not r.success)

    @property
    def rejected_count(self) -> int:
        return sum(1 for r in self.records if r.rejected)

    def steps(self) -> list[dict[str, Any]]:
        return [r.step_row() for r in self.records[-STEP_ROWS:]]

    def failures(self) -> list[dict[str, Any]]:
        return [r.failure_row() for r in self.records if not r.success][:FAILURE_ROWS]

    # -- CellHost -----------------------------------------------------------------------

    async def call(self, call_id: int, request: Any, encode_error: str | None) -> dict[str, Any]:
        """One `browser()` call; what goes back to the worker is scrubbed of secret values
        (the worker process never holds one)."""
        try:
            observation: dict[str, Any] = self.rt.secrets.scrub_data(
                await self._call(request, encode_error)
            )
            return observation
        finally:
            if self.records:
                self.by_call_id[call_id] = self.records[-1]

    async def _call(self, request: Any, encode_error: str | None) -> dict[str, Any]:
        index = len(self.records) + 1
        args = _safe_args(request)
        if index > MAX_CALLS:
            return self._reject(
                index,
                args,
                FailureCategory.VALIDATION_ERROR,
                f"call {index} rejected: a cell may attempt at most {MAX_CALLS} browser() calls. "
                "Return what you have and continue in another agent_browser_code call.",
            )
        parsed, problem = self._parse(request, encode_error)
        if parsed is None:
            self.invalid_inputs.append(f"call {index}: {problem}")
            return self._reject(index, args, FailureCategory.VALIDATION_ERROR, str(problem))
        scope = scope_violation(parsed.args, parsed.stdin, self.ident)
        if scope is not None:
            return self._reject(index, args, FailureCategory.VALIDATION_ERROR, scope)
        remaining = int((self.deadline - asyncio.get_running_loop().time()) * 1000)
        if remaining < MIN_CALL_BUDGET_MS:
            message = "the cell's deadline leaves no time for this call; it was not dispatched"
            return self._reject(index, args, FailureCategory.TIMEOUT, message)
        return await self._dispatch(index, args, parsed, remaining)

    def oversized(self, call_id: int, size: int, limit: int) -> dict[str, Any]:
        message = (
            f"the command ran, but its observation is {size} bytes, over the {limit}-byte bridge "
            "limit for one reply, so it was not passed to the cell. Narrow the command (e.g. "
            "snapshot -i --search, get text on a selector) or run it with agent_browser directly."
        )
        obs = Observation(
            success=False, failure_category=FailureCategory.VALIDATION_ERROR, error=message
        )
        record = self.by_call_id.get(call_id)
        if record is not None:
            record.success = False
            record.failure_category = FailureCategory.VALIDATION_ERROR.value
            record.error = message
            record.next_actions = []
        return obs.to_dict()

    def select_image(self, image_id: str, path: str) -> str | None:
        handle = self.images.get(image_id)
        if handle is None or handle.path != path:
            return (
                "emitImage() got a handle that no browser() call of this cell returned; only "
                "entries of this cell's imageObservations can be selected"
            )
        if image_id not in self.selected:
            self.selected.append(image_id)
        return None

    # -- internals ----------------------------------------------------------------------

    def _parse(self, request: Any, encode_error: str | None) -> tuple[BrowserRequest | None, str]:
        if encode_error is not None:
            return None, f"browser() request is not JSON: {encode_error}"
        problem = input_problem(request)
        if problem is not None:  # the same generic limits as a direct call
            return None, f"invalid browser() request: {problem.message}"
        try:
            return BrowserRequest.model_validate(request), ""
        except ValidationError as exc:
            problems = []
            for error in exc.errors():
                where = ".".join(str(p) for p in error["loc"]) or "request"
                if error["type"] == "extra_forbidden":
                    problems.append(f"unknown field `{where}`")
                else:
                    problems.append(f"`{where}`: {error['msg']}")
            return None, (
                f"invalid browser() request ({'; '.join(problems)}); call "
                "browser({ args: [...], stdin?, timeoutMs? }) with args a non-empty string array"
            )

    def _reject(
        self, index: int, args: list[str], category: FailureCategory, message: str
    ) -> dict[str, Any]:
        self.records.append(CallRecord(index, args, False, category.value, message, rejected=True))
        return Observation(success=False, failure_category=category, error=message).to_dict()

    def _timeout_ms(self, full_args: list[str], req: BrowserRequest, remaining: int) -> int | None:
        if req.timeoutMs is not None:
            return min(req.timeoutMs, remaining)
        planned: int | None = None
        with contextlib.suppress(ValidationError, ArgvRejected):
            native = native_session_default(self.rt.settings.env, self.rt.cwd)
            plan = build_plan(
                parse_input({"args": full_args, "stdin": req.stdin}),
                self.rt.log.state,
                self.rt.settings,
                root_id=self.rt.root_id,
                native_default=native,
            )
            planned = plan.timeout.timeout_ms
        if planned is None or planned > remaining:
            return remaining
        return None

    async def _dispatch(
        self, index: int, args: list[str], req: BrowserRequest, remaining: int
    ) -> dict[str, Any]:
        full_args = [*inner_prefix(self.rt, self.ident), *req.args]
        params: dict[str, Any] = {"args": full_args}
        if req.stdin is not None:
            params["stdin"] = req.stdin
        timeout_ms = self._timeout_ms(full_args, req, remaining)
        if timeout_ms is not None:
            params["timeoutMs"] = timeout_ms
        record = CallRecord(index, args, False)
        self.records.append(record)
        started = time.perf_counter()
        try:
            observation = await agent_browser.run_observation(self.rt, params)
        except asyncio.CancelledError:
            record.failure_category = FailureCategory.ABORTED.value
            record.error = "cancelled at the cell deadline or by the caller"
            raise
        except Exception as exc:
            record.failure_category = FailureCategory.UPSTREAM_ERROR.value
            record.error = f"internal error: {exc!r}"
            raise
        finally:
            record.duration_ms = (time.perf_counter() - started) * 1000
        observation = self._register_images(observation)
        self._collect_artifacts(observation)
        record.success = observation.get("success") is True
        if not record.success:
            record.failure_category = str(observation.get("failureCategory") or "upstream-error")
            record.error = redact_text(str(observation.get("error") or "failed"))
            actions = observation.get("nextActions")
            record.next_actions = list(actions) if isinstance(actions, list) else []
        return observation

    def undispatched(self, call_id: int, request: Any) -> None:
        """A call still queued when the body settled: never dispatched."""
        index = len(self.records) + 1
        message = (
            "not dispatched: the cell's body finished before this browser() call ran (a missing "
            "await?)"
        )
        record = CallRecord(index, _safe_args(request), False, "aborted", message, rejected=True)
        self.records.append(record)
        self.by_call_id[call_id] = record

    def selected_handles(self) -> list[ImageHandle]:
        return [self.images[i] for i in self.selected if i in self.images]

    def _collect_artifacts(self, observation: dict[str, Any]) -> None:
        for key in ("artifacts", "imageObservations"):
            entries = observation.get(key)
            for entry in entries if isinstance(entries, list) else ():
                path = entry.get("path") if isinstance(entry, dict) else None
                if isinstance(path, str):
                    self.artifact_paths.append(path)

    def _register_images(self, observation: dict[str, Any]) -> dict[str, Any]:
        images = observation.get("imageObservations")
        if not isinstance(images, list):
            return observation
        handled: list[Any] = []
        for image in images:
            path = image.get("path") if isinstance(image, dict) else None
            if not isinstance(path, str):
                handled.append(image)
                continue
            resolved = str(Path(path) if Path(path).is_absolute() else self.rt.cwd / path)
            try:
                stat = os.stat(resolved)
            except OSError:
                handled.append({k: v for k, v in image.items() if k != "id"})
                continue
            handle_id = f"img-{self.token}-{len(self.images) + 1}"
            mime = image.get("mimeType")
            self.images[handle_id] = ImageHandle(
                id=handle_id,
                path=path,
                resolved=resolved,
                size=stat.st_size,
                mtime_ns=stat.st_mtime_ns,
                mime_type=mime if isinstance(mime, str) else None,
            )
            handled.append({**image, "id": handle_id})
        return {**observation, "imageObservations": handled}
