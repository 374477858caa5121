"""Compact an oversized snapshot into a main-content-first view within a character budget.

Why: a dense page's `snapshot -i` can run to 60,000+ characters, four times what a result may
show. Cutting it at the budget would keep the header navigation and lose the table the agent
came for, and every control below the cut. Instead the tree is split into ranked sections
(see `snapshot_sections`), primary content is emitted first with its ancestor lines as
context, then nearby sections, then chrome, each as a DOM-order prefix with a marker saying
how much was left out. After the tree come three bounded lists: sections not shown at all,
key refs (headings and landmarks) that did not fit, and `Omitted high-value controls`
(`omitted.py`), so an agent can act on editable fields, tabs, choices, named buttons, row
titles and other links without opening the spill file. Repeated controls ("Edit 1" ...
"Edit 500") collapse into one line. The lists are sized before the tree is filled, so what
they name outranks tree lines; when even the list cannot name every row title, navigation and
filter sections lose their first look at the tree too (see `rows.py`).

Pure: no I/O. The caller appends one `Full snapshot: <path>` line naming the spill file; the
compacted text leaves `SPILL_LINE_RESERVE` characters of the budget for it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from agent_browser_tools.results.snapshot.controls import (
    ControlGroup,
    collect_controls,
    group_controls,
    listed_refs,
)
from agent_browser_tools.results.snapshot.omitted import (
    MAX_OMITTED_LINES,
    omitted_list,
)
from agent_browser_tools.results.snapshot.rows import link_kinds
from agent_browser_tools.results.snapshot.sections import (
    RANK_CHROME,
    RANK_PRIMARY,
    Section,
    split_sections,
)
from agent_browser_tools.results.snapshot.structure import collapse_structure
from agent_browser_tools.results.snapshot.tree import (
    Names,
    SnapshotLine,
    ancestors,
    named_lines,
    parse_snapshot,
    ref_label,
)

__all__ = ["MAX_OMITTED_LINES", "SPILL_LINE_RESERVE", "CompactSnapshot", "compact_snapshot"]

VIEWPORT_ORDERING = "dom-signal-prioritized"
#: Characters of the budget left for the caller's `Full snapshot: <path>` line.
SPILL_LINE_RESERVE = 300
#: Bounds of the lists after the tree (the omitted list's line bounds are in `omitted.py`).
MAX_KEY_REFS = 15
MAX_OUTLINE = 12
#: Most of the text the omitted-controls list may take.
OMITTED_SHARE = 0.5
#: Share of the tree budget primary sections may take before other sections get a look-in.
PRIMARY_SHARE = 0.7
#: Most a non-primary section may take in the first pass (it can grow in the last pass).
SECTION_CAP_SHARE = 0.12
_KEY_ROLES = frozenset(
    {
        "heading",
        "navigation",
        "region",
        "main",
        "dialog",
        "alertdialog",
        "form",
        "tablist",
        "tabpanel",
        "search",
        "banner",
        "complementary",
        "contentinfo",
        "table",
        "grid",
    }
)


@dataclass(frozen=True)
class CompactSnapshot:
    """The visible snapshot text plus what it shows, for the result and `details`."""

    text: str
    compacted: bool
    shown_ref_ids: tuple[str, ...]
    high_value_ref_ids: tuple[str, ...]
    total_lines: int
    shown_lines: int
    viewport_ordering: str = VIEWPORT_ORDERING
    unlisted_control_count: int = 0

    def details(self) -> dict[str, Any]:
        """`details.snapshotCompaction` (the omitted ids go to `highValueControlRefIds`)."""
        return {
            "compacted": self.compacted,
            "totalLines": self.total_lines,
            "shownLines": self.shown_lines,
            "shownRefCount": len(self.shown_ref_ids),
            "highValueControlCount": len(self.high_value_ref_ids),
            "unlistedControlCount": self.unlisted_control_count,
            "viewportOrdering": self.viewport_ordering,
        }


@dataclass
class _Layout:
    """Everything the fill and render steps share for one snapshot."""

    lines: list[SnapshotLine]
    refs: Mapping[str, Mapping[str, Any]]
    sections: list[Section]
    groups: list[ControlGroup]
    rank_of: list[int]
    prefix: list[int]  # prefix[i] = total cost of lines[:i]
    kept: list[int]  # lines kept per section (a DOM-order prefix of it)
    kinds: dict[int, int]  # link line index -> rows.ROW / CONTENT / GROUP
    key_refs: list[tuple[int, int, str]]  # (rank, line index, label) of headings/landmarks
    list_chars: int = 0  # most the omitted-controls list may take

    def context_cost(self, section: Section) -> int:
        return sum(self.lines[i].cost for i in ancestors(self.lines, section.start))

    def cost(self, pos: int, kept: int) -> int:
        """Rendered cost of section `pos` with its first `kept` lines."""
        if kept <= 0:
            return 0
        section = self.sections[pos]
        body = self.prefix[section.start + kept] - self.prefix[section.start]
        marker = _MARKER_COST if kept < section.size else 0
        return self.context_cost(section) + body + marker


_MARKER_COST = 80


def _layout(text: str, refs: Mapping[str, Mapping[str, Any]]) -> _Layout:
    lines, names = named_lines(text, refs)
    prefix = [0]
    for line in lines:
        prefix.append(prefix[-1] + line.cost)
    shape = ([line[2:] for line in lines], names)  # all but each line's text
    last = _LAST_SHAPE[0] if _LAST_SHAPE else None  # read once: another thread may replace it
    if last is not None and last[0] == shape:
        sections, groups, kinds, keys, rank_of = last[1]
    else:
        sections = split_sections(lines)
        rank_of = [0] * len(lines)
        for section in sections:
            for index in range(section.start, section.end):
                rank_of[index] = section.rank
        groups = group_controls(collect_controls(lines, names))
        kinds = link_kinds(lines, names)
        keys = _key_refs(lines, names, rank_of)
        _LAST_SHAPE[:] = [(shape, (sections, groups, kinds, keys, rank_of))]
    kept = [0] * len(sections)
    return _Layout(lines, refs, sections, groups, rank_of, prefix, kept, kinds, keys)


_Facts = tuple[
    list[Section], list[ControlGroup], dict[int, int], list[tuple[int, int, str]], list[int]
]
_LAST_SHAPE: list[tuple[Any, _Facts]] = []
"""The last tree's shape (every line's depth, role, name, ref, level and parent, and the ref
map's roles and names) and what was derived from it: a page read again, or changed only in
attributes (a box ticked), has the same sections, control groups, link kinds and key refs.
They are read, never changed, by the fill and render steps."""


def _key_refs(
    lines: Sequence[SnapshotLine], names: Names, rank_of: list[int]
) -> list[tuple[int, int, str]]:
    """Headings (levels 1-3) and landmarks with refs, in rank then DOM order."""
    picked: list[tuple[int, int, str]] = []
    for line in lines:
        if line.ref is None:
            continue
        role, name = names[line.index]
        if role not in _KEY_ROLES or (role == "heading" and (line.level or 1) > 3):
            continue
        picked.append((rank_of[line.index], line.index, ref_label(line.ref, role, name)))
    picked.sort()
    return picked


def _grow(layout: _Layout, pos: int, allowance: int) -> int:
    """Keep more lines of section `pos` within `allowance` chars; return chars spent."""
    section = layout.sections[pos]
    before = layout.cost(pos, layout.kept[pos])
    best = layout.kept[pos]
    for kept in range(layout.kept[pos] + 1, section.size + 1):
        spent = layout.cost(pos, kept) - before
        if spent > allowance:
            if kept < section.size:
                break
            continue
        best = kept
    layout.kept[pos] = best
    return layout.cost(pos, best) - before


def _fill(layout: _Layout, room: int, *, rows_first: bool) -> None:
    """Primary sections first (bounded share), then a capped look at each other section,
    then whatever room is left, in rank order. With `rows_first` (row titles the list cannot
    all name), chrome sections get no capped look: their links rank below row titles."""
    used = 0
    primary = [p for p, s in enumerate(layout.sections) if s.rank <= RANK_PRIMARY]
    others = [
        p
        for p, s in enumerate(layout.sections)
        if p not in primary and not (rows_first and s.rank >= RANK_CHROME)
    ]
    primary_room = int(room * PRIMARY_SHARE) if others else room
    for pos in primary:
        used += _grow(layout, pos, max(primary_room - used, 0))
    cap = max(600, int(room * SECTION_CAP_SHARE))
    for pos in others:
        used += _grow(layout, pos, min(cap, max(room - used, 0)))
    _spend(layout, room - used)


def _spend(layout: _Layout, room: int) -> None:
    """Grow sections in rank order until `room` more chars are used."""
    used = 0
    for pos in range(len(layout.sections)):
        used += _grow(layout, pos, max(room - used, 0))


def _tree_lines(layout: _Layout) -> tuple[list[str], set[int]]:
    """Rendered tree lines in section order, and the snapshot line indexes they show."""
    out: list[str] = []
    shown: set[int] = set()
    for pos, section in enumerate(layout.sections):
        kept = layout.kept[pos]
        if kept <= 0:
            continue
        indexes = [*ancestors(layout.lines, section.start)]
        indexes += range(section.start, section.start + kept)
        out.extend(layout.lines[i].text for i in indexes)
        shown.update(indexes)
        if kept < section.size:
            rest = range(section.start + kept, section.end)
            hidden_refs = sum(1 for i in rest if layout.lines[i].ref)
            indent = "  " * layout.lines[section.start].depth
            out.append(
                f"{indent}- … {len(rest)} more lines of this section not shown ({hidden_refs} refs)"
            )
    return out, shown


def _outline_lines(layout: _Layout) -> tuple[list[str], set[int]]:
    """One line per section with nothing shown: its first line and what it holds."""
    hidden = [(p, s) for p, s in enumerate(layout.sections) if layout.kept[p] <= 0]
    out: list[str] = []
    roots: set[int] = set()
    for _pos, section in hidden[:MAX_OUTLINE]:
        root = layout.lines[section.start]
        refs = sum(1 for i in range(section.start, section.end) if layout.lines[i].ref)
        out.append(f"{root.text.strip()} … ({section.size} lines, {refs} refs)")
        roots.add(section.start)
    if len(hidden) > MAX_OUTLINE:
        out.append(f"- … {len(hidden) - MAX_OUTLINE} more sections not shown")
    return (["Sections not shown:", *out] if out else []), roots


def _key_ref_lines(layout: _Layout, shown: set[int]) -> list[str]:
    """Headings and landmarks that did not fit: where the rest of the page is."""
    picked = [key for key in layout.key_refs if key[1] not in shown]
    lines = [label for _, _, label in picked[:MAX_KEY_REFS]]
    if len(picked) > MAX_KEY_REFS:
        lines.append(f"… {len(picked) - MAX_KEY_REFS} more headings/landmarks")
    return ["Key refs:", *lines] if lines else []


@dataclass(frozen=True)
class _Rendered:
    text: str
    visible: set[str]
    omitted: list[str]
    shown_lines: int
    unlisted: int
    unlisted_rows: int


def _assemble(layout: _Layout) -> _Rendered:
    tree, shown = _tree_lines(layout)
    outline, roots = _outline_lines(layout)
    shown_all = shown | roots
    keys = _key_ref_lines(layout, shown_all)
    visible = {layout.lines[i].ref for i in shown_all if layout.lines[i].ref}
    visible_refs = {r for r in visible if r is not None} | listed_refs(keys)
    omitted = omitted_list(
        layout.groups, visible_refs, layout.rank_of, layout.kinds, layout.list_chars
    )
    header = (
        f"[Compact snapshot: {len(shown)} of {len(layout.lines)} lines shown, main content "
        "first (DOM/signal-prioritized, not viewport order).]"
    )
    text = "\n".join([header, *tree, *outline, *keys, *omitted.lines])
    return _Rendered(
        text, visible_refs, omitted.lines, len(shown), omitted.unlisted, omitted.unlisted_rows
    )


def _shrink(layout: _Layout, excess: int) -> bool:
    """Drop lines from the last kept section until `excess` chars are freed."""
    for pos in reversed(range(len(layout.sections))):
        while layout.kept[pos] > 0 and excess > 0:
            before = layout.cost(pos, layout.kept[pos])
            layout.kept[pos] -= 1
            excess -= before - layout.cost(pos, layout.kept[pos])
        if excess <= 0:
            return True
    return False


def _hard_trim(text: str, limit: int) -> str:
    """Last resort for tiny budgets: cut at a line boundary and say so."""
    note = "\n[… compact snapshot cut to fit]"
    cut = text[: max(limit - len(note), 0)]
    cut = cut[: cut.rfind("\n")] if "\n" in cut else cut
    return (cut + note)[:limit]


def compact_snapshot(
    text: str, refs: Mapping[str, Mapping[str, Any]], *, budget: int, interactive: bool = False
) -> CompactSnapshot:
    """Return the snapshot verbatim when it fits `budget`, else a compact view.

    The compact text is at most `budget - SPILL_LINE_RESERVE` characters, so the caller's
    spill-path line still fits. `high_value_ref_ids` are the refs named in the omitted
    controls list (`details.data.highValueControlRefIds`). An `interactive` (`-i`) tree first
    loses its runs of non-interactive table structure (`structure.py`); when that alone fits,
    the rest is shown whole.
    """
    if len(text) <= budget:
        lines = parse_snapshot(text)
        return CompactSnapshot(text, False, _refs_in(lines), (), len(lines), len(lines))
    limit = max(budget - SPILL_LINE_RESERVE, budget // 2)
    total = len(parse_snapshot(text))
    collapsed = collapse_structure(text) if interactive else None
    if collapsed is not None and collapsed.collapsed_lines:
        text = collapsed.text
        header = (
            f"[Interactive snapshot: {total - collapsed.collapsed_lines} of {total} lines "
            f"shown; {collapsed.collapsed_lines} non-interactive table lines collapsed.]"
        )
        if len(header) + 1 + len(text) <= limit:
            lines = parse_snapshot(text)
            return CompactSnapshot(
                f"{header}\n{text}", True, _refs_in(lines), (), total, len(lines)
            )
    layout = _layout(text, refs)
    layout.list_chars = int(limit * OMITTED_SHARE)
    worst = _assemble(layout)
    _fill(layout, limit - len(worst.text) - 40, rows_first=worst.unlisted_rows > 0)
    rendered = _assemble(layout)
    for _ in range(8):
        if len(rendered.text) <= limit or not _shrink(layout, len(rendered.text) - limit):
            break
        rendered = _assemble(layout)
    rendered = _use_slack(layout, limit, rendered)
    body = rendered.text if len(rendered.text) <= limit else _hard_trim(rendered.text, limit)
    listed = listed_refs(rendered.omitted)
    return CompactSnapshot(
        text=body,
        compacted=True,
        shown_ref_ids=tuple(sorted(rendered.visible - listed, key=_ref_order)),
        high_value_ref_ids=tuple(sorted(listed, key=_ref_order)),
        total_lines=max(total, len(layout.lines)),
        shown_lines=rendered.shown_lines,
        unlisted_control_count=rendered.unlisted,
    )


def _use_slack(layout: _Layout, limit: int, rendered: _Rendered) -> _Rendered:
    """Spend room the reserve did not need on more tree lines, keeping the result if it fits."""
    slack = limit - len(rendered.text) - 60
    if slack < 200:
        return rendered
    saved = list(layout.kept)
    _spend(layout, slack)
    grown = _assemble(layout)
    if len(grown.text) <= limit:
        return grown
    layout.kept = saved
    return rendered


def _ref_order(ref: str) -> tuple[int, str]:
    digits = ref[1:]
    return (int(digits), ref) if digits.isdigit() else (1 << 60, ref)


def _refs_in(lines: Sequence[SnapshotLine]) -> tuple[str, ...]:
    """Refs of parsed lines in DOM order, deduplicated."""
    return tuple(dict.fromkeys(line.ref for line in lines if line.ref))
