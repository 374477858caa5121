"""Ref actions and snapshots on dense pages: the tools against the bare engine, side by side.

Issue 28: the ref guard must cost about what the refs used cost, not what the page costs.
One run, one browser: a `BrowserTools` conversation opens the fixture site's `rows.html` with
100, 1,500 and 5,000 rows (a link, a checkbox and an "Edit" button each; ticking a box marks
its row and a counter, Edit writes a status line), takes one `snapshot -i`, then, interleaved
so drift on this shared machine hits both alike, it times

  click   `click @ref` on a row's Edit button (the same one each time);
  fill    `fill @ref TEXT` into the search box;
  check   `check @ref` on a row's checkbox (a new row each time, so every call ticks);

each through `BrowserTools.call("agent_browser", ...)` and as the bare engine running the
wrapper's own `effectiveArgs` (spawned with `asyncio.create_subprocess_exec`, the same env);
then `snapshot -i` both ways. It prints medians, p90, the median of paired differences, the
engine calls one tool action spawns, and the wrapper's snapshot overhead: the paired
difference over the engine's median, and in process, the tool call's wall time minus the time
of the engine process that took the snapshot (every other engine call counts as overhead).

The machine is shared: the load average is printed before and after; compare medians.

Run from the repo root:
    .venv/bin/python benchmarks/dense_page_actions.py [--sizes 100,1500,5000]
        [--iterations 15] [--snapshots 5] [--warmup 2]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import statistics
import sys
import time
import uuid
from collections.abc import Awaitable, Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "benchmarks"))

from engine_overhead import bare_engine, measure, tool_call  # noqa: E402
from tests.support.engine_session import private_benchmark_root  # noqa: E402
from tests.support.fixture_server import start_fixture_server  # noqa: E402
from tests.support.real_engine import close_socket_dir  # noqa: E402

from agent_browser_tools import BrowserTools  # noqa: E402
from agent_browser_tools.tools.agent_browser.refs import refmap  # noqa: E402

ACTION_BUDGET_MS = 40.0
SNAPSHOT_BUDGET = 0.10

Timed = Callable[[], Awaitable[None]]


@dataclass
class SpawnClock:
    """Wall time of every engine process the wrapper spawns (counted at `Runtime.spawn`)."""

    spans: list[tuple[list[str], float]] = field(default_factory=list)

    def install(self, tools: BrowserTools) -> None:
        rt = tools.runtime
        spawn = rt.spawn

        async def timed(args: Sequence[str], *a: Any, **k: Any) -> Any:
            started = time.perf_counter()
            try:
                return await spawn(args, *a, **k)
            finally:
                self.spans.append((list(args), (time.perf_counter() - started) * 1000.0))

        rt.spawn = timed  # type: ignore[method-assign]


@dataclass
class SizeFigures:
    rows: int
    refs: int
    times: dict[str, dict[str, list[float]]]
    calls: dict[str, int]
    snapshot_inprocess: list[float]


def _pick(refs: dict[str, Any], role: str, name: str | None = None) -> list[str]:
    found = [
        ref
        for ref, info in refs.items()
        if info.get("role") == role and (name is None or info.get("name") == name)
    ]
    return sorted(found, key=lambda r: int(r[1:]))


def _data(details: dict[str, Any]) -> Any:
    """`details.data`, read back from its spill file when the message budget moved it (a
    5,000-row ref map does not fit one MCP message)."""
    if "data" in details:
        return details["data"]
    moved = details.get("messageBudget", {}).get("moved", [])
    path = next(m["path"] for m in moved if m["part"] == "details.data")
    return json.loads(Path(path).read_text(encoding="utf-8"))


async def _one_size(
    tools: BrowserTools,
    clock: SpawnClock,
    url: str,
    rows: int,
    iterations: int,
    snapshots: int,
    warmup: int,
) -> SizeFigures:
    await tool_call(tools, ["open", url])
    snap = await tool_call(tools, ["snapshot", "-i"])
    refs: dict[str, Any] = _data(snap)["refs"]
    rt = tools.runtime
    binary, env = rt.engine.path, rt.child_env
    edit = "@" + _pick(refs, "button", "Edit")[rows // 2]
    search = (
        "@" + (_pick(refs, "searchbox", "Search rows") + _pick(refs, "textbox", "Search rows"))[0]
    )
    boxes = iter("@" + r for r in _pick(refs, "checkbox")[rows // 3 :])

    commands: dict[str, Callable[[], list[str]]] = {
        "click": lambda: ["click", edit],
        "fill": lambda: ["fill", search, "row 42"],
        "check": lambda: ["check", next(boxes)],
        "snapshot -i": lambda: ["snapshot", "-i"],
    }
    prefix = _engine_prefix(snap["effectiveArgs"])
    times: dict[str, dict[str, list[float]]] = {}
    calls: dict[str, int] = {}
    for name, make in commands.items():

        async def tool(make: Callable[[], list[str]] = make) -> None:
            await tool_call(tools, make())

        async def bare(make: Callable[[], list[str]] = make) -> None:
            await bare_engine(binary, [*prefix, *make()], env)

        count = snapshots if name.startswith("snapshot") else iterations
        times[name] = await measure({"tool": tool, "bare": bare}, count, warmup)
        before = len(clock.spans)
        await tool_call(tools, make())
        calls[name] = len(clock.spans) - before
    times[CHANGED] = await _changed_snapshots(tools, binary, env, prefix, boxes, snapshots)
    calls[CHANGED] = calls["snapshot -i"]
    inprocess = await _snapshot_overhead(tools, clock, snapshots)
    return SizeFigures(rows, len(refs), times, calls, inprocess)


CHANGED = "snapshot -i after a change"


async def _changed_snapshots(
    tools: BrowserTools,
    binary: str,
    env: dict[str, str],
    prefix: list[str],
    boxes: Iterator[str],
    count: int,
) -> dict[str, list[float]]:
    """`snapshot -i` of a page that changed since the last one: before each timed snapshot
    (tools or engine, alternating which goes first) the bare engine ticks one more box, so
    the tools read a map that differs in one row rather than one they have read before."""
    engine_boxes = (f"@{_engine_ref(tools, ref)}" for ref in boxes)
    times: dict[str, list[float]] = {"tool": [], "bare": []}
    for index in range(count + 1):
        order = ["tool", "bare"] if index % 2 == 0 else ["bare", "tool"]
        for name in order:
            await bare_engine(binary, [*prefix, "check", next(engine_boxes)], env)
            started = time.perf_counter()
            if name == "tool":
                await tool_call(tools, ["snapshot", "-i"])
            else:
                await bare_engine(binary, [*prefix, "snapshot", "-i"], env)
            if index > 0:
                times[name].append((time.perf_counter() - started) * 1000.0)
    return times


def _engine_ref(tools: BrowserTools, shown: str) -> str:
    """The engine's id for a shown ref (the same, unless the wrapper renumbered it)."""
    snapshots = [e.ref_snapshot for e in tools.runtime.log.state.sessions.values()]
    tables = [s.refs for s in snapshots if s is not None]
    table = next((t for t in tables if shown.lstrip("@") in t), {})
    return refmap.engine_id(shown.lstrip("@"), table)


