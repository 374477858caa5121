"""Split a snapshot tree into sections and rank them main-content-first.

Why: an oversized snapshot has to lose lines, and the lines an agent needs are usually in the
page's primary content, not in the header navigation, sidebars, footers, ads or cookie
banners that come first in DOM order. A section is a contiguous range of lines: a landmark
subtree (`main`, `navigation`, ...) or a run of sibling subtrees with no landmark inside.
Ranking uses only signals in the tree (landmark roles, region names, a level-1 heading, size),
so the order is DOM/signal-prioritized, never a claim about what is in the viewport.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from agent_browser_tools.results.snapshot.tree import SnapshotLine, subtree_end

MODAL, MAIN, NEUTRAL, CHROME, JUNK = "modal", "main", "neutral", "chrome", "junk"

#: Section ranks: lower is emitted first.
RANK_MODAL, RANK_PRIMARY, RANK_NEARBY, RANK_OTHER, RANK_CHROME, RANK_JUNK = range(6)

_MODAL_ROLES = frozenset({"dialog", "alertdialog"})
_MAIN_ROLES = frozenset({"main", "article"})
_CHROME_ROLES = frozenset({"banner", "navigation", "complementary", "contentinfo"})
_NAMED_CONTAINER_ROLES = frozenset(
    {"region", "group", "generic", "section", "document", "form", "tabpanel", "Section"}
)
_JUNK_NAME = re.compile(
    r"cookie|consent|gdpr|advert|\bads?\b|sponsor|promot|newsletter|subscribe to", re.I
)
_CHROME_NAME = re.compile(
    r"side ?bar|footer|header|breadcrumb|site nav|navigation|related|menu|toolbar", re.I
)
_MAIN_NAME = re.compile(r"\bmain\b|\bcontent\b|\bresults?\b|\barticle\b|\bprimary\b", re.I)
#: A neutral run within this many sections of a primary one counts as "nearby".
NEARBY_DISTANCE = 2


@dataclass(frozen=True)
class Section:
    """Lines `[start, end)` of one kind; `rank` orders emission, `order` is DOM order."""

    start: int
    end: int
    kind: str
    rank: int
    order: int

    @property
    def size(self) -> int:
        return self.end - self.start


def classify(line: SnapshotLine) -> str:
    """The section kind a line starts, judged from its role and (for containers) its name."""
    if line.role in _MODAL_ROLES:
        return JUNK if _JUNK_NAME.search(line.name) else MODAL
    if line.role in _MAIN_ROLES:
        return MAIN
    if line.role in _CHROME_ROLES:
        return JUNK if _JUNK_NAME.search(line.name) else CHROME
    if line.role in _NAMED_CONTAINER_ROLES and line.name:
        if _JUNK_NAME.search(line.name):
            return JUNK
        if _CHROME_NAME.search(line.name):
            return CHROME
        if _MAIN_NAME.search(line.name):
            return MAIN
    return NEUTRAL


def _tree_facts(lines: Sequence[SnapshotLine]) -> tuple[list[str], list[bool], list[list[int]]]:
    kinds = [classify(line) for line in lines]
    marked = [kind != NEUTRAL for kind in kinds]
    children: list[list[int]] = [[] for _ in lines]
    for line in reversed(lines):
        if line.parent is not None:
            marked[line.parent] = marked[line.parent] or marked[line.index]
    for line in lines:
        if line.parent is not None:
            children[line.parent].append(line.index)
    return kinds, marked, children


def _segment(
    lines: Sequence[SnapshotLine],
    siblings: Sequence[int],
    facts: tuple[list[str], list[bool], list[list[int]]],
    out: list[tuple[int, int, str]],
) -> None:
    """Append (start, end, kind) ranges for `siblings`, descending into mixed containers."""
    kinds, marked, children = facts
    run_start: int | None = None
    run_end = 0
    for index in siblings:
        end = subtree_end(lines, index)
        if kinds[index] == NEUTRAL and not marked[index]:
            run_start = index if run_start is None else run_start
            run_end = end
            continue
        if run_start is not None:
            out.append((run_start, run_end, NEUTRAL))
            run_start = None
        if kinds[index] != NEUTRAL:
            out.append((index, end, kinds[index]))
        else:
            _segment(lines, children[index], facts, out)
    if run_start is not None:
        out.append((run_start, run_end, NEUTRAL))


def _primary_score(lines: Sequence[SnapshotLine], start: int, end: int) -> tuple[int, int, int]:
    h1 = any(lines[i].role == "heading" and lines[i].level == 1 for i in range(start, end))
    heading = any(lines[i].role == "heading" for i in range(start, end))
    return (int(h1), int(heading), end - start)


def _ranks(lines: Sequence[SnapshotLine], ranges: Sequence[tuple[int, int, str]]) -> list[int]:
    fixed = {MODAL: RANK_MODAL, MAIN: RANK_PRIMARY, CHROME: RANK_CHROME, JUNK: RANK_JUNK}
    ranks = [fixed.get(kind, RANK_OTHER) for _, _, kind in ranges]
    neutral = [i for i, (_, _, kind) in enumerate(ranges) if kind == NEUTRAL]
    if neutral and not any(kind == MAIN for _, _, kind in ranges):
        best = max(neutral, key=lambda i: _primary_score(lines, ranges[i][0], ranges[i][1]))
        ranks[best] = RANK_PRIMARY
    anchors = [i for i, rank in enumerate(ranks) if rank <= RANK_PRIMARY]
    for i in neutral:
        if ranks[i] == RANK_OTHER and any(abs(i - a) <= NEARBY_DISTANCE for a in anchors):
            ranks[i] = RANK_NEARBY
    return ranks


def split_sections(lines: Sequence[SnapshotLine]) -> list[Section]:
    """Sections in emission order: rank first, then DOM order.

    When the tree has no `main`/`article` landmark (typical of `snapshot -i`, which drops
    unnamed landmarks), the largest neutral run holding a level-1 heading stands in for it.
    """
    if not lines:
        return []
    ranges: list[tuple[int, int, str]] = []
    roots = [line.index for line in lines if line.parent is None]
    _segment(lines, roots, _tree_facts(lines), ranges)
    ranks = _ranks(lines, ranges)
    sections = [
        Section(start, end, kind, ranks[order], order)
        for order, (start, end, kind) in enumerate(ranges)
    ]
    return sorted(sections, key=lambda s: (s.rank, s.order))
