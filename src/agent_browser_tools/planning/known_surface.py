"""Only what the engine's taxonomy knows goes to the engine: an allowlist, not a filter.

Why: a flag or command the taxonomy does not know has no row saying who may use it, whether
it needs a session or whether it changes the page, so every rule that reads the row would
wave it through. A newer engine's connection flag (`--cdp-headers` on 0.39.4's taxonomy) or a
misspelling would then reach the engine as is. So an unknown global flag, command-local flag
or command is refused before any engine process starts, naming the engine release whose
taxonomy applies (`taxonomy.engine_surface`) and what to do instead. Help and version calls
(`--help`, `--version`) stay verbatim: they only print.
"""

from __future__ import annotations

import difflib
import json
from collections.abc import Sequence

from agent_browser_tools import taxonomy
from agent_browser_tools.planning.argv_rules import ArgvRejected, CheckedArgv
from agent_browser_tools.taxonomy import CommandMatch

COMMAND_LIST = "agent-browser-tools://commands"
"""The resource that lists every command the wrapper accepts."""


def check_known(checked: CheckedArgv, *, local_flags: bool = True) -> None:
    """Raise `ArgvRejected` for the first unknown command or flag of the call or its rows
    (`local_flags=False`: commands and global flags only)."""
    if checked.inspection:
        return
    _check_call("", checked.command_tokens, checked.match, local_flags)
    if checked.batch is None:
        return
    for index, row in enumerate(checked.batch.rows, start=1):
        _globals, tokens = taxonomy.split_global_flags(row)
        match = taxonomy.resolve_command(tokens) if tokens else None
        _check_call(f"batch row {index}: ", tokens, match, local_flags)


def _check_call(
    where: str, tokens: Sequence[str], match: CommandMatch | None, local_flags: bool
) -> None:
    if match is not None:
        if match.unknown_flags and local_flags:
            raise ArgvRejected(_unknown_flag(where, match.unknown_flags[0], match.spec.name))
        return
    if not tokens:
        return  # global flags alone: the engine prints its usage, nothing runs
    first = tokens[0]
    if first.startswith("-"):
        raise ArgvRejected(_unknown_flag(where, first, None))
    raise ArgvRejected(_unknown_command(where, tokens))


def _engine() -> str:
    return f"agent-browser {taxonomy.engine_surface()}"


def _unknown_flag(where: str, token: str, command: str | None) -> str:
    flag = token.partition("=")[0]  # `--password=<value>`: never quote the value
    owner = f"a flag of `{command}`" if command is not None else "a global flag"
    help_args = json.dumps([*(command.split() if command else []), "--help"])
    return (
        f"{where}{flag} is not {owner} in {_engine()}, so nothing ran (the wrapper sends the "
        f"engine only what its taxonomy knows). Check the spelling with {help_args}; a flag "
        "of a newer engine needs that engine, installed by the operator and named with "
        "AGENT_BROWSER_TOOLS_BIN."
    )


def _unknown_command(where: str, tokens: Sequence[str]) -> str:
    return (
        f"{where}`{tokens[0]}` is not a command of {_engine()}, so nothing ran.{_nearest(tokens)}"
        f' Every command: ["--help"], or the {COMMAND_LIST} resource.'
    )


def _nearest(tokens: Sequence[str]) -> str:
    """A subcommand typed without its group (`title` for `get title`) first, else the
    closest spellings of a command word."""
    word = tokens[0]
    paths = [spec.path for spec in taxonomy.all_commands() if not spec.synthetic]
    grouped = [path for path in paths if len(path) == 2 and path[1] == word]
    if grouped:
        fixed = json.dumps([*grouped[0], *tokens[1:]])
        return f" It is `{' '.join(grouped[0])}`: send {fixed}."
    near = difflib.get_close_matches(word, sorted({path[0] for path in paths}), n=3, cutoff=0.6)
    return f" Did you mean {', '.join(f'`{w}`' for w in near)}?" if near else ""
