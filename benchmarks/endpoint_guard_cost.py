"""What the endpoint guard costs (`tools/agent_browser/safety/endpoint_guard.py` and
`dispatch_guard.py`, issue 27).

Three figures:

  (a) reading the listening ports at dispatch (`engine.browser_ports.listeners`, `/proc`),
      the only I/O the guard adds to a call that runs page script;
  (b) building the guarded argv of a 3-row stdin batch (pure), per call;
  (c) an `eval` through the tools on a live page, median of interleaved runs: guarded (one
      engine call), and with the guard off plus the `get url` the tools used to run before
      every `eval` (what a call cost before the guard replaced that check).

Run from the repo root:
    PYTHONPATH=src:. .venv/bin/python benchmarks/endpoint_guard_cost.py [--runs 20]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import tempfile
import time
from pathlib import Path

from tests.support.plans import plan

from agent_browser_tools.api import BrowserTools
from agent_browser_tools.engine.browser_ports import listeners
from agent_browser_tools.planning.script_guard import ScriptGuard
from agent_browser_tools.settings import Settings
from agent_browser_tools.tools.agent_browser.refs import refmap
from agent_browser_tools.tools.agent_browser.safety import dispatch_guard

ROWS = [["open", "https://example.com/"], ["eval", "document.title"], ["wait", "--fn", "1"]]


def _per_call_us(action: object, repeat: int) -> float:
    started = time.perf_counter()
    for _ in range(repeat):
        action()  # type: ignore[operator]
    return (time.perf_counter() - started) * 1e6 / repeat


async def _evals(runs: int, tmp: Path) -> tuple[list[float], list[float]]:
    settings = Settings.load(env={"AGENT_BROWSER_TOOLS_STATE_DIR": str(tmp / "state")}, cwd=tmp)
    tools = BrowserTools(settings=settings, cwd=tmp)
    page = tmp / "page.html"
    page.write_text("<title>bench</title><h1>guard</h1>", encoding="utf-8")
    real = dispatch_guard.script_guard
    guarded: list[float] = []
    before: list[float] = []
    try:
        await tools.call("agent_browser", {"args": ["open", page.as_uri()]})
        for _ in range(runs):
            started = time.perf_counter()
            await tools.call("agent_browser", {"args": ["eval", "document.title"]})
            guarded.append((time.perf_counter() - started) * 1000)
            dispatch_guard.script_guard = lambda plan, grid=None: None
            try:
                started = time.perf_counter()
                await tools.call("agent_browser", {"args": ["get", "url"]})
                await tools.call("agent_browser", {"args": ["eval", "document.title"]})
                before.append((time.perf_counter() - started) * 1000)
            finally:
                dispatch_guard.script_guard = real
    finally:
        await tools.aclose()
    return guarded, before


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=20)
    opts = parser.parse_args()
    print(f"(a) listeners() at dispatch: {_per_call_us(listeners, 200) / 1000:.2f} ms")
    batch = plan(["batch"], rows=ROWS)
    guard = ScriptGuard(frozenset(range(3000, 3040)), nonce="bench")
    cost = _per_call_us(lambda: refmap.to_engine(batch, {}, guard=guard), 2000)
    print(f"(b) guarded argv of a 3-row batch: {cost:.1f} us")
    with tempfile.TemporaryDirectory(prefix="abt-bench-") as tmp:
        guarded, before = asyncio.run(_evals(opts.runs, Path(tmp)))
    print(
        f"(c) eval, median of {opts.runs}: guarded {statistics.median(guarded):.1f} ms; "
        f"unguarded + get url (the old check) {statistics.median(before):.1f} ms"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
