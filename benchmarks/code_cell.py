"""What an `agent_browser_code` cell costs on top of the direct tool.

One run, one browser: a `Runtime` opens the fixture site's page in its managed session, then,
interleaved so drift hits every variant alike, this measures (medians over `--iterations`):

  (a) the direct tool: `agent_browser {"args": ["get", "url"]}`;
  (b) an empty cell: `agent_browser_code {"code": "return 1"}` (worker spawn, QuickJS context,
      prelude, IPC; no browser call);
  (c) a cell making one `get url` call: `return (await browser({args: ["get", "url"]})).data`.

(b) is the fixed price of a cell; (c) - (a) is the price of running one call through a cell.
Sockets live in a private 0700 dir under /tmp (`AGENT_BROWSER_SOCKET_DIR`); the managed
browser and anything else in that dir are closed at the end, even on errors.

Run from the repo root:
    /work/venv/bin/python benchmarks/code_cell.py [--iterations 15] [--warmup 2]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import statistics
import sys
import time
import uuid
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from tests.support.engine_session import private_benchmark_root  # noqa: E402
from tests.support.fixture_server import start_fixture_server  # noqa: E402
from tests.support.real_engine import close_socket_dir  # noqa: E402

from agent_browser_tools.runtime import Runtime  # noqa: E402
from agent_browser_tools.settings import Settings  # noqa: E402
from agent_browser_tools.tools import agent_browser  # noqa: E402
from agent_browser_tools.tools.agent_browser import close_owned  # noqa: E402
from agent_browser_tools.tools.code.spec import SPEC as CODE  # noqa: E402

CLOSE_TIMEOUT_S = 30.0

Timed = Callable[[], Awaitable[None]]


class BenchError(RuntimeError):
    """A measured call did not succeed, so its timing would mean nothing."""


def _checked(label: str, result: Any) -> None:
    if result.is_error:
        raise BenchError(f"{label} failed: {result.text[:500]}")


async def measure(
    variants: dict[str, Timed], iterations: int, warmup: int
) -> dict[str, list[float]]:
    times: dict[str, list[float]] = {name: [] for name in variants}
    for round_index in range(warmup + iterations):
        for name, call in variants.items():
            started = time.perf_counter()
            await call()
            elapsed = (time.perf_counter() - started) * 1000
            if round_index >= warmup:
                times[name].append(elapsed)
    return times


async def run(iterations: int, warmup: int, root: Path) -> None:
    server = start_fixture_server()
    settings = Settings.load(env=dict(os.environ), cwd=REPO)
    rt = Runtime(settings, conversation_id=f"bench-{uuid.uuid4().hex[:12]}", cwd=REPO)
    try:
        opened = await agent_browser.run(rt, {"args": ["open", server.url("page-a.html")]})
        _checked("open", opened)

        async def direct_get() -> None:
            _checked("direct get url", await agent_browser.run(rt, {"args": ["get", "url"]}))

        async def empty_cell() -> None:
            _checked("empty cell", await CODE.call(rt, {"code": "return 1"}))

        async def one_call_cell() -> None:
            code = "return (await browser({ args: ['get', 'url'] })).data"
            _checked("one-call cell", await CODE.call(rt, {"code": code}))

        times = await measure(
            {"direct": direct_get, "empty": empty_cell, "one": one_call_cell}, iterations, warmup
        )
    finally:
        await _close_all(rt, root)
        server.close()
    _report(times, iterations)


def _report(times: dict[str, list[float]], iterations: int) -> None:
    med = {name: statistics.median(values) for name, values in times.items()}
    spread = {name: (min(v), max(v)) for name, v in times.items()}
    print(f"medians over {iterations} runs (min..max), milliseconds")
    labels = {
        "direct": "direct agent_browser get url",
        "empty": "empty cell (return 1)",
        "one": "cell with one get url call",
    }
    for name, label in labels.items():
        low, high = spread[name]
        print(f"  {label:<32} {med[name]:8.1f}   ({low:.1f}..{high:.1f})")
    print()
    print(f"fixed cost of a cell (empty cell):            {med['empty']:.1f} ms")
    print(f"one call through a cell vs the direct tool:   +{med['one'] - med['direct']:.1f} ms")


async def _close_all(rt: Runtime, root: Path) -> None:
    """Close the conversation's browser, then anything else in the private socket dir."""
    with contextlib.suppress(Exception):
        await close_owned(rt)
    close_socket_dir(rt.engine.path, rt.child_env, root / "sock")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--iterations", type=int, default=15)
    parser.add_argument("--warmup", type=int, default=2)
    options = parser.parse_args(argv)

    with private_benchmark_root() as root:
        asyncio.run(run(options.iterations, options.warmup, root))
    return 0


if __name__ == "__main__":
    sys.exit(main())
