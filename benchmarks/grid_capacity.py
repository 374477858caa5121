"""Capacity of one server with its browsers on a Selenium Grid, beside local browsers.

Issue 34 (scale out on a real browser grid). One process stands for one server: N
conversations (`BrowserTools(shared_server=True)`, one state dir, as the HTTP server holds
them) run at once on one asyncio loop, each opening the fixture site's `clicks.html` and then
looping, back to back with no think time,

    get title  /  snapshot -i  /  click @ref   (the "Count" button, the ref of the latest
                                                snapshot; a same-page click)

for `--calls` calls after `--warmup` untimed ones. Once with local browsers (the engine
launches one Chromium per conversation) and once on a real Selenium Grid 4 standalone with
`--slots` slots (default: the largest N; started with `--override-max-sessions`, so more slots
than CPUs), fresh conversations for every N. It prints, for each N: calls/s (all calls of all
conversations over the wall time of the timed loop), p50 and p95 of the per-call latency, and
the p50 of each call kind and the engine processes one call of each kind spawns; then the
CPU time per call of each group of processes:

  server       this process (RUSAGE_SELF): the tools, the grid client, asyncio; also the
               fixture server's threads (idle once the page is open);
  engine CLIs  the engine processes each call spawns (RUSAGE_CHILDREN: reaped children);
  daemons      the engine daemons (one per conversation; /proc utime+stime);
  browsers     local Chromium (with renderers and crashpad), or the grid's Chromium;
  grid svc     the grid's java server and chromedriver (grid mode only).

The first three stay on the server's host when browsers move to a grid; the last two move.
Processes that exited inside the timed window are not counted (none should). The grid here
runs on this same machine, so its figures show what the server pays per call, not the gain
of browsers on other machines. Finally, with one conversation: the bare engine running the
wrapper's own `get title` argv and env (in grid mode through the grid's CDP proxy), and the
grid liveness check a failed call on a grid browser makes (one WebDriver GET of the session's
window handles; a call that succeeds makes none), each timed alone.

Hermetic: a private 0700 root for sockets, state and workspaces; every conversation is closed,
the socket dir `close --all`-ed, the grid and the fixture server stopped, even on errors,
Ctrl-C or SIGTERM.

Run from the repo root:
    PYTHONPATH=src:. .venv/bin/python benchmarks/grid_capacity.py [--conversations 1,4,8]
        [--calls 60] [--warmup 3] [--slots K] [--skip-local]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import resource
import signal
import statistics
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import FrameType
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "benchmarks"))

from engine_overhead import bare_engine  # noqa: E402
from tests.support.engine_session import find_engine, private_benchmark_root  # noqa: E402
from tests.support.fixture_server import FixtureServer, start_fixture_server  # noqa: E402
from tests.support.leftovers import started_here  # noqa: E402
from tests.support.real_engine import close_socket_dir, engine_env_for  # noqa: E402
from tests.support.selenium_grid import (  # noqa: E402
    CHROME_ARGS,
    SELENIUM_VERSION,
    Grid,
    find_chromium,
    missing,
    start_grid,
)

from agent_browser_tools import BrowserTools  # noqa: E402
from agent_browser_tools.settings import Settings  # noqa: E402
from agent_browser_tools.state.models import SessionKey  # noqa: E402

TOOL = "agent_browser"
PAGE = "clicks.html"
BUTTON = {"role": "button", "name": "Count"}
KINDS = ("get", "snapshot", "click")
GRID_WAIT_S = 60
"""How long an `open` waits for a grid slot (the grid never runs out here: N <= slots)."""
LIVENESS_CHECKS = 50
TICK_MS = 1000.0 / os.sysconf("SC_CLK_TCK")
GROUPS = ("server", "engine CLIs", "daemons", "browsers", "grid svc")
BROWSER_EXES = frozenset({"chromium", "chrome", "headless_shell", "chrome_crashpad_handler"})

Sample = dict[tuple[int, int], tuple[str, float]]
"""CPU ms so far by process (pid, start ticks) and the group it counts in."""


class BenchError(RuntimeError):
    """A measured call did not succeed, so its timing would mean nothing."""


@dataclass
class Conversation:
    tools: BrowserTools
    session: str = ""
    ref: str = ""


@dataclass
class Phase:
    """The timed loop of one mode ("local" or "grid") with N conversations."""

    mode: str
    conversations: int
    wall_s: float
    latencies: dict[str, list[float]]
    spawns: dict[str, int]  # engine processes per call of each kind (the most seen)
    cpu_ms: dict[str, float]
    mem_available_mb: float
    liveness: tuple[list[float], float] | None = None  # (wall ms per check, CPU ms per check)
    bare_get: list[float] = field(default_factory=list)  # the bare engine's `get title`, alone

    @property
    def all(self) -> list[float]:
        return [ms for kind in KINDS for ms in self.latencies[kind]]


@dataclass
class Bench:
    root: Path
    server: FixtureServer
    calls: int
    warmup: int
    grid: Grid | None = None
    phases: list[Phase] = field(default_factory=list)


# --- one conversation ---------------------------------------------------------------------


async def call(conv: Conversation, args: list[str]) -> dict[str, Any]:
    result = await conv.tools.call(TOOL, {"args": args})
    if result.is_error:
        raise BenchError(f"{TOOL} {args} failed: {result.text[:500]}")
    return result.details


def count_ref(details: dict[str, Any]) -> str:
    refs: dict[str, Any] = details["data"]["refs"]
    found = [f"@{ref}" for ref, info in refs.items() if info == BUTTON]
    if not found:
        raise BenchError(f"no {BUTTON} in the snapshot's refs: {json.dumps(refs)[:300]}")
    return found[0]


async def open_conversation(
    opened: list[Conversation], settings: Settings, cwd: Path, url: str, name: str
) -> None:
    """A conversation on `url` with its button's ref; listed before its first call, so it is
    closed even when that call fails."""
    conv = Conversation(
        BrowserTools(settings=settings, cwd=cwd, conversation_id=name, shared_server=True)
    )
    opened.append(conv)
    conv.session = str((await call(conv, ["open", url]))["sessionName"])
    conv.ref = count_ref(await call(conv, ["snapshot", "-i"]))


Timing = tuple[str, float, int]
"""One call's kind, ms and engine processes."""


