"""Per-command size limits on what the model sends (pure).

Typed text, `stdin` and batch rows each have a limit (`size_limits`, where each says why). Past
one, the call is refused before anything runs with the limit named and a way to do the same
work within it: a 1 MiB `fill` used to fail at the spawn (Linux refuses a command-line argument
over 128 KiB) as if the engine were missing, and its echo alone was too big for the client.
"""

from __future__ import annotations

from collections.abc import Sequence

from agent_browser_tools import taxonomy
from agent_browser_tools.size_limits import (
    ARGUMENT_LIMIT_BYTES,
    BATCH_ROWS_LIMIT,
    STDIN_LIMIT_BYTES,
    TYPED_TEXT_LIMIT_BYTES,
)
from agent_browser_tools.taxonomy import CommandMatch


def _kib(size: int) -> str:
    return f"{size // 1024:,} KiB"


def stdin_problem(stdin: str | None) -> str | None:
    """Why `stdin` is too large, or None. Measured before it is parsed."""
    if stdin is None or len(stdin) <= STDIN_LIMIT_BYTES // 4:
        return None  # at most 4 bytes a character: certainly within the limit
    size = len(stdin.encode("utf-8", errors="surrogatepass"))
    if size <= STDIN_LIMIT_BYTES:
        return None
    return (
        f"stdin is {size:,} bytes; the limit is {STDIN_LIMIT_BYTES:,} bytes "
        f"({_kib(STDIN_LIMIT_BYTES)}). Split a batch into several calls, or load a large "
        "script from the page (a `<script src>` the page serves) instead of sending it."
    )


def argument_problem(args: Sequence[str]) -> str | None:
    """Why one argument is too long for the engine's command line, or None."""
    for position, token in enumerate(args, start=1):
        if len(token) <= ARGUMENT_LIMIT_BYTES // 4:
            continue  # at most 4 bytes a character: certainly within the limit
        size = len(token.encode("utf-8", errors="surrogatepass"))
        if size > ARGUMENT_LIMIT_BYTES:
            return (
                f"argument {position} is {size:,} bytes; the engine takes each argument on its "
                f"command line, where one may hold at most {ARGUMENT_LIMIT_BYTES:,} bytes. Send "
                'a long script in the stdin field with ["eval", "--stdin"], and long rows as '
                'batch stdin (["batch"] with a JSON array of rows in stdin).'
            )
    return None


def batch_rows_problem(count: int) -> str | None:
    """Why a batch of `count` rows is too long, or None."""
    if count <= BATCH_ROWS_LIMIT:
        return None
    return (
        f"batch has {count:,} rows; the limit is {BATCH_ROWS_LIMIT:,} rows per call. Split "
        f"the rows into batches of at most {BATCH_ROWS_LIMIT:,} and send them one after another."
    )


def typed_text(match: CommandMatch | None) -> str | None:
    """The text the command types into a field (`fill`, `type`, `keyboard type`, ...)."""
    rule = match.spec.field_value if match is not None else None
    if match is None or rule is None or rule.text is None or rule.text >= len(match.operands):
        return None
    if rule.action is not None:
        at, words = rule.action
        if at >= len(match.operands) or match.operands[at] not in words:
            return None
    return match.operands[rule.text]


def typed_text_problem(match: CommandMatch | None, where: str = "") -> str | None:
    """Why the text this command types is too long, or None."""
    text = typed_text(match)
    if text is None or len(text) <= TYPED_TEXT_LIMIT_BYTES // 4:
        return None
    size = len(text.encode("utf-8", errors="surrogatepass"))
    if size <= TYPED_TEXT_LIMIT_BYTES:
        return None
    assert match is not None
    return (
        f"{where}{match.spec.name} text is {size:,} bytes; the limit is "
        f"{TYPED_TEXT_LIMIT_BYTES:,} bytes ({_kib(TYPED_TEXT_LIMIT_BYTES)}) of typed text per "
        "command. Enter it in parts: `fill` the first part, then add each further part of at "
        'most that size with ["keyboard", "inserttext", "<part>"] while the field has focus.'
    )


def rows_typed_text_problem(rows: Sequence[Sequence[str]]) -> str | None:
    """The first batch row whose typed text is too long, or None."""
    for index, row in enumerate(rows, start=1):
        if not any(len(token) > TYPED_TEXT_LIMIT_BYTES // 4 for token in row):
            continue  # the common case: no token can be over the limit
        command = taxonomy.split_global_flags(row)[1]
        match = taxonomy.resolve_command(command) if command else None
        problem = typed_text_problem(match, f"batch row {index}: ")
        if problem is not None:
            return problem
    return None
