"""The process runner: the only code that spawns the engine.

Contract of `run_engine`:

- argv is a list and is executed directly, never through a shell; stdin is optional text.
- The child runs in its own process group. When the watchdog fires, the group gets SIGTERM and,
  2 s later, SIGKILL; the outcome then has `timed_out=True` and exit code 124 unless the child
  reported a native code of its own.
- Cancelling the awaiting task kills the child's group before the cancellation propagates.
- A grandchild that keeps stdout open cannot hang the call: once the child has exited, the
  pipes get a short grace period and the leftover group is killed.
- Stdout beyond 512 KiB is streamed to a private temp file (`stdout_path`) instead of memory;
  the caller removes it once parsed. Stdout beyond `ENGINE_OUTPUT_READ_LIMIT_BYTES` is counted
  but dropped (`stdout_dropped`): no answer that size is ever read, so none is kept either.
- A binary that cannot be executed yields `missing_binary=True`, never an exception.

The engine's own browser daemon detaches into its own session, so killing our child's group
never takes a healthy browser down with it.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import subprocess
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from agent_browser_tools.private_fs import ensure_private_dir
from agent_browser_tools.settings import STDOUT_MEMORY_LIMIT_BYTES
from agent_browser_tools.size_limits import ENGINE_OUTPUT_READ_LIMIT_BYTES

TIMEOUT_EXIT_CODE = 124
KILL_GRACE_S = 2.0
PIPE_DRAIN_GRACE_S = 0.3
STDERR_LIMIT_BYTES = 256 * 1024


@dataclass(frozen=True)
class RawOutcome:
    """What one engine process did. Pure data; interpretation happens in `envelope`."""

    argv: tuple[str, ...]
    exit_code: int | None
    stdout: str
    stdout_path: Path | None
    stdout_bytes: int
    stderr: str
    timed_out: bool
    missing_binary: bool
    spawn_error: str | None
    started_at: float
    ended_at: float
    timeout_ms: int
    stdout_dropped: int = 0
    """Bytes of stdout past the read limit, counted and discarded (0: stdout is whole)."""

    @property
    def duration_ms(self) -> float:
        return (self.ended_at - self.started_at) * 1000.0

    def read_stdout(self) -> str:
        """The whole stdout, reading the spill file when it was streamed to disk."""
        if self.stdout_path is None:
            return self.stdout
        return self.stdout_path.read_text(encoding="utf-8", errors="replace")

    def discard_stdout(self) -> None:
        """Remove the overflow file once parsed: it holds raw, unredacted engine output."""
        if self.stdout_path is not None:
            self.stdout_path.unlink(missing_ok=True)


class _StdoutSink:
    """Collects stdout in memory up to a limit, then in a private temp file, and drops what
    is past `keep_max` bytes."""

    def __init__(self, spill_dir: Path, limit: int, keep_max: int) -> None:
        self._spill_dir = spill_dir
        self._limit = limit
        self._keep_max = keep_max
        self._buffer = bytearray()
        self._file: int | None = None
        self.path: Path | None = None
        self.size = 0
        self.dropped = 0

    def write(self, chunk: bytes) -> None:
        room = self._keep_max - (self.size - self.dropped)
        self.size += len(chunk)
        if len(chunk) > room:
            self.dropped += len(chunk) - max(room, 0)
            chunk = chunk[: max(room, 0)]
            if not chunk:
                return
        if self._file is None and len(self._buffer) + len(chunk) <= self._limit:
            self._buffer.extend(chunk)
            return
        if self._file is None:
            ensure_private_dir(self._spill_dir)
            fd, name = tempfile.mkstemp(prefix="stdout-", suffix=".out", dir=self._spill_dir)
            os.fchmod(fd, 0o600)
            self._file, self.path = fd, Path(name)
            os.write(fd, bytes(self._buffer))
            self._buffer = bytearray()
        os.write(self._file, chunk)

    def close(self) -> str:
        if self._file is not None:
            os.close(self._file)
            self._file = None
            return ""
        return self._buffer.decode("utf-8", errors="replace")


class _EngineProtocol(asyncio.SubprocessProtocol):
    """Collects output and reports the child's exit as soon as it happens.

    `asyncio.subprocess.Process.wait()` also waits for the pipes to close, which a lingering
    grandchild can hold open forever; `process_exited` fires on the exit itself.
    """

    def __init__(self, loop: asyncio.AbstractEventLoop, sink: _StdoutSink) -> None:
        self.sink = sink
        self.stderr = bytearray()
        self.exited: asyncio.Future[None] = loop.create_future()
        self.closed: asyncio.Future[None] = loop.create_future()

    def pipe_data_received(self, fd: int, data: bytes) -> None:
        if fd == 1:
            self.sink.write(data)
            return
        self.stderr.extend(data)
        if len(self.stderr) > STDERR_LIMIT_BYTES:
            del self.stderr[: len(self.stderr) - STDERR_LIMIT_BYTES]

    def process_exited(self) -> None:
        if not self.exited.done():
            self.exited.set_result(None)

    def connection_lost(self, exc: Exception | None) -> None:
        if not self.closed.done():
            self.closed.set_result(None)


def _kill_group(pgid: int, sig: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, sig)


async def _terminate(pid: int, exited: asyncio.Future[None]) -> None:
    """SIGTERM the child's group, then SIGKILL it after the grace period."""
    _kill_group(pid, signal.SIGTERM)
    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(asyncio.shield(exited), KILL_GRACE_S)
    _kill_group(pid, signal.SIGKILL)
    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(asyncio.shield(exited), KILL_GRACE_S)


