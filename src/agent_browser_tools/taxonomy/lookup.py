"""The one declarative table of upstream `agent-browser` commands, and how argv maps onto it.

Every rule that depends on *which* command runs (session injection, stale-ref guards, the batch
ref latch, page-change/navigation summaries, artifacts, timeouts, launch-scoped flags, redaction)
reads `CommandSpec` / `GlobalFlag` fields instead of re-listing command names. Rows live in
`taxonomy_table.py`, the enums they use in `taxonomy_vocabulary.py` (re-exported here); this
module holds the spec types and a pure lookup whose indexes are built once.

Grammar mirrored from engine 0.39.4 (checked against `--help`, per-command help and the binary):
global flags are recognised anywhere in argv and removed before the command is parsed; there is
no `--` sentinel and no `--flag=value` form except `--restore=<key>`. Value flags take the next
token unconditionally; optional booleans take a following `true`/`false` only. `--restore [key]`
consumes the next token only before the command word and only if it is neither a flag nor a
command word. `--state` is global too, so `wait <sel> --state hidden` loads a state file named
`hidden` instead of reaching `wait`; the table gives `wait` no `--state` flag.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from agent_browser_tools.taxonomy.vocabulary import (
    ArtifactKind,
    FlagValue,
    PageEffect,
    SessionNeed,
    TimeoutFamily,
)

__all__ = [
    "ArtifactKind",
    "ArtifactSlot",
    "CommandMatch",
    "CommandSpec",
    "FlagValue",
    "GlobalFlag",
    "LocalFlag",
    "PageEffect",
    "RefSlots",
    "SessionNeed",
    "TimeoutFamily",
    "all_commands",
    "all_global_flags",
    "command",
    "global_flag",
    "is_command_word",
    "looks_like_path",
    "resolve_command",
    "split_global_flags",
]


@dataclass(frozen=True, slots=True)
class RefSlots:
    """Where a command resolves page-scoped refs (`@eN`, `eN`, `ref=eN`).

    Only these slots are checked for stale refs: literal text (`fill`'s value), key names,
    mouse data and CSS-only selectors (`get count`, `diff snapshot --selector`) are not refs.
    """

    positions: tuple[int, ...] = ()
    """Operand indexes (after flags are removed) that take a selector or ref."""
    flags: tuple[str, ...] = ()
    """Local flags whose value is resolved as a ref (none in 0.39.4 by contract)."""


@dataclass(frozen=True, slots=True)
class ArtifactSlot:
    """One file a command writes, where its path is requested and where the engine reports it."""

    kind: ArtifactKind
    path_operand: int | None = None
    """Operand index of the requested path; negative counts from the end."""
    path_flag: str | None = None
    """Local flag whose value is the requested path."""
    data_fields: tuple[str, ...] = ("path",)
    """Envelope `data` keys that report the saved path."""
    pending_until: tuple[str, ...] | None = None
    """The file only exists after this command runs (a recording is pending until stop)."""
    leading_selector: bool = False
    """Operands are `[selector] [path]`: a lone operand is the path only if it looks like one
    (the engine's own screenshot rule)."""
    only_with_flag: bool = False
    """Written only when `path_flag` is present (`wait --download [path]`)."""


@dataclass(frozen=True, slots=True)
class LocalFlag:
    """A command-local option (global options live in `GlobalFlag`)."""

    name: str
    short: str | None = None
    value: FlagValue = FlagValue.NONE
    sensitive: bool = False
    """Its value is a secret and must be redacted wherever argv is echoed."""


@dataclass(frozen=True, slots=True)
class CommandSpec:
    """Everything the wrapper's rules need to know about one upstream command path."""

    path: tuple[str, ...]
    summary: str
    session: SessionNeed = SessionNeed.BROWSER
    ref_slots: RefSlots = RefSlots()
    guards_refs: bool = False
    """`isRefGuardedCommand`: a mutation-prone command whose refs are preflighted for
    staleness, because a recycled ref would silently act on the wrong element."""
    invalidates_batch_refs: bool = False
    """`isRefInvalidatingBatchCommand`: in a batch, later guarded steps using refs are blocked
    until a `snapshot` step, because this step can swap or re-render the page."""
    latch_exempt_roles: frozenset[str] = frozenset()
    """A step whose refs all have these roles in the latest snapshot does not set the latch
    (same-snapshot form controls: ticking a checkbox does not re-render the form)."""
    latch_min_operands: int = 0
    """The latch applies only with at least this many operands (`record restart <path> <url>`)."""
    page_effect: PageEffect = PageEffect.NONE
    navigation_summary: bool = False
    """Probe url/title after success so the model sees where the action landed."""
    failure_probe: bool = False
    """Also probe the url after a failure: a failed transition may still have moved the page."""
    page_change_summary: bool = False
    """`isPageChangeSummaryCommand`: emit a mutation summary even without navigation data."""
    artifacts: tuple[ArtifactSlot, ...] = ()
    timeout_family: TimeoutFamily = TimeoutFamily.DEFAULT
    timeout_flag: str | None = None
    """Local flag carrying a duration in ms that extends the watchdog."""
    duration_operand: int | None = None
    """Operand that is a duration in ms when it is all digits (`wait 2000`)."""
    paired_stop: tuple[str, ...] | None = None
    """The command that ends what this one starts (cleanup guidance)."""
    read_only: bool = False
    """Changes neither the page nor saved state; safe to repeat."""
    stdin_flag: str | None = None
    """Stdin is read only when this flag is present (`eval --stdin`, `--password-stdin`)."""
    stdin_without_flag: bool = False
    """Stdin is read without a flag (`batch`)."""
    aliases: tuple[tuple[str, ...], ...] = ()
    min_operands: int = 0
    max_operands: int | None = 0
    """None: variadic."""
    flags: tuple[LocalFlag, ...] = ()
    sensitive_operands: tuple[int, ...] = ()
    """Operands that are secrets (cookie/storage values, credentials, header JSON)."""
    synthetic: bool = False
    """The path is a wrapper name: upstream spells it as the group head plus an operand
    (`tab t2` is `tab select`), so it is reachable only through its group's fallback."""
    cli_available: bool = True
    """False when the skills reference documents it but the 0.39.4 CLI rejects it."""

    @property
    def name(self) -> str:
        return " ".join(self.path)

    @property
    def accepts_stdin(self) -> bool:
        return self.stdin_without_flag or self.stdin_flag is not None

    def local_flag(self, token: str) -> LocalFlag | None:
        """The local flag spelled `token` (long or short form), if this command has one."""
        for flag in self.flags:
            if token == flag.name or token == flag.short:
                return flag
        return None


@dataclass(frozen=True, slots=True)
class GlobalFlag:
    """One global option from `agent-browser --help`."""

    name: str
    summary: str
    short: str | None = None
    value: FlagValue = FlagValue.REQUIRED
    launch_scoped: bool = False
    """Applies only when a browser launches; a running managed session ignores it, so the
    wrapper requires a fresh launch (the contract's exact list)."""
    sensitive: bool = False
    session_selecting: bool = False
    """Picks the browser session (`--session`): the caller's choice beats injection."""
    inspection: bool = False
    """Turns the call into plain-text help/version output that must stay sessionless."""


@dataclass(frozen=True, slots=True)
class CommandMatch:
    """A resolved command: its spec, the words as written, operands and local flags."""

    spec: CommandSpec
    tokens: tuple[str, ...]
    operands: tuple[str, ...] = ()
    flags: tuple[tuple[str, str | None], ...] = ()
    unknown_flags: tuple[str, ...] = ()
    missing_values: tuple[str, ...] = ()
    """Local flags given without their required value."""

    @property
    def path(self) -> tuple[str, ...]:
        return self.spec.path

    @property
    def well_formed(self) -> bool:
        """Known flags, values present and operand count in range: syntactic shape rules (such
        as 'this local command stays sessionless') only apply to well-formed calls."""
        count = len(self.operands)
        upper = self.spec.max_operands
        return (
            not self.unknown_flags
            and not self.missing_values
            and count >= self.spec.min_operands
            and (upper is None or count <= upper)
        )

    def has_flag(self, name: str) -> bool:
        return any(flag == name for flag, _ in self.flags)

    def flag_value(self, name: str) -> str | None:
        """Value of the last occurrence of local flag `name` (canonical long name)."""
        return next((value for flag, value in reversed(self.flags) if flag == name), None)

    @property
    def reads_stdin(self) -> bool:
        flag = self.spec.stdin_flag
        return self.spec.stdin_without_flag or (flag is not None and self.has_flag(flag))

    @property
    def sets_batch_latch(self) -> bool:
        """Whether this step sets the batch ref latch, before any role-based exemption."""
        spec = self.spec
        return spec.invalidates_batch_refs and len(self.operands) >= spec.latch_min_operands

    def _lone_operand_is_path(self) -> bool:
        leading = any(slot.leading_selector for slot in self.spec.artifacts)
        return leading and len(self.operands) == 1 and looks_like_path(self.operands[0])

    def ref_values(self) -> tuple[str, ...]:
        """Tokens in ref-resolving slots; callers decide which of them are ref spellings."""
        if self._lone_operand_is_path():
            return ()
        spec, operands = self.spec, self.operands
        values = [
            operands[i]
            for i in spec.ref_slots.positions
            if i < len(operands) and not (i == spec.duration_operand and operands[i].isdigit())
        ]
        for flag, value in self.flags:
            if flag in spec.ref_slots.flags and value is not None:
                values.append(value)
        return tuple(values)

    def artifact_requests(self) -> tuple[tuple[ArtifactSlot, str | None], ...]:
        """Each artifact slot this call can write, with the path the caller asked for (None: the
        engine picks one). Flag-gated slots are left out when their flag is absent."""
        requests: list[tuple[ArtifactSlot, str | None]] = []
        for slot in self.spec.artifacts:
            if slot.only_with_flag and not (slot.path_flag and self.has_flag(slot.path_flag)):
                continue
            path: str | None = None
            if slot.path_flag is not None:
                path = self.flag_value(slot.path_flag)
            elif slot.path_operand is not None:
                if slot.leading_selector and len(self.operands) == 1:
                    path = self.operands[0] if self._lone_operand_is_path() else None
                elif -len(self.operands) <= slot.path_operand < len(self.operands):
                    path = self.operands[slot.path_operand]
            requests.append((slot, path))
        return tuple(requests)

    def requested_duration_ms(self) -> int | None:
        """The explicit duration (ms) the caller asked this command to wait, if any."""
        spec, operands = self.spec, self.operands
        candidates = [self.flag_value(spec.timeout_flag) if spec.timeout_flag else None]
        if spec.duration_operand is not None and spec.duration_operand < len(operands):
            candidates.append(operands[spec.duration_operand])
        durations = [int(text) for text in candidates if text is not None and text.isdigit()]
        return max(durations) if durations else None


_PATH_SUFFIX = re.compile(r"\.(png|jpe?g|webp)$", re.IGNORECASE)
_NEGATIVE_NUMBER = re.compile(r"^-\.?\d")


def looks_like_path(token: str) -> bool:
    """The engine's screenshot rule for telling a lone path from a selector."""
    relative = token.startswith(("./", "../"))
    if not relative and token.startswith((".", "#", "@")):
        return False
    return relative or "/" in token or _PATH_SUFFIX.search(token) is not None


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


@functools.cache
def _index() -> _Index:
    """Build the lookup dicts once. The table module imports the types above, so it is loaded
    here rather than at import time, which keeps either import order working."""
    from agent_browser_tools.taxonomy import commands as taxonomy_table
    from agent_browser_tools.taxonomy import global_flags as taxonomy_flags

    commands = taxonomy_table.COMMANDS
    by_path = {spec.path: spec for spec in commands}
    literal = {
        path: spec for spec in commands if not spec.synthetic for path in (spec.path, *spec.aliases)
    }
    groups = {
        group.head: (
            by_path[group.bare] if group.bare else None,
            by_path[group.operand] if group.operand else None,
        )
        for group in taxonomy_table.GROUP_DEFAULTS
    }
    by_token = {
        token: flag
        for flag in taxonomy_flags.GLOBAL_FLAGS
        for token in (flag.name, flag.short)
        if token is not None
    }
    words = frozenset(path[0] for path in (*literal, *groups))
    depth = max(len(path) for path in (*literal, *groups))
    return _Index(
        commands, by_path, literal, groups, taxonomy_flags.GLOBAL_FLAGS, by_token, words, depth
    )


def all_commands() -> tuple[CommandSpec, ...]:
    """Every command row, in table order."""
    return _index().commands


def all_global_flags() -> tuple[GlobalFlag, ...]:
    """Every global flag row, in `--help` order."""
    return _index().global_flags


def global_flag(name: str) -> GlobalFlag | None:
    """The global flag spelled `name` (long or short form), else None."""
    return _index().global_by_token.get(name)


def is_command_word(token: str) -> bool:
    """Whether `token` starts a known command (including aliases and group heads)."""
    return token in _index().command_words


def command(path: Sequence[str]) -> CommandSpec | None:
    """The spec with exactly this path (or alias path), synthetic ones included."""
    key = tuple(path)
    return _index().by_path.get(key) or _index().literal.get(key)


def split_global_flags(argv: Sequence[str]) -> tuple[list[tuple[str, str | None]], list[str]]:
    """Separate global flags (anywhere in argv, as the engine does) from the command tokens.

    Returns `(globals, rest)`; globals are `(canonical long name, value)` in argv order. A value
    flag at the very end has value None (the engine ignores it; callers may reject it).
    """
    index = _index()
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
    index = _index()
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
