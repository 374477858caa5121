"""`agent-browser-tools call`: one tool call, printed exactly as the model would see it.

Text blocks are printed as they are, an image block as a note; `--details` prints the details
JSON instead. The exit code is 1 when the result is a failure.

A conversation that cannot be opened is one line on stderr, never a traceback: an unusable
state dir or journal (exit 1, with the fix), a setting the tools refuse (exit 2).

Ephemeral state (`--ephemeral-state`, env `AGENT_BROWSER_TOOLS_EPHEMERAL_STATE=1` or config
`[state] ephemeral = true`) keeps the conversation in memory: nothing is loaded from or saved
to the journal, so the next `call` cannot resume it, and stderr says so in one line (a later
`click @e3` would otherwise meet a ref it has never heard of, with no hint why). Scratch files
(spills, locks) stay in the state dir when it is usable, so a spilled output's path outlives
the call; otherwise they go to a private temp dir that is removed at exit.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from agent_browser_tools.settings import Settings

EPHEMERAL_FLAG = "--ephemeral-state"
DEFAULT_CONVERSATION = "cli"


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    call = sub.add_parser("call", help="call one tool and print the model-visible result")
    call.add_argument("tool", help="tool name, e.g. agent_browser")
    call.add_argument("params", help='tool input as JSON, e.g. \'{"args": ["get", "url"]}\'')
    call.add_argument("--details", action="store_true", help="print details JSON instead")
    call.add_argument(
        "--conversation",
        help=f"conversation id to use; every call without one shares the conversation "
        f"{DEFAULT_CONVERSATION!r}, created on first use",
    )
    call.add_argument(
        EPHEMERAL_FLAG,
        action="store_true",
        help="keep the conversation in memory only: nothing is saved, a later call cannot "
        "resume it (or env AGENT_BROWSER_TOOLS_EPHEMERAL_STATE=1, config [state] ephemeral)",
    )


def render(result: Any) -> str:
    """The model-visible content of `result` as text."""
    from agent_browser_tools.results.tool_result import ImageBlock, TextBlock

    parts: list[str] = []
    for block in result.content:
        if isinstance(block, TextBlock):
            parts.append(block.text)
        elif isinstance(block, ImageBlock):
            size = len(block.data) * 3 // 4
            parts.append(f"[image {block.mime_type}, {size} bytes, from {block.path}]")
    return "\n".join(parts)


def _say(message: str) -> None:
    print(f"agent-browser-tools call: {message}", file=sys.stderr)


async def run_call(args: argparse.Namespace, params: dict[str, Any]) -> int:
    """Run `call` with parsed `args` and the decoded `params`; returns the exit code."""
    from agent_browser_tools.settings import SettingsError
    from agent_browser_tools.state.writable import (
        drop_scratch,
        ephemeral_requested,
        scratch_dir_problem,
        state_dir_problem,
        with_scratch_state_dir,
    )

    try:
        settings = Settings.load()
    except SettingsError as exc:
        _say(str(exc))
        return 2
    conversation = args.conversation or DEFAULT_CONVERSATION
    if not (args.ephemeral_state or ephemeral_requested(settings)):
        problem = state_dir_problem(settings.state_dir)
        if problem is not None:
            _say(f"{problem} Or call with {EPHEMERAL_FLAG} to keep this call's state in memory.")
            return 1
        return await _call_with(settings, args, params, conversation, persist=True)
    try:
        usable = scratch_dir_problem(settings.state_dir) is None
        scratch = None if usable else with_scratch_state_dir(settings)
    except OSError as exc:
        _say(f"no temp dir for scratch files ({exc})")
        return 1
    where = f"; scratch files in {scratch.state_dir}, removed at exit" if scratch else ""
    _say(
        f"ephemeral state: conversation {conversation!r} is kept in memory only (not loaded "
        f"from or saved to the journal), so a later call cannot resume it{where}"
    )
    try:
        return await _call_with(scratch or settings, args, params, conversation, persist=False)
    finally:
        if scratch is not None:
            drop_scratch(scratch)


async def _call_with(
    settings: Settings,
    args: argparse.Namespace,
    params: dict[str, Any],
    conversation: str,
    *,
    persist: bool,
) -> int:
    from agent_browser_tools.api import BrowserTools
    from agent_browser_tools.settings import SettingsError
    from agent_browser_tools.state.writable import JournalError

    try:
        tools = BrowserTools(
            conversation_id=conversation, settings=settings, close_on_exit=False, persist=persist
        )
    except SettingsError as exc:
        _say(str(exc))
        return 2
    except (JournalError, OSError, ValueError) as exc:
        _say(str(exc))
        return 1
    async with tools:
        result = await tools.call(args.tool, params)
    print(result.details_json() if args.details else render(result))
    return 1 if result.is_error else 0
