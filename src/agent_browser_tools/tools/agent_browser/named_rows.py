"""One helper batch built from named groups of rows, answered by name (pure).

Why: several features add rows to the same engine batch (the settle wait, the url and title,
the click probe's collection, the element read-back, the focused field, the dialog check).
When each reader sliced the answer by position, adding a row in one feature shifted every
reader after it. A group's answer is now found by its name; a group the batch did not reach
(a fail-fast stop) answers fewer rows, never another group's.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from agent_browser_tools.engine.envelope import BatchRow

Answers = Mapping[str, tuple[BatchRow, ...]]


@dataclass
class NamedRows:
    """Groups of rows in the order they are added; names are unique."""

    groups: list[tuple[str, list[list[str]]]] = field(default_factory=list)

    def add(self, name: str, rows: Sequence[Sequence[str]]) -> None:
        if any(existing == name for existing, _ in self.groups):
            raise ValueError(f"row group {name!r} added twice")
        self.groups.append((name, [list(row) for row in rows]))

    @property
    def rows(self) -> list[list[str]]:
        """Every row, group after group (the positions `answers` expects)."""
        return [row for _, rows in self.groups for row in rows]

    def start(self, name: str) -> int:
        """The position of the group's first row."""
        at = 0
        for existing, rows in self.groups:
            if existing == name:
                return at
            at += len(rows)
        raise KeyError(name)

    def answers(self, answered: Sequence[BatchRow]) -> dict[str, tuple[BatchRow, ...]]:
        """Each group's answered rows (one per row sent, or fewer when the batch stopped)."""
        out: dict[str, tuple[BatchRow, ...]] = {}
        at = 0
        for name, rows in self.groups:
            out[name] = tuple(answered[at : at + len(rows)])
            at += len(rows)
        return out


@dataclass(frozen=True)
class RiderRows:
    """What one feature adds to the pre-dispatch batch (`pre_dispatch`): page scripts (run
    before the identity check's reads), reads (after them), and whether it keeps the check's
    markers on the page past the batch (it then removes them itself)."""

    scripts: list[list[str]]
    reads: list[list[str]]
    holds_marks: bool = False
