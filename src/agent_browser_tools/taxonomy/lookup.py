"""How argv maps onto the command taxonomy: the pure lookups over the rows, indexed once.

Every rule that depends on *which* command runs (session injection, stale-ref guards, the batch
ref latch, page-change/navigation summaries, artifacts, timeouts, launch-scoped flags, redaction)
reads `CommandSpec` / `GlobalFlag` fields instead of re-listing command names. The types live in
`spec.py`, the enums in `vocabulary.py`, the rows in `commands.py` and `global_flags.py`; this
module imports the rows and builds its indexes when it loads.

Grammar mirrored from engine 0.39.4 (checked against `--help`, per-command help and the binary):
global flags are recognised anywhere in argv and removed before the command is parsed; there is
no `--` sentinel and no `--flag=value` form except `--restore=<key>`. Value flags take the next
token unconditionally; optional booleans take a following `true`/`false` only. `--restore [key]`
consumes the next token only before the command word and only if it is neither a flag nor a
command word. `--state` is global too, so `wait <sel> --state hidden` loads a state file named
`hidden` instead of reaching `wait`; the table gives `wait` no `--state` flag.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from agent_browser_tools.taxonomy.commands import COMMANDS, GROUP_DEFAULTS
from agent_browser_tools.taxonomy.global_flags import GLOBAL_FLAGS
from agent_browser_tools.taxonomy.spec import CommandMatch, CommandSpec, GlobalFlag
from agent_browser_tools.taxonomy.vocabulary import FlagValue

__all__ = [
    "all_commands",
    "all_global_flags",
    "command",
    "global_flag",
    "is_command_word",
    "resolve_command",
    "split_global_flags",
]

_NEGATIVE_NUMBER = re.compile(r"^-\.?\d")


def _is_flag_token(token: str) -> bool:
    return len(token) > 1 and token.startswith("-") and not _NEGATIVE_NUMBER.match(token)


@dataclass(frozen=True, slots=True)
class _Index:
    commands: tuple[CommandSpec, ...]
    by_path: Mapping[tuple[str, ...], CommandSpec]
    literal: Mapping[tuple[str, ...], CommandSpec]
    groups: Mapping[tuple[str, ...], tuple[CommandSpec | None, CommandSpec | None]]
    global_flags: tuple[GlobalFlag, ...]
    global_by_token: Mapping[str, GlobalFlag]
    command_words: frozenset[str]
    max_depth: int


def _build_index() -> _Index:
    """The lookup dicts, built once when this module loads (the rows are plain constants)."""
    by_path = {spec.path: spec for spec in COMMANDS}
    literal = {
        path: spec for spec in COMMANDS if not spec.synthetic for path in (spec.path, *spec.aliases)
    }
    groups = {
        group.head: (
            by_path[group.bare] if group.bare else None,
            by_path[group.operand] if group.operand else None,
        )
        for group in GROUP_DEFAULTS
    }
    by_token = {
        token: flag
        for flag in GLOBAL_FLAGS
        for token in (flag.name, flag.short)
        if token is not None
    }
    words = frozenset(path[0] for path in (*literal, *groups))
    depth = max(len(path) for path in (*literal, *groups))
    return _Index(COMMANDS, by_path, literal, groups, GLOBAL_FLAGS, by_token, words, depth)


_INDEX = _build_index()


def all_commands() -> tuple[CommandSpec, ...]:
    """Every command row, in table order."""
    return _INDEX.commands


def all_global_flags() -> tuple[GlobalFlag, ...]:
    """Every global flag row, in `--help` order."""
    return _INDEX.global_flags


def global_flag(name: str) -> GlobalFlag | None:
    """The global flag spelled `name` (long or short form), else None."""
    return _INDEX.global_by_token.get(name)


def is_command_word(token: str) -> bool:
    """Whether `token` starts a known command (including aliases and group heads)."""
    return token in _INDEX.command_words


def command(path: Sequence[str]) -> CommandSpec | None:
    """The spec with exactly this path (or alias path), synthetic ones included."""
    key = tuple(path)
    return _INDEX.by_path.get(key) or _INDEX.literal.get(key)


def split_global_flags(argv: Sequence[str]) -> tuple[list[tuple[str, str | None]], list[str]]:
    """Separate global flags (anywhere in argv, as the engine does) from the command tokens.

    Returns `(globals, rest)`; globals are `(canonical long name, value)` in argv order. A value
    flag at the very end has value None (the engine ignores it; callers may reject it).
    """
    index = _INDEX
    found: list[tuple[str, str | None]] = []
    rest: list[str] = []
    seen_command = False
    position = 0
    while position < len(argv):
        token = argv[position]
        following = argv[position + 1] if position + 1 < len(argv) else None
        if token.startswith("--restore="):
            found.append(("--restore", token.partition("=")[2]))
            position += 1
            continue
        flag = index.global_by_token.get(token)
        if flag is None:
            rest.append(token)
            seen_command = seen_command or token in index.command_words
            position += 1
            continue
        value: str | None = None
        consumed = False
        if flag.value is FlagValue.REQUIRED:
            value, consumed = following, following is not None
        elif flag.value is FlagValue.OPTIONAL_BOOL:
            consumed = following in ("true", "false")
            value = following if consumed else None
        elif flag.value is FlagValue.OPTIONAL:
            consumed = (
                not seen_command
                and following is not None
                and not following.startswith("-")
                and following not in index.command_words
            )
            value = following if consumed else None
        found.append((flag.name, value))
        position += 2 if consumed else 1
    return found, rest


def resolve_command(tokens: Sequence[str]) -> CommandMatch | None:
    """Match argv (global flags already removed) to the longest command path.

    Group heads without a literal subcommand fall back to their declared defaults (`tab` lists,
    `tab t2` selects, `cookies` gets, `storage local k` gets `k`). Unknown commands and unknown
    subcommands of a group return None.
    """
    index = _INDEX
    for depth in range(min(index.max_depth, len(tokens)), 0, -1):
        key = tuple(tokens[:depth])
        spec = index.literal.get(key)
        if spec is not None:
            return _parse_rest(spec, key, tokens[depth:])
        group = index.groups.get(key)
        if group is not None:
            bare, operand = group
            rest = tokens[depth:]
            chosen = operand if rest and not _is_flag_token(rest[0]) else bare
            return _parse_rest(chosen, key, rest) if chosen is not None else None
    return None


def _parse_rest(spec: CommandSpec, words: tuple[str, ...], rest: Sequence[str]) -> CommandMatch:
    operands: list[str] = []
    flags: list[tuple[str, str | None]] = []
    unknown: list[str] = []
    missing: list[str] = []
    position = 0
    while position < len(rest):
        token = rest[position]
        position += 1
        if not _is_flag_token(token):
            operands.append(token)
            continue
        flag = spec.local_flag(token)
        if flag is None:
            unknown.append(token)
            continue
        value: str | None = None
        following = rest[position] if position < len(rest) else None
        if flag.value is FlagValue.REQUIRED:
            if following is None:
                missing.append(flag.name)
            else:
                value, position = following, position + 1
        elif (
            flag.value is FlagValue.OPTIONAL
            and following is not None
            and not _is_flag_token(following)
        ):
            value, position = following, position + 1
        flags.append((flag.name, value))
    return CommandMatch(spec, words, tuple(operands), tuple(flags), tuple(unknown), tuple(missing))
