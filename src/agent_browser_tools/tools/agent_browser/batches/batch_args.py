"""Where a batch's argument rows sit in its argv, so part of it can run or be retried (pure).

Why: a batch whose rows are argument strings (`batch "open …" "wait …"`) is split into
segments at its slow steps like a stdin batch, so a watchdog stop can say which steps
finished; each segment, and a retry of the rest, must send the caller's row strings verbatim
(re-joining the split words would lose the caller's quoting). The engine splits a row string
the way `taxonomy.batch_row_words` does (checked against engine 0.39.4), so the rows the
rules judged are the rows that run.
"""

from __future__ import annotations

from collections.abc import Sequence

from agent_browser_tools.taxonomy import resolve_command, split_global_flags


def row_positions(args: Sequence[str], count: int) -> tuple[int, ...] | None:
    """Indexes of the row strings in `args` (a `batch` argv), or None when they cannot be
    told apart from the command's own words (then the batch runs whole)."""
    _, rest = split_global_flags(list(args))
    match = resolve_command(rest)
    if match is None or not rest or len(match.operands) != count:
        return None
    start = len(args) - len(rest) + len(match.spec.path)
    positions: list[int] = []
    for index in range(start, len(args)):
        if len(positions) < count and args[index] == match.operands[len(positions)]:
            positions.append(index)
        elif match.spec.local_flag(args[index]) is None:
            return None  # a word that is neither a row nor a flag: do not guess
    return tuple(positions) if len(positions) == count else None


def keep_rows(args: Sequence[str], positions: Sequence[int], start: int, stop: int) -> list[str]:
    """`args` with only the rows `start <= row < stop` kept (everything else unchanged)."""
    dropped = {pos for row, pos in enumerate(positions) if not start <= row < stop}
    return [token for index, token in enumerate(args) if index not in dropped]
