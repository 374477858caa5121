"""Child side of a code cell: one QuickJS context in a throwaway process.

Run by the parent as `python -I -B <this file>` with an empty environment, in its own process
group, with stdin/stdout pipes. It imports only the standard library and the QuickJS binding
(never the `agent_browser_tools` package, whose import would cost ~0.4 s per cell and put
unrelated code in the sandbox process).

Protocol (JSON lines; the parent enforces every size cap):

- parent -> worker, first line: `{"prelude", "code", "limits": {heapBytes, stackBytes,
  emitBytes, maxImages, preludeLineBase}}`; then `{"type": "reply", "id", "observation"}` lines.
- worker -> parent: whatever the prelude posts (`call`, `emit`, `emitImage`, `emitOverflow`,
  `done`, `error`), plus `fatal` for failures of the worker itself.

The worker reads a reply only when the JavaScript job queue is empty, the body has not settled
and a `browser()` call is pending; when nothing can ever settle the body it says so and exits.
"""

from __future__ import annotations

import contextlib
import importlib
import json
import resource
import signal
import sys
from typing import Any, BinaryIO

ADDRESS_SPACE_LIMIT = 512 * 1024 * 1024
"""RLIMIT_AS of the worker: defence in depth under the QuickJS heap cap (64 MiB). The
interpreter plus one context maps about 30 MiB; the rest leaves room for a full heap and
the Python copies of one large outgoing message (the parent rejects it over 1 MiB)."""
OPEN_FILES_LIMIT = 32


def _limit_process() -> None:
    """Resource limits and parent-death signal; best effort where the platform lacks one."""
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    for limit, value in (
        (resource.RLIMIT_AS, ADDRESS_SPACE_LIMIT),
        (resource.RLIMIT_CORE, 0),
        (resource.RLIMIT_FSIZE, 0),
        (resource.RLIMIT_NOFILE, OPEN_FILES_LIMIT),
    ):
        with contextlib.suppress(ValueError, OSError):
            resource.setrlimit(limit, (value, value))
    with contextlib.suppress(Exception):
        import ctypes

        pr_set_pdeathsig = 1
        ctypes.CDLL(None).prctl(pr_set_pdeathsig, int(signal.SIGKILL))


class Channel:
    """The worker's end of the JSON-lines pipes."""

    def __init__(self, reader: BinaryIO, writer: BinaryIO) -> None:
        self.reader = reader
        self.writer = writer

    def send_text(self, text: str) -> None:
        self.writer.write(text.encode("utf-8", errors="replace") + b"\n")
        self.writer.flush()

    def send(self, message: dict[str, Any]) -> None:
        self.send_text(json.dumps(message, ensure_ascii=False))

    def receive(self) -> dict[str, Any] | None:
        line = self.reader.readline()
        if not line:
            return None
        value = json.loads(line)
        return value if isinstance(value, dict) else None


def _error_message(exc: BaseException) -> dict[str, str]:
    text = str(exc).strip()
    if not text or text == "null" or "out of memory" in text:
        return {"name": "InternalError", "message": "out of memory", "stack": text}
    head = text.splitlines()[0]
    name, _, message = head.partition(": ")
    return {"name": name or "Error", "message": message or head, "stack": text}


def _drain_jobs(context: Any) -> None:
    while context.execute_pending_job():
        pass


def run_cell(channel: Channel, start: dict[str, Any]) -> None:
    """Evaluate one cell and drive its promise jobs until the body settles."""
    quickjs: Any = importlib.import_module("_quickjs")
    limits = start["limits"]
    context = quickjs.Context()
    context.set_memory_limit(int(limits["heapBytes"]))
    context.set_max_stack_size(int(limits["stackBytes"]))
    # No `set_time_limit`: the binding refuses host callables while one is set. The parent's
    # deadline (SIGKILL of the process group) is the time limit; PR_SET_PDEATHSIG covers an
    # orphaned worker.
    context.add_callable("__abt_send", channel.send_text)
    try:
        # Padding puts every prelude frame on a line >= preludeLineBase, so the parent can tell
        # user frames (lines below it) from prelude frames in a stack trace.
        padding = "\n" * int(limits.get("preludeLineBase", 0))
        factory = context.eval(padding + start["prelude"])
        control = factory(json.dumps(limits))
        body = context.eval(start["code"])
        control("start", body)
        while True:
            _drain_jobs(context)
            status = json.loads(control("status"))
            if status["settled"]:
                return
            if status["waiting"] == 0:
                channel.send({"type": "fatal", "reason": "never-settles"})
                return
            reply = channel.receive()
            if reply is None:
                return
            control("deliver", int(reply["id"]), json.dumps(reply["observation"]))
    except quickjs.JSException as exc:
        channel.send({"type": "error", "error": _error_message(exc)})
    except quickjs.StackOverflow as exc:
        channel.send({"type": "error", "error": _error_message(exc)})
    except MemoryError:
        channel.send({"type": "error", "error": _error_message(MemoryError("out of memory"))})


def main() -> int:
    _limit_process()
    channel = Channel(sys.stdin.buffer, sys.stdout.buffer)
    try:
        start = channel.receive()
        if start is None:
            return 2
        run_cell(channel, start)
    except BrokenPipeError:
        return 3
    except Exception as exc:  # the parent reports it; never a traceback into the pipe
        with contextlib.suppress(Exception):
            channel.send({"type": "fatal", "reason": "worker-error", "detail": repr(exc)[:500]})
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
