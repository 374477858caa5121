"""Where one argv row names local files or URLs, read the way the engine reads the row (pure).

Which slots exist is a column of the taxonomy: `GlobalFlag.path_use`, `CommandSpec.files` and
`CommandSpec.artifacts`. Where they sit follows engine 0.39.4's own parsers, which are
positional: after the command words, every token that is not one of the command's own flags
(with its value) is a positional argument, whatever it looks like. `upload <sel> <files...>`
uploads all of them (`-x` and `--session` included) and `download <sel> <path>` writes the
second, so slots are taken from those positions, not from the wrapper's operand list (which
sets unknown flag-like tokens aside). `screenshot` takes its path from the second positional
when there are two or more; every later one is judged too, and every position of a command
that navigates is judged as a URL.

At the top level the engine first removes global flags anywhere in argv. Inside a batch row it
does not (`pdf --session x.pdf` writes a file named `--session`), so a row's command is read
from the row as written; the row's global path flags are judged as well (they do nothing
there, and judging them costs nothing). Rows given as argument strings are split as the engine
splits them (`taxonomy.batch_row_words`), not as `shlex` does.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from agent_browser_tools import taxonomy
from agent_browser_tools.taxonomy import (
    CommandMatch,
    CommandSpec,
    FlagValue,
    PathUse,
    looks_like_path,
)

_NEGATIVE_NUMBER = re.compile(r"^-\.?\d")


@dataclass(frozen=True)
class PathSlot:
    """One place a call names a local file or a URL: what it is, its value, how it is used."""

    label: str
    value: str
    use: PathUse | None
    """None: a URL (a local file only when it is a `file:` URL)."""
    example: str
    """The argv words to show in a suggestion (`screenshot`, `--download-path`)."""
    prefix: str = ""
    """Written before the path in the token (`@` in `--params @file`)."""
    must_exist: bool = False
    """A file the engine would pretend to read when it is missing (`FileSlots.must_exist`)."""
    derived: bool = False
    """A spelling the engine may use instead of the named path (`<path>.enc`): judged like
    it, but no argv token holds it, so it is never rewritten."""

    @property
    def path(self) -> str:
        return self.value[len(self.prefix) :]


def row_slots(tokens: Sequence[str], *, batch_row: bool = False) -> list[PathSlot]:
    """Every path and URL slot of one argv (global flags first, then the command's)."""
    globals_, rest = taxonomy.split_global_flags(tokens)
    slots: list[PathSlot] = []
    for name, value in globals_:
        flag = taxonomy.global_flag(name)
        if flag is not None and flag.path_use is not None and value is not None:
            slots.append(PathSlot(flag.name, value, flag.path_use, flag.name))
    command = list(tokens) if batch_row else rest
    match = taxonomy.resolve_command(command) if command else None
    if match is not None:
        slots += _command_slots(match, positional(match.spec, command[len(match.tokens) :]))
    return slots


def positional(spec: CommandSpec, tail: Sequence[str]) -> list[str]:
    """The tokens after the command words that the engine takes by position: all but the
    command's own flags and their values."""
    out: list[str] = []
    index = 0
    while index < len(tail):
        token = tail[index]
        index += 1
        flag = spec.local_flag(token)
        if flag is None:
            out.append(token)
            continue
        following = tail[index] if index < len(tail) else None
        if following is None:
            continue
        if (
            flag.value is FlagValue.REQUIRED
            or (flag.value is FlagValue.OPTIONAL_BOOL and following in ("true", "false"))
            or (flag.value is FlagValue.OPTIONAL and not _flag_like(following))
        ):
            index += 1
    return out


def _flag_like(token: str) -> bool:
    """The taxonomy's rule for a flag token (an optional value is not taken from one)."""
    return len(token) > 1 and token.startswith("-") and not _NEGATIVE_NUMBER.match(token)


def _command_slots(match: CommandMatch, args: list[str]) -> list[PathSlot]:
    spec, name, files = match.spec, match.spec.name, match.spec.files

    def values(flag: str) -> list[str]:
        return [value for f, value in match.flags if f == flag and value is not None]

    def at(indexes: Sequence[int]) -> list[str]:
        return [args[i] for i in indexes if -len(args) <= i < len(args)]

    # Every position of a command that navigates is read as a URL: only `file:` spellings
    # count, so a selector or a path there costs nothing, and no engine parse can slip one by.
    urls = args if files.urls else []
    slots = [PathSlot(f"`{name}` URL", v, None, name) for v in urls]
    for flag in files.url_flags:
        slots += [PathSlot(f"`{name} {flag}` URL", v, None, f"{name} {flag}") for v in values(flag)]
    reads = at(files.reads) + (args[files.reads_from :] if files.reads_from is not None else [])
    slots += [
        PathSlot(f"`{name}` file", v, PathUse.READ_FILE, name, must_exist=files.must_exist)
        for v in reads
    ]
    for flag in files.at_file_flags:
        example = f"{name} {flag}"
        slots += [
            PathSlot(f"`{example}` file", v, PathUse.READ_FILE, example, "@")
            for v in values(flag)
            if v.startswith("@")
        ]
    for flag in files.read_flags:
        example = f"{name} {flag}"
        slots += [
            PathSlot(f"`{example}` file", v, PathUse.READ_FILE, example) for v in values(flag)
        ]
    for slot in spec.artifacts:
        example = f"{name} {slot.path_flag}" if slot.path_flag else name
        label = f"`{name}` {slot.kind.value} path"
        if slot.path_flag is not None:
            written = values(slot.path_flag)
        elif slot.path_operand is None:
            written = []
        elif slot.leading_selector:
            written = args[1:] if len(args) >= 2 else [v for v in args if looks_like_path(v)]
        else:
            written = at((slot.path_operand,))
        slots += [PathSlot(label, v, PathUse.WRITE_FILE, example) for v in written]
        slots += [
            PathSlot(label, v + suffix, PathUse.WRITE_FILE, example, derived=True)
            for v in written
            for suffix in slot.also_written
        ]
    return slots
