"""Which snapshot refs are high-value controls, and how repeats collapse into groups.

Why: when a snapshot is compacted, an agent must still be able to reach the controls it is
most likely to act on (editable fields, tabs, choices, named buttons and action links) without
opening the spill file. Dense pages repeat the same control hundreds of times ("Edit 1" ...
"Edit 500"), so listing each would blow the budget; controls whose names differ only in their
digits form one group that is shown as a few sample refs plus a count. The same grouping is
used by tests and the observation-size benchmark to check that nothing important became
unreachable.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field

from agent_browser_tools.results.snapshot.tree import Names, SnapshotLine, ref_label

#: Roles listed in `Omitted high-value controls`, by tier (lower tiers are listed first).
ROLE_TIERS: Mapping[str, int] = {
    "searchbox": 0,
    "textbox": 0,
    "combobox": 0,
    "tab": 1,
    "checkbox": 2,
    "radio": 2,
    "switch": 2,
    "spinbutton": 2,
    "slider": 2,
    "button": 3,
    "option": 4,
    "menuitem": 4,
    "menuitemcheckbox": 4,
    "menuitemradio": 4,
    "treeitem": 4,
    "link": 5,
}
#: Roles whose unnamed or symbol-only instances are noise (icon buttons, `¶` anchors).
NAME_REQUIRED_ROLES = frozenset({"button", "link", "tab", "menuitem", "option", "treeitem"})
#: Roles whose same-name repeats collapse even in small groups.
SAME_NAME_COLLAPSE_ROLES = frozenset({"link"})
#: A group with more members than this is shown as samples plus a count, not one per line.
GROUP_LIST_ALL = 4
#: Sample refs named on a collapsed group line.
GROUP_SAMPLES = 2
#: Roles whose long names collapse by a shared leading phrase when they repeat on every row
#: ("Select this object for an action - <row title>"); fields and tabs never do: each one
#: is a different thing to fill or open.
PREFIX_COLLAPSE_ROLES = frozenset(
    {"checkbox", "radio", "switch", "button", "option", "menuitem", "menuitemcheckbox"}
)
#: Words a name must share with the others (and exceed) to join a prefix group.
PREFIX_WORDS = 3
#: Members a prefix group needs: fewer are listed one by one.
PREFIX_GROUP_MIN = 8

_DIGITS = re.compile(r"\d+")
_WORDY = re.compile(r"\w", re.UNICODE)


@dataclass(frozen=True)
class Control:
    """A high-value ref at a position in the snapshot (`index` is its line, DOM order)."""

    ref: str
    role: str
    name: str
    index: int

    @property
    def tier(self) -> int:
        return ROLE_TIERS.get(self.role, 9)

    def label(self) -> str:
        return ref_label(self.ref, self.role, self.name)


@dataclass
class ControlGroup:
    """Controls of one role whose names are equal once digit runs are masked."""

    role: str
    pattern: str
    members: list[Control] = field(default_factory=list)

    @property
    def same_name(self) -> bool:
        first = " ".join(self.members[0].name.split()).casefold()
        return all(" ".join(c.name.split()).casefold() == first for c in self.members)

    @property
    def collapsible(self) -> bool:
        """Large groups, and repeated same-name links (which nearly always share a target)."""
        if len(self.members) > GROUP_LIST_ALL:
            return True
        return self.role in SAME_NAME_COLLAPSE_ROLES and len(self.members) > 1 and self.same_name


def is_high_value(role: str, name: str) -> bool:
    """Whether a ref with this role/name belongs in the high-value lists."""
    if role not in ROLE_TIERS:
        return False
    if role in NAME_REQUIRED_ROLES:
        return _WORDY.search(name) is not None
    return True


def name_pattern(name: str) -> str:
    """The grouping key of a name: case-folded, whitespace-collapsed, digit runs as `#`."""
    return _DIGITS.sub("#", " ".join(name.split()).casefold())


def collect_controls(lines: Sequence[SnapshotLine], names: Names) -> list[Control]:
    """High-value controls in DOM order, one per ref (first occurrence wins); `names` from
    `tree.ref_names`."""
    seen: set[str] = set()
    controls: list[Control] = []
    for line in lines:
        if line.ref is None or line.ref in seen:
            continue
        role, name = names[line.index]
        if is_high_value(role, name):
            seen.add(line.ref)
            controls.append(Control(line.ref, role, name, line.index))
    return controls


def group_controls(controls: Sequence[Control]) -> list[ControlGroup]:
    """Group by (role, name pattern), groups ordered by their first member."""
    groups: dict[tuple[str, str], ControlGroup] = {}
    for control in controls:
        key = (control.role, name_pattern(control.name))
        group = groups.get(key)
        if group is None:
            group = groups[key] = ControlGroup(control.role, key[1])
        group.members.append(control)
    return _merge_prefix_groups(list(groups.values()))


def _merge_prefix_groups(groups: list[ControlGroup]) -> list[ControlGroup]:
    """Merge same-role groups whose names start with the same words into one group.

    Why: a Django changelist gives every row a checkbox named "Select this object for an
    action - <title>"; listed one per line they crowd the omitted list that row titles and
    fields need, and the sample refs plus the count say as much.
    """
    clusters: dict[tuple[str, str], list[ControlGroup]] = {}
    for group in groups:
        words = group.pattern.split()
        if group.role in PREFIX_COLLAPSE_ROLES and len(words) > PREFIX_WORDS:
            key = (group.role, " ".join(words[:PREFIX_WORDS]))
            clusters.setdefault(key, []).append(group)
    replaced: dict[int, ControlGroup | None] = {}
    for members in clusters.values():
        if len(members) < 2 or sum(len(g.members) for g in members) < PREFIX_GROUP_MIN:
            continue
        pattern = _common_words([g.pattern for g in members]) + " …"
        controls = sorted((c for g in members for c in g.members), key=lambda c: c.index)
        replaced[id(members[0])] = ControlGroup(members[0].role, pattern, controls)
        replaced.update((id(g), None) for g in members[1:])
    out = [replaced.get(id(g), g) for g in groups]
    return [g for g in out if g is not None]


def _common_words(patterns: Sequence[str]) -> str:
    """The longest run of leading words all `patterns` share."""
    split = [p.split() for p in patterns]
    shared: list[str] = []
    for words in zip(*split, strict=False):
        if any(w != words[0] for w in words):
            break
        shared.append(words[0])
    return " ".join(shared)


def render_group_lines(group: ControlGroup, hidden: Sequence[Control], total: int) -> list[str]:
    """Lines for the hidden members of one group.

    Small groups list every hidden member (each ref stays directly usable); large ones name
    the first hidden member, a couple of sample refs and how many more exist, so a 500-row
    table costs one line instead of 500.
    """
    if len(hidden) == 1 or not group.collapsible:
        return [control.label() for control in hidden]
    first, rest = hidden[0], hidden[1:]
    samples = " ".join(f"@{c.ref}" for c in rest[:GROUP_SAMPLES])
    more = " …" if len(rest) > GROUP_SAMPLES else ""
    shown = total - len(hidden)
    seen_note = f"; {shown} more shown above" if shown else ""
    kind = "same-name" if group.same_name else f'"{group.pattern}"'
    note = f"+{len(rest)} more {kind} {group.role} refs: {samples}{more}{seen_note}"
    return [f"{first.label()} ({note})"]


def listed_refs(lines: Sequence[str]) -> set[str]:
    """Every `@eN` named in rendered ref-list lines."""
    return set(re.findall(r"@(e\d+)\b", "\n".join(lines)))


@dataclass(frozen=True)
class Coverage:
    """How many high-value controls an agent can reach from the visible text."""

    total: int
    reachable: int
    missing: tuple[Control, ...]

    @property
    def complete(self) -> bool:
        return self.reachable == self.total


def coverage(
    groups: Sequence[ControlGroup],
    visible_refs: Collection[str],
    *,
    roles: Collection[str] | None = None,
) -> Coverage:
    """Count controls that are visible, or represented by a visible member of their group.

    Why this rule: a collapsed group line names a sample of refs and the exact count of the
    rest (`+199 more "edit #" buttons`), so its unnamed members are reachable by a targeted
    `snapshot -i --search`; members of small groups must each be visible themselves.
    """
    total = reachable = 0
    missing: list[Control] = []
    for group in groups:
        if roles is not None and group.role not in roles:
            continue
        any_visible = any(c.ref in visible_refs for c in group.members)
        for control in group.members:
            total += 1
            if control.ref in visible_refs or (group.collapsible and any_visible):
                reachable += 1
            else:
                missing.append(control)
    return Coverage(total, reachable, tuple(missing))