def _engine_prefix(effective: Sequence[str]) -> list[str]:
    """The wrapper's global flags for this session (everything before `snapshot`)."""
    args = list(effective)
    return args[: args.index("snapshot")]


async def _snapshot_overhead(tools: BrowserTools, clock: SpawnClock, count: int) -> list[float]:
    """Tool wall time minus the engine process that took the snapshot, per call (ms)."""
    out: list[float] = []
    for _ in range(count):
        before = len(clock.spans)
        started = time.perf_counter()
        await tool_call(tools, ["snapshot", "-i"])
        wall = (time.perf_counter() - started) * 1000.0
        spans = clock.spans[before:]
        engine = max((ms for args, ms in spans if "snapshot" in args), default=0.0)
        out.append(wall - engine)
    return out


def _row(label: str, values: list[float], baseline: list[float] | None) -> str:
    median = statistics.median(values)
    p90 = statistics.quantiles(values, n=10)[-1] if len(values) >= 2 else median
    if baseline is None:
        return f"{label:<34} {median:>10.1f} {p90:>10.1f} {'-':>12}"
    paired = statistics.median(v - b for v, b in zip(values, baseline, strict=True))
    return f"{label:<34} {median:>10.1f} {p90:>10.1f} {paired:>+12.1f}"


def report(figures: list[SizeFigures]) -> None:
    header = f"{'(ms)':<34} {'median':>10} {'p90':>10} {'paired diff':>12}"
    for fig in figures:
        print()
        print(f"rows.html?n={fig.rows}: {fig.refs} refs")
        print(header)
        print("-" * len(header))
        for name, times in fig.times.items():
            print(_row(f"engine {name}", times["bare"], None))
            print(
                _row(
                    f"tools  {name} ({fig.calls[name]} engine calls)", times["tool"], times["bare"]
                )
            )
    print()
    print("Acceptance (issue 28), per size: action = tools - engine (median of paired diffs);")
    print(
        f"snapshot overhead = paired diff / engine median (target <= {SNAPSHOT_BUDGET:.0%}), "
        "and in process (wall - engine snapshot process)"
    )
    for fig in figures:
        parts = []
        for name in ("click", "fill", "check"):
            t = fig.times[name]
            diff = statistics.median(v - b for v, b in zip(t["tool"], t["bare"], strict=True))
            mark = "ok" if diff <= ACTION_BUDGET_MS else "OVER"
            parts.append(f"{name} {diff:+.0f} ms ({mark})")
        snap = fig.times["snapshot -i"]
        engine = statistics.median(snap["bare"])
        paired = statistics.median(v - b for v, b in zip(snap["tool"], snap["bare"], strict=True))
        inproc = statistics.median(fig.snapshot_inprocess)
        parts.append(
            f"snapshot +{paired:.0f} ms = {paired / engine:.1%} side by side, "
            f"{inproc:.0f} ms = {inproc / engine:.1%} in process (engine {engine:.0f} ms)"
        )
        changed = fig.times[CHANGED]
        engine = statistics.median(changed["bare"])
        pairs = zip(changed["tool"], changed["bare"], strict=True)
        paired = statistics.median(v - b for v, b in pairs)
        parts.append(f"after a change +{paired:.0f} ms = {paired / engine:.1%} side by side")
        print(f"  {fig.rows:>5} rows: " + "; ".join(parts))


