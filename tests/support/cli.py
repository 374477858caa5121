"""Running the real command line (`python -m agent_browser_tools`) in a subprocess.

The environment is the test's own: engine and state variables are dropped from the process
env, HOME, TMPDIR and XDG_CONFIG_HOME point into the test's dir, and the engine is a path
that does not exist unless the test names one, so no real browser can start by accident.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import IO

STATE_ENV = "AGENT_BROWSER_TOOLS_STATE_DIR"
MCP_INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "test", "version": "0"},
    },
}
"""The first message of an MCP session over stdio, for tests that speak raw JSON-RPC."""


def cli_env(tmp_path: Path, **extra: str) -> dict[str, str]:
    base = {k: v for k, v in os.environ.items() if not k.startswith("AGENT_BROWSER")}
    for name in ("home", "tmp", "config"):
        (tmp_path / name).mkdir(exist_ok=True)
    return {
        **base,
        "HOME": str(tmp_path / "home"),
        "TMPDIR": str(tmp_path / "tmp"),
        "XDG_CONFIG_HOME": str(tmp_path / "config"),
        "AGENT_BROWSER_TOOLS_BIN": str(tmp_path / "no-engine-here"),
        STATE_ENV: str(tmp_path / "state"),
        **extra,
    }


def run_cli(
    args: list[str],
    env: dict[str, str],
    *,
    stdin: str = "",
    stdout: int | IO[str] | None = subprocess.PIPE,
    timeout: float = 60,
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "agent_browser_tools", *args],
        input=stdin,
        stdout=stdout,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        timeout=timeout,
        check=False,
    )


def one_line(stderr: str) -> str:
    """The only non-empty stderr line (and no traceback anywhere)."""
    assert "Traceback" not in stderr, stderr
    lines = [line for line in stderr.splitlines() if line.strip()]
    assert len(lines) == 1, stderr
    return lines[0]


def closed_pipe() -> int:
    """The write end of a pipe whose reader has already gone (close it after use)."""
    read_end, write_end = os.pipe()
    os.close(read_end)
    return write_end
