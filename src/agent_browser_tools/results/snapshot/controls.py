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
from typing import Any

from agent_browser_tools.results.snapshot.tree import SnapshotLine, ref_label, ref_role_name

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


def collect_controls(
    lines: Sequence[SnapshotLine], refs: Mapping[str, Mapping[str, Any]]
) -> list[Control]:
    """High-value controls in DOM order, one per ref (first occurrence wins)."""
    seen: set[str] = set()
    controls: list[Control] = []
    for line in lines:
        if line.ref is None or line.ref in seen:
            continue
        role, name = ref_role_name(line, refs)
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
    return list(groups.values())


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
