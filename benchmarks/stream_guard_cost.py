"""What keeping the engine's stream server off costs (`engine.stream_guard`, issue 27).

Two figures, against the bare engine, interleaved so drift hits both alike:

  (a) a browser launch: the bare engine's first `open` of a page on a new session, against
      the guarded launch (`stream disable`, which starts the daemon, then the same `open`);
      each run closes its session and waits for its daemon to exit;
  (b) the per-call check on a running quiet daemon (no spawn: its pid and stream files and
      `/proc`), timed over many repetitions, before and after a call.

Run from the repo root:
    PYTHONPATH=src .venv/bin/python benchmarks/stream_guard_cost.py [--runs 8]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

from agent_browser_tools.engine.daemons import read_daemon_pid
from agent_browser_tools.engine.discovery import resolve_engine
from agent_browser_tools.engine.stream_guard import STREAM_OFF, off_before_call, streaming
from agent_browser_tools.settings import Settings

PAGE = "<title>bench</title><h1>guard</h1>"


def _run(binary: str, env: dict[str, str], *args: str) -> float:
    started = time.perf_counter()
    subprocess.run([binary, *args], env=env, check=True, capture_output=True, timeout=60)
    return (time.perf_counter() - started) * 1000.0


def _close(binary: str, env: dict[str, str], sockets: Path, session: str) -> None:
    pid = read_daemon_pid(sockets, session, None)
    subprocess.run([binary, "--session", session, "close"], env=env, capture_output=True)
    deadline = time.monotonic() + 15
    while pid is not None and Path(f"/proc/{pid}").exists() and time.monotonic() < deadline:
        time.sleep(0.05)


def _launch(binary: str, env: dict[str, str], sockets: Path, url: str, guarded: bool) -> float:
    session = f"bench-{uuid.uuid4().hex[:8]}"
    total = 0.0
    try:
        if guarded:
            total += _run(binary, env, "--session", session, *STREAM_OFF)
        total += _run(binary, env, "--json", "--session", session, "open", url)
        if guarded and streaming(sockets, session, None):
            raise SystemExit("the guarded launch left the stream on")
    finally:
        _close(binary, env, sockets, session)
    return total


def _check_cost(sockets: Path, session: str, repeat: int) -> float:
    started = time.perf_counter()
    for _ in range(repeat):
        off_before_call(sockets, session, None)
        streaming(sockets, session, None)
    return (time.perf_counter() - started) * 1e6 / repeat


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=8)
    opts = parser.parse_args()
    binary = resolve_engine(Settings.load()).path
    with tempfile.TemporaryDirectory(prefix="abt-bench-") as tmp:
        sockets = Path(tmp) / "s"
        sockets.mkdir(mode=0o700)
        page = Path(tmp) / "page.html"
        page.write_text(PAGE, encoding="utf-8")
        env = {**os.environ, "AGENT_BROWSER_SOCKET_DIR": str(sockets)}
        if os.geteuid() == 0:
            env.setdefault("AGENT_BROWSER_ARGS", "--no-sandbox")
        bare: list[float] = []
        guarded: list[float] = []
        for _ in range(opts.runs):
            bare.append(_launch(binary, env, sockets, page.as_uri(), guarded=False))
            guarded.append(_launch(binary, env, sockets, page.as_uri(), guarded=True))
        session = f"bench-{uuid.uuid4().hex[:8]}"
        try:
            _run(binary, env, "--session", session, *STREAM_OFF)
            _run(binary, env, "--json", "--session", session, "open", page.as_uri())
            check_us = _check_cost(sockets, session, 2000)
            assert not off_before_call(sockets, session, None), "a quiet daemon needs no spawn"
        finally:
            _close(binary, env, sockets, session)
    b, g = statistics.median(bare), statistics.median(guarded)
    print(f"launch (first open on a new session), median of {opts.runs} interleaved runs:")
    print(f"  bare engine:             {b:8.1f} ms")
    print(f"  with the stream guard:   {g:8.1f} ms  ({g - b:+.1f} ms, {g / b:.2f}x)")
    print(f"per-call check on a running quiet daemon (no spawn): {check_us:.1f} us")
    return 0


if __name__ == "__main__":
    sys.exit(main())
