"""Conversations on a real Selenium Grid (grid mode) for the real tests.

`grid_config` writes the `[browser]` config that points the tools' grid sessions at the
system Chromium, headless, and `grid_tools` makes a conversation with it; `owned` lists the
grid sessions the tools made (they carry an `abt:owner` tag); `killed_server` runs a server
process that opens a grid browser for a conversation and is then SIGKILLed, as a crash would
leave it.
"""

from __future__ import annotations

import json
import signal
import subprocess
import sys
from pathlib import Path

from agent_browser_tools.api import BrowserTools
from tests.support.real_engine import EngineEnv
from tests.support.selenium_grid import CHROME_ARGS, Grid, find_chromium
from tests.support.tools import tools_settings


def grid_config(tmp_path: Path, wait_s: float, browser: str = "") -> Path:
    """A config file whose grid sessions run headless Chromium; calls wait `wait_s` for a
    slot; `browser`: more `[browser]` lines."""
    path = tmp_path / "grid.toml"
    path.write_text(
        f"[browser]\ngrid_wait_s = {wait_s}\n{browser}[browser.grid_capabilities]\n"
        'browserName = "chrome"\n[browser.grid_capabilities."goog:chromeOptions"]\n'
        f"binary = {json.dumps(find_chromium())}\nargs = {json.dumps(list(CHROME_ARGS))}\n"
    )
    return path


def owned(grid: Grid) -> list[str]:
    """Ids of the grid's sessions the tools made."""
    return [s["id"] for s in grid.sessions() if "abt:owner" in s["capabilities"]]


def owners(grid: Grid) -> dict[str, str]:
    """Every grid session's id and owner tag ("" for a session the tools did not make)."""
    return {s["id"]: s["capabilities"].get("abt:owner", "") for s in grid.sessions()}


CHILD = """
import asyncio, sys
from agent_browser_tools.api import BrowserTools
from agent_browser_tools.settings import Settings
async def main():
    tools = BrowserTools(settings=Settings.load(), conversation_id=sys.argv[1])
    result = await tools.call("agent_browser", {"args": ["open", sys.argv[2]]})
    print("opened" if not result.is_error else result.text, flush=True)
    await asyncio.sleep(600)
asyncio.run(main())
"""


def killed_server(
    engine_env: EngineEnv, tmp_path: Path, grid: Grid, conversation_id: str, url: str
) -> None:
    """A server process (state dir `tmp_path/state`) that opened `url` in a grid browser for
    `conversation_id`, then was killed."""
    env = {
        **engine_env.env,
        "AGENT_BROWSER_TOOLS_STATE_DIR": str(tmp_path / "state"),
        "AGENT_BROWSER_TOOLS_GRID_URL": grid.url,
        "AGENT_BROWSER_TOOLS_CONFIG": str(grid_config(tmp_path, 2)),
    }
    child = subprocess.Popen(
        [sys.executable, "-c", CHILD, conversation_id, url],
        env=env,
        cwd=tmp_path,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert child.stdout is not None
        assert child.stdout.readline().strip() == "opened"
    finally:
        child.send_signal(signal.SIGKILL)
        child.wait(timeout=10)


def grid_tools(
    engine_env: EngineEnv,
    tmp_path: Path,
    grid_url: str,
    conversation_id: str,
    *,
    wait_s: float = 2,
    state: str = "state",
    browser: str = "",
) -> BrowserTools:
    """A conversation whose browsers are sessions of the grid at `grid_url` (state dir
    `tmp_path/state`: conversations made with the same one are one server's)."""
    settings = tools_settings(
        engine_env,
        tmp_path / state,
        AGENT_BROWSER_TOOLS_GRID_URL=grid_url,
        AGENT_BROWSER_TOOLS_CONFIG=str(grid_config(tmp_path, wait_s, browser)),
    )
    return BrowserTools(settings=settings, cwd=tmp_path, conversation_id=conversation_id)
