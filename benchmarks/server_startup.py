"""What an agent pays before its first browser call: server start-up, against playwright's.

Prints:

  (a) time from spawning the server to the answer of its first `tools/list` (stdio; the
      `initialize` handshake and `notifications/initialized` included), `--runs` cold starts
      each, interleaved, for
        - ours: `agent-browser-tools serve`, the console script of this venv, exactly as an
          MCP client launches it;
        - playwright's MCP server (`@playwright/mcp` from npm, installed once into
          `--npm-dir`, no browser download; delete that dir to take a newer release), its
          `playwright-mcp` bin run directly (no `npx` in front, which would only add to its
          time) with the system Chromium (`--executable-path`, `--headless --isolated`);
      both driven by the same minimal JSON-RPC stdio client below, so no client library's
      import or set-up is inside the clock: it starts right before the child is spawned;
  (b) the size in characters of our always-on tool list as the model loads it: the listed
      tools' names, descriptions and input schemas as JSON (budget <= 6,000);
  (c) the size of our server `instructions` (budget <= 3,000).

The last line is the verdict, `ours X.XX s vs playwright Y.YY s: not slower: yes|no`
(medians), and the exit status is 0 only for yes. If npm or the install fails, it says so
and exits 2: there is no figure without playwright's server measured in the same run.

No browser is started: neither server needs one for `tools/list`. Each run gets a private
state / output dir under a private temp root, and the server has exited (stdin closed; killed
after 10 s) before the next run starts. Wall time depends on what else the machine runs, so
the load average is printed too.

Run from the repo root:
    .venv/bin/python benchmarks/server_startup.py [--runs 5] [--npm-dir DIR] [--chromium PATH]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

TOOL_LIST_BUDGET = 6_000
INSTRUCTIONS_BUDGET = 3_000
EXIT_WAIT_S = 10.0
PLAYWRIGHT_PACKAGE = "@playwright/mcp"
DEFAULT_NPM_DIR = Path.home() / ".cache" / "agent-browser-tools" / "bench" / "playwright-mcp"
# A version both servers speak; each answers with the one it chose.
PROTOCOL_VERSION = "2025-06-18"


class BenchError(RuntimeError):
    """A precondition failed (npm, install, a server that does not answer): no figure."""


@dataclass(frozen=True)
class Answer:
    """One cold start: seconds to the `tools/list` answer, and what was answered."""

    seconds: float
    initialize: dict[str, Any]
    tools: list[dict[str, Any]]


@dataclass(frozen=True)
class Server:
    name: str
    command: Callable[[Path], tuple[list[str], dict[str, str]]]
    """The child's argv and environment for a run, given that run's private dir."""


def _send(child: subprocess.Popen[bytes], message: dict[str, Any]) -> None:
    assert child.stdin is not None
    child.stdin.write(json.dumps(message).encode() + b"\n")
    child.stdin.flush()


def _answer(child: subprocess.Popen[bytes], request_id: int) -> dict[str, Any]:
    """The result of request `request_id`; notifications and other lines are skipped."""
    assert child.stdout is not None
    while True:
        line = child.stdout.readline()
        if not line:
            raise BenchError(f"server closed stdout before answering request {request_id}")
        message = json.loads(line)
        if message.get("id") != request_id:
            continue
        if "result" not in message:
            raise BenchError(f"request {request_id} failed: {message.get('error')}")
        result: dict[str, Any] = message["result"]
        return result


def one_start(server: Server, run_dir: Path) -> Answer:
    """Spawn `server`, handshake, list tools; seconds from just before the spawn."""
    run_dir.mkdir(mode=0o700)
    argv, env = server.command(run_dir)
    started = time.perf_counter()
    child = subprocess.Popen(
        argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env
    )
    try:
        _send(
            child,
            {
                "jsonrpc": "2.0",
                "id": 1,
                "method": "initialize",
                "params": {
                    "protocolVersion": PROTOCOL_VERSION,
                    "capabilities": {},
                    "clientInfo": {"name": "server-startup-bench", "version": "1"},
                },
            },
        )
        initialize = _answer(child, 1)
        _send(child, {"jsonrpc": "2.0", "method": "notifications/initialized"})
        _send(child, {"jsonrpc": "2.0", "id": 2, "method": "tools/list", "params": {}})
        listed = _answer(child, 2)
        seconds = time.perf_counter() - started
    finally:
        _stop(child)
    tools = listed.get("tools")
    if not isinstance(tools, list) or not tools:
        raise BenchError(f"{server.name}: tools/list answered no tools")
    return Answer(seconds, initialize, tools)


def _stop(child: subprocess.Popen[bytes]) -> None:
    """Close stdin (how an MCP client ends a stdio server) and wait; kill after a while."""
    if child.stdin is not None:
        child.stdin.close()
    try:
        child.wait(EXIT_WAIT_S)
    except subprocess.TimeoutExpired:
        child.kill()
        child.wait()
    if child.stdout is not None:
        child.stdout.close()


def install_playwright_mcp(npm_dir: Path) -> Path:
    """`playwright-mcp` from npm in `npm_dir` (installed on first use, no browser download);
    raises `BenchError` saying what failed."""
    binary = npm_dir / "node_modules" / ".bin" / "playwright-mcp"
    if binary.exists():
        return binary
    npm = shutil.which("npm")
    if npm is None:
        raise BenchError("npm not found: install Node.js (npm) to measure playwright's server")
    try:
        npm_dir.mkdir(parents=True, exist_ok=True)
        manifest = npm_dir / "package.json"
        if not manifest.exists():
            manifest.write_text('{"private": true}\n')
    except OSError as exc:
        raise BenchError(f"cannot prepare {npm_dir} for npm: {exc}") from None
    print(f"installing {PLAYWRIGHT_PACKAGE} into {npm_dir} ...", flush=True)
    done = subprocess.run(
        [npm, "install", "--no-audit", "--no-fund", PLAYWRIGHT_PACKAGE],
        cwd=npm_dir,
        env=dict(os.environ, PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD="1"),
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0 or not binary.exists():
        tail = (done.stderr or done.stdout).strip().splitlines()[-5:]
        raise BenchError(
            f"npm install {PLAYWRIGHT_PACKAGE} failed (exit {done.returncode}):\n  "
            + "\n  ".join(tail)
        )
    return binary


def installed_version(npm_dir: Path) -> str:
    manifest = npm_dir / "node_modules" / "@playwright" / "mcp" / "package.json"
    version: str = json.loads(manifest.read_text()).get("version", "?")
    return version


def our_server() -> Server:
    script = Path(sys.executable).parent / "agent-browser-tools"
    if not script.exists():
        raise BenchError(f"{script} not found: install this project into the venv (pip -e .)")

    def command(run_dir: Path) -> tuple[list[str], dict[str, str]]:
        env = dict(os.environ, AGENT_BROWSER_TOOLS_STATE_DIR=str(run_dir / "state"))
        env.pop("AGENT_BROWSER_TOOLS_HTTP_TOKEN", None)
        return [str(script), "serve"], env

    return Server("ours", command)


def playwright_server(binary: Path, chromium: str) -> Server:
    def command(run_dir: Path) -> tuple[list[str], dict[str, str]]:
        argv = [str(binary), "--headless", "--isolated", "--executable-path", chromium]
        env = dict(os.environ, PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD="1")
        return [*argv, "--output-dir", str(run_dir / "output")], env

    return Server("playwright", command)


def summary(name: str, seconds: list[float]) -> str:
    return (
        f"  {name:<10} median {statistics.median(seconds):.3f} s  min {min(seconds):.3f}  "
        f"max {max(seconds):.3f}  runs: {', '.join(f'{s:.3f}' for s in seconds)}"
    )


def budget(value: int, limit: int) -> str:
    return "ok" if value <= limit else "OVER BUDGET"


def measure(servers: list[Server], runs: int, root: Path) -> dict[str, list[Answer]]:
    """`runs` cold starts of each server, interleaved; who goes first alternates."""
    answers: dict[str, list[Answer]] = {server.name: [] for server in servers}
    for index in range(runs):
        order = servers if index % 2 == 0 else servers[::-1]
        for server in order:
            answers[server.name].append(one_start(server, root / f"{server.name}-{index}"))
    return answers


def report(answers: dict[str, list[Answer]], runs: int, version: str) -> bool:
    ours = [a.seconds for a in answers["ours"]]
    theirs = [a.seconds for a in answers["playwright"]]
    print(f"spawn -> tools/list answer (stdio, {runs} cold starts each, interleaved):")
    print(summary("ours", ours))
    print(summary("playwright", theirs) + f"  (@playwright/mcp {version})")
    print(
        f"  tools listed: ours {len(answers['ours'][0].tools)}, "
        f"playwright {len(answers['playwright'][0].tools)}; load average "
        f"{os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs"
    )
    listing = json.dumps(
        [
            {
                "name": t["name"],
                "description": t.get("description"),
                "inputSchema": t["inputSchema"],
            }
            for t in answers["ours"][-1].tools
        ],
        separators=(",", ":"),
    )
    instructions = str(answers["ours"][-1].initialize.get("instructions") or "")
    print(
        f"our always-on tool list (names + descriptions + schemas, JSON): {len(listing):,} "
        f"chars (budget <= {TOOL_LIST_BUDGET:,}) {budget(len(listing), TOOL_LIST_BUDGET)}"
    )
    print(
        f"our instructions: {len(instructions):,} chars (budget <= {INSTRUCTIONS_BUDGET:,}) "
        f"{budget(len(instructions), INSTRUCTIONS_BUDGET)}"
    )
    mine, other = statistics.median(ours), statistics.median(theirs)
    ok = mine <= other
    print(f"ours {mine:.2f} s vs playwright {other:.2f} s: not slower: {'yes' if ok else 'no'}")
    return ok


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5, help="cold starts per server")
    parser.add_argument("--npm-dir", type=Path, default=DEFAULT_NPM_DIR)
    parser.add_argument("--chromium", default="/usr/bin/chromium", help="browser executable")
    args = parser.parse_args(argv)
    try:
        if shutil.which(args.chromium) is None:
            raise BenchError(f"{args.chromium} not found: pass --chromium PATH")
        servers = [our_server()]
        binary = install_playwright_mcp(args.npm_dir)
        servers.append(playwright_server(binary, args.chromium))
        with tempfile.TemporaryDirectory(prefix="abt-startup-") as tmp:
            answers = measure(servers, args.runs, Path(tmp))
    except BenchError as exc:
        print(f"server_startup: {exc}", file=sys.stderr)
        return 2
    return 0 if report(answers, args.runs, installed_version(args.npm_dir)) else 1


if __name__ == "__main__":
    sys.exit(main())
