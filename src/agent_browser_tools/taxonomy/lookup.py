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
command word. `--state` is global too, so on 0.39.4 `wait <sel> --state hidden` loads a state
file named `hidden` instead of reaching `wait`; from 0.41 a local flag that `shadows_global`
(`wait --state`) is the command's once its command word was seen.

One taxonomy serves every supported engine: a row's `since` names the first release that has
it, and the index in use is the one for the engine this process runs (`use_engine`, set when
the engine's version is read; the target release until then). What an older engine lacks is
then unknown to the lookups, and the planner refuses it before the engine runs.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, replace

from agent_browser_tools.taxonomy.commands import COMMANDS, GROUP_DEFAULTS
from agent_browser_tools.taxonomy.global_flags import GLOBAL_FLAGS
from agent_browser_tools.taxonomy.releases import TARGET_ENGINE_VERSION, parse_version, surface_of
from agent_browser_tools.taxonomy.spec import CommandMatch, CommandSpec, GlobalFlag
from agent_browser_tools.taxonomy.vocabulary import FlagValue

__all__ = [
    "all_commands",
    "all_global_flags",
    "command",
    "engine_surface",
    "global_flag",
    "is_command_word",
    "resolve_command",
    "split_global_flags",
    "surface",
    "use_engine",
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
    shadowed: Mapping[str, frozenset[str]]
    """Command word -> the global flag names that are the command's after it."""
    version: str


def _has(since: str | None, version: str) -> bool:
    return since is None or (parse_version(since) or (0, 0, 0)) <= (parse_version(version) or ())


def _rows_of(version: str) -> tuple[CommandSpec, ...]:
    """The command rows a release has, each with only the local flags it has."""
    return tuple(
        replace(spec, flags=tuple(f for f in spec.flags if _has(f.since, version)))
        for spec in COMMANDS
        if _has(spec.since, version)
    )


def _build_index(version: str) -> _Index:
    """The lookup dicts of one release (the rows are plain constants)."""
    commands = _rows_of(version)
    flags = tuple(flag for flag in GLOBAL_FLAGS if _has(flag.since, version))
    by_path = {spec.path: spec for spec in commands}
    literal = {
        path: spec for spec in commands if not spec.synthetic for path in (spec.path, *spec.aliases)
    }
    groups = {
        group.head: (
            by_path[group.bare] if group.bare else None,
            by_path[group.operand] if group.operand else None,
        )
        for group in GROUP_DEFAULTS
    }
    by_token = {
        token: flag for flag in flags for token in (flag.name, flag.short) if token is not None
    }
    words = frozenset(path[0] for path in (*literal, *groups))
    depth = max(len(path) for path in (*literal, *groups))
    shadowed: dict[str, set[str]] = {}
    for spec in commands:
        for local in spec.flags:
            if local.shadows_global:
                shadowed.setdefault(spec.path[0], set()).add(local.name)
    frozen = {word: frozenset(names) for word, names in shadowed.items()}
    return _Index(
        commands, by_path, literal, groups, flags, by_token, words, depth, frozen, version
    )


_INDEXES: dict[str, _Index] = {}
_INDEX = _INDEXES.setdefault(TARGET_ENGINE_VERSION, _build_index(TARGET_ENGINE_VERSION))


def use_engine(version: tuple[int, int, int] | None) -> str:
    """Use the taxonomy of the supported release whose surface `version` has (`surface_of`);
    returns that release. One engine per process: the last engine read decides."""
    global _INDEX
    surface = surface_of(version)
    if surface not in _INDEXES:
        _INDEXES[surface] = _build_index(surface)
    _INDEX = _INDEXES[surface]
    return surface


@contextmanager
def surface(version: str) -> Iterator[None]:
    """Use the taxonomy of supported release `version` for the block (a check against a
    release other than the running engine's: the baselines, the first call's pre-check)."""
    before = parse_version(engine_surface())
    use_engine(parse_version(version))
    try:
        yield
    finally:
        use_engine(before)


def engine_surface() -> str:
    """The release whose taxonomy the lookups use now."""
    return _INDEX.version


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
    command_word: str | None = None
    position = 0
    while position < len(argv):
        token = argv[position]
        following = argv[position + 1] if position + 1 < len(argv) else None
        if token.startswith("--restore="):
            found.append(("--restore", token.partition("=")[2]))
            position += 1
            continue
        flag = index.global_by_token.get(token)
        if flag is not None and token in index.shadowed.get(command_word or "", ()):
            flag = None  # the command's own option (`wait ... --state visible`)
        if flag is None:
            rest.append(token)
            if command_word is None and token in index.command_words:
                command_word = token
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
