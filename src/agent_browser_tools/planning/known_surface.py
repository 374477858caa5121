"""Only what the engine's taxonomy knows goes to the engine: an allowlist, not a filter.

Why: a flag or command the taxonomy does not know has no row saying who may use it, whether
it needs a session or whether it changes the page, so every rule that reads the row would
wave it through. A newer engine's connection flag (`--cdp-headers` on 0.39.4's taxonomy) or a
misspelling would then reach the engine as is. So an unknown global flag, command-local flag
or command is refused before any engine process starts, naming the engine release whose
taxonomy applies (`taxonomy.engine_surface`) and what to do instead: an unknown command names
the nearest commands (always some, so the model has one to try) and the command list
resource, a group word without a known subcommand (`get`, `get titel`) lists the group's
subcommands. Help and version calls (`--help`, `--version`) stay verbatim: they only print.
A wrapper-only command (`spill`) is answered before planning when sent alone; anywhere it
would reach the engine (a batch row) it is refused.
"""

from __future__ import annotations

import difflib
import json
from collections.abc import Sequence

from agent_browser_tools import taxonomy
from agent_browser_tools.planning.argv_rules import ArgvRejected, CheckedArgv
from agent_browser_tools.taxonomy import CommandMatch, ModelAccess
from agent_browser_tools.taxonomy.releases import SUPPORTED_ENGINE_VERSIONS

COMMAND_LIST = "agent-browser-tools://commands"
"""The resource that lists every command the wrapper accepts."""


def check_known(
    checked: CheckedArgv, *, local_flags: bool = True, every_release: bool = False
) -> None:
    """Raise `ArgvRejected` for the first unknown command or flag of the call or its rows
    (`local_flags=False`: commands and global flags only; `every_release`: the check runs
    before the engine's release is known, against the newest release's taxonomy, so what it
    refuses no supported release has)."""
    if checked.inspection:
        return
    engine = _every_release() if every_release else f"agent-browser {taxonomy.engine_surface()}"
    _check_call("", checked.command_tokens, checked.match, local_flags, engine)
    if checked.batch is None:
        return
    for index, row in enumerate(checked.batch.rows, start=1):
        _globals, tokens = taxonomy.split_global_flags(row)
        match = taxonomy.resolve_command(tokens) if tokens else None
        _check_call(f"batch row {index}: ", tokens, match, local_flags, engine)


def _check_call(
    where: str,
    tokens: Sequence[str],
    match: CommandMatch | None,
    local_flags: bool,
    engine: str,
) -> None:
    if match is not None:
        if match.spec.wrapper_only:  # answered before planning when alone; never the engine's
            raise ArgvRejected(
                f"{where}`{match.spec.name}` is answered by the wrapper, not the engine, so it "
                f"cannot be a batch row; send it alone: "
                f"{json.dumps({'args': [*match.spec.path, *match.spec.operand_names]})}."
            )
        if match.unknown_flags and local_flags:
            raise ArgvRejected(
                _unknown_flag(where, match.unknown_flags[0], match.spec.name, engine)
            )
        return
    if not tokens:
        return  # global flags alone: the engine prints its usage, nothing runs
    first = tokens[0]
    if first.startswith("-"):
        raise ArgvRejected(_unknown_flag(where, first, None, engine))
    raise ArgvRejected(_unknown_command(where, tokens, engine))


def _every_release() -> str:
    return f"any supported agent-browser release ({', '.join(SUPPORTED_ENGINE_VERSIONS)})"


def _unknown_flag(where: str, token: str, command: str | None, engine: str) -> str:
    flag = token.partition("=")[0]  # `--password=<value>`: never quote the value
    owner = f"a flag of `{command}`" if command is not None else "a global flag"
    help_args = json.dumps([*(command.split() if command else []), "--help"])
    return (
        f"{where}{flag} is not {owner} in {engine}, so nothing ran (the wrapper sends the "
        f"engine only what its taxonomy knows). Check the spelling with {help_args}; a flag "
        "of a newer engine needs that engine, installed by the operator and named with "
        "AGENT_BROWSER_TOOLS_BIN."
    )