async def _drain_pipes(proto: _EngineProtocol, pid: int) -> None:
    """Let the pipes drain briefly; if something still holds them, kill its group."""
    try:
        await asyncio.wait_for(asyncio.shield(proto.closed), PIPE_DRAIN_GRACE_S)
    except TimeoutError:
        _kill_group(pid, signal.SIGKILL)


async def _supervise(
    transport: asyncio.SubprocessTransport,
    proto: _EngineProtocol,
    pid: int,
    stdin: str | None,
    timeout_ms: int,
) -> bool:
    """Feed stdin, wait for exit under the watchdog, drain pipes; True when it timed out."""
    if stdin is not None:
        pipe = transport.get_pipe_transport(0)
        assert isinstance(pipe, asyncio.WriteTransport)
        with contextlib.suppress(OSError):
            pipe.write(stdin.encode("utf-8"))
            pipe.write_eof()
    timed_out = False
    try:
        await asyncio.wait_for(asyncio.shield(proto.exited), timeout_ms / 1000.0)
    except TimeoutError:
        timed_out = True
        await _terminate(pid, proto.exited)
    await _drain_pipes(proto, pid)
    return timed_out


def _spawn_failure(
    argv: tuple[str, ...], exc: OSError, started: float, timeout_ms: int
) -> RawOutcome:
    return RawOutcome(
        argv=argv,
        exit_code=None,
        stdout="",
        stdout_path=None,
        stdout_bytes=0,
        stderr="",
        timed_out=False,
        missing_binary=isinstance(exc, FileNotFoundError | PermissionError),
        spawn_error=f"{type(exc).__name__}: {exc}",
        started_at=started,
        ended_at=time.time(),
        timeout_ms=timeout_ms,
    )


async def run_engine(
    argv: Sequence[str],
    *,
    env: dict[str, str],
    timeout_ms: int,
    stdin: str | None = None,
    cwd: Path | None = None,
    spill_dir: Path,
) -> RawOutcome:
    """Run one engine process to completion under a watchdog; see the module docstring."""
    started = time.time()
    argv_t = tuple(argv)
    loop = asyncio.get_running_loop()
    sink = _StdoutSink(spill_dir, STDOUT_MEMORY_LIMIT_BYTES, ENGINE_OUTPUT_READ_LIMIT_BYTES)
    proto = _EngineProtocol(loop, sink)
    try:
        transport, _ = await loop.subprocess_exec(
            lambda: proto,
            *argv_t,
            stdin=subprocess.PIPE if stdin is not None else subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=env,
            cwd=cwd,
            start_new_session=True,
        )
    except OSError as exc:
        return _spawn_failure(argv_t, exc, started, timeout_ms)
    pid = transport.get_pid()
    try:
        timed_out = await _supervise(transport, proto, pid, stdin, timeout_ms)
    except BaseException:
        # Cancellation (or any other interruption): never leave the child running.
        await asyncio.shield(_terminate(pid, proto.exited))
        transport.close()
        sink.close()
        if sink.path is not None:
            sink.path.unlink(missing_ok=True)
        raise
    code = transport.get_returncode()
    transport.close()
    stdout_text = sink.close()
    if timed_out and (code is None or code < 0):
        code = TIMEOUT_EXIT_CODE
    return RawOutcome(
        argv=argv_t,
        exit_code=code,
        stdout=stdout_text,
        stdout_path=sink.path,
        stdout_bytes=sink.size,
        stderr=proto.stderr.decode("utf-8", errors="replace"),
        timed_out=timed_out,
        missing_binary=False,
        spawn_error=None,
        started_at=started,
        ended_at=time.time(),
        timeout_ms=timeout_ms,
        stdout_dropped=sink.dropped,
    )


@dataclass(frozen=True)
class QuickOutcome:
    """Result of a short synchronous engine query (`--version`, `doctor --json`)."""

    exit_code: int | None
    stdout: str
    stderr: str
    error: str | None = None


def run_engine_quick(
    argv: Sequence[str], *, timeout_s: float, env: dict[str, str] | None = None
) -> QuickOutcome:
    """Run a short engine query synchronously (engine discovery and `doctor` need it before any
    event loop exists). Same rules as `run_engine`: argv list, no shell, no stdin, bounded."""
    try:
        proc = subprocess.run(
            list(argv),
            capture_output=True,
            text=True,
            timeout=timeout_s,
            env=env,
            stdin=subprocess.DEVNULL,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        return QuickOutcome(None, "", "", error=str(exc))
    return QuickOutcome(proc.returncode, proc.stdout, proc.stderr)
