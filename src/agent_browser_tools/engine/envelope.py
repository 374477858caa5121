"""Interpreting what the engine printed (pure: no I/O beyond reading a spilled stdout).

Shapes handled:

- the object envelope `{success, data, error, warning?}` (plus upstream extras such as `type`);
- the batch array `[{command, success, result, error}, ...]`;
- plain text for native inspection (`--help`, `--version`), `--json false` and sessionless
  `upgrade`: success is the exit status, the text is kept verbatim.

Strictness: a zero exit whose machine output does not parse is a `parse-failure` (the engine
promised JSON and broke it). A nonzero exit with stderr and no envelope makes stderr the
primary error (`upstream-error`); the parse problem is kept as secondary `parse_error`.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from enum import Enum, StrEnum
from typing import Any

from agent_browser_tools.engine.runner import RawOutcome


class OutputMode(Enum):
    """How the engine was asked to print: a JSON envelope or native text."""

    JSON = "json"
    TEXT = "text"


class EngineFailure(StrEnum):
    """Process-level failure kinds; the category layer maps them to contract categories."""

    MISSING_BINARY = "missing-binary"
    TIMEOUT = "timeout"
    PARSE_FAILURE = "parse-failure"
    UPSTREAM_ERROR = "upstream-error"


@dataclass(frozen=True)
class BatchRow:
    """One row of a native batch result."""

    command: tuple[str, ...]
    success: bool
    result: Any
    error: str | None


@dataclass(frozen=True)
class Envelope:
    """The engine's answer, typed. `success` is the native verdict after process checks."""

    mode: OutputMode
    success: bool
    data: Any = None
    error: str | None = None
    warning: str | None = None
    error_type: str | None = None
    rows: tuple[BatchRow, ...] | None = None
    text: str | None = None
    failure: EngineFailure | None = None
    parse_error: str | None = None
    stderr: str = ""
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def is_batch(self) -> bool:
        return self.rows is not None


def parse_outcome(raw: RawOutcome, mode: OutputMode) -> Envelope:
    """Turn a finished process into an `Envelope`; never raises on bad output."""
    stderr = raw.stderr.strip()
    if raw.missing_binary or raw.spawn_error:
        return Envelope(
            mode=mode,
            success=False,
            error=raw.spawn_error or "engine binary could not be executed",
            failure=EngineFailure.MISSING_BINARY,
            stderr=stderr,
        )
    if raw.timed_out:
        return Envelope(
            mode=mode,
            success=False,
            error=f"agent-browser did not finish within {raw.timeout_ms} ms and was stopped",
            failure=EngineFailure.TIMEOUT,
            stderr=stderr,
            text=raw.read_stdout() if mode is OutputMode.TEXT else None,
        )
    if raw.stdout_dropped:
        return _too_large(raw, mode, stderr)
    stdout = raw.read_stdout()
    if mode is OutputMode.TEXT:
        return _parse_text(raw, stdout, stderr)
    return parse_json_output(stdout, raw.exit_code, stderr)


def _too_large(raw: RawOutcome, mode: OutputMode, stderr: str) -> Envelope:
    """An answer past the read limit: nothing of it was kept, so say how to ask for less."""
    kept = raw.stdout_bytes - raw.stdout_dropped
    error = (
        f"could not parse agent-browser output: it printed {raw.stdout_bytes:,} bytes, more "
        f"than the {kept:,} bytes the wrapper reads, so the answer was dropped (the command "
        "itself ran). Ask for less: a slice of the value (an `eval` returning `.slice(0, 100000)`"
        ") or a narrower selector."
    )
    return Envelope(
        mode=mode,
        success=False,
        error=error,
        failure=EngineFailure.PARSE_FAILURE,
        parse_error="output over the read limit",
        stderr=stderr,
    )


def _parse_text(raw: RawOutcome, stdout: str, stderr: str) -> Envelope:
    if raw.exit_code == 0:
        return Envelope(mode=OutputMode.TEXT, success=True, text=stdout, stderr=stderr)
    message = stderr or stdout.strip() or f"agent-browser exited with code {raw.exit_code}"
    return Envelope(
        mode=OutputMode.TEXT,
        success=False,
        text=stdout,
        error=message,
        failure=EngineFailure.UPSTREAM_ERROR,
        stderr=stderr,
    )


