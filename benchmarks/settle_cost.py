"""What the settle-after-navigation wait costs an action that does not navigate.

Issue 19 item 6 makes an action that starts a navigation wait for the new page
(`tools/agent_browser/page/nav_settle.py`); an action that does not navigate must not pay more
than a few ms for it. One run, one browser: a `BrowserTools` conversation opens the fixture
site's settle home page, then, interleaved so drift hits both alike, it clicks the same-page
"Count" button by ref with settling off (`settle_ms = 0`: no watcher row before the click, no
settle rows after it, the behaviour before item 6) and on (the default budget), and prints
the medians, the paired difference and what `details.navigationSettle` said.

It then times a batch of four same-page "Count" clicks and a `get text` (issue 33: a batch
step that may navigate is settled before the next step runs, `batches/step_settle.py`) with
settling off and on, beside the same rows sent to the bare engine as one `batch` (the
engine's argv, as the wrapper ran it), and prints how many engine processes each tool
batch started.

For scale it also times one navigating click each way (a form POST answered 303 after 400 ms,
to a cart page answered after 400 ms that builds its Checkout link after `load`), and whether
the `snapshot -i` right after it already lists that link.

Hermetic: a private 0700 root for sockets, state and downloads; the browser is closed at the
end, even on errors.

Run from the repo root:
    PYTHONPATH=src .venv/bin/python benchmarks/settle_cost.py [--iterations 30] [--warmup 3]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import statistics
import sys
import time
import uuid
from collections.abc import Awaitable, Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from tests.support.engine_session import private_benchmark_root  # noqa: E402
from tests.support.fixture_server import start_fixture_server  # noqa: E402
from tests.support.real_engine import close_socket_dir  # noqa: E402

from agent_browser_tools import BrowserTools  # noqa: E402

sys.path.insert(0, str(REPO / "benchmarks"))
from engine_overhead import (  # noqa: E402  (the same interleaved timing loop)
    bare_engine,
    engine_calls,
    measure,
    spawned,
)

TOOL = "agent_browser"


class BenchError(RuntimeError):
    """A measured call did not succeed, so its timing would mean nothing."""


async def call(tools: BrowserTools, args: list[str]) -> dict[str, Any]:
    result = await tools.call(TOOL, {"args": args})
    if result.is_error:
        raise BenchError(f"{TOOL} {args} failed: {result.text[:500]}")
    return result.details


def ref_of(details: dict[str, Any], role: str, name: str) -> str:
    refs: dict[str, dict[str, Any]] = details["data"]["refs"]
    found = [r for r, info in refs.items() if (info.get("role"), info.get("name")) == (role, name)]
    if not found:
        raise BenchError(f"no {role} {name!r} in the snapshot")
    return "@" + found[0]


async def run(iterations: int, warmup: int, root: Path) -> None:
    server = start_fixture_server()
    tools = BrowserTools(conversation_id=f"bench-{uuid.uuid4().hex[:12]}", cwd=REPO)
    rt = tools.runtime
    on, off = rt.settings, replace(rt.settings, settle_ms=0)
    try:
        await call(tools, ["open", server.url("/slow/settle-home.html?ms=0")])
        count = ref_of(await call(tools, ["snapshot", "-i"]), "button", "Count")
        seen: dict[str, Any] = {}

        def clicker(settings: Any, name: str) -> Callable[[], Awaitable[None]]:
            async def click() -> None:
                rt.settings = settings
                seen[name] = (await call(tools, ["click", count])).get("navigationSettle")

            return click

        timings = await measure(
            {"off": clicker(off, "off"), "on": clicker(on, "on")}, iterations, warmup
        )
        batch = await _batches(tools, count, on, off, iterations, warmup)
        navigating = {
            name: await _navigating(tools, server, settings)
            for name, settings in (("off", off), ("on", on))
        }
    finally:
        rt.settings = on
        with contextlib.suppress(Exception):
            await tools.aclose()
        close_socket_dir(rt.engine.path, rt.child_env, root / "sock")
        server.close()
    _print(timings, seen, navigating, iterations, warmup, on.settle_ms)
    _print_batches(*batch)


async def _batches(
    tools: BrowserTools, count: str, on: Any, off: Any, iterations: int, warmup: int
) -> tuple[dict[str, list[float]], dict[str, int]]:
    """Four same-page clicks and a read in one batch: settle off, on, and the bare engine."""
    rt = tools.runtime
    rows = [["click", count]] * 4 + [["get", "text", "#clicks"]]
    stdin = json.dumps(rows)

    def batcher(settings: Any) -> Callable[[], Awaitable[None]]:
        async def run_batch() -> None:
            rt.settings = settings
            result = await tools.call(TOOL, {"args": ["batch"], "stdin": stdin})
            if result.is_error:
                raise BenchError(f"batch failed: {result.text[:500]}")

        return run_batch

    rt.settings = on
    sent = await spawned(tools, ["get", "url"])
    bare_argv = [*sent[0][0][: sent[0][0].index("get")], "batch"]

    async def bare() -> None:
        await bare_engine(str(rt.engine.path), bare_argv, rt.child_env, stdin)

    timings = await measure(
        {"bare": bare, "off": batcher(off), "on": batcher(on)}, iterations, warmup
    )
    processes: dict[str, int] = {}
    for name, settings in (("off", off), ("on", on)):
        rt.settings = settings
        processes[name] = await engine_calls(tools, ["batch"], stdin)
    rt.settings = on
    return timings, processes


def _print_batches(timings: dict[str, list[float]], processes: dict[str, int]) -> None:
    bare, off, on = (statistics.median(timings[k]) for k in ("bare", "off", "on"))
    print("batch of 4 same-page clicks + get text:")
    print(f"  bare engine (one batch call):  {bare:7.2f} ms median")
    print(f"  tool, settle off:              {off:7.2f} ms median ({processes['off']} processes)")
    print(f"  tool, settle on:               {on:7.2f} ms median ({processes['on']} processes)")
    paired = statistics.median(b - a for a, b in zip(timings["off"], timings["on"], strict=True))
    print(f"  cost of settling the batch's steps: {paired:+.2f} ms (paired median)")


async def _navigating(tools: BrowserTools, server: Any, settings: Any) -> tuple[float, bool]:
    """One "Add to cart" POST (303 to the cart): the result's time, and whether the snapshot
    right after it lists the cart's Checkout link."""
    tools.runtime.settings = settings
    await call(tools, ["open", server.url("/slow/settle-catalog.html?ms=0")])
    button = ref_of(await call(tools, ["snapshot", "-i"]), "button", "Add to cart")
    started = time.perf_counter()
    await call(tools, ["click", button])
    elapsed = (time.perf_counter() - started) * 1000.0
    refs = (await call(tools, ["snapshot", "-i"]))["data"]["refs"]
    ready = any(info.get("name") == "Checkout" for info in refs.values())
    return elapsed, ready


