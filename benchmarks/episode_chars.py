"""What an agent reads per episode: this server over MCP against the engine CLI, same steps.

Every character a tool returns is paid for in tokens and context, so this runs a fixed set of
scripted flows (`episode_flows.py`: the fixture site's forms, a date input, dense lists,
dialogs, ARIA tabs, links, overlays; plus MiniWoB++ episodes when its pages are available)
twice, interleaved:

  (a) through `agent-browser-tools serve` over stdio with the official MCP client, calling
      `agent_browser` with the argv a model would send; characters = the text content;
  (b) through the engine CLI directly (`agent-browser --session S ...`, no `--json`, as a
      model with a shell would run it); characters = stdout (+ stderr, empty on success).

Refs come from the text of the preceding `snapshot -i`, looked up by role and name, so a
control a result does not show cannot be used. Success is read from the page state at the end
(a field value, a result text, the MiniWoB++ reward; polled for up to 5 s), never from what a
result said; those reads and the MiniWoB++ episode start after `open` are not counted.

Printed: per flow and in total, success, calls, characters and the ratio ours/engine; the
median click/fill result when nothing navigates; the characters per command; and the lines of
our results that cost most (refs, numbers, quoted text and URLs folded). Targets, checked in
the last line (exit status 0 only when all hold): 100% success, total characters at most
1.25x the engine's, median click/fill result at most 120 characters. Subtotals per group
(small fixture pages, the two dense pages, MiniWoB++) are printed too: on the dense pages
snapshot compaction saves far more than the action results cost, so the total alone hides
the per-action overhead that the small pages show.

MiniWoB++ pages come from the `miniwob` package (the `bench` extra), or without installing it
(it pulls in gymnasium, selenium and numpy) from its wheel:
    pip download miniwob==1.1.0 --no-deps -d /tmp/mw
    ... episode_chars.py --miniwob /tmp/mw/miniwob-1.1.0-py3-none-any.whl
Only the HTML/JS files are used, served from 127.0.0.1; nothing of the package is imported.

Hermetic: a private 0700 root for sockets, state and downloads; the server exits and every
browser is closed at the end (`close`, then `close --all` in the socket dir), even on errors.

Run from the repo root:
    PYTHONPATH=src .venv/bin/python benchmarks/episode_chars.py [--miniwob PATH] [--only TEXT]
        [--show FLOW]   # --show prints every call's text of one flow, both backends
"""

from __future__ import annotations

import argparse
import contextlib
import importlib.util
import json
import re
import statistics
import sys
import zipfile
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

import anyio
from mcp import Client

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from episode_flows import (  # noqa: E402
    MEDIAN_COMMANDS,
    Flow,
    Ref,
    Step,
    fixture_flows,
    miniwob_flows,
)
from tests.support.engine_session import (  # noqa: E402
    StaticServer,
    find_engine,
    private_benchmark_root,
)
from tests.support.fixture_server import start_fixture_server  # noqa: E402
from tests.support.mcp_server import details_of, serve_env, stdio_client, text_of  # noqa: E402
from tests.support.real_engine import EngineEnv, close_socket_dir, engine_env_for  # noqa: E402

ENGINE_SESSION = "episodes"
CALL_TIMEOUT_S = 90.0
CHECK_WINDOW_S = 5.0
CHECK_INTERVAL_S = 0.25
MAX_RATIO = 1.25
MAX_MEDIAN_ACTION = 120
#: `- role "name" [attrs, ref=eN]` (the name is absent for unnamed elements).
_REF_LINE = re.compile(r'([a-z]+)(?: "((?:[^"\\]|\\.)*)")?[^\n]*?\bref=(e\d+)\b')


class FlowError(RuntimeError):
    """A step could not be sent (its ref is not in the last snapshot text)."""


@dataclass(frozen=True)
class Call:
    command: str
    text: str
    ok: bool
    navigates: bool


@dataclass
class Outcome:
    calls: list[Call] = field(default_factory=list)
    success: bool = False
    note: str = ""

    @property
    def chars(self) -> int:
        return sum(len(c.text) for c in self.calls)


class Backend(Protocol):
    label: str

    async def call(self, argv: Sequence[str]) -> tuple[str, bool]:
        """Send one argv; return the text the model reads and whether the call succeeded."""

    async def evaluate(self, script: str) -> Any:
        """Run page script for the harness (not counted); return its result."""


