"""How big the answers to huge results are on the wire, and what the server paid for them.

Drives `agent-browser-tools serve` over stdio with the official MCP client (stdio sets no size
limit, so an oversized answer is still measured instead of dropped) through the issue's three
cases, each in its own conversation:

  (a) `snapshot -i` of the fixture changelist with `--rows` rows (default 5,000), then one
      `get title` on the same page (the session's ref map rides on every later answer);
  (b) a batch of `--batch` `get title` rows (default 10,000);
  (c) `eval` of a string of `--eval-mb` MiB (default 50).

Per call it prints the answer's size as the client got it (the CallToolResult as JSON), the
wall time, the parts the message budget moved and the large values moved to files; at the end
the server's peak resident memory (VmHWM) and what the spill dir holds. The official client's
HTTP transport drops any answer over 1 MiB; the last line says whether every answer fits.

Hermetic: a private 0700 socket dir and state dir; the server closes its browsers on exit.

Run from the repo root:
    .venv/bin/python benchmarks/answer_size.py [--rows 5000] [--batch 10000] [--eval-mb 50]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from tests.support.engine_session import find_engine  # noqa: E402
from tests.support.fixture_server import start_fixture_server  # noqa: E402
from tests.support.mcp_server import (  # noqa: E402
    ab,
    details_of,
    serve_env,
    server_pids,
    stdio_client,
)
from tests.support.real_engine import close_socket_dir, engine_env_for  # noqa: E402

from agent_browser_tools.size_limits import CLIENT_MESSAGE_LIMIT_BYTES  # noqa: E402

CALL_TIMEOUT_MS = 300_000


def _peak_kib(state_dir: Path) -> int | None:
    for pid in server_pids(state_dir):
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1])
    return None


async def _measure(client: Any, label: str, *args: str, **params: Any) -> int:
    started = time.monotonic()
    result = await ab(client, *args, timeoutMs=CALL_TIMEOUT_MS, **params)
    elapsed = time.monotonic() - started
    size = len(result.model_dump_json(by_alias=True, exclude_none=True).encode("utf-8"))
    details = details_of(result)
    moved = details.get("messageBudget", {}).get("moved", [])
    parts = ", ".join(f"{m['part']} {m['bytes']:,} B" for m in moved) or "-"
    values = (
        ", ".join(f"{v['field']} {v['characters']:,} chars" for v in details.get("largeValues", []))
        or "-"
    )
    error = " ERROR" if result.is_error else ""
    print(f"{label:<28} {size:>12,} B {elapsed:7.1f} s{error}")
    print(f"{'':<28} moved: {parts}; large values: {values}")
    return size


async def _run(env: dict[str, str], site_url: str, args: argparse.Namespace) -> list[int]:
    sizes = []
    state_dir = Path(env["AGENT_BROWSER_TOOLS_STATE_DIR"])
    async with stdio_client(env) as client:
        await ab(client, "open", f"{site_url}/changelist.html?rows={args.rows}")
        sizes.append(await _measure(client, f"snapshot -i ({args.rows:,} rows)", "snapshot", "-i"))
        sizes.append(await _measure(client, "get title (after it)", "get", "title"))
        print(f"server peak memory so far: {_peak_kib(state_dir)} KiB")
    async with stdio_client(env) as client:
        await ab(client, "open", f"{site_url}/page-a.html")
        rows = json.dumps([["get", "title"]] * args.batch)
        sizes.append(await _measure(client, f"batch ({args.batch:,} rows)", "batch", stdin=rows))
    async with stdio_client(env) as client:
        await ab(client, "open", f"{site_url}/page-a.html")
        script = f"'x'.repeat({args.eval_mb} * 1024 * 1024)"
        sizes.append(await _measure(client, f"eval ({args.eval_mb} MiB string)", "eval", script))
        print(f"server peak memory: {_peak_kib(state_dir)} KiB")
    return sizes


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=int, default=5_000)
    parser.add_argument("--batch", type=int, default=10_000)
    parser.add_argument("--eval-mb", type=int, default=50)
    args = parser.parse_args()
    binary = find_engine()
    socket_dir = Path(tempfile.mkdtemp(prefix="abt-size-", dir="/tmp"))
    socket_dir.chmod(0o700)
    state_root = Path(tempfile.mkdtemp(prefix="abt-size-state-"))
    engine = engine_env_for(binary, socket_dir)
    site = start_fixture_server()
    try:
        env = serve_env(engine, state_root / "state")
        sizes = asyncio.run(_run(env, site.url("").rstrip("/"), args))
        spill = [p for p in (state_root / "state" / "spill").rglob("*") if p.is_file()]
        total = sum(p.stat().st_size for p in spill)
        print(f"spill files: {len(spill)}, {total:,} bytes")
        fits = all(size < CLIENT_MESSAGE_LIMIT_BYTES for size in sizes)
        print(f"every answer under the client's 1 MiB: {'yes' if fits else 'no'}")
        return 0 if fits else 1
    finally:
        site.close()
        close_socket_dir(binary, engine.env, socket_dir)
        shutil.rmtree(socket_dir, ignore_errors=True)
        shutil.rmtree(state_root, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
