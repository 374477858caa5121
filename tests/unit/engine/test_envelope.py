"""Every envelope captured from the real engine parses to the verdict the engine meant.

The fixtures come from `scripts/capture_envelopes.py` (engine 0.39.4 against the fixture
site); `tests/real/test_envelope_shapes.py` keeps them honest against the live engine.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from agent_browser_tools.engine.envelope import EngineFailure, OutputMode, parse_json_output

ENVELOPES = Path(__file__).resolve().parents[2] / "fixtures" / "envelopes"
FILES = sorted(ENVELOPES.glob("*.json"))

#: The captures that record a failure; every other capture is a success.
EXPECTED_FAILURES = frozenset({"batch_failing_row", "click_missing_ref", "unknown_command"})

#: Commands the fixture set must cover (the capture scenario may add more).
REQUIRED = frozenset(
    {
        "open", "get_url", "get_title", "get_text", "get_html", "get_value", "get_attr",
        "get_count", "is_visible", "snapshot", "snapshot_interactive",
        "snapshot_interactive_compact", "click_ref", "fill_ref", "check", "select", "press",
        "scroll_down", "scrollintoview", "wait_ms", "wait_selector", "tab_list", "tab_new",
        "tab_close", "back", "forward", "reload", "screenshot", "pdf", "download",
        "cookies_get", "storage_local", "console", "errors", "network_requests", "eval_stdin",
        "batch_success", "batch_failing_row", "click_missing_ref", "unknown_command", "close",
    }
)  # fmt: skip


def _load(path: Path) -> dict[str, Any]:
    record = json.loads(path.read_text(encoding="utf-8"))
    assert isinstance(record, dict)
    return record


def test_fixture_set_covers_the_required_commands() -> None:
    names = {path.stem for path in FILES}
    assert names >= REQUIRED, f"missing: {sorted(REQUIRED - names)}"


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.stem)
def test_record_has_the_capture_format(path: Path) -> None:
    record = _load(path)
    assert {"argv", "exit_code", "stdout", "stderr"} <= set(record)
    assert set(record) <= {"argv", "exit_code", "stdout", "stderr", "stdin"}
    assert record["argv"][:2] == ["--json", "--session"]
    assert isinstance(record["exit_code"], int)
    assert isinstance(record["stderr"], str)
    # Normalised: no live port or temp dir may leak into a fixture.
    text = json.dumps(record)
    assert "/tmp/" not in text
    assert "127.0.0.1:PORT" in text or "127.0.0.1:" not in text


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.stem)
def test_captured_envelope_parses_with_the_expected_verdict(path: Path) -> None:
    record = _load(path)
    stdout, exit_code = record["stdout"], record["exit_code"]
    expect_success = path.stem not in EXPECTED_FAILURES

    envelope = parse_json_output(json.dumps(stdout), exit_code, record["stderr"])

    assert envelope.mode is OutputMode.JSON
    assert envelope.success is expect_success
    assert envelope.parse_error is None
    # The engine's exit status agrees with its own verdict in every capture.
    assert (exit_code == 0) is expect_success
    if expect_success:
        assert envelope.failure is None
        assert envelope.error is None
    else:
        assert envelope.failure is EngineFailure.UPSTREAM_ERROR
        assert envelope.error

    if isinstance(stdout, list):
        _check_batch(envelope.rows, stdout)
    else:
        assert envelope.rows is None
        assert envelope.data == stdout.get("data")


def _check_batch(rows: Any, stdout: list[dict[str, Any]]) -> None:
    assert rows is not None and len(rows) == len(stdout)
    for row, raw in zip(rows, stdout, strict=True):
        assert row.command == tuple(raw["command"])
        assert row.success is raw["success"]
        assert row.result == raw["result"]
        assert row.error == raw["error"]


def test_batch_failing_row_reports_the_failed_step() -> None:
    record = _load(ENVELOPES / "batch_failing_row.json")
    envelope = parse_json_output(json.dumps(record["stdout"]), record["exit_code"])
    assert envelope.rows is not None
    assert [row.success for row in envelope.rows] == [True, False, True]
    assert envelope.error == envelope.rows[1].error == "Unknown ref: e999"


def test_unknown_command_keeps_the_error_type() -> None:
    record = _load(ENVELOPES / "unknown_command.json")
    envelope = parse_json_output(json.dumps(record["stdout"]), record["exit_code"])
    assert envelope.error_type == "unknown_command"
    assert envelope.data is None
    assert envelope.error == "Unknown command: frobnicate"
