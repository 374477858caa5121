"""Process-runner faults the real engine cannot produce on demand, driven by the fake engine."""

from __future__ import annotations

import asyncio
import json
import os
import resource
import time
from pathlib import Path

import pytest

from agent_browser_tools.engine import runner
from agent_browser_tools.engine.envelope import EngineFailure, OutputMode, parse_outcome
from agent_browser_tools.engine.runner import TIMEOUT_EXIT_CODE, RawOutcome, run_engine
from tests.support.fake import FakeEngine


def _gone_soon(pids: list[int], within_s: float = 2.0) -> bool:
    """SIGKILL is asynchronous: give the kernel a moment to finish the kill."""
    deadline = time.monotonic() + within_s
    while time.monotonic() < deadline:
        if not any(_alive(pid) for pid in pids):
            return True
        time.sleep(0.02)
    return False


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii") as handle:
            return handle.read().split(") ", 1)[1][0] != "Z"
    except (FileNotFoundError, ProcessLookupError):
        return False


async def _run(
    fake: FakeEngine, tmp_path: Path, *argv: str, timeout_ms: int = 10_000, stdin: str | None = None
) -> RawOutcome:
    return await run_engine(
        [str(fake.path), *argv],
        env={"PATH": os.environ["PATH"], **fake.env()},
        timeout_ms=timeout_ms,
        stdin=stdin,
        spill_dir=tmp_path / "spill",
    )


async def test_hang_ends_as_timeout_within_three_seconds_of_the_watchdog(
    fake_engine: FakeEngine, tmp_path: Path
) -> None:
    fake_engine.on({"command": ["get", "url"]}, hang=True, ignore_sigterm=True)
    started = time.monotonic()
    raw = await _run(fake_engine, tmp_path, "--json", "get", "url", timeout_ms=1_000)
    elapsed = time.monotonic() - started
    assert raw.timed_out
    assert raw.exit_code == TIMEOUT_EXIT_CODE
    assert 1.0 <= elapsed <= 1.0 + 3.0
    envelope = parse_outcome(raw, OutputMode.JSON)
    assert envelope.failure is EngineFailure.TIMEOUT
    pid = int(fake_engine.calls()[0]["pid"])  # type: ignore[call-overload]
    assert not _alive(pid)


async def test_lingering_grandchild_does_not_hang_the_call(
    fake_engine: FakeEngine, tmp_path: Path
) -> None:
    fake_engine.on({"any": True}, envelope={"data": {"url": "about:blank"}}, linger_s=30)
    started = time.monotonic()
    raw = await _run(fake_engine, tmp_path, "--json", "get", "url")
    assert time.monotonic() - started < 5
    assert not raw.timed_out
    envelope = parse_outcome(raw, OutputMode.JSON)
    assert envelope.success and envelope.data == {"url": "about:blank"}
    await asyncio.sleep(0.2)
    assert fake_engine.children(), "the scenario should have started a grandchild"
    assert _gone_soon(fake_engine.children())


