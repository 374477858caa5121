"""The `agent-browser-tools` command line: a thin host over `BrowserTools`.

`call` prints exactly what the model would see (text blocks, plus a note per image block);
`--details` prints the details JSON instead. No browser logic lives here.

A user never gets a traceback for an environment fault: an unusable state dir is one line
with the fix (exit 1), and a closed stdout (`state list | head -3`) ends quietly, because the
reader chose to stop reading.
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

from agent_browser_tools.hosts.cli import state as state_cli
from agent_browser_tools.hosts.cli.doctor import run_doctor
from agent_browser_tools.hosts.mcp.operator_flags import (
    add_access_flags,
    add_file_page_flag,
    add_operator_flags,
    operator_layer,
)


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="agent-browser-tools",
        description="Browser tools for LLM agents over the agent-browser engine.",
    )
    sub = parser.add_subparsers(dest="command", required=True)
    call = sub.add_parser("call", help="call one tool and print the model-visible result")
    call.add_argument("tool", help="tool name, e.g. agent_browser")
    call.add_argument("params", help='tool input as JSON, e.g. \'{"args": ["get", "url"]}\'')
    call.add_argument("--details", action="store_true", help="print details JSON instead")
    call.add_argument("--conversation", help="conversation id to resume (default: a new one)")
    sub.add_parser("doctor", help="check engine, browser, state dir; run a live smoke test")
    sub.add_parser("demo", help="run the bundled demo: open, snapshot, fill, click, screenshot")
    sub.add_parser("tools", help="list the tools and their input schemas")
    state_cli.add_parser(sub)
    _add_serve(sub)
    return parser


def _add_serve(sub: Any) -> None:
    serve = sub.add_parser("serve", help="serve the tools over MCP (stdio, or --http)")
    serve.add_argument("--http", action="store_true", help="Streamable HTTP instead of stdio")
    serve.add_argument("--host", help="HTTP bind address (default 127.0.0.1)")
    serve.add_argument("--port", type=int, help="HTTP port (default 8765; 0 picks a free one)")
    serve.add_argument(
        "--token",
        help="bearer token clients must send (required off loopback, 16+ characters there; "
        "or env AGENT_BROWSER_TOOLS_HTTP_TOKEN)",
    )
    serve.add_argument(
        "--header-timeout",
        type=float,
        metavar="SECONDS",
        help="HTTP: close a connection whose request headers take longer (default 10)",
    )
    serve.add_argument(
        "--body-timeout",
        type=float,
        metavar="SECONDS",
        help="HTTP: cut off a request body that takes longer (default 30)",
    )
    serve.add_argument(
        "--max-connections",
        type=int,
        metavar="N",
        help="HTTP: open client connections at most; idle ones make room (default 128)",
    )
    serve.add_argument(
        "--allow-host",
        action="append",
        default=[],
        metavar="NAME",
        help="extra Host/Origin name clients may use (repeatable)",
    )
    serve.add_argument(
        "--tools", help="allowlist of tool names, e.g. agent_browser,agent_browser_tools"
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
    add_operator_flags(serve)


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


def _render(result: Any) -> str:
    from agent_browser_tools.results.tool_result import ImageBlock, TextBlock

    parts: list[str] = []
    for block in result.content:
        if isinstance(block, TextBlock):
            parts.append(block.text)
        elif isinstance(block, ImageBlock):
            size = len(block.data) * 3 // 4
            parts.append(f"[image {block.mime_type}, {size} bytes, from {block.path}]")
    return "\n".join(parts)


async def _call(tool: str, params: dict[str, Any], details: bool, conversation: str | None) -> int:
    from agent_browser_tools.api import BrowserTools
    from agent_browser_tools.settings import Settings
    from agent_browser_tools.state.writable import state_dir_problem

    settings = Settings.load()
    problem = state_dir_problem(settings.state_dir)
    if problem is not None:
        print(f"agent-browser-tools call: {problem}", file=sys.stderr)
        return 1
    async with BrowserTools(
        conversation_id=conversation or "cli", settings=settings, close_on_exit=False
    ) as tools:
        result = await tools.call(tool, params)
    print(result.details_json() if details else _render(result))
    return 1 if result.is_error else 0


def main(argv: Sequence[str] | None = None) -> int:
    """The console entry point: `_main`, with a reader that closed stdout ending quietly."""
    try:
        code = _main(argv)
        sys.stdout.flush()
    except BrokenPipeError:
        # Python would report the pipe again while flushing at exit; point stdout at nothing.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
        return 1
    return code


def _main(argv: Sequence[str] | None) -> int:
    args = _parser().parse_args(argv)
    if args.command == "serve":
        return _serve(args)
    if args.command == "doctor":
        return run_doctor()
    if args.command == "demo":
        from agent_browser_tools.demo import run_demo

        return asyncio.run(run_demo())
    if args.command == "state":
        return state_cli.run_state(args)
    if args.command == "tools":
        from agent_browser_tools.api import BrowserTools

        print(json.dumps(BrowserTools(close_on_exit=False, persist=False).tool_specs(), indent=2))
        return 0
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
    return asyncio.run(_call(args.tool, params, args.details, args.conversation))


if __name__ == "__main__":
    sys.exit(main())