def _unknown_command(where: str, tokens: Sequence[str], engine: str) -> str:
    group = _group_of(tokens)
    if group:
        head = " ".join(group)
        given = tokens[len(group)] if len(tokens) > len(group) else None
        what = f"`{head} {given}` is not a command" if given else f"`{head}` needs a subcommand"
        hint = _nearest_sub(group, given)
    else:
        what, hint = f"`{tokens[0]}` is not a command", _nearest(tokens)
    return (
        f"{where}{what} in {engine}, so nothing ran.{hint}"
        f' Every command: ["--help"], or the {COMMAND_LIST} resource.'
    )


def _paths() -> list[tuple[str, ...]]:
    return [spec.path for spec in taxonomy.all_commands() if not spec.synthetic]


def _offered(paths: list[tuple[str, ...]]) -> list[tuple[str, ...]]:
    """The paths a list of suggestions names: not the operator-only ones (`profiles`, `get
    cdp-url`), which the model's next call would only have refused as policy-blocked; all of
    them when every one is operator-only (`dashboard`)."""
    allowed = {
        spec.path for spec in taxonomy.all_commands() if spec.access is not ModelAccess.OPERATOR
    }
    return [path for path in paths if path in allowed] or paths


def _group_of(tokens: Sequence[str]) -> tuple[str, ...]:
    """The longest group head the words start with (`get`, `network har`), else ()."""
    heads = {path[:depth] for path in _paths() for depth in range(1, len(path))}
    for depth in range(len(tokens), 0, -1):
        if tuple(tokens[:depth]) in heads:
            return tuple(tokens[:depth])
    return ()


def _nearest_sub(group: tuple[str, ...], given: str | None) -> str:
    """The group's subcommands the model may run (`_offered`), the closest spellings of
    `given` first (a misspelt operator-only one included)."""
    members = [path for path in _paths() if path[: len(group)] == group]
    subs = sorted({path[len(group)] for path in members})
    near = difflib.get_close_matches(given, subs, n=3, cutoff=0.5) if given else []
    offered = sorted({path[len(group)] for path in _offered(members)})
    ordered = [*near, *(s for s in offered if s not in near)]
    head = " ".join(group)
    listed = ", ".join(f"`{head} {sub}`" for sub in ordered)
    lead = f" Did you mean `{head} {near[0]}`?" if near else ""
    return f"{lead} Its subcommands: {listed} ({json.dumps([*group, '--help'])} explains each)."


def _nearest(tokens: Sequence[str]) -> str:
    """A subcommand typed without its group (`title` for `get title`) first, else the
    closest spellings of a command word or an alias (`navigat`: `open`, whose alias is
    `navigate`); with none close, the nearest few the model may run anyway (`_offered`), so
    a model always gets a command to try next."""
    word = tokens[0]
    paths = _paths()
    grouped = [path for path in paths if len(path) == 2 and path[1] == word]
    if grouped:
        fixed = json.dumps([*grouped[0], *tokens[1:]])
        return f" It is `{' '.join(grouped[0])}`: send {fixed}."
    spellings = {path[0]: path[0] for path in paths}
    for spec in taxonomy.all_commands():
        if len(spec.path) == 1:
            spellings.update({alias[0]: spec.path[0] for alias in spec.aliases if len(alias) == 1})
    close = difflib.get_close_matches(word, sorted(spellings), n=3, cutoff=0.6)
    near = list(dict.fromkeys(spellings[w] for w in close))
    if near:
        return f" Did you mean {', '.join(f'`{w}`' for w in near)}?"
    offered = sorted({path[0] for path in _offered(paths)})
    nearest = difflib.get_close_matches(word, offered, n=3, cutoff=0.0)
    return f" Nearest commands: {', '.join(f'`{w}`' for w in nearest)}."
