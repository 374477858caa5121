"""How much time the wrapper adds on top of the engine, per call (budget: <= 5 ms median).

One run, one browser: a `BrowserTools` conversation opens the fixture site's form page in its
managed session, then, interleaved so drift hits every variant alike, this measures

  (a) the bare engine: `agent-browser --json --session S get url`, spawned with
      `asyncio.create_subprocess_exec`, awaiting exit and reading stdout (the fair baseline);
  (b) our runner `run_engine` with the same argv;
  (c) a full `BrowserTools.call("agent_browser", {"args": ["get", "url"]})`;
  (d) `agent_browser` `click` on a same-page button ref (its navigation-summary probe
      included) against a bare engine `click` of the same ref;
  (e) engine processes per call kind through the wrapper (`get url`, `snapshot -i`, a ref
      `click`: its pre-dispatch batch, the click and the post-action batch), and the bare
      engine `snapshot -i` the identity check re-reads only when its cheap proof fails;
  (f) the security checks: `fill` by ref (its credential-field read) and `eval` (the page
      check before page script), each against the bare engine and with its engine call count;
  (g) a field typed key by key (`focus`, then `press` one key per call): the engine calls of
      the first press and of each later one (the focused-field read of the previous press's
      post-action batch stands in for its own), and a later press against the bare engine.

Every measured call starts after an untimed random pause of up to one frame (see `measure`:
a click's own time depends on where in the browser's frame it starts). Every child gets the
conversation's own engine environment (the engine treats launch settings
as part of a daemon's identity, so a different env could relaunch the browser), and argv is
the wrapper's own `effectiveArgs`. Sockets live in a private 0700 dir under /tmp
(`AGENT_BROWSER_SOCKET_DIR`, set before `BrowserTools` reads its settings); everything is
closed at the end, even on errors.

Run from the repo root:
    /work/venv/bin/python benchmarks/engine_overhead.py [--iterations 30] [--warmup 3]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import random
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

from agent_browser_tools import BrowserTools  # noqa: E402
from agent_browser_tools.engine.daemons import Health, check_daemon  # noqa: E402
from agent_browser_tools.engine.runner import run_engine  # noqa: E402
from agent_browser_tools.state.models import SessionKey  # noqa: E402

TOOL = "agent_browser"
PROCESS_TIMEOUT_MS = 35_000
CLOSE_TIMEOUT_S = 30.0
BUDGET_MS = 5.0
FRAME_MS = 1000.0 / 60.0
"""One frame of the headless browser's 60 Hz rendering."""
PHASE_SEED = 31

Timed = Callable[[], Awaitable[None]]


class BenchError(RuntimeError):
    """A measured call did not succeed, so its timing would mean nothing."""


async def bare_engine(
    binary: str, argv: Sequence[str], env: dict[str, str], stdin: str | None = None
) -> bytes:
    """The baseline: spawn, await exit, read stdout."""
    proc = await asyncio.create_subprocess_exec(
        binary,
        *argv,
        stdin=asyncio.subprocess.DEVNULL if stdin is None else asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        env=env,
    )
    stdout, _ = await proc.communicate(None if stdin is None else stdin.encode())
    if proc.returncode != 0:
        raise BenchError(f"bare engine {list(argv)} exited {proc.returncode}: {stdout[:500]!r}")
    return stdout


async def tool_call(
    tools: BrowserTools, args: list[str], stdin: str | None = None
) -> dict[str, Any]:
    params: dict[str, Any] = {"args": args}
    if stdin is not None:
        params["stdin"] = stdin
    result = await tools.call(TOOL, params)
    if result.is_error:
        raise BenchError(f"{TOOL} {args} failed: {result.text[:500]}")
    return result.details