class EngineBackend:
    """The engine CLI, one named session, plain-text output as a shell shows it."""

    label = "engine"

    def __init__(self, engine: EngineEnv, session: str) -> None:
        self.engine = engine
        self.session = session

    async def _run(self, argv: Sequence[str], stdin: str | None = None) -> tuple[str, str, int]:
        command = [str(self.engine.binary), "--session", self.session, *argv]
        with anyio.fail_after(CALL_TIMEOUT_S):
            proc = await anyio.run_process(
                command,
                input=stdin.encode() if stdin is not None else None,
                env=self.engine.env,
                check=False,
            )
        return (
            proc.stdout.decode(errors="replace"),
            proc.stderr.decode(errors="replace"),
            proc.returncode,
        )

    async def call(self, argv: Sequence[str]) -> tuple[str, bool]:
        out, err, code = await self._run(argv)
        return out + err, code == 0

    async def evaluate(self, script: str) -> Any:
        out, err, _ = await self._run(["--json", "eval", "--stdin"], stdin=script)
        envelope = json.loads(out)
        if not envelope.get("success"):
            raise FlowError(f"harness eval failed: {out[:300]} {err[:300]}")
        return envelope["data"]["result"]


class McpBackend:
    """This server over stdio: `agent_browser` with the model's argv."""

    label = "ours"

    def __init__(self, client: Client) -> None:
        self.client = client

    async def call(self, argv: Sequence[str]) -> tuple[str, bool]:
        with anyio.fail_after(CALL_TIMEOUT_S):
            result = await self.client.call_tool("agent_browser", {"args": list(argv)})
        return text_of(result), not result.is_error

    async def evaluate(self, script: str) -> Any:
        with anyio.fail_after(CALL_TIMEOUT_S):
            result = await self.client.call_tool("agent_browser", {"args": ["eval", script]})
        if result.is_error:
            raise FlowError(f"harness eval failed: {text_of(result)[:300]}")
        return details_of(result)["data"]["result"]


def resolve(snapshot: str, ref: Ref) -> str:
    """The `@eN` of `ref` in the snapshot text the model last read."""
    found = [
        ref_id
        for role, name, ref_id in _REF_LINE.findall(snapshot)
        if role == ref.role and (ref.name is None or name.replace('\\"', '"') == ref.name)
    ]
    if len(found) <= ref.nth:
        raise FlowError(f"no {ref} in the last snapshot text")
    return f"@{found[ref.nth]}"


async def run_flow(backend: Backend, flow: Flow) -> Outcome:
    outcome = Outcome()

    async def send(argv: list[str], step: Step | None) -> str:
        text, ok = await backend.call(argv)
        command = " ".join(argv[:2]) if argv[0] in ("dialog", "snapshot") else argv[0]
        outcome.calls.append(Call(command, text, ok, step is not None and step.navigates))
        return text

    try:
        await send(["open", flow.url], None)
        utterance = str(await backend.evaluate(flow.setup)) if flow.setup else ""
        snapshot = ""
        for step in flow.plan(utterance):
            argv = [resolve(snapshot, a) if isinstance(a, Ref) else a for a in step.args]
            text = await send(argv, step)
            if argv[0] == "snapshot":
                snapshot = text
        outcome.success = await reached(backend, flow.check)
        failed = [c.command for c in outcome.calls if not c.ok]
        outcome.note = f"failed calls: {', '.join(failed)}" if failed else ""
    except Exception as exc:  # a broken flow is a result to print, not a reason to stop
        outcome.note = f"{type(exc).__name__}: {exc}"[:160]
    return outcome


async def reached(backend: Backend, check: str) -> bool:
    """Whether the page reaches the goal state within `CHECK_WINDOW_S` (polled).

    Why poll: an action may return before the navigation it started has finished; reading the
    state at once would fail a flow that got there, and the next flow's `open` could race
    that late navigation."""
    with anyio.move_on_after(CHECK_WINDOW_S):
        while True:
            try:
                if await backend.evaluate(check):
                    return True
            except (FlowError, ValueError):  # mid-navigation: no page to read yet
                pass
            await anyio.sleep(CHECK_INTERVAL_S)
    return False


Results = dict[str, dict[str, Outcome]]  # flow name -> backend label -> outcome


async def run_all(backends: Sequence[Backend], flows: Sequence[Flow]) -> Results:
    """Each flow on every backend, the order alternating so neither always goes first."""
    results: Results = {}
    for index, flow in enumerate(flows):
        order = list(backends) if index % 2 == 0 else list(reversed(backends))
        results[flow.name] = {b.label: await run_flow(b, flow) for b in order}
    return results


# --- report ------------------------------------------------------------------------------


def _ratio(ours: int, engine: int) -> str:
    return f"{ours / engine:.2f}x" if engine else "-"