async def test_five_mib_output_is_streamed_to_disk_and_intact(
    fake_engine: FakeEngine, tmp_path: Path
) -> None:
    fake_engine.on({"any": True}, big_mib=5)
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    raw = await _run(fake_engine, tmp_path, "--json", "snapshot")
    grew_kib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before
    assert raw.stdout_path is not None and raw.stdout == ""
    assert raw.stdout_bytes > 5 * 1024 * 1024
    assert raw.stdout_path.stat().st_mode & 0o777 == 0o600
    assert grew_kib < 4 * 1024, f"runner held the output in memory (+{grew_kib} KiB)"
    envelope = parse_outcome(raw, OutputMode.JSON)
    blob = envelope.data["blob"]
    assert len(blob) == 5 * 1024 * 1024
    assert blob == ("0123456789abcdef" * (len(blob) // 16 + 1))[: len(blob)]


async def test_malformed_zero_exit_output_is_a_parse_failure(
    fake_engine: FakeEngine, tmp_path: Path
) -> None:
    fake_engine.on({"any": True}, malformed=True)
    envelope = parse_outcome(
        await _run(fake_engine, tmp_path, "--json", "get", "url"), OutputMode.JSON
    )
    assert not envelope.success
    assert envelope.failure is EngineFailure.PARSE_FAILURE
    assert envelope.parse_error and "not valid JSON" in envelope.parse_error


async def test_nonzero_exit_with_stderr_is_an_upstream_error_carrying_stderr(
    fake_engine: FakeEngine, tmp_path: Path
) -> None:
    fake_engine.on({"any": True}, stderr="daemon refused: socket busy\n", exit=3)
    envelope = parse_outcome(
        await _run(fake_engine, tmp_path, "--json", "get", "url"), OutputMode.JSON
    )
    assert envelope.failure is EngineFailure.UPSTREAM_ERROR
    assert envelope.error == "daemon refused: socket busy"
    assert envelope.parse_error is not None


async def test_cancelled_call_leaves_no_process_behind(
    fake_engine: FakeEngine, tmp_path: Path
) -> None:
    fake_engine.on({"any": True}, hang=True, ignore_sigterm=True, linger_s=60)
    task = asyncio.create_task(_run(fake_engine, tmp_path, "--json", "wait", "99999"))
    for _ in range(100):
        await asyncio.sleep(0.05)
        if fake_engine.calls() and fake_engine.children():
            break
    pid = int(fake_engine.calls()[0]["pid"])  # type: ignore[call-overload]
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert _gone_soon([pid, *fake_engine.children()])


async def test_stdin_reaches_the_engine_and_missing_binary_is_reported(
    fake_engine: FakeEngine, tmp_path: Path
) -> None:
    fake_engine.on({"any": True}, echo_stdin=True, envelope={"data": {}})
    raw = await _run(fake_engine, tmp_path, "--json", "eval", "--stdin", stdin="document.title")
    assert parse_outcome(raw, OutputMode.JSON).data["stdin"] == "document.title"
    assert fake_engine.calls()[-1]["stdin"] == "document.title"
    missing = await run_engine(
        [str(tmp_path / "nope" / "agent-browser"), "--version"],
        env={},
        timeout_ms=1_000,
        spill_dir=tmp_path / "spill",
    )
    assert missing.missing_binary
    assert parse_outcome(missing, OutputMode.TEXT).failure is EngineFailure.MISSING_BINARY


def test_batch_and_object_envelopes_parse() -> None:
    from agent_browser_tools.engine.envelope import parse_json_output

    rows = [
        {"command": ["get", "url"], "success": True, "result": {"url": "x"}, "error": None},
        {"command": ["click", "@e9"], "success": False, "result": None, "error": "Unknown ref: e9"},
    ]
    batch = parse_json_output(json.dumps(rows), 1)
    assert batch.rows is not None and len(batch.rows) == 2
    assert not batch.success and batch.error == "Unknown ref: e9"
    obj = parse_json_output('{"success":true,"data":{"url":"x"},"error":null,"warning":"w"}', 0)
    assert obj.success and obj.warning == "w" and obj.data == {"url": "x"}
    not_envelope = parse_json_output("[1, 2]", 0)
    assert not_envelope.failure is EngineFailure.PARSE_FAILURE


async def test_output_past_the_read_limit_is_dropped_while_it_streams(
    fake_engine: FakeEngine, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """No answer past the limit is parsed, so none is kept: the disk holds at most the limit
    and the failure says how much was printed and how to ask for less."""
    monkeypatch.setattr(runner, "ENGINE_OUTPUT_READ_LIMIT_BYTES", 1024 * 1024)
    fake_engine.on({"any": True}, big_mib=5)
    raw = await _run(fake_engine, tmp_path, "--json", "eval", "big")
    assert raw.stdout_path is not None and raw.stdout_path.stat().st_size == 1024 * 1024
    assert raw.stdout_bytes > 5 * 1024 * 1024
    assert raw.stdout_dropped == raw.stdout_bytes - 1024 * 1024
    envelope = parse_outcome(raw, OutputMode.JSON)
    assert envelope.failure is EngineFailure.PARSE_FAILURE and not envelope.success
    assert envelope.error is not None
    assert f"it printed {raw.stdout_bytes:,} bytes, more than the 1,048,576" in envelope.error
    assert "a slice of the value" in envelope.error
    raw.discard_stdout()
    assert not raw.stdout_path.exists()
    assert list((tmp_path / "spill").iterdir()) == []