async def measure(
    variants: dict[str, Timed], iterations: int, warmup: int
) -> dict[str, list[float]]:
    """Run the variants interleaved (rotating order); return per-variant timings in ms.

    Each measured call starts at a random point of the browser's frame (an untimed pause of
    0 to `FRAME_MS`, the same seeded sequence every run). Why: the engine's click is answered
    only after the renderer's next frame (`Input.dispatchMouseEvent` waits for it), so one
    click takes 8 to 24 ms on the same page depending on where in the 16.7 ms frame it starts.
    Calls run back to back lock each variant into whatever phase the one before leaves, and a
    difference of medians then measures the phase, not the wrapper (seen: the same bare click
    at a 10.5 ms median in one loop and 21.9 ms in another)."""
    timings: dict[str, list[float]] = {name: [] for name in variants}
    names = list(variants)
    phase = random.Random(PHASE_SEED)
    for i in range(warmup + iterations):
        shift = i % len(names)
        for name in names[shift:] + names[:shift]:
            await asyncio.sleep(phase.uniform(0.0, FRAME_MS) / 1000.0)
            started = time.perf_counter()
            await variants[name]()
            elapsed = (time.perf_counter() - started) * 1000.0
            if i >= warmup:
                timings[name].append(elapsed)
    return timings


def _row(label: str, values: list[float], baseline: list[float] | None) -> str:
    median = statistics.median(values)
    p90 = statistics.quantiles(values, n=10)[-1] if len(values) >= 2 else median
    if baseline is None:
        diff = "-"
        paired = "-"
    else:
        diff = f"{median - statistics.median(baseline):+.2f}"
        paired = f"{statistics.median(v - b for v, b in zip(values, baseline, strict=True)):+.2f}"
    return f"{label:<44} {median:>9.2f} {p90:>9.2f} {diff:>11} {paired:>12}"