async def loop(conv: Conversation, calls: int) -> list[Timing]:
    """`calls` calls cycling get title / snapshot -i / click."""
    timings = []
    rt = conv.tools.runtime
    for i in range(calls):
        kind = KINDS[i % len(KINDS)]
        args = {"get": ["get", "title"], "snapshot": ["snapshot", "-i"]}.get(kind)
        spawns = rt.spawns
        started = time.perf_counter()
        details = await call(conv, args or ["click", conv.ref])
        timings.append((kind, (time.perf_counter() - started) * 1000.0, rt.spawns - spawns))
        if kind == "snapshot":
            conv.ref = count_ref(details)
    return timings


async def close_all(convs: list[Conversation]) -> None:
    for conv in convs:
        with contextlib.suppress(Exception):
            await conv.tools.aclose()


# --- CPU ---------------------------------------------------------------------------------


def _usage_ms(who: int) -> float:
    usage = resource.getrusage(who)
    return (usage.ru_utime + usage.ru_stime) * 1000.0


def _proc_cpu(pid: int) -> tuple[int, float] | None:
    """(start ticks, utime + stime in ms) of a live process."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    fields = stat[stat.rindex(")") + 2 :].split()
    return int(fields[19]), (int(fields[11]) + int(fields[12])) * TICK_MS


def _is_browser(pid: int) -> bool:
    with contextlib.suppress(OSError):
        exe = os.readlink(f"/proc/{pid}/exe").removesuffix(" (deleted)")
        return os.path.basename(exe) in BROWSER_EXES
    return False


def sample(sock: Path, grid: Grid | None) -> Sample:
    """CPU so far: this process, its reaped children, and every live engine daemon and browser
    under the socket dir and process of the grid."""
    taken: Sample = {
        (0, 0): ("server", _usage_ms(resource.RUSAGE_SELF)),
        (0, 1): ("engine CLIs", _usage_ms(resource.RUSAGE_CHILDREN)),
    }
    on_grid = set(grid.processes()) if grid is not None else set()
    groups = {
        p.pid: "daemons" if p.kind == "engine" else "browsers" for p in started_here(set(), sock)
    }
    groups |= {pid: "browsers" if _is_browser(pid) else "grid svc" for pid in on_grid}
    for pid, group in groups.items():
        cpu = _proc_cpu(pid)
        if cpu is not None:
            taken[(pid, cpu[0])] = (group, cpu[1])
    return taken


def cpu_between(before: Sample, after: Sample) -> dict[str, float]:
    spent = dict.fromkeys(GROUPS, 0.0)
    for key, (group, ms) in after.items():
        spent[group] += ms - before.get(key, (group, 0.0))[1]
    return spent


def mem_available_mb() -> float:
    for line in Path("/proc/meminfo").read_text().splitlines():
        if line.startswith("MemAvailable:"):
            return int(line.split()[1]) / 1024.0
    return float("nan")


# --- one phase -------------------------------------------------------------------------------


def settings_for(base: Path, grid: Grid | None) -> Settings:
    """One server's settings: its own state dir, and in grid mode the grid as the tests set
    it (`tests/real/tools/agent_browser/test_grid_mode.py`)."""
    env = {**os.environ, "AGENT_BROWSER_TOOLS_STATE_DIR": str(base / "state")}
    if grid is not None:
        config = base / "grid.toml"
        config.write_text(
            f"[browser]\ngrid_wait_s = {GRID_WAIT_S}\n[browser.grid_capabilities]\n"
            'browserName = "chrome"\n[browser.grid_capabilities."goog:chromeOptions"]\n'
            f"binary = {json.dumps(find_chromium())}\nargs = {json.dumps(list(CHROME_ARGS))}\n"
        )
        env |= {"AGENT_BROWSER_TOOLS_GRID_URL": grid.url, "AGENT_BROWSER_TOOLS_CONFIG": str(config)}
    return Settings.load(env=env, cwd=base)


async def run_phase(bench: Bench, mode: str, n: int, grid: Grid | None) -> Phase:
    base = bench.root / f"{mode}-{n}"
    base.mkdir(mode=0o700)
    settings = settings_for(base, grid)
    convs: list[Conversation] = []
    try:
        for i in range(n):
            url = bench.server.url(PAGE)
            await open_conversation(convs, settings, base, url, f"{mode}-{n}-{i}")
        await asyncio.gather(*(loop(conv, bench.warmup) for conv in convs))
        before = sample(bench.root / "sock", grid)
        started = time.perf_counter()
        runs = await asyncio.gather(*(loop(conv, bench.calls) for conv in convs))
        wall_s = time.perf_counter() - started
        after = sample(bench.root / "sock", grid)
        latencies: dict[str, list[float]] = {kind: [] for kind in KINDS}
        spawns = dict.fromkeys(KINDS, 0)
        for kind, ms, spawned in (timing for run in runs for timing in run):
            latencies[kind].append(ms)
            spawns[kind] = max(spawns[kind], spawned)
        cpu = cpu_between(before, after)
        phase = Phase(mode, n, wall_s, latencies, spawns, cpu, mem_available_mb())
        if not any(p.mode == mode for p in bench.phases):
            phase.bare_get = await bare_get(convs[0])
            phase.liveness = await liveness(convs[0]) if grid is not None else None
        return phase
    finally:
        await close_all(convs)


async def liveness(conv: Conversation) -> tuple[list[float], float]:
    """The grid check each call on a grid browser makes first, alone: wall ms of each check
    and this process's CPU ms per check."""
    rt = conv.tools.runtime
    assert rt.grid is not None
    key = SessionKey(session=conv.session)
    directory = str(rt.socket_dir(key))
    times = []
    cpu = _usage_ms(resource.RUSAGE_SELF)
    for _ in range(LIVENESS_CHECKS):
        started = time.perf_counter()
        alive = await rt.grid.alive(directory, key)
        times.append((time.perf_counter() - started) * 1000.0)
        if alive is not True:
            raise BenchError(f"the grid check of a live session answered {alive}")
    return times, (_usage_ms(resource.RUSAGE_SELF) - cpu) / LIVENESS_CHECKS


