"""Resume after a hard kill: old refs stay stale, the page target is known or explicitly
unknown, never wrong (real engine, separate processes sharing one journal)."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path
from typing import Any

import pytest

from agent_browser_tools.api import BrowserTools
from agent_browser_tools.settings import Settings
from tests.support.fixture_server import FixtureServer
from tests.support.real_engine import EngineEnv

pytestmark = pytest.mark.real_engine

WORKER = textwrap.dedent(
    """
    import asyncio, json, sys
    from agent_browser_tools.api import BrowserTools

    async def main() -> None:
        conversation, steps = sys.argv[1], json.loads(sys.argv[2])
        tools = BrowserTools(conversation_id=conversation, close_on_exit=False)
        for params in steps:
            result = await tools.call("agent_browser", params)
            print(json.dumps({"args": params["args"], "details": result.details}), flush=True)
        print("READY", flush=True)
        await asyncio.sleep(3600)

    asyncio.run(main())
    """
)


def _env(engine_env: EngineEnv, state: Path) -> dict[str, str]:
    return {**engine_env.env, "AGENT_BROWSER_TOOLS_STATE_DIR": str(state)}


def _run_then_kill(
    env: dict[str, str],
    conversation: str,
    steps: list[dict[str, Any]],
    *,
    kill_after_s: float | None = None,
) -> list[dict[str, Any]]:
    """Run steps in a separate process, then SIGKILL it (after READY, or after a delay)."""
    proc = subprocess.Popen(
        [sys.executable, "-c", WORKER, conversation, json.dumps(steps)],
        env=env,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout is not None
    lines: list[dict[str, Any]] = []
    deadline = time.monotonic() + 90
    if kill_after_s is not None:
        time.sleep(kill_after_s)
    else:
        for line in proc.stdout:
            if line.strip() == "READY" or time.monotonic() > deadline:
                break
            lines.append(json.loads(line))
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait(timeout=10)
    return lines


def _ref(details: dict[str, Any], role: str, name: str) -> str:
    for ref_id, info in details["refSnapshot"]["refs"].items():
        if info.get("role") == role and info.get("name") == name:
            return f"@{ref_id}"
    raise AssertionError(f"no {role} {name!r} in {details['refSnapshot']['refs']}")


def test_old_ref_is_still_stale_after_a_killed_server_restarts(
    engine_env: EngineEnv, fixture_site: FixtureServer, tmp_path: Path
) -> None:
    env = _env(engine_env, tmp_path / "state")
    rows = _run_then_kill(
        env,
        "resume-1",
        [
            {"args": ["open", fixture_site.url("/form.html")]},
            {"args": ["snapshot", "-i"]},
            {"args": ["open", fixture_site.url("/page-a.html")]},
        ],
    )
    old_ref = _ref(rows[1]["details"], "textbox", "Full name")

    async def resumed() -> None:
        settings = Settings.load(env=env, cwd=tmp_path)
        async with BrowserTools(conversation_id="resume-1", settings=settings) as tools:
            stale = await tools.call("agent_browser", {"args": ["fill", old_ref, "x"]})
            assert stale.details["failureCategory"] == "stale-ref", stale.text
            assert stale.details["nextActions"][0]["id"] == "refresh-interactive-refs"
            url = await tools.call("agent_browser", {"args": ["get", "url"]})
            assert url.details["data"]["url"] == fixture_site.url("/page-a.html")

    asyncio.run(resumed())


def test_a_call_killed_mid_flight_leaves_the_target_unknown_not_wrong(
    engine_env: EngineEnv, fixture_site: FixtureServer, tmp_path: Path
) -> None:
    env = _env(engine_env, tmp_path / "state")
    _run_then_kill(env, "resume-2", [{"args": ["open", fixture_site.url("/links.html")]}])
    _run_then_kill(env, "resume-2", [{"args": ["wait", "20000"]}], kill_after_s=4.0)

    async def resumed() -> None:
        settings = Settings.load(env=env, cwd=tmp_path)
        async with BrowserTools(conversation_id="resume-2", settings=settings) as tools:
            snap = await tools.call("agent_browser", {"args": ["snapshot", "-i"]})
            assert snap.is_error and snap.details.get("sessionTabTargetUnknown") is True
            ids = [a["id"] for a in snap.details["nextActions"]]
            assert "verify-page-target" in ids, snap.text
            url = await tools.call("agent_browser", {"args": ["get", "url"]})
            assert url.details["data"]["url"] == fixture_site.url("/links.html")
            again = await tools.call("agent_browser", {"args": ["snapshot", "-i"]})
            assert not again.is_error, again.text

    asyncio.run(resumed())