async def run(iterations: int, warmup: int, root: Path) -> None:
    server = start_fixture_server()
    tools = BrowserTools(conversation_id=f"bench-{uuid.uuid4().hex[:12]}", cwd=REPO)
    try:
        opened = await tool_call(tools, ["open", server.url("form.html")])
        session = str(opened["sessionName"])
        rt = tools.runtime
        binary, env, spill = rt.engine.path, rt.child_env, rt.spill_dir

        # The exact argv the wrapper runs for `get url`, reused by the bare variants.
        get_argv = list((await tool_call(tools, ["get", "url"]))["effectiveArgs"])
        assert session in get_argv, get_argv

        async def bare_get() -> None:
            await bare_engine(binary, get_argv, env)

        async def runner_get() -> None:
            raw = await run_engine(
                [binary, *get_argv], env=env, timeout_ms=PROCESS_TIMEOUT_MS, spill_dir=spill
            )
            if raw.exit_code != 0:
                raise BenchError(f"run_engine get url exited {raw.exit_code}: {raw.stderr}")

        async def tool_get() -> None:
            await tool_call(tools, ["get", "url"])

        get_times = await measure(
            {"bare": bare_get, "runner": runner_get, "tool": tool_get}, iterations, warmup
        )

        # A same-page button: the form's submit handler prevents navigation.
        snap = await tool_call(tools, ["snapshot", "-i"])
        refs = snap["data"]["refs"]
        ref = next(
            f"@{r}" for r, info in refs.items() if info == {"role": "button", "name": "Submit"}
        )
        click_argv = list((await tool_call(tools, ["click", ref]))["effectiveArgs"])

        async def bare_click() -> None:
            await bare_engine(binary, click_argv, env)

        async def tool_click() -> None:
            await tool_call(tools, ["click", ref])

        reread_argv = [*click_argv[: click_argv.index("click")], "snapshot", "-i"]

        async def bare_reread() -> None:
            await bare_engine(binary, reread_argv, env)

        click_times = await measure(
            {"bare": bare_click, "tool": tool_click, "reread": bare_reread}, iterations, warmup
        )
        calls = await engine_calls(tools, ["click", ref])
        helper_times = await _helper_batch_times(tools, binary, env, ["click", ref], iterations)
        kinds = {
            "get url": await engine_calls(tools, ["get", "url"]),
            "snapshot -i": await engine_calls(tools, ["snapshot", "-i"]),
            "ref click": calls,
        }
        guard_times, guard_calls = await _guarded_calls(
            tools, binary, env, refs, iterations, warmup
        )
        press_times, press_calls = await _press_calls(tools, binary, env, refs, iterations, warmup)
        liveness = _liveness_times(tools, session, iterations)
    finally:
        await _close_all(tools, root)
        server.close()

    header = (
        f"{'measurement (ms)':<44} {'median':>9} {'p90':>9} {'diff(med)':>11} {'paired diff':>12}"
    )
    print(f"engine {rt.engine.path} ({rt.engine.source}); session {session}")
    print(
        f"{iterations} iterations after {warmup} warm-ups, interleaved, each call started at a "
        "random point of the frame; diff vs bare engine"
    )
    print(header)
    print("-" * len(header))
    bare = get_times["bare"]
    print(_row("(a) bare engine: get url", bare, None))
    print(_row("(b) run_engine: get url", get_times["runner"], bare))
    print(_row("(c) BrowserTools agent_browser: get url", get_times["tool"], bare))
    print(_row(f"(d0) bare engine: click {ref}", click_times["bare"], None))
    print(
        _row(
            f"(d) BrowserTools agent_browser: click {ref}", click_times["tool"], click_times["bare"]
        )
    )
    overhead = statistics.median(get_times["tool"]) - statistics.median(bare)
    runner = statistics.median(get_times["runner"]) - statistics.median(bare)
    click = statistics.median(click_times["tool"]) - statistics.median(click_times["bare"])
    print()
    print(f"run_engine overhead (get url): {runner:.2f} ms median")
    print(
        "get url overhead (full agent_browser call vs bare engine): "
        f"{overhead:.2f} ms median (target <= {BUDGET_MS:.0f} ms)"
    )
    print(f"click overhead incl. identity re-read and navigation probe: {click:.2f} ms median")
    helpers = statistics.median(helper_times)
    print(
        f"  of which the engine's own time for the click's helper batches (the same batches "
        f"replayed on the bare engine): {helpers:.2f} ms; the rest (the wrapper's own work, "
        f"and the helpers' extra cost in the call): {click - helpers:.2f} ms"
    )
    reread = statistics.median(click_times["reread"])
    said = ", ".join(f"{kind} {count}" for kind, count in kinds.items())
    print(f"engine processes per call through the wrapper: {said}")
    print(
        f"one ref click makes {calls} engine calls (pre-dispatch batch, click, post-action "
        f"batch); the identity re-read (snapshot -i, {reread:.2f} ms median bare) runs only "
        "when its proof fails"
    )
    print(
        "browser liveness check before each call (pid file + /proc): "
        f"{statistics.median(liveness):.3f} ms median, max {max(liveness):.3f} ms"
    )
    for name in ("fill", "eval"):
        times = guard_times[name]
        diff = statistics.median(times["tool"]) - statistics.median(times["bare"])
        print(
            f"{name} overhead incl. the security checks: {diff:.2f} ms median "
            f"({guard_calls[name]} engine calls through the wrapper)"
        )
    diff = statistics.median(press_times["tool"]) - statistics.median(press_times["bare"])
    print(
        f"press key by key: {press_calls[0]} engine calls for the first press after focus, "
        f"{press_calls[1]} for each later one; a later press costs {diff:.2f} ms median over "
        "the bare engine"
    )


async def _press_calls(
    tools: BrowserTools,
    binary: str,
    env: dict[str, str],
    refs: dict[str, Any],
    iterations: int,
    warmup: int,
) -> tuple[dict[str, list[float]], tuple[int, int]]:
    """(g): engine calls of the first and of a later `press` into a focused textbox, and a
    later press through the wrapper against the bare engine (same effective argv)."""
    field = next(f"@{r}" for r, info in refs.items() if info.get("role") == "textbox")
    await tool_call(tools, ["focus", field])
    first = await engine_calls(tools, ["press", "a"])
    later = await engine_calls(tools, ["press", "b"])
    argv = list((await tool_call(tools, ["press", "c"]))["effectiveArgs"])

    async def bare() -> None:
        await bare_engine(binary, argv, env)

    async def tool() -> None:
        await tool_call(tools, ["press", "d"])

    return await measure({"bare": bare, "tool": tool}, iterations, warmup), (first, later)


