"""The `agent-browser-tools` command line: a thin host over `BrowserTools`.

`call` prints exactly what the model would see (see `call`). No browser logic lives here.

A user never gets a traceback for an environment fault or a bad setting: an unusable state
dir or journal is one line with the fix (exit 1), a bad config or setting one line (exit 2),
Ctrl-C one line (exit 130, after the call in flight has stopped its engine child), and a
closed stdout (`state list | head -3`) ends quietly, because the reader chose to stop reading.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from agent_browser_tools.hosts.cli import call as call_cli
from agent_browser_tools.hosts.cli import state as state_cli
from agent_browser_tools.hosts.cli.version import VersionAction
from agent_browser_tools.hosts.mcp.operator_flags import (
    add_access_flags,
    add_file_page_flag,
    add_image_flag,
    add_operator_flags,
    operator_layer,
)


def _parser() -> argparse.ArgumentParser:
    return _parsers()[0]


def _parsers() -> tuple[argparse.ArgumentParser, dict[str, argparse.ArgumentParser]]:
    """The top-level parser and each subcommand's parser by name."""
    parser = argparse.ArgumentParser(
        prog="agent-browser-tools",
        description="Browser tools for LLM agents over the agent-browser engine.",
    )
    parser.add_argument("--version", action=VersionAction)
    sub = parser.add_subparsers(dest="command", required=True)
    call_cli.add_parser(sub)
    sub.add_parser("doctor", help="check engine, browser, state dir; run a live smoke test")
    sub.add_parser("demo", help="run the bundled demo: open, snapshot, fill, click, screenshot")
    sub.add_parser("tools", help="list the tools and their input schemas")
    state_cli.add_parser(sub)
    _add_serve(sub)
    return parser, dict(sub.choices)


def _add_serve(sub: Any) -> None:
    serve = sub.add_parser("serve", help="serve the tools over MCP (stdio, or --http)")
    serve.add_argument(
        "--http",
        action="store_true",
        help="Streamable HTTP instead of stdio; each conversation works in its own private "
        "dir under ./agent-browser-workspaces/ (in the execution dir), kept when it ends",
    )
    _add_http_flags(serve)
    serve.add_argument(
        "--tools",
        metavar="NAMES",
        help="allowlist of tool names, comma-separated, e.g. agent_browser,agent_browser_tools "
        "(an unknown name refuses the start and lists the valid ones)",
    )
    serve.add_argument(
        "--enable",
        metavar="CAPABILITIES",
        help="advanced tools every conversation starts with, comma-separated capabilities "
        'as agent_browser_tools {"enable": [...]} takes them, e.g. action,qa',
    )
    serve.add_argument("--conversation", help="stdio only: conversation id to resume")
    serve.add_argument(
        "--ephemeral-state",
        action="store_true",
        help="keep conversations in memory only (nothing survives a restart); for a read-only "
        "state dir (or env AGENT_BROWSER_TOOLS_EPHEMERAL_STATE=1, config [state] ephemeral)",
    )
    add_access_flags(serve)
    add_file_page_flag(serve)
    add_image_flag(serve)
    add_operator_flags(serve)


def _add_http_flags(parser: argparse.ArgumentParser) -> None:
    """The flags that only apply with --http: bind, token and connection limits."""
    parser.add_argument("--host", help="HTTP bind address (default 127.0.0.1)")
    parser.add_argument("--port", type=int, help="HTTP port (default 8765; 0 picks a free one)")
    parser.add_argument(
        "--token",
        help="bearer token clients must send (required off loopback, 16+ characters there; "
        "or env AGENT_BROWSER_TOOLS_HTTP_TOKEN)",
    )
    parser.add_argument(
        "--header-timeout",
        type=float,
        metavar="SECONDS",
        help="HTTP: close a connection whose request headers take longer (default 10)",
    )
    parser.add_argument(
        "--body-timeout",
        type=float,
        metavar="SECONDS",
        help="HTTP: cut off a request body that takes longer (default 30)",
    )
    parser.add_argument(
        "--max-connections",
        type=int,
        metavar="N",
        help="HTTP: open client connections at most; idle ones make room (default 128)",
    )
    parser.add_argument(
        "--allow-host",
        action="append",
        default=[],
        metavar="NAME",
        help="extra Host/Origin name clients may use (repeatable)",
    )