def print_table(results: Results, groups: dict[str, str]) -> None:
    header = (
        f"{'flow':28} {'ok eng/ours':>11} {'calls':>9} {'chars engine':>12} "
        f"{'chars ours':>10} {'ratio':>7}  note (ours; engine)"
    )
    print(header)
    print("-" * len(header))
    for name, by in results.items():
        eng, ours = by["engine"], by["ours"]
        ok = f"{_yes(eng.success)}/{_yes(ours.success)}"
        calls = f"{len(eng.calls)}/{len(ours.calls)}"
        notes = "; ".join(n for n in (ours.note, eng.note) if n)
        print(
            f"{name:28} {ok:>11} {calls:>9} {eng.chars:>12,} {ours.chars:>10,} "
            f"{_ratio(ours.chars, eng.chars):>7}  {notes}"
        )
    eng_all = [by["engine"] for by in results.values()]
    ours_all = [by["ours"] for by in results.values()]
    eng_chars, ours_chars = sum(o.chars for o in eng_all), sum(o.chars for o in ours_all)
    ok = f"{sum(o.success for o in eng_all)}/{sum(o.success for o in ours_all)}"
    calls = f"{sum(len(o.calls) for o in eng_all)}/{sum(len(o.calls) for o in ours_all)}"
    print("-" * len(header))
    print(
        f"{'total (' + str(len(results)) + ' flows)':28} {ok:>11} {calls:>9} {eng_chars:>12,} "
        f"{ours_chars:>10,} {_ratio(ours_chars, eng_chars):>7}"
    )
    n = len(results) or 1
    print(f"per flow (mean): engine {eng_chars / n:,.0f} chars, ours {ours_chars / n:,.0f} chars")
    for group in sorted({g for g in groups.values()}):
        names = [name for name, g in groups.items() if g == group and name in results]
        eng_g = sum(results[name]["engine"].chars for name in names)
        ours_g = sum(results[name]["ours"].chars for name in names)
        print(
            f"  {group} ({len(names)} flows): engine {eng_g:,}, ours {ours_g:,} chars, "
            f"{_ratio(ours_g, eng_g)}; per flow {eng_g / len(names):,.0f} / "
            f"{ours_g / len(names):,.0f}"
        )


def _yes(flag: bool) -> str:
    return "yes" if flag else "NO"


def action_lengths(outcomes: Sequence[Outcome]) -> list[int]:
    """Lengths of click/fill results whose step does not navigate."""
    return [
        len(c.text)
        for o in outcomes
        for c in o.calls
        if c.command in MEDIAN_COMMANDS and not c.navigates
    ]


def by_command(outcomes: Sequence[Outcome]) -> Counter[str]:
    totals: Counter[str] = Counter()
    for o in outcomes:
        for c in o.calls:
            totals[c.command] += len(c.text)
    return totals


_FOLDS = (
    (re.compile(r"https?://\S+"), "URL"),
    (re.compile(r'"(?:[^"\\]|\\.)*"'), '"…"'),
    (re.compile(r"@?\be\d+\b"), "eN"),
    (re.compile(r"\d+"), "N"),
)


def costly_lines(outcomes: Sequence[Outcome], top: int) -> list[tuple[str, int, int]]:
    """(folded line, occurrences, characters) of non-snapshot results, most costly first."""
    chars: Counter[str] = Counter()
    seen: Counter[str] = Counter()
    for o in outcomes:
        for c in o.calls:
            if c.command.startswith("snapshot"):
                continue
            for line in c.text.splitlines():
                folded = line
                for pattern, repl in _FOLDS:
                    folded = pattern.sub(repl, folded)
                chars[folded] += len(line) + 1
                seen[folded] += 1
    return [(line, seen[line], total) for line, total in chars.most_common(top)]


def print_breakdown(results: Results, top: int) -> tuple[float, float]:
    """Medians, per-command characters and our costliest lines; returns (ours, engine)."""
    eng = [by["engine"] for by in results.values()]
    ours = [by["ours"] for by in results.values()]
    eng_actions, our_actions = action_lengths(eng), action_lengths(ours)
    eng_median = statistics.median(eng_actions) if eng_actions else 0.0
    our_median = statistics.median(our_actions) if our_actions else 0.0
    print(
        f"median click/fill result when nothing navigates: engine {eng_median:.0f} chars "
        f"(n={len(eng_actions)}), ours {our_median:.0f} chars (n={len(our_actions)})"
    )
    eng_cmd, our_cmd = by_command(eng), by_command(ours)
    print("characters per command (ours / engine):")
    for command, chars in our_cmd.most_common():
        print(f"  {command:20} {chars:>8,} / {eng_cmd[command]:>7,}")
    print(f"our costliest result lines outside snapshots (top {top}; count x, chars):")
    for line, count, chars in costly_lines(ours, top):
        print(f"  {count:>4}x {chars:>7,}  {line[:140]}")
    return our_median, eng_median


