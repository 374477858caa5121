"""Captured real-engine answers as typed `Envelope`s, for the pure stage tests.

Two capture sets: `tests/fixtures/envelopes/*.json` (one command each, engine 0.39.4 against the
fixture site, see `tests/unit/engine/test_envelope.py`) and the failure records in
`tests/fixtures/engine_errors-0.39.4.json`. Both are parsed with the production parser, so a
stage test sees exactly what the executor would hand it.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

from agent_browser_tools.engine.envelope import (
    Envelope,
    OutputMode,
    parse_json_output,
    parse_outcome,
)
from agent_browser_tools.engine.runner import RawOutcome

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
ENVELOPES = FIXTURES / "envelopes"
BY_HAND = ENVELOPES / "by_hand"
"""Answers the capture scenario cannot reach (a confirmation needs a daemon launched with
`--confirm-actions`), written in the shape of a real 0.39.4 run. The real-engine tests of
the same commands (`tests/real/tools/agent_browser/test_answer_prose.py`) keep them honest."""
ENGINE_ERRORS = FIXTURES / "engine_errors-0.39.4.json"

#: Every capture ran as `--json --session <capture session> <command...>`.
CAPTURE_PREFIX_LEN = 3
#: The capture scripts replaced their temp dir with this placeholder.
TMP_PLACEHOLDER = "<TMP>"


def capture(name: str) -> dict[str, Any]:
    """The raw capture record `tests/fixtures/envelopes/<name>.json`."""
    path = ENVELOPES / f"{name}.json"
    if not path.is_file():
        path = BY_HAND / f"{name}.json"
    record = json.loads(path.read_text(encoding="utf-8"))
    assert isinstance(record, dict)
    return record


def command(name: str) -> list[str]:
    """The command the capture ran, without the `--json --session` prefix."""
    argv = capture(name)["argv"]
    assert argv[:2] == ["--json", "--session"]
    return [str(token) for token in argv[CAPTURE_PREFIX_LEN:]]


def envelope(name: str, *, tmp: Path | None = None) -> Envelope:
    """The captured answer parsed as JSON output; `tmp` replaces the `<TMP>` placeholder."""
    record = capture(name)
    stdout = json.dumps(record["stdout"])
    if tmp is not None:
        stdout = stdout.replace(TMP_PLACEHOLDER, str(tmp))
    return parse_json_output(stdout, record["exit_code"], record["stderr"])


def _error_record(scenario: str) -> dict[str, Any]:
    records = json.loads(ENGINE_ERRORS.read_text(encoding="utf-8"))
    found = next(r for r in records if r["scenario"] == scenario)
    assert isinstance(found, dict)
    return found


def engine_error(scenario: str) -> Envelope:
    """A captured failure (or pending confirmation) from `engine_errors-0.39.4.json`."""
    record = _error_record(scenario)
    return parse_json_output(json.dumps(record["envelope"]), record["exit_code"])


def engine_error_command(scenario: str) -> list[str]:
    """The command of an `engine_errors` record, without its `--json --session` prefix."""
    argv = _error_record(scenario)["argv"]
    assert argv[:2] == ["--json", "--session"]
    return [str(token) for token in argv[CAPTURE_PREFIX_LEN:]]


def raw_outcome(
    *,
    exit_code: int | None = 0,
    stdout: str = "",
    stderr: str = "",
    timed_out: bool = False,
    missing_binary: bool = False,
    window_s: float = 1.0,
) -> RawOutcome:
    """A finished process that ran for the last `window_s` seconds (the artifact window)."""
    now = time.time()
    return RawOutcome(
        argv=(),
        exit_code=exit_code,
        stdout=stdout,
        stdout_path=None,
        stdout_bytes=len(stdout.encode("utf-8")),
        stderr=stderr,
        timed_out=timed_out,
        missing_binary=missing_binary,
        spawn_error=None,
        started_at=now - window_s,
        ended_at=now,
        timeout_ms=30_000,
    )


def timed_out(mode: OutputMode = OutputMode.JSON) -> Envelope:
    """What the parser makes of a process the watchdog stopped."""
    return parse_outcome(raw_outcome(exit_code=None, timed_out=True), mode)


def missing_binary() -> Envelope:
    """What the parser makes of an engine binary that could not be executed."""
    return parse_outcome(raw_outcome(exit_code=None, missing_binary=True), OutputMode.JSON)


def text_answer(stdout: str, *, exit_code: int = 0, stderr: str = "") -> Envelope:
    """A native text (`--json false`) answer, parsed like the executor parses it."""
    return parse_outcome(
        raw_outcome(exit_code=exit_code, stdout=stdout, stderr=stderr), OutputMode.TEXT
    )