def parse_json_output(stdout: str, exit_code: int | None, stderr: str = "") -> Envelope:
    """Parse JSON-mode stdout given the exit code; see the module docstring for strictness."""
    failed_exit = exit_code != 0
    if not stdout or stdout.isspace():
        problem = "agent-browser printed no output"
        return _no_envelope(problem, failed_exit, exit_code, stderr)
    try:
        # JSON allows the surrounding whitespace: no stripped copy of a huge answer.
        value = json.loads(stdout)
    except json.JSONDecodeError as exc:
        problem = f"output is not valid JSON ({exc.msg} at line {exc.lineno} column {exc.colno})"
        return _no_envelope(problem, failed_exit, exit_code, stderr)
    except RecursionError:
        return _no_envelope("output JSON nests too deeply", failed_exit, exit_code, stderr)
    if isinstance(value, list):
        return _batch(value, failed_exit, exit_code, stderr)
    if isinstance(value, dict) and isinstance(value.get("success"), bool):
        return _object(value, failed_exit, stderr)
    problem = "output is JSON but not an agent-browser envelope (no boolean `success`)"
    return _no_envelope(problem, failed_exit, exit_code, stderr)


def _no_envelope(problem: str, failed_exit: bool, exit_code: int | None, stderr: str) -> Envelope:
    if failed_exit:
        primary = stderr or f"agent-browser exited with code {exit_code} ({problem})"
        return Envelope(
            mode=OutputMode.JSON,
            success=False,
            error=primary,
            failure=EngineFailure.UPSTREAM_ERROR,
            parse_error=problem,
            stderr=stderr,
        )
    return Envelope(
        mode=OutputMode.JSON,
        success=False,
        error=f"could not parse agent-browser output: {problem}",
        failure=EngineFailure.PARSE_FAILURE,
        parse_error=problem,
        stderr=stderr,
    )


def _object(value: dict[str, Any], failed_exit: bool, stderr: str) -> Envelope:
    success = bool(value["success"]) and not failed_exit
    error = value.get("error")
    error_text = error if isinstance(error, str) else (json.dumps(error) if error else None)
    if not success and not error_text:
        error_text = stderr or "agent-browser reported failure without an error message"
    warning = value.get("warning")
    known = {"success", "data", "error", "warning", "type"}
    error_type = value.get("type")
    return Envelope(
        mode=OutputMode.JSON,
        success=success,
        data=value.get("data"),
        error=error_text,
        warning=warning if isinstance(warning, str) else None,
        error_type=error_type if isinstance(error_type, str) else None,
        failure=None if success else EngineFailure.UPSTREAM_ERROR,
        stderr=stderr,
        extra={k: v for k, v in value.items() if k not in known},
    )


def _batch(value: list[Any], failed_exit: bool, exit_code: int | None, stderr: str) -> Envelope:
    rows: list[BatchRow] = []
    for index, item in enumerate(value):
        if not isinstance(item, dict) or not isinstance(item.get("success"), bool):
            problem = f"batch row {index} is not a {{command, success, result, error}} object"
            return _no_envelope(problem, failed_exit, exit_code, stderr)
        command = item.get("command")
        tokens = tuple(str(t) for t in command) if isinstance(command, list) else ()
        error = item.get("error")
        rows.append(
            BatchRow(
                command=tokens,
                success=bool(item["success"]),
                result=item.get("result"),
                error=error if isinstance(error, str) or error is None else json.dumps(error),
            )
        )
    all_ok = all(row.success for row in rows) and not failed_exit
    first_error = next((row.error for row in rows if not row.success), None)
    return Envelope(
        mode=OutputMode.JSON,
        success=all_ok,
        rows=tuple(rows),
        data=None,
        error=None if all_ok else (first_error or stderr or "batch failed"),
        failure=None if all_ok else EngineFailure.UPSTREAM_ERROR,
        stderr=stderr,
    )