async def bare_get(conv: Conversation) -> list[float]:
    """The engine alone running the wrapper's own `get title` argv with its environment (in
    grid mode: the grid browser's `se:cdp` endpoint), one call at a time: ms of each."""
    rt = conv.tools.runtime
    argv = list((await call(conv, ["get", "title"]))["effectiveArgs"])
    env = rt.env_for(SessionKey(session=conv.session))
    times = []
    for _ in range(LIVENESS_CHECKS):
        started = time.perf_counter()
        await bare_engine(rt.engine.path, argv, env)
        times.append((time.perf_counter() - started) * 1000.0)
    return times


async def run(bench: Bench, counts: Sequence[int], skip_local: bool) -> None:
    modes = ([] if skip_local else ["local"]) + (["grid"] if bench.grid is not None else [])
    for mode in modes:
        grid = bench.grid if mode == "grid" else None
        for n in counts:
            if grid is not None and n > grid.max_sessions:
                print(f"grid {n}: skipped, more conversations than {grid.max_sessions} slots")
                continue
            progress(f"{mode} with {n} conversation(s)")
            bench.phases.append(await run_phase(bench, mode, n, grid))


# --- output ----------------------------------------------------------------------------------


def p95(values: list[float]) -> float:
    return statistics.quantiles(values, n=20)[-1] if len(values) >= 2 else values[0]


