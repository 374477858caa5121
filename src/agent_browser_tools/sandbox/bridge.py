"""Parent side of a code cell: spawn the worker, enforce the IPC caps, serialize calls, deadline.

One `run_cell` is one worker process (fresh globals every cell; spawning costs ~40 ms). The
parent never trusts the worker: every cap is enforced here, whatever the prelude checks.

- IPC is JSON lines. A worker message over `message_bytes` (1 MiB) or a cumulative volume over
  `total_bytes` (8 MiB, both directions together) is a violation: the worker is killed and the
  cell fails. An observation that cannot fit in one reply is replaced, for that call only, by a
  failed observation saying so (the host records it), never truncated.
- `browser()` requests go to one queue served by one task, so inner calls run one at a time in
  the order JavaScript issued them, `Promise.all` included.
- At the deadline (or when the awaiting task is cancelled) the worker's process group gets
  SIGKILL and the active inner call is cancelled, which journals it as target-unknown.
- When the body settles, the active inner call is allowed to finish (within the deadline);
  queued calls that never started are reported to the host as undispatched.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
import sys
from pathlib import Path
from typing import Any

from agent_browser_tools.input_limits import well_formed_data
from agent_browser_tools.sandbox.prelude import PRELUDE, wrap_code
from agent_browser_tools.sandbox.protocol import (
    PRELUDE_LINE_BASE,
    BridgeOutcome,
    CellHost,
    JsError,
    Limits,
    user_line,
)

__all__ = ["BridgeOutcome", "CellHost", "JsError", "Limits", "run_cell", "user_line"]

STDERR_KEEP_BYTES = 8 * 1024
EXIT_GRACE_S = 1.0
ERROR_TEXT_LIMIT = 2_000
MAX_OUTPUT_DEPTH = 100
"""Emitted/returned JSON deeper than this is refused: the parent's redaction and rendering
recurse over it."""
WORKER_PATH = Path(__file__).with_name("worker.py")


def worker_argv() -> list[str]:
    """`python -I -B worker.py`: isolated mode, no bytecode writes, stdlib + QuickJS only."""
    return [sys.executable, "-I", "-B", str(WORKER_PATH)]


def _size(value: Any) -> int:
    return len(json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode("utf-8"))


class _Cell:
    """One worker process and the state of its conversation with the parent."""

    def __init__(self, host: CellHost, limits: Limits) -> None:
        self.host = host
        self.limits = limits
        self.out = BridgeOutcome()
        self.proc: asyncio.subprocess.Process | None = None
        self.queue: asyncio.Queue[tuple[int, Any, str | None]] = asyncio.Queue()
        self.server: asyncio.Task[None] | None = None
        self.stderr_task: asyncio.Task[bytes] | None = None
        self.active: int | None = None
        self.idle = asyncio.Event()
        self.idle.set()
        self.closing = False
        self.emit_bytes = 0

    async def spawn(self, argv: list[str]) -> None:
        self.proc = await asyncio.create_subprocess_exec(
            *argv,
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            env={},
            cwd="/",
            start_new_session=True,
            limit=self.limits.message_bytes + 1,
        )
        assert self.proc.stderr is not None
        self.stderr_task = asyncio.create_task(_read_bounded(self.proc.stderr))
        self.server = asyncio.create_task(self._serve())

    async def send(self, message: dict[str, Any]) -> bool:
        data = (json.dumps(message, ensure_ascii=False) + "\n").encode("utf-8")
        if self.out.bytes_in + self.out.bytes_out + len(data) > self.limits.total_bytes:
            self.violate(f"the cell's IPC volume would exceed {self.limits.total_bytes} bytes")
            return False
        self.out.bytes_out += len(data)
        assert self.proc is not None and self.proc.stdin is not None
        try:
            self.proc.stdin.write(data)
            await self.proc.stdin.drain()
        except (BrokenPipeError, ConnectionResetError):
            return False
        return True

    async def start(self, code: str) -> None:
        limits = {
            "heapBytes": self.limits.heap_bytes,
            "stackBytes": self.limits.stack_bytes,
            "emitBytes": self.limits.emit_bytes,
            "maxImages": self.limits.max_images,
            "preludeLineBase": PRELUDE_LINE_BASE,
        }
        await self.send({"prelude": PRELUDE, "code": wrap_code(code), "limits": limits})

    def violate(self, reason: str) -> None:
        if self.out.violation is None:
            self.out.violation = reason
        self.out.status = "violation"
        self.kill()

    def kill(self) -> None:
        if self.proc is not None and self.proc.returncode is None:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(self.proc.pid, signal.SIGKILL)

    async def pump(self) -> None:
        """Read worker messages until the body settles, a cap breaks, or the worker dies."""
        assert self.proc is not None and self.proc.stdout is not None
        reader = self.proc.stdout
        while self.out.violation is None and self.out.status != "internal":
            try:
                line = await reader.readuntil(b"\n")
            except asyncio.IncompleteReadError as exc:
                self.out.bytes_in += len(exc.partial)
                await self._worker_gone()
                return
            except asyncio.LimitOverrunError:
                self.violate(f"a worker message exceeded {self.limits.message_bytes} bytes")
                return
            self.out.bytes_in += len(line)
            if len(line) > self.limits.message_bytes + 1:
                self.violate(f"a worker message exceeded {self.limits.message_bytes} bytes")
                return
            if self.out.bytes_in + self.out.bytes_out > self.limits.total_bytes:
                self.violate(f"the cell's IPC volume exceeded {self.limits.total_bytes} bytes")
                return
            if self._handle(line):
                return

    async def _worker_gone(self) -> None:
        if self.out.violation is not None or self.out.status == "internal":
            return
        assert self.proc is not None
        code = await self.proc.wait()
        detail = await self.stderr_tail()
        self.out.status = "crashed"
        self.out.crash = f"the sandbox worker exited (code {code}) before the cell finished"
        if detail:
            self.out.crash += f": {detail}"

    async def stderr_tail(self) -> str:
        if self.stderr_task is None:
            return ""
        with contextlib.suppress(asyncio.TimeoutError):
            data = await asyncio.wait_for(asyncio.shield(self.stderr_task), EXIT_GRACE_S)
            return data.decode("utf-8", "replace").strip()[-2000:]
        return ""

    def _handle(self, line: bytes) -> bool:
        """Apply one message; True when the cell is over."""
        try:
            message = json.loads(line)
        except ValueError:
            self.violate("the worker sent a message that is not JSON")
            return True
        except RecursionError:
            self.violate("a worker message nests deeper than Python's JSON reader allows")
            return True
        kind = message.get("type") if isinstance(message, dict) else None
        if kind == "call":
            return self._on_call(message)  # a lone surrogate in it is refused as input
        if b"\\ud" in line.lower():
            # A JavaScript string may hold a lone surrogate, which no UTF-8 output can carry.
            message = well_formed_data(message)
        if kind == "emit":
            return self._on_emit(message.get("value"))
        if kind == "emitImage":
            reason = self.host.select_image(str(message.get("id")), str(message.get("path")))
            if reason is not None:
                self.violate(reason)
            return reason is not None
        if kind == "emitOverflow":
            self.violate(
                f"emit() output would reach {message.get('bytes')} bytes, over the "
                f"{self.limits.emit_bytes}-byte limit for emitted JSON"
            )
            return True
        if kind == "done":
            return self._on_done(message)
        if kind in ("error", "fatal"):
            self._on_error(message)
            return True
        self.violate(f"the worker sent an unknown message type {kind!r}")
        return True

    def _on_call(self, message: dict[str, Any]) -> bool:
        call_id = message.get("id")
        if not isinstance(call_id, int):
            self.violate("the worker sent a call without an integer id")
            return True
        encode_error = message.get("encodeError")
        self.queue.put_nowait((call_id, message.get("request"), _opt_str(encode_error)))
        return False

    def _on_emit(self, value: Any) -> bool:
        if _too_deep(value):
            self.violate(f"emitted JSON nests deeper than {MAX_OUTPUT_DEPTH} levels")
            return True
        self.emit_bytes += _size(value)
        if self.emit_bytes > self.limits.emit_bytes:
            self.violate(
                f"emit() output reached {self.emit_bytes} bytes, over the "
                f"{self.limits.emit_bytes}-byte limit for emitted JSON"
            )
            return True
        self.out.emits.append(value)
        return False

    def _on_done(self, message: dict[str, Any]) -> bool:
        self.out.status = "done"
        if message.get("hasValue") and not self.out.emits:
            value = message.get("value")
            if _too_deep(value):
                self.violate(f"the return value nests deeper than {MAX_OUTPUT_DEPTH} levels")
                return True
            if _size(value) > self.limits.emit_bytes:
                self.violate(
                    f"the cell's return value is {_size(value)} bytes of JSON, over the "
                    f"{self.limits.emit_bytes}-byte output limit; return or emit less"
                )
                return True
            self.out.has_value, self.out.value = True, value
        return True

    def _on_error(self, message: dict[str, Any]) -> None:
        self.out.status = "error"
        if message.get("type") == "fatal":
            reason = message.get("reason")
            if reason == "never-settles":
                text = (
                    "the async body awaits a promise that can never settle (no browser() call "
                    "is pending and there are no timers); resolve or remove that await"
                )
                self.out.error = JsError("Deadlock", text, None, "")
            else:
                self.out.status = "crashed"
                self.out.crash = f"the sandbox worker failed: {message.get('detail', reason)}"
            return
        found = message.get("error")
        raw: dict[str, Any] = found if isinstance(found, dict) else {}
        stack = str(raw.get("stack", ""))
        self.out.error = JsError(
            name=str(raw.get("name", "Error"))[:ERROR_TEXT_LIMIT],
            message=str(raw.get("message", ""))[:ERROR_TEXT_LIMIT],
            line=user_line(stack),
            stack=stack[:ERROR_TEXT_LIMIT],
        )

    async def _serve(self) -> None:
        """Run queued `browser()` requests one at a time, in order."""
        while True:
            call_id, request, encode_error = await self.queue.get()
            if self.closing:
                self._drop(call_id, request)
                continue
            self.active = call_id
            self.idle.clear()
            try:
                observation = await self.host.call(call_id, request, encode_error)
            except Exception as exc:  # a host bug must not leave the worker waiting forever
                self._internal(f"browser() call {call_id} failed inside the wrapper: {exc!r}")
                return
            finally:
                self.active = None
                self.idle.set()
            task = asyncio.current_task()
            if task is not None and task.cancelling():
                # The inner call turned our cancellation into a failed observation; honour the
                # cancellation instead of serving the next request (shutdown waits for us).
                raise asyncio.CancelledError
            await self._reply(call_id, observation)

    def _internal(self, reason: str) -> None:
        self.out.status = "internal"
        self.out.crash = reason[:ERROR_TEXT_LIMIT]
        self.kill()

    async def _reply(self, call_id: int, observation: dict[str, Any]) -> None:
        envelope = {"type": "reply", "id": call_id, "observation": observation}
        size = len(json.dumps(envelope, ensure_ascii=False).encode("utf-8")) + 1
        if size > self.limits.message_bytes:
            observation = self.host.oversized(call_id, size, self.limits.message_bytes)
            envelope = {"type": "reply", "id": call_id, "observation": observation}
        await self.send(envelope)

    def _drop(self, call_id: int, request: Any) -> None:
        self.out.undispatched += 1
        self.host.undispatched(call_id, request)

    async def settle(self) -> None:
        """After the body settled: let the active call finish, drop the queued ones."""
        self.closing = True
        while not self.queue.empty():
            call_id, request, _ = self.queue.get_nowait()
            self._drop(call_id, request)
        if self.out.status in ("done", "error"):
            await self.idle.wait()

    async def shutdown(self) -> None:
        """Stop the call server (cancelling an active call) and reap the worker."""
        while self.server is not None and not self.server.done():
            # Cancel until it is done: a request in flight may absorb one cancellation.
            self.server.cancel()
            await asyncio.wait({self.server}, timeout=EXIT_GRACE_S)
        if self.server is not None and not self.server.cancelled():
            self.server.exception()  # retrieved: a host bug was already reported as internal
        while not self.queue.empty():
            call_id, request, _ = self.queue.get_nowait()
            self._drop(call_id, request)
        if self.proc is None:
            return
        # Whatever the worker would still do after its last message (interpreter teardown)
        # is of no use: the process group is killed and reaped at once.
        self.kill()
        # A flooding worker can leave the stdout reader paused with a full buffer; then the
        # transport never sees EOF and `wait()` (which also waits for the pipes) never returns.
        # Drain what is left and bound the wait: the process is already SIGKILLed.
        drainer = asyncio.create_task(_discard(self.proc.stdout)) if self.proc.stdout else None
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self.proc.wait(), REAP_TIMEOUT_S)
        if drainer is not None:
            drainer.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await drainer
        if self.stderr_task is not None:
            self.stderr_task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self.stderr_task


REAP_TIMEOUT_S = 5.0


def _too_deep(value: Any) -> bool:
    """Whether JSON `value` nests deeper than `MAX_OUTPUT_DEPTH` (checked without recursion)."""
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if depth > MAX_OUTPUT_DEPTH:
            return True
        if isinstance(item, dict):
            stack.extend((child, depth + 1) for child in item.values())
        elif isinstance(item, list):
            stack.extend((child, depth + 1) for child in item)
    return False


def _opt_str(value: Any) -> str | None:
    return value if isinstance(value, str) else None


async def _discard(stream: asyncio.StreamReader) -> None:
    with contextlib.suppress(Exception):
        while await stream.read(65536):
            pass


async def _read_bounded(stream: asyncio.StreamReader) -> bytes:
    kept = bytearray()
    while chunk := await stream.read(65536):
        if len(kept) < STDERR_KEEP_BYTES:
            kept += chunk[: STDERR_KEEP_BYTES - len(kept)]
    return bytes(kept)


async def run_cell(
    code: str,
    host: CellHost,
    *,
    deadline: float,
    limits: Limits | None = None,
    argv: list[str] | None = None,
) -> BridgeOutcome:
    """Run one cell until it settles, breaks a cap, or reaches `deadline` (loop time).

    Cancelling the awaiting task kills the worker, cancels the active inner call and
    re-raises; the outcome is then lost with the task, by design.
    """
    cell = _Cell(host, limits or Limits())
    try:
        async with asyncio.timeout_at(deadline):
            await cell.spawn(argv or worker_argv())
            await cell.start(code)
            await cell.pump()
            await cell.settle()
    except TimeoutError:
        cell.out.status = "timeout"
    finally:
        cell.kill()
        await asyncio.shield(cell.shutdown())
    return cell.out