def _serve(args: argparse.Namespace) -> int:
    from agent_browser_tools.hosts.mcp.options import ServeRefused, resolve_options
    from agent_browser_tools.hosts.mcp.serve import run

    try:
        options = resolve_options(
            http=args.http,
            host=args.host,
            port=args.port,
            token=args.token,
            tools=args.tools,
            enable=args.enable,
            conversation=args.conversation,
            allowed_hosts=tuple(args.allow_host),
            shared_sessions=tuple(args.shared_session),
            header_timeout=args.header_timeout,
            body_timeout=args.body_timeout,
            max_connections=args.max_connections,
            file_roots=tuple(args.file_root),
            unrestricted_files=args.allow_unrestricted_file_access,
            env=os.environ,
            operator=operator_layer(args),
        )
        options = replace(options, ephemeral_state=args.ephemeral_state)
    except ServeRefused as exc:
        print(f"agent-browser-tools serve: {exc}", file=sys.stderr)
        return 2
    return run(options)


def main(argv: Sequence[str] | None = None) -> int:
    """The console entry point: `_main`, with the module docstring's endings for a closed
    stdout, Ctrl-C, a bad setting and an unusable journal."""
    from agent_browser_tools.settings import SettingsError
    from agent_browser_tools.state.writable import JournalError

    try:
        code = _main(argv)
        sys.stdout.flush()
    except BrokenPipeError:
        # Python would report the pipe again while flushing at exit; point stdout at nothing.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
        return 1
    except KeyboardInterrupt:
        print("agent-browser-tools: interrupted", file=sys.stderr)
        return 130
    except SettingsError as exc:
        print(f"agent-browser-tools: {exc}", file=sys.stderr)
        return 2
    except JournalError as exc:
        print(f"agent-browser-tools: {exc}", file=sys.stderr)
        return 1
    return code


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    """Parse `argv`; an unrecognized argument is reported with its subcommand's usage (plain
    argparse reports it with the top-level usage, which does not show the flags that exist)."""
    parser, commands = _parsers()
    args, extra = parser.parse_known_args(argv)
    if extra:
        commands.get(args.command, parser).error(f"unrecognized arguments: {' '.join(extra)}")
    return args


def _main(argv: Sequence[str] | None) -> int:
    args = parse_args(argv)
    if args.command == "serve":
        return _serve(args)
    if args.command == "doctor":
        from agent_browser_tools.hosts.cli.doctor import run_doctor

        return run_doctor()
    if args.command == "demo":
        from agent_browser_tools.demo import run_demo

        return asyncio.run(run_demo())
    if args.command == "state":
        return state_cli.run_state(args)
    if args.command == "tools":
        return _tools()
    try:
        params = json.loads(args.params)
    except json.JSONDecodeError as exc:
        print(
            f'params must be a JSON object, e.g. \'{{"args": ["get", "url"]}}\' ({exc.msg})',
            file=sys.stderr,
        )
        return 2
    if not isinstance(params, dict):
        print("params must be a JSON object, not " + type(params).__name__, file=sys.stderr)
        return 2
    return asyncio.run(call_cli.run_call(args, params))


def _tools() -> int:
    from agent_browser_tools.api import BrowserTools

    try:
        tools = BrowserTools(close_on_exit=False, persist=False)
    except ValueError as exc:  # a setting the tools refuse (SettingsError is one too)
        print(f"agent-browser-tools tools: {exc}", file=sys.stderr)
        return 2
    print(json.dumps(tools.tool_specs(), indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
