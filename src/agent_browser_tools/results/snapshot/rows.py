"""Which links are a row's title, and which belong to repeated navigation or filter groups.

Why: on a changelist or a results table the link an agent most likely wants is a row's title,
while a sidebar of "Any date" / "Today" / "Past 7 days" filters or an app menu repeats on
every page and is rarely the target. Measured on a Django admin changelist of 48 rows, a
compact view that treated all links alike kept the 29 filter links and dropped the titles of
the later rows. So a compact snapshot ranks links in three kinds: ROW (a row's primary link),
CONTENT (any other link outside page chrome) and GROUP (links inside navigation, sidebars,
header or footer landmarks, or in a run of short-named sibling links).

A row's primary link is the first link of a `row`/`listitem` (full snapshots keep those
lines). `snapshot -i` flattens rows into a run of sibling cells, so there the row comes from
the table itself: in a table with row headers (`<th>` in body rows, as Django renders its
title column) a row header's link is the title; otherwise the run of cells is cut into rows
of as many cells as there are column headers, and each row's first link is its title.

Pure: reads parsed snapshot lines only.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from agent_browser_tools.results.snapshot.sections import CHROME, JUNK, classify
from agent_browser_tools.results.snapshot.tree import Names, SnapshotLine, ancestors

ROW, CONTENT, GROUP = 0, 1, 2
_CELL_ROLES = frozenset({"cell", "gridcell", "rowheader"})
_ROW_ROLES = frozenset({"row", "listitem"})
#: A run of at least this many adjacent sibling links with short names is a link group
#: (date filters, pagers, tag clouds) even outside a navigation landmark.
GROUP_RUN = 5
SHORT_NAME_CHARS = 24
SHORT_NAME_WORDS = 3


@dataclass
class _Run:
    """Adjacent sibling cells of one flattened table, after its column headers."""

    headers: int = 0
    cells: dict[int, int] = field(default_factory=dict)  # cell line index -> position
    has_rowheader: bool = False


def _children(lines: Sequence[SnapshotLine]) -> list[list[int]]:
    """Sibling lists: children of each line, and the roots last."""
    children: list[list[int]] = [[] for _ in range(len(lines) + 1)]
    for line in lines:
        children[line.parent if line.parent is not None else len(lines)].append(line.index)
    return children


def _cell_runs(lines: Sequence[SnapshotLine], siblings: Sequence[list[int]]) -> dict[int, _Run]:
    """The flattened-table run each cell line belongs to."""
    run_of: dict[int, _Run] = {}
    for group in siblings:
        run: _Run | None = None
        for index in group:
            role = lines[index].role
            if role == "columnheader":
                if run is None or run.cells:
                    run = _Run()
                run.headers += 1
            elif role in _CELL_ROLES:
                run = run or _Run()
                run.cells[index] = len(run.cells)
                run.has_rowheader = run.has_rowheader or role == "rowheader"
                run_of[index] = run
            else:
                run = None
    return run_of


def _in_chrome(lines: Sequence[SnapshotLine]) -> list[bool]:
    """Whether each line lies in (or is) a navigation, sidebar, header, footer or junk region."""
    chrome = [False] * len(lines)
    for line in lines:
        inherited = line.parent is not None and chrome[line.parent]
        chrome[line.index] = inherited or classify(line) in (CHROME, JUNK)
    return chrome


def _row_key(
    lines: Sequence[SnapshotLine], index: int, run_of: Mapping[int, _Run]
) -> tuple[Any, ...] | None:
    """Which row a link belongs to, or None when it is not in a row (or not its title cell)."""
    chain = ancestors(lines, index)[::-1]  # nearest first
    for parent in chain:
        if lines[parent].role in _ROW_ROLES:
            return ("row", parent)
    cell = next((p for p in chain if lines[p].role in _CELL_ROLES), None)
    if cell is None:
        return None
    run = run_of.get(cell)
    if run is not None and run.has_rowheader:
        return ("cell", cell) if lines[cell].role == "rowheader" else None
    if run is not None and run.headers:
        return ("chunk", id(run), run.cells[cell] // run.headers)
    return ("cell", cell)


def _short(name: str) -> bool:
    return len(name) <= SHORT_NAME_CHARS and len(name.split()) <= SHORT_NAME_WORDS


def _short_runs(
    lines: Sequence[SnapshotLine], siblings: Sequence[list[int]], names: Names
) -> set[int]:
    """Link lines in runs of GROUP_RUN or more adjacent short-named sibling links."""
    grouped: set[int] = set()
    for group in siblings:
        run: list[int] = []
        for index in [*group, -1]:
            line = lines[index] if index >= 0 else None
            if line is not None and line.ref and _is_short_link(names[index]):
                run.append(index)
                continue
            if len(run) >= GROUP_RUN:
                grouped.update(run)
            run = []
    return grouped


def _is_short_link(role_name: tuple[str, str]) -> bool:
    return role_name[0] == "link" and _short(role_name[1])


def link_kinds(lines: Sequence[SnapshotLine], names: Names) -> dict[int, int]:
    """ROW, CONTENT or GROUP for every link line with a ref, by line index (`names` from
    `tree.ref_names`)."""
    siblings = _children(lines)
    run_of = _cell_runs(lines, siblings)
    chrome = _in_chrome(lines)
    runs = _short_runs(lines, siblings, names)
    kinds: dict[int, int] = {}
    seen_rows: set[tuple[Any, ...]] = set()
    for line in lines:
        if line.ref is None or names[line.index][0] != "link":
            continue
        if chrome[line.index]:
            kinds[line.index] = GROUP
            continue
        key = _row_key(lines, line.index, run_of)
        if key is not None and key not in seen_rows:
            seen_rows.add(key)
            kinds[line.index] = ROW
        else:
            kinds[line.index] = GROUP if line.index in runs else CONTENT
    return kinds
