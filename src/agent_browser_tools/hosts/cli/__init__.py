"""The `agent-browser-tools` command line: `serve`, `call`, `doctor`, `state`, `demo`."""

from __future__ import annotations

from agent_browser_tools.hosts.cli.main import main

__all__ = ["main"]