def report(bench: Bench) -> None:
    head = (
        f"{'mode':<6}{'conv':>5}{'calls':>7}{'wall s':>8}{'calls/s':>9}{'p50 ms':>9}"
        f"{'p95 ms':>9}   {'p50 get':>8}{'snap':>8}{'click':>8}   engine calls g/s/c"
    )
    print(head)
    print("-" * len(head))
    for ph in bench.phases:
        calls = len(ph.all)
        kinds = "".join(f"{statistics.median(ph.latencies[k]):>8.1f}" for k in KINDS)
        print(
            f"{ph.mode:<6}{ph.conversations:>5}{calls:>7}{ph.wall_s:>8.1f}"
            f"{calls / ph.wall_s:>9.2f}{statistics.median(ph.all):>9.1f}{p95(ph.all):>9.1f}"
            f"   {kinds}   {'/'.join(str(ph.spawns[k]) for k in KINDS):>18}"
        )
    print()
    print("CPU ms per call (stays on the server host: server, engine CLIs, daemons; moves to")
    print("the grid: browsers, grid svc); MemAvailable after the timed loop")
    head = f"{'mode':<6}{'conv':>5}" + "".join(f"{g:>13}" for g in GROUPS) + f"{'avail MB':>10}"
    print(head)
    print("-" * len(head))
    for ph in bench.phases:
        calls = len(ph.all)
        shown = [
            "-" if g == "grid svc" and ph.mode == "local" else f"{ph.cpu_ms[g] / calls:.2f}"
            for g in GROUPS
        ]
        cells = "".join(f"{cell:>13}" for cell in shown)
        print(f"{ph.mode:<6}{ph.conversations:>5}{cells}{ph.mem_available_mb:>10.0f}")
    _report_liveness(bench)


def _report_liveness(bench: Bench) -> None:
    print()
    for ph in bench.phases:
        if ph.bare_get:
            tool = statistics.median(ph.latencies["get"])
            print(
                f"{ph.mode}: the bare engine's `get title` (the wrapper's argv and env, "
                f"{len(ph.bare_get)} one at a time): {statistics.median(ph.bare_get):.1f} ms p50, "
                f"{p95(ph.bare_get):.1f} ms p95; through the tools with {ph.conversations} "
                f"conversation(s): {tool:.1f} ms p50"
            )
    for ph in bench.phases:
        if ph.liveness is None:
            continue
        times, cpu = ph.liveness
        print(
            f"grid liveness check, made only after a failed call (GET /session/<id>/window/"
            f"handles, {LIVENESS_CHECKS} one at a time): {statistics.median(times):.2f} ms p50, "
            f"{p95(times):.2f} ms p95, {cpu:.2f} ms server CPU each"
        )


def progress(line: str) -> None:
    print(f"... {line}", file=sys.stderr, flush=True)


def load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


# --- main ------------------------------------------------------------------------------------


def _counts(text: str) -> list[int]:
    counts = [int(part) for part in text.split(",") if part.strip()]
    if not counts or min(counts) < 1:
        raise argparse.ArgumentTypeError(f"conversation counts must be >= 1: {text!r}")
    return counts


def _interrupt(signum: int, frame: FrameType | None) -> None:
    """SIGTERM ends the run like Ctrl-C: everything it started is closed and stopped."""
    raise KeyboardInterrupt


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--conversations", type=_counts, default=[1, 4, 8])
    parser.add_argument("--calls", type=int, default=60, help="timed calls per conversation")
    parser.add_argument("--warmup", type=int, default=3, help="untimed calls per conversation")
    parser.add_argument("--slots", type=int, default=0, help="grid slots (default: max N)")
    parser.add_argument("--skip-local", action="store_true")
    options = parser.parse_args(argv)
    lacking = missing()
    if lacking and options.skip_local:
        print(lacking, file=sys.stderr)
        return 2
    if lacking:
        print(f"{lacking}; local browsers only", file=sys.stderr)
    engine = find_engine()
    signal.signal(signal.SIGTERM, _interrupt)
    with private_benchmark_root() as root, contextlib.ExitStack() as stack:
        server = start_fixture_server()
        stack.callback(server.close)
        bench = Bench(root, server, options.calls, options.warmup)
        if not lacking:
            slots = options.slots or max(options.conversations)
            bench.grid = stack.enter_context(
                start_grid(slots, session_request_timeout_s=GRID_WAIT_S)
            )
        # Runs first (last in): the daemons let go of their grid browsers before it stops.
        env = engine_env_for(engine, root / "sock").env
        stack.callback(close_socket_dir, engine, env, root / "sock")
        print(f"engine {engine}; Chromium {find_chromium()}; {os.cpu_count()} CPUs; load {load()}")
        if bench.grid is not None:
            print(
                f"grid: Selenium {SELENIUM_VERSION} standalone on this machine, "
                f"{bench.grid.max_sessions} slots"
            )
        print(
            f"each conversation: {options.warmup} untimed, then {options.calls} timed calls "
            f"(get title / snapshot -i / click @ref on {PAGE}), all conversations at once"
        )
        try:
            asyncio.run(run(bench, options.conversations, options.skip_local))
        finally:
            print(f"load after: {load()}\n")
            if bench.phases:
                report(bench)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
