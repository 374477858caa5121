"""`agent-browser-tools serve`: the MCP server (stdio by default, Streamable HTTP with --http).

Contract of `run(options)`:

- Loads settings once, with the operator's launch/policy flags as the top config layer, and
  checks them (a `SettingsError` is printed with its fix and exits 2).
- stdio: one conversation for the process (`--conversation ID` resumes one, else a new id).
- HTTP: one conversation per MCP session, each with its own `BrowserTools` and so its own
  managed browser; `--conversation` is refused there.
- `--tools a,b,c` is passed to every `BrowserTools` as its allowlist, `--enable x,y` turns
  those capabilities on in every conversation at start, `--shared-session NAME`
  as an operator-shared browser; over HTTP every `BrowserTools` is told that conversations
  share the server (`shared_server=True`: isolated from each other's stores, browsers and
  files, each conversation working in its own workspace dir).
  Policy and isolation config is checked before serving (exit 2 with the fix).
- The state dir must take a journal write before anything is served (exit 2 with `doctor`'s
  fix line otherwise), unless the operator chose ephemeral state (`--ephemeral-state`, env or
  config, see `state.writable`): then conversations live in memory, scratch files go to a
  temp dir removed at exit, and stderr says so.
- On shutdown every `BrowserTools` the server created is closed (`aclose`), which closes the
  managed browsers it launched (over HTTP also the rest of its own socket dir; never an
  operator-shared session), bounded by the session-close timeout.

The host holds no browser logic: handlers only translate between MCP and `BrowserTools`.
"""

from __future__ import annotations

import asyncio
import logging
import sys
from collections.abc import Awaitable, Callable
from dataclasses import replace
from typing import TYPE_CHECKING

from agent_browser_tools.hosts.mcp.options import ServeOptions
from agent_browser_tools.hosts.mcp.sdk_import import gc_paused
from agent_browser_tools.settings import Settings, SettingsError
from agent_browser_tools.settings_check import check_settings
from agent_browser_tools.state.writable import (
    EPHEMERAL_ENV,
    drop_scratch,
    ephemeral_requested,
    state_dir_problem,
    with_scratch_state_dir,
)

if TYPE_CHECKING:
    from agent_browser_tools.hosts.mcp.stdio_front import FrontedServe

Transport = Callable[[ServeOptions, Settings], Awaitable[int]]


def _transport(http: bool) -> Transport:
    """The transport's serve function. Only the chosen transport's modules are imported (the
    HTTP stack is of no use to stdio), with the collector paused (see `sdk_import`)."""
    with gc_paused():
        if http:
            from agent_browser_tools.hosts.mcp.http import serve_http

            return serve_http
        from agent_browser_tools.hosts.mcp.stdio import serve_stdio

        return serve_stdio


async def _serve(options: ServeOptions, settings: Settings) -> int:
    return await _transport(options.http)(options, settings)


def _load_stdio() -> FrontedServe:
    """`serve_stdio`, imported with the collector paused; the front runs this in a thread."""
    with gc_paused():
        from agent_browser_tools.hosts.mcp.stdio import serve_stdio

        return serve_stdio


def _serve_blocking(options: ServeOptions, settings: Settings) -> int:
    """Serve until told to stop. A new stdio conversation starts behind the stdio front,
    which answers the handshake while the SDK imports (`stdio_front`); a resumed one opens
    its conversation at once anyway (`stdio._resume`), and HTTP has no handshake to hurry.
    With `--enable` the SDK serves from the start too: the front's recorded `tools/list`
    holds only the always-on tools, and its answer must be the one the SDK would give.
    The front's descriptor handling is POSIX's; elsewhere the SDK serves from the start."""
    fronted = not (options.http or options.conversation is not None or options.enable)
    if not fronted or sys.platform == "win32":
        return asyncio.run(_serve(options, settings))
    from agent_browser_tools.hosts.mcp.stdio_front import serve_fronted

    return serve_fronted(options, settings, _load_stdio)


def run(options: ServeOptions) -> int:
    """Run the MCP server until it is told to stop; returns the process exit code."""
    logging.basicConfig(
        level=logging.WARNING, stream=sys.stderr, format="agent-browser-tools: %(message)s"
    )
    try:
        settings = Settings.load()
        if options.operator:
            settings = settings.with_layer("serve flags", options.operator)
        check_settings(settings, shared_sessions=options.shared_sessions)
    except SettingsError as exc:
        print(f"agent-browser-tools: {exc}", file=sys.stderr)
        return 2
    if not (options.ephemeral_state or ephemeral_requested(settings)):
        problem = state_dir_problem(settings.state_dir)
        if problem is not None:
            print(
                f"agent-browser-tools serve: {problem} Or serve with --ephemeral-state "
                f"({EPHEMERAL_ENV}=1) to keep conversations in memory only.",
                file=sys.stderr,
            )
            return 2
        return _serve_blocking(options, settings)
    return _serve_ephemeral(replace(options, ephemeral_state=True), settings)


def _serve_ephemeral(options: ServeOptions, settings: Settings) -> int:
    try:
        scratch = with_scratch_state_dir(settings)
    except OSError as exc:
        print(f"agent-browser-tools serve: no temp dir for scratch files ({exc})", file=sys.stderr)
        return 2
    print(
        "agent-browser-tools: ephemeral state: conversations are kept in memory and lost when "
        f"the server stops (scratch files in {scratch.state_dir}, removed at exit)",
        file=sys.stderr,
    )
    try:
        return _serve_blocking(options, scratch)
    finally:
        drop_scratch(scratch)
