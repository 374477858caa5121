"""Hard widgets: a generic follower through the tools against the bare engine's `fill` alone.

Issue 30: on every widget of the widgets fixture (`tests/fixtures/widgets_app`: native range,
ARIA slider, noUiSlider, CodeMirror 6, Quill, select2, an ARIA autocomplete, flatpickr
read-only and typed, a native date input) a follower that knows nothing about the pages sends
the action a model would (`fill`/`select` on the widget's ref) and, while the tool reports an
error, runs the tool's first next action as given, at most 4 times
(`tests/support/widget_follower.py`). Then the bare engine gets the same action on a fresh
page, alone. Both sides are judged by what the page holds (`window.widgetValues()`, from each
library's own API), never by a read-back. Each widget starts from a freshly loaded page.

Run from the repo root (build the fixture first: `bash tests/fixtures/widgets_app/build.sh`):
    .venv/bin/python benchmarks/widget_follow.py
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import sys
import time
import uuid
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from tests.support.engine_session import private_benchmark_root  # noqa: E402
from tests.support.fixture_server import WIDGETS_APP_DIR, start_fixture_server  # noqa: E402
from tests.support.real_engine import close_socket_dir  # noqa: E402
from tests.support.widget_follower import (  # noqa: E402
    CASES,
    PAGE,
    READ_VALUES,
    WidgetCase,
    follow,
    page_values,
    ref_of,
)

from agent_browser_tools import BrowserTools  # noqa: E402
from agent_browser_tools.results.tool_result import ToolResult  # noqa: E402

BARE_SESSION = "widget-follow-bare"


async def _tool(tools: BrowserTools, params: Mapping[str, Any]) -> ToolResult:
    return await tools.call("agent_browser", dict(params))


async def _tool_side(tools: BrowserTools, url: str, case: WidgetCase) -> tuple[bool, int, float]:
    """(reached, calls, seconds) through the tools."""
    await _tool(tools, {"args": ["open", url]})
    snap = await _tool(tools, {"args": ["snapshot", "-i"]})
    ref = ref_of(snap.details["refSnapshot"]["refs"], case.role, case.name)
    started = time.perf_counter()
    calls, _ = await follow(lambda p: _tool(tools, p), case, ref)
    spent = time.perf_counter() - started
    read = await _tool(tools, {"args": ["eval", READ_VALUES]})
    return page_values(read.details["data"]).get(case.key) == case.value, calls, spent


async def _engine(binary: str, env: dict[str, str], *args: str) -> Any:
    proc = await asyncio.create_subprocess_exec(
        binary,
        "--json",
        "--session",
        BARE_SESSION,
        *args,
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.DEVNULL,
        env=env,
    )
    out, _ = await proc.communicate()
    return json.loads(out or b"{}")


async def _bare_side(binary: str, env: dict[str, str], url: str, case: WidgetCase) -> bool:
    """Whether the bare engine's action alone set the value (its own refs, a fresh page)."""
    await _engine(binary, env, "open", url)
    snap = await _engine(binary, env, "snapshot", "-i")
    ref = ref_of(snap["data"]["refs"], case.role, case.name)
    await _engine(binary, env, case.command, ref, case.value)
    read = await _engine(binary, env, "eval", READ_VALUES)
    return page_values(read["data"]).get(case.key) == case.value


async def run(root: Path) -> int:
    if not (WIDGETS_APP_DIR / "dist" / "widgets.js").is_file():
        print(f"build the fixture first: bash {WIDGETS_APP_DIR / 'build.sh'}")
        return 2
    tools = BrowserTools(conversation_id=f"widgets-{uuid.uuid4().hex[:12]}", cwd=REPO)
    rows: list[tuple[WidgetCase, bool, int, float, bool]] = []
    try:
        with start_fixture_server() as site:
            url = site.url(PAGE)
            rt = tools.runtime
            for case in CASES:
                reached, calls, spent = await _tool_side(tools, url, case)
                bare = await _bare_side(rt.engine.path, rt.child_env, url, case)
                rows.append((case, reached, calls, spent, bare))
    finally:
        with contextlib.suppress(Exception):
            await tools.aclose()
        close_socket_dir(tools.runtime.engine.path, tools.runtime.child_env, root / "sock")
    _print(rows)
    return 0


def _print(rows: Sequence[tuple[WidgetCase, bool, int, float, bool]]) -> None:
    print(f"{'widget':<24} {'action':<28} {'tools':>6} {'calls':>6} {'ms':>7} {'engine':>7}")
    for case, reached, calls, spent, bare in rows:
        action = f"{case.command} {case.value}"[:28]
        print(
            f"{case.label:<24} {action:<28} {_mark(reached):>6} {calls:>6} "
            f"{spent * 1000:>7.0f} {_mark(bare):>7}"
        )
    tools_ok = sum(r[1] for r in rows)
    bare_ok = sum(r[4] for r in rows)
    total = len(rows)
    print(
        f"reached through the tools: {tools_ok}/{total} ({100 * tools_ok / total:.0f}%), "
        f"{sum(r[2] for r in rows) / total:.2f} calls per widget; "
        f"bare engine fill/select alone: {bare_ok}/{total} ({100 * bare_ok / total:.0f}%)"
    )


def _mark(ok: bool) -> str:
    return "yes" if ok else "no"


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.parse_args(argv)
    with private_benchmark_root() as root:
        return asyncio.run(run(root))


if __name__ == "__main__":
    raise SystemExit(main())