def _liveness_times(tools: BrowserTools, session: str, iterations: int) -> list[float]:
    """The daemon/browser check that runs before every call on an open session."""
    rt = tools.runtime
    key = SessionKey(session=session)
    pid = rt.log.state.session(key).daemon_pid
    if pid is None:
        raise BenchError("no daemon pid was journaled for the session")
    times = []
    for _ in range(iterations):
        start = time.perf_counter()
        health = check_daemon(rt.socket_dir(key), session, None, pid, had_browser=True)
        times.append((time.perf_counter() - start) * 1000)
        if health is not Health.RUNNING:
            raise BenchError(f"the live session's daemon looks {health}")
    return times


async def _guarded_calls(
    tools: BrowserTools,
    binary: str,
    env: dict[str, str],
    refs: dict[str, Any],
    iterations: int,
    warmup: int,
) -> tuple[dict[str, dict[str, list[float]]], dict[str, int]]:
    """`fill` (credential-field read) and `eval` (page check before page script) through the
    wrapper against the bare engine running the same effective argv."""
    field = next(f"@{r}" for r, info in refs.items() if info.get("role") == "textbox")
    commands = {"fill": ["fill", field, "Ada"], "eval": ["eval", "1 + 1"]}
    times: dict[str, dict[str, list[float]]] = {}
    calls: dict[str, int] = {}
    for name, args in commands.items():
        argv = list((await tool_call(tools, args))["effectiveArgs"])

        async def bare(argv: list[str] = argv) -> None:
            await bare_engine(binary, argv, env)

        async def tool(args: list[str] = args) -> None:
            await tool_call(tools, args)

        times[name] = await measure({"bare": bare, "tool": tool}, iterations, warmup)
        calls[name] = await engine_calls(tools, args)
    return times, calls


async def _helper_batch_times(
    tools: BrowserTools, binary: str, env: dict[str, str], args: list[str], iterations: int
) -> list[float]:
    """The engine's own time for the wrapper's helper batches of one call: the batches one
    `args` call sent (argv and stdin as spawned), replayed on the bare engine one after the
    other, timed together. Measured after the side-by-side loop, so a replayed probe or
    marker never meets a measured call."""
    helpers = [(argv, stdin) for argv, stdin in await spawned(tools, args) if "batch" in argv]

    async def replay() -> None:
        for argv, stdin in helpers:
            await bare_engine(binary, argv, env, stdin)

    return (await measure({"helpers": replay}, iterations, 3))["helpers"]


async def spawned(
    tools: BrowserTools, args: list[str], stdin: str | None = None
) -> list[tuple[list[str], str | None]]:
    """The engine processes one tool call spawns (argv and stdin, at `Runtime.spawn`)."""
    rt = tools.runtime
    spawn = rt.spawn
    sent: list[tuple[list[str], str | None]] = []

    async def recording(*a: Any, **k: Any) -> Any:
        sent.append((list(a[0]), k.get("stdin")))
        return await spawn(*a, **k)

    rt.spawn = recording  # type: ignore[method-assign]
    try:
        await tool_call(tools, args, stdin)
    finally:
        rt.spawn = spawn  # type: ignore[method-assign]
    return sent


async def engine_calls(tools: BrowserTools, args: list[str], stdin: str | None = None) -> int:
    """How many engine processes one tool call spawns."""
    return len(await spawned(tools, args, stdin))


async def _close_all(tools: BrowserTools, root: Path) -> None:
    """Close the conversation's browser, then anything else in the private socket dir."""
    with contextlib.suppress(Exception):
        await tools.aclose()
    engine = tools.runtime.engine.path
    env = tools.runtime.child_env
    close_socket_dir(engine, env, root / "sock")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--iterations", type=int, default=30)
    parser.add_argument("--warmup", type=int, default=3)
    options = parser.parse_args(argv)

    with private_benchmark_root() as root:
        asyncio.run(run(options.iterations, options.warmup, root))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