def verdict(results: Results, groups: dict[str, str], our_median: float) -> bool:
    """Print the targets line; True only when all hold. The total is the acceptance's figure;
    the ratio without the dense pages is printed beside it, because compaction of two 60-160k
    character snapshots outweighs everything else in the total."""
    flows = len(results)
    ok = sum(by["ours"].success for by in results.values())
    ratio = _chars_ratio(results, list(results))
    small = _chars_ratio(results, [n for n in results if groups.get(n) != "dense"])
    holds = (ok == flows, ratio <= MAX_RATIO, our_median <= MAX_MEDIAN_ACTION)
    print(
        f"targets: 100% success: {_yes(holds[0])} ({ok}/{flows}); total characters <= "
        f"{MAX_RATIO}x the engine's: {_yes(holds[1])} ({ratio:.2f}x; without the dense pages "
        f"{small:.2f}x); median click/fill result <= {MAX_MEDIAN_ACTION}: {_yes(holds[2])} "
        f"({our_median:.0f})"
    )
    return all(holds)


def _chars_ratio(results: Results, names: Sequence[str]) -> float:
    engine = sum(results[n]["engine"].chars for n in names)
    ours = sum(results[n]["ours"].chars for n in names)
    return ours / engine if engine else float("inf")


def print_calls(results: Results, name: str) -> None:
    """Every call of one flow with the text each backend returned (for `--show`)."""
    for label, outcome in results.get(name, {}).items():
        for call in outcome.calls:
            print(f"===== {label} {call.command} ({len(call.text)} chars, ok={call.ok})")
            print(call.text)


# --- setup --------------------------------------------------------------------------------


def miniwob_html(option: str | None, root: Path) -> Path | None:
    """MiniWoB++'s html dir: from `--miniwob` (an html dir or a wheel, unpacked under `root`),
    else from an installed `miniwob` (found without importing it: importing needs gymnasium)."""
    if option:
        path = Path(option)
        if path.suffix != ".whl":
            return path
        with zipfile.ZipFile(path) as wheel:
            members = [m for m in wheel.namelist() if m.startswith("miniwob/html/")]
            wheel.extractall(root / "miniwob-wheel", members)
        return root / "miniwob-wheel" / "miniwob" / "html"
    spec = importlib.util.find_spec("miniwob")
    if spec is None or not spec.submodule_search_locations:
        print("note: MiniWoB++ pages not found (pass --miniwob WHEEL_OR_DIR); fixture flows only")
        return None
    return Path(next(iter(spec.submodule_search_locations))) / "html"


@contextlib.contextmanager
def page_servers(
    miniwob: Path | None,
) -> Iterator[tuple[Callable[[str], str], StaticServer | None]]:
    fixture = start_fixture_server()
    static = StaticServer(miniwob) if miniwob is not None else None
    try:
        yield fixture.url, static
    finally:
        fixture.close()
        if static is not None:
            static.close()


def select_flows(
    fixture_url: Callable[[str], str], static: StaticServer | None, only: str | None
) -> list[Flow]:
    flows = fixture_flows(fixture_url)
    if static is not None:
        flows += miniwob_flows(static.url)
    return [f for f in flows if only is None or only in f.name]


async def measure(options: argparse.Namespace, root: Path) -> tuple[Results, dict[str, str]]:
    engine = engine_env_for(find_engine(options.engine), root / "sock")
    # The server runs this checkout's package, whatever the venv has installed.
    python_path = [str(REPO / "src"), *filter(None, [engine.env.get("PYTHONPATH")])]
    env = serve_env(engine, root / "state", PYTHONPATH=":".join(python_path))
    results: Results = {}
    with page_servers(miniwob_html(options.miniwob, root)) as (fixture_url, static):
        flows = select_flows(fixture_url, static, options.only)
        try:
            with (root / "server.log").open("w") as log:
                async with stdio_client(env, errlog=log) as client:
                    backends: list[Backend] = [
                        EngineBackend(engine, ENGINE_SESSION),
                        McpBackend(client),
                    ]
                    results = await run_all(backends, flows)
        finally:
            close_socket_dir(
                engine.binary, engine.env, engine.socket_dir, sessions=[ENGINE_SESSION]
            )
    return results, {f.name: f.group for f in flows}


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--engine", help="engine binary (default: the resolved pinned engine)")
    parser.add_argument("--miniwob", help="MiniWoB++ html dir or miniwob wheel")
    parser.add_argument("--only", help="run only the flows whose name contains this text")
    parser.add_argument("--show", help="print every call's text of this flow")
    parser.add_argument("--top", type=int, default=12, help="costly lines to list")
    options = parser.parse_args(argv)
    with private_benchmark_root() as root:
        results, groups = anyio.run(measure, options, root)
    print_table(results, groups)
    our_median, _ = print_breakdown(results, options.top)
    if options.show:
        print_calls(results, options.show)
    return 0 if verdict(results, groups, our_median) else 1


if __name__ == "__main__":
    raise SystemExit(main())
