"""`agent-browser-tools serve`: the MCP server (stdio by default, Streamable HTTP with --http).

Contract of `run(options)`:

- Loads settings once, with the operator's launch/policy flags as the top config layer, and
  checks them (a `SettingsError` is printed with its fix and exits 2).
- stdio: one conversation for the process (`--conversation ID` resumes one, else a new id).
- HTTP: one conversation per MCP session, each with its own `BrowserTools` and so its own
  managed browser; `--conversation` is refused there.
- `--tools a,b,c` is passed to every `BrowserTools` as its allowlist, `--shared-session NAME`
  as an operator-shared browser; over HTTP every `BrowserTools` is told that conversations
  share the server (`shared_server=True`: isolated from each other's stores and browsers).
  Policy and isolation config is checked before serving (exit 2 with the fix).
- On shutdown every `BrowserTools` the server created is closed (`aclose`), which closes the
  managed browsers it launched (over HTTP also the rest of its own socket dir; never an
  operator-shared session), bounded by the session-close timeout.

The host holds no browser logic: handlers only translate between MCP and `BrowserTools`.
"""

from __future__ import annotations

import asyncio
import logging
import sys

from agent_browser_tools.api import BrowserTools
from agent_browser_tools.hosts.mcp.options import ServeOptions
from agent_browser_tools.settings import Settings, SettingsError


async def _serve(options: ServeOptions, settings: Settings) -> int:
    if options.http:
        from agent_browser_tools.hosts.mcp.http import serve_http

        return await serve_http(options, settings)
    from agent_browser_tools.hosts.mcp.stdio import serve_stdio

    return await serve_stdio(options, settings)


def run(options: ServeOptions) -> int:
    """Run the MCP server until it is told to stop; returns the process exit code."""
    logging.basicConfig(
        level=logging.WARNING, stream=sys.stderr, format="agent-browser-tools: %(message)s"
    )
    try:
        settings = Settings.load()
        if options.operator:
            settings = settings.with_layer("serve flags", options.operator)
        BrowserTools.check_settings(settings, shared_sessions=options.shared_sessions)
    except SettingsError as exc:
        print(f"agent-browser-tools: {exc}", file=sys.stderr)
        return 2
    return asyncio.run(_serve(options, settings))
