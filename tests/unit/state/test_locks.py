"""Identity locks: one call per browser identity, across processes; namespaces wait for all."""

from __future__ import annotations

import asyncio
import itertools
import json
import subprocess
import sys
import textwrap
import time
from pathlib import Path

from agent_browser_tools.state.locks import IdentityLocks

HOLDER = textwrap.dedent(
    """
    import asyncio, json, sys, time
    from pathlib import Path
    from agent_browser_tools.state.locks import IdentityLocks

    async def main() -> None:
        state, session, hold, out = sys.argv[1], sys.argv[2], float(sys.argv[3]), sys.argv[4]
        locks = IdentityLocks(Path(state), "sock")
        async with locks.hold(None, session or None, whole_namespace=not session):
            start = time.time()
            await asyncio.sleep(hold)
            Path(out).write_text(json.dumps([start, time.time()]))

    asyncio.run(main())
    """
)


def _spawn(tmp_path: Path, session: str, hold: float, name: str) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [
            sys.executable,
            "-c",
            HOLDER,
            str(tmp_path / "state"),
            session,
            str(hold),
            str(tmp_path / name),
        ]
    )


def _interval(tmp_path: Path, name: str) -> tuple[float, float]:
    start, end = json.loads((tmp_path / name).read_text())
    return start, end


def test_same_identity_is_serialized_across_processes(tmp_path: Path) -> None:
    procs = [_spawn(tmp_path, "s1", 0.4, f"p{i}") for i in range(3)]
    for proc in procs:
        assert proc.wait(timeout=30) == 0
    spans = sorted(_interval(tmp_path, f"p{i}") for i in range(3))
    for (_, first_end), (second_start, _) in itertools.pairwise(spans):
        assert second_start >= first_end - 0.01, spans


def test_different_identities_run_concurrently(tmp_path: Path) -> None:
    started = time.time()
    procs = [_spawn(tmp_path, f"s{i}", 0.8, f"p{i}") for i in range(3)]
    for proc in procs:
        assert proc.wait(timeout=30) == 0
    spans = [_interval(tmp_path, f"p{i}") for i in range(3)]
    assert max(start for start, _ in spans) < min(end for _, end in spans), spans
    assert time.time() - started < 8


def test_close_all_waits_for_the_namespace(tmp_path: Path) -> None:
    session_holder = _spawn(tmp_path, "s1", 1.0, "session")
    time.sleep(0.5)
    closer = _spawn(tmp_path, "", 0.0, "close-all")
    assert session_holder.wait(timeout=30) == 0 and closer.wait(timeout=30) == 0
    _, session_end = _interval(tmp_path, "session")
    close_start, _ = _interval(tmp_path, "close-all")
    assert close_start >= session_end - 0.01


async def test_in_process_callers_queue_and_cancellation_releases(tmp_path: Path) -> None:
    locks = IdentityLocks(tmp_path / "state", "sock")
    order: list[str] = []

    async def worker(name: str, hold: float) -> None:
        async with locks.hold(None, "s1"):
            order.append(f"{name}+")
            await asyncio.sleep(hold)
            order.append(f"{name}-")

    blocked = asyncio.create_task(worker("a", 5))
    await asyncio.sleep(0.1)
    waiting = asyncio.create_task(worker("b", 0))
    await asyncio.sleep(0.1)
    blocked.cancel()
    await asyncio.gather(blocked, return_exceptions=True)
    await asyncio.wait_for(waiting, 5)
    assert order == ["a+", "b+", "b-"]
