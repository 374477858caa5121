"""The `Omitted high-value controls` list of a compact snapshot, and its "… N more" line.

Why: controls the compact tree could not show must stay reachable without the spill file. The
list is bounded, so its order decides what an agent can still act on: fields, tabs, choices
and buttons come first (each one listed, unless it repeats on every row), then links, row
titles before other links and navigation/filter groups last (see `rows.link_kinds`). Row
titles have their own allowance (on a 100-row changelist they are what the agent came for)
and may spill into the shared one; while any row title is left out, no navigation or filter
link is listed.
Whatever does not fit is counted on one line that says how to reach it.

Pure: no I/O.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass

from agent_browser_tools import playbook
from agent_browser_tools.results.snapshot.controls import (
    Control,
    ControlGroup,
    render_group_lines,
)
from agent_browser_tools.results.snapshot.rows import CONTENT, GROUP, ROW

#: Lines for everything but row titles: controls first, then links take what is left.
MAX_OMITTED_LINES = 40
#: Non-link controls may use more than that (links then get none): each one is a field,
#: choice or button the page may need.
MAX_CONTROL_LINES = 60
#: Row-title links have their own allowance on top (Django lists 100 rows a page).
MAX_ROW_LINK_LINES = 120
OMITTED_TITLE = (
    "Omitted high-value controls (not shown above; use these refs directly, or "
    "snapshot -i --search <text> / --filter role=<role>):"
)
_CONTROL = -1


@dataclass(frozen=True)
class Omitted:
    """The rendered list, how many hidden controls it could not name, and how many of those
    are row-title links."""

    lines: list[str]
    unlisted: int
    unlisted_rows: int


@dataclass
class _Room:
    controls: int = 0
    rows: int = 0
    links: int = 0
    chars: int = 0

    def fits(self, kind: int, count: int, cost: int, max_chars: int) -> bool:
        if self.chars + cost > max_chars:
            return False
        if kind == _CONTROL:
            return self.controls + count <= MAX_CONTROL_LINES
        if kind == ROW and self.rows + count <= MAX_ROW_LINK_LINES:
            return True
        return self.controls + self.links + count <= MAX_OMITTED_LINES

    def take(self, kind: int, count: int, cost: int) -> None:
        """Row titles past their own allowance use the shared one, ahead of other links."""
        self.chars += cost
        if kind == _CONTROL:
            self.controls += count
        elif kind == ROW and self.rows + count <= MAX_ROW_LINK_LINES:
            self.rows += count
        else:
            self.links += count


def omitted_list(
    groups: Sequence[ControlGroup],
    visible: Collection[str],
    rank_of: Sequence[int],
    kinds: Mapping[int, int],
    max_chars: int,
) -> Omitted:
    """The bounded list of hidden controls, in priority order, at most `max_chars` long."""
    pending: list[tuple[tuple[int, int, int, int], int, ControlGroup, list[Control]]] = []
    for group in groups:
        hidden = [c for c in group.members if c.ref not in visible]
        if not hidden:
            continue
        kind = (
            min(kinds.get(c.index, CONTENT) for c in hidden) if group.role == "link" else _CONTROL
        )
        rank = min(rank_of[c.index] for c in hidden)
        pending.append(((hidden[0].tier, kind, rank, hidden[0].index), kind, group, hidden))
    pending.sort(key=lambda item: item[0])
    out: list[str] = []
    room = _Room(chars=len(OMITTED_TITLE) + 1)
    unlisted: dict[str, int] = {}
    unlisted_rows = 0
    for _key, kind, group, hidden in pending:
        rendered = render_group_lines(group, hidden, len(group.members))
        cost = sum(len(line) + 1 for line in rendered)
        # Navigation and filter links never take a line while a row title has none.
        allowed = kind != GROUP or not unlisted_rows
        if allowed and room.fits(kind, len(rendered), cost, max_chars):
            room.take(kind, len(rendered), cost)
            out.extend(rendered)
            continue
        unlisted[group.role] = unlisted.get(group.role, 0) + len(hidden)
        unlisted_rows += len(hidden) if kind == ROW else 0
    count = sum(unlisted.values())
    if count:
        out.append(more_line(unlisted))
    return Omitted(([OMITTED_TITLE, *out] if out else []), count, unlisted_rows)


def more_line(unlisted: Mapping[str, int]) -> str:
    """`… N more not listed (role n, ...); <how to reach them>` (see `playbook`)."""
    count = sum(unlisted.values())
    roles = ", ".join(f"{role} {n}" for role, n in sorted(unlisted.items()))
    role = next(iter(unlisted)) if len(unlisted) == 1 else "<role>"
    return f"… {count} more not listed ({roles}); " + playbook.UNLISTED_REFS_HINT.format(role=role)