def _print(
    timings: dict[str, list[float]],
    seen: dict[str, Any],
    navigating: dict[str, tuple[float, bool]],
    iterations: int,
    warmup: int,
    budget: int,
) -> None:
    off, on = timings["off"], timings["on"]
    paired = statistics.median(b - a for a, b in zip(off, on, strict=True))
    print(f"{iterations} iterations after {warmup} warm-ups, interleaved; one browser")
    print(f"same-page click, settle off (settle_ms=0):  {statistics.median(off):7.2f} ms median")
    print(f"same-page click, settle on ({budget} ms):    {statistics.median(on):7.2f} ms median")
    print(f"cost of settling a click that does not navigate: {paired:+.2f} ms (paired median)")
    print(f"navigationSettle on the last same-page click: {seen.get('on')}")
    for name, (elapsed, ready) in navigating.items():
        state = "lists" if ready else "does NOT list"
        print(
            f"navigating click, settle {name}: {elapsed:7.1f} ms; the snapshot right after "
            f"{state} the cart's Checkout link"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--iterations", type=int, default=30)
    parser.add_argument("--warmup", type=int, default=3)
    args = parser.parse_args()
    with private_benchmark_root() as root:
        asyncio.run(run(args.iterations, args.warmup, root))


if __name__ == "__main__":
    main()
