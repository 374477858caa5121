"""A command's operands as the engine's help writes them, and the usage line built from them.

Why: a call with an operand missing or one too many is refused before dispatch (the engine
would fill a field with nothing, or drop a word), and the refusal shows the command's usage.
The row's operand spelling (`<selector> <text>`, `[url]`, `<value...>`) is the one source of
both the operand counts the rules check and that usage line, so they cannot disagree. A
required operand may name flags that stand in for it (`wait <selector|ms|--url|...>`,
`eval <script|--stdin>`): the row's `min_operands` counts it as optional, and
`missing_operands` asks for it only when none of those flags is given. Pure: no I/O.
"""

from __future__ import annotations

from agent_browser_tools.taxonomy.spec import CommandMatch, CommandSpec
from agent_browser_tools.taxonomy.vocabulary import FlagValue

__all__ = ["extra_operands", "missing_operands", "operand_shape", "usage"]


def _stand_ins(name: str) -> tuple[str, ...]:
    """The flags that may replace operand `name` (`<script|--stdin>`: `--stdin`)."""
    return tuple(part for part in name[1:-1].split("|") if part.startswith("--"))


def operand_shape(spelling: str) -> tuple[int, int | None, tuple[str, ...]]:
    """`(min, max, names)` of an operand spelling: `<name>` is required, `[name]` optional,
    a trailing `...` inside the last one takes any number more (max None); a required one
    that names stand-in flags does not count towards `min`. Raises ValueError for a spelling
    no command line could follow (a required operand after an optional one)."""
    names = tuple(spelling.split())
    required = 0
    optional_seen = variadic = False
    for name in names:
        if name[0] + name[-1] not in ("<>", "[]") or variadic:
            raise ValueError(f"operand spelling {spelling!r}: bad or misplaced {name!r}")
        if name.startswith("<") and not _stand_ins(name):
            if optional_seen:
                raise ValueError(f"operand spelling {spelling!r}: {name} follows an optional")
            required += 1
        else:
            optional_seen = True
        variadic = name[1:-1].endswith("...")
    return required, None if variadic else len(names), names


def missing_operands(match: CommandMatch) -> tuple[str, ...]:
    """The required operands the call leaves out, as usage names them (`<text>`)."""
    given = len(match.operands)
    return tuple(
        name
        for name in match.spec.operand_names[given:]
        if name.startswith("<") and not any(match.has_flag(f) for f in _stand_ins(name))
    )


def extra_operands(match: CommandMatch) -> int:
    """How many operands the call gives beyond what the command takes."""
    upper = match.spec.max_operands
    return 0 if upper is None else max(0, len(match.operands) - upper)


def usage(spec: CommandSpec) -> str:
    """`fill <selector> <text>`, `click <selector> [--new-tab] [--human]`: the words to send.

    A synthetic row is spelled as its group head plus the operands (`tab <tab>`)."""
    words = list(spec.path[:-1] if spec.synthetic else spec.path)
    words.extend(spec.operand_names)
    for flag in spec.flags:
        value = {FlagValue.REQUIRED: " <value>", FlagValue.OPTIONAL: " [value]"}.get(flag.value)
        words.append(f"[{flag.name}{value or ''}]")
    return " ".join(words)
