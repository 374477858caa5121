"""Collapse non-interactive table structure out of an oversized `snapshot -i` tree.

Why: engine 0.39 gives every table cell and header a ref, so `snapshot -i` of a documentation
page with one big table spent most of its visible budget on `cell` lines nobody clicks, and
the form below the table fell out of the tree. In an interactive view a run of table
structure lines (`cell`, `columnheader`, `rowheader`, `row`, `rowgroup`) whose subtrees hold
nothing else becomes one line saying how many were left out and the table's column names.
A cell that holds a link or another control stays, with that control, as its context. The
refs stay in the ref map (`details.refSnapshot`), the full tree in the spill file, and
`snapshot -i --search <text>` still finds a cell by its text.

`gridcell` is not collapsed: in an ARIA grid the cell itself is the widget. Pure: text in,
text out.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from agent_browser_tools.results.snapshot.tree import SnapshotLine, parse_snapshot

STRUCTURE_ROLES = frozenset({"cell", "columnheader", "rowheader", "row", "rowgroup"})
#: Runs shorter than this stay as they are: one summary line would not save anything.
MIN_RUN = 3
MAX_COLUMN_NAMES = 6


@dataclass(frozen=True)
class Collapsed:
    """The reduced tree and how many structure lines it left out."""

    text: str
    collapsed_lines: int
    collapsed_refs: int


def _structure_only(lines: Sequence[SnapshotLine]) -> list[bool]:
    """Whether each line is table structure with nothing but table structure below it."""
    only = [line.role in STRUCTURE_ROLES for line in lines]
    for line in reversed(lines):  # children come after parents: fold upwards
        if line.parent is not None and not only[line.index]:
            only[line.parent] = False
    return only


def _summary(run: Sequence[SnapshotLine], *, first: bool) -> str:
    """One line for a collapsed run; only the first says why and how to find a cell."""
    cells = sum(1 for line in run if line.role != "columnheader")
    heads = [line.name for line in run if line.role == "columnheader" and line.name]
    refs = sum(1 for line in run if line.ref)
    what = f"{cells} table cells" if cells else ""
    if heads:
        names = ", ".join(heads[:MAX_COLUMN_NAMES]) + (
            ", …" if len(heads) > MAX_COLUMN_NAMES else ""
        )
        what = f"{what} under columns {names}" if what else f"column headers {names}"
    indent = "  " * run[0].depth
    if not first:
        return f"{indent}- … {what} not shown ({refs} refs)"
    return (
        f"{indent}- … {what} not shown: not interactive ({refs} refs; "
        "snapshot -i --search <text> finds one)"
    )


def collapse_structure(text: str) -> Collapsed:
    """`text` with each run of MIN_RUN or more structure-only lines replaced by one line."""
    lines = parse_snapshot(text)
    only = _structure_only(lines)
    out: list[str] = []
    run: list[SnapshotLine] = []
    dropped = dropped_refs = 0

    def flush() -> None:
        nonlocal dropped, dropped_refs
        if len(run) >= MIN_RUN:
            out.append(_summary(run, first=not dropped))
            dropped += len(run)
            dropped_refs += sum(1 for line in run if line.ref)
        else:
            out.extend(line.text for line in run)
        run.clear()

    for line in lines:
        if only[line.index]:
            run.append(line)
            continue
        flush()
        out.append(line.text)
    flush()
    return Collapsed("\n".join(out), dropped, dropped_refs)