async def run(sizes: list[int], iterations: int, snapshots: int, warmup: int, root: Path) -> None:
    server = start_fixture_server()
    tools = BrowserTools(conversation_id=f"bench-dense-{uuid.uuid4().hex[:12]}", cwd=REPO)
    clock = SpawnClock()
    clock.install(tools)
    figures: list[SizeFigures] = []
    print(f"load average at start: {_load()}", flush=True)
    try:
        for rows in sizes:
            url = server.url(f"rows.html?n={rows}")
            fig = await _one_size(tools, clock, url, rows, iterations, snapshots, warmup)
            figures.append(fig)
            print(f"  measured {rows} rows", flush=True)
    finally:
        await _close_all(tools, root)
        server.close()
    print(f"engine {tools.runtime.engine.path}")
    print(
        f"{iterations} actions and {snapshots} snapshots per size after {warmup} warm-ups, "
        "tools and engine interleaved"
    )
    report(figures)
    print()
    print(f"load average at end: {_load()}")


def _load() -> str:
    one, five, fifteen = os.getloadavg()
    return f"{one:.2f} {five:.2f} {fifteen:.2f} ({os.cpu_count()} CPUs)"


async def _close_all(tools: BrowserTools, root: Path) -> None:
    with contextlib.suppress(Exception):
        await tools.aclose()
    close_socket_dir(tools.runtime.engine.path, tools.runtime.child_env, root / "sock")


def _sizes(text: str) -> list[int]:
    return [int(part) for part in text.split(",") if part.strip()]


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="100,1500,5000", help="row counts, comma-separated")
    parser.add_argument("--iterations", type=int, default=15, help="timed actions per size")
    parser.add_argument("--snapshots", type=int, default=5, help="timed snapshots per size")
    parser.add_argument("--warmup", type=int, default=2)
    options = parser.parse_args(argv)
    with private_benchmark_root() as root:
        asyncio.run(
            run(_sizes(options.sizes), options.iterations, options.snapshots, options.warmup, root)
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
