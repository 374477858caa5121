"""What an agent pays before its first browser call: server start-up and the always-on text.

Prints, each with its budget:

  (a) time from spawning `agent-browser-tools serve` (stdio) to the answer of the first
      `tools/list`, through the official MCP client (initialize handshake included), median of
      `--runs` runs (budget <= 1.0 s);
  (b) the size in characters of the always-on tool list as the model loads it: the listed
      tools' names, descriptions and input schemas as JSON (budget <= 6,000);
  (c) the size of the server `instructions` (budget <= 3,000).

No browser is started: `tools/list` needs none. Each run gets a private state dir, and the
server process is gone before the next run starts. Wall time depends on what else the machine
runs, so the load average and the server's own CPU time per run (user + sys over its whole
life, start-up to exit, from `RUSAGE_CHILDREN`) are printed too.

Run from the repo root:
    /work/venv/bin/python benchmarks/server_startup.py [--runs 5]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time

import anyio
from mcp import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

STARTUP_BUDGET_S = 1.0
TOOL_LIST_BUDGET = 6_000
INSTRUCTIONS_BUDGET = 3_000


async def one_run(env: dict[str, str]) -> tuple[float, str, str]:
    """Seconds from spawn to the `tools/list` answer, plus the listing JSON and instructions.

    The clock starts as `stdio_client` spawns the server and stops at the `tools/list` answer,
    so client-side setup is not counted against the server.
    """
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "agent_browser_tools.hosts.cli.main", "serve"],
        env=env,
    )
    started = time.perf_counter()
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        initialized = await session.initialize()
        listed = await session.list_tools()
        elapsed = time.perf_counter() - started
        tools = [
            {"name": t.name, "description": t.description, "inputSchema": t.input_schema}
            for t in listed.tools
        ]
        return elapsed, json.dumps(tools, separators=(",", ":")), initialized.instructions or ""


def verdict(value: float, budget: float) -> str:
    return "ok" if value <= budget else "OVER BUDGET"


IMPORT_PROBE = (
    "import time; t = time.perf_counter(); import mcp; m = time.perf_counter();"
    " import agent_browser_tools.hosts.mcp.stdio, agent_browser_tools.api;"
    " print(m - t, time.perf_counter() - m)"
)


def import_split(runs: int) -> tuple[float, float]:
    """Median seconds to import the MCP SDK, then our host + API on top of it."""
    sdk: list[float] = []
    ours: list[float] = []
    for _ in range(runs):
        out = subprocess.run(
            [sys.executable, "-c", IMPORT_PROBE], capture_output=True, text=True, check=True
        ).stdout.split()
        sdk.append(float(out[0]))
        ours.append(float(out[1]))
    return statistics.median(sdk), statistics.median(ours)


def children_cpu_s() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


async def main(runs: int) -> int:
    timings: list[float] = []
    cpu: list[float] = []
    listing = instructions = ""
    with tempfile.TemporaryDirectory(prefix="abt-bench-") as tmp:
        for index in range(runs):
            env = dict(os.environ, AGENT_BROWSER_TOOLS_STATE_DIR=f"{tmp}/state-{index}")
            env.pop("AGENT_BROWSER_TOOLS_HTTP_TOKEN", None)
            before = children_cpu_s()
            elapsed, listing, instructions = await one_run(env)
            timings.append(elapsed)
            cpu.append(children_cpu_s() - before)
    median = statistics.median(timings)
    print(
        f"spawn -> tools/list (stdio, median of {runs}): {median:.3f} s "
        f"(budget <= {STARTUP_BUDGET_S:.1f} s) {verdict(median, STARTUP_BUDGET_S)}"
    )
    print(f"  runs: {', '.join(f'{t:.3f}' for t in timings)} s")
    sdk, ours = import_split(runs)
    print(f"  of which imports: mcp SDK {sdk:.3f} s, agent-browser-tools host + API {ours:.3f} s")
    print(
        f"  server CPU per run (user+sys, whole life): median {statistics.median(cpu):.3f} s; "
        f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs"
    )
    print(
        f"always-on tool list (names + descriptions + schemas, JSON): {len(listing):,} chars "
        f"(budget <= {TOOL_LIST_BUDGET:,}) {verdict(len(listing), TOOL_LIST_BUDGET)}"
    )
    print(
        f"instructions: {len(instructions):,} chars (budget <= {INSTRUCTIONS_BUDGET:,}) "
        f"{verdict(len(instructions), INSTRUCTIONS_BUDGET)}"
    )
    return 0


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    sys.exit(anyio.run(main, parser.parse_args().runs))
