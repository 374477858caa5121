"""Judging the ref walk (pure): which element each ref named, and the figures.

Split from `ref_walk.py` (the driver) because the rules that decide "wrong" and "refused
although unchanged" are the measurement itself and read best on their own.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from agent_browser_tools.results.tool_result import ToolResult

MAPPED_ROLES = frozenset({"button", "link", "textbox", "checkbox", "combobox", "heading"})
FORM_ROLES = frozenset({"textbox", "checkbox", "combobox"})
KEEP_TRACES = 10
TREE_REF = re.compile(r"\bref=(e\d+)\b")


@dataclass(frozen=True)
class Target:
    """What a snapshot's ref named: a logical element shown by one DOM node."""

    logical: str
    node: str
    role: str
    name: str


@dataclass
class Snap:
    """One model snapshot: each ref's role and name, and its target when the layout matched."""

    number: int
    roles: dict[str, tuple[str, str]]
    targets: dict[str, Target] | None


@dataclass
class KindFigures:
    """Ref calls of one kind (`latest`: refs of the model's latest snapshot; `remembered`: a
    ref taken two to six snapshots ago), judged against the snapshot the ref came from."""

    calls: int = 0
    unchanged: int = 0
    wrong: int = 0
    refused: Counter[str] = field(default_factory=Counter)
    refused_unchanged: Counter[str] = field(default_factory=Counter)

    @property
    def refused_unchanged_rate(self) -> float:
        """Refusals of elements unchanged since that snapshot, over all such calls."""
        total = sum(self.refused_unchanged.values())
        return total / self.unchanged if self.unchanged else 0.0

    def add(self, other: KindFigures) -> None:
        self.calls += other.calls
        self.unchanged += other.unchanged
        self.wrong += other.wrong
        self.refused.update(other.refused)
        self.refused_unchanged.update(other.refused_unchanged)

    def line(self, label: str) -> str:
        return (
            f"{label}: {self.calls} calls, wrong {self.wrong}, refused "
            f"{sum(self.refused.values())}{_counts('', self.refused)}; refused although "
            f"unchanged {sum(self.refused_unchanged.values())} of {self.unchanged} "
            f"({self.refused_unchanged_rate:.2%})"
        )


@dataclass
class Figures:
    """What a walk measured; `add` sums walks over seeds."""

    actions: int = 0
    snapshots: int = 0
    snapshots_unmatched: int = 0
    ref_actions: int = 0
    dispatched: int = 0
    unattributed: int = 0
    wrong: int = 0
    refused: Counter[str] = field(default_factory=Counter)
    refused_unchanged: Counter[str] = field(default_factory=Counter)
    unchanged: int = 0
    reresolved: int = 0
    reinterpreted: int = 0
    kinds: dict[str, KindFigures] = field(
        default_factory=lambda: {"latest": KindFigures(), "remembered": KindFigures()}
    )
    failures: Counter[str] = field(default_factory=Counter)
    wrong_by: Counter[str] = field(default_factory=Counter)
    wrong_calls: Counter[str] = field(default_factory=Counter)
    traces: dict[str, str] = field(default_factory=dict)
    seconds: float = 0.0

    @property
    def refused_total(self) -> int:
        return sum(self.refused.values())

    @property
    def refused_unchanged_total(self) -> int:
        return sum(self.refused_unchanged.values())

    @property
    def refused_unchanged_rate(self) -> float:
        """Refusals of unchanged elements over all ref calls whose element was unchanged."""
        return self.refused_unchanged_total / self.unchanged if self.unchanged else 0.0

    def add(self, other: Figures) -> None:
        for name in ("actions", "snapshots", "snapshots_unmatched", "ref_actions"):
            setattr(self, name, getattr(self, name) + getattr(other, name))
        for name in ("dispatched", "unattributed", "wrong", "unchanged", "reresolved"):
            setattr(self, name, getattr(self, name) + getattr(other, name))
        self.reinterpreted += other.reinterpreted
        for kind, figures in other.kinds.items():
            self.kinds.setdefault(kind, KindFigures()).add(figures)
        self.refused.update(other.refused)
        self.refused_unchanged.update(other.refused_unchanged)
        self.failures.update(other.failures)
        self.wrong_by.update(other.wrong_by)
        self.wrong_calls.update(other.wrong_calls)
        for kind, trace in other.traces.items():
            if len(self.traces) < KEEP_TRACES:
                self.traces.setdefault(kind, trace)
        self.seconds += other.seconds

    def report(self, traces: bool = True) -> str:
        """The figures as lines of text (with the kept traces of wrong calls and refusals)."""
        lines = [
            f"actions: {self.actions} in {self.seconds:.1f} s "
            f"(snapshots {self.snapshots}, not matched to the layout {self.snapshots_unmatched})",
            f"ref actions: {self.ref_actions} (dispatched {self.dispatched}, refused "
            f"{self.refused_total}, not judged {self.unattributed})",
            f"wrong dispatches: {self.wrong}",
            *(f"    {n:>4}  {mechanism}" for mechanism, n in self.wrong_by.most_common()),
            "refused by reason:" + _counts("", self.refused),
            f"refused although unchanged: {self.refused_unchanged_total} of {self.unchanged} "
            f"unchanged ref calls ({self.refused_unchanged_rate:.2%})"
            + _counts("; by reason", self.refused_unchanged),
            f"old refs read by the latest snapshot as another element: {self.reinterpreted}; "
            f"dispatched to a new node of the same element: {self.reresolved}",
            self.kinds["latest"].line("single ref calls from the latest snapshot"),
            self.kinds["remembered"].line("remembered refs (taken 2-6 snapshots ago)"),
            "non-stale failures by category:" + _counts("", self.failures),
        ]
        if self.wrong_calls:
            lines.append("wrong dispatches by call (verb and element kind per row):")
            lines += [f"    {n:>4}  {call}" for call, n in self.wrong_calls.most_common()]
        if traces and self.traces:
            lines += ["", *self.traces.values()]
        return "\n".join(lines)


def _counts(label: str, counts: Counter[str]) -> str:
    if not counts:
        return f"{label} none" if not label else ""
    return f"{label} " + ", ".join(f"{key} {n}" for key, n in counts.most_common())


def attribute(
    snapshot_text: str, refs: dict[str, tuple[str, str]], layout: list[list[str]]
) -> dict[str, Target] | None:
    """Match the snapshot's refs (tree order) to the layout (DOM order) by role and name.

    None when the two do not line up one to one, so no ref of that snapshot is judged.
    """
    order = [r for r in dict.fromkeys(TREE_REF.findall(snapshot_text)) if r in refs]
    mapped = [r for r in order if refs[r][0] in MAPPED_ROLES]
    if len(mapped) != len(layout):
        return None
    out: dict[str, Target] = {}
    for ref, (logical, node, role, name) in zip(mapped, layout, strict=True):
        if refs[ref] != (role, name):
            return None
        out[ref] = Target(logical, node, role, name)
    return out


def layout_of(rows: Any) -> dict[str, tuple[str, str]]:
    """`walkLayout()` rows as logical id -> (node, name)."""
    if not isinstance(rows, list):
        return {}
    return {str(row[0]): (str(row[1]), str(row[3])) for row in rows}


def unchanged(targets: list[Target], layout: dict[str, tuple[str, str]]) -> bool:
    """Each element is still rendered by the same node with the same name."""
    return all(layout.get(t.logical) == (t.node, t.name) for t in targets)


def hit_twice(known: list[Target], events: list[dict[str, str]]) -> bool:
    """One node got events as the intended element and then as another one, in one call."""
    for target in known:
        shown = {e.get("logical") for e in events if e.get("node") == target.node}
        if target.logical in shown and len(shown) > 1:
            return True
    return False


def clickable(role: str, name: str) -> bool:
    return role in ("button", "link")


def form_control(role: str, name: str) -> bool:
    return role in FORM_ROLES


def loads(value: Any) -> Any:
    if not isinstance(value, str):
        return None
    try:
        return json.loads(value)
    except json.JSONDecodeError:
        return None


def category_of(result: ToolResult) -> str | None:
    category = result.details.get("failureCategory")
    return str(category) if category else None


def outcome_of(result: ToolResult) -> str:
    if not result.is_error:
        return "ok"
    stale = result.details.get("staleRef")
    if stale:
        return f"stale-ref {stale.get('reason')} {stale.get('refs')} step={stale.get('step')}"
    return f"failed {category_of(result)}: {str(result.details.get('error'))[:120]}"


def call_shape(args: list[str], stdin: str | None, timer: str | None, known: list[Target]) -> str:
    """A short name for the call: its rows' verbs and element kinds, and any timer."""
    rows = (loads(stdin) or []) if stdin is not None else [args]
    verbs = [" ".join(row[:2]) if row[0] == "get" else str(row[0]) for row in rows]
    steps = [f"{verb} {kind(t.logical)}" for verb, t in zip(verbs, known, strict=False)]
    what = ("batch " if stdin is not None else "") + " > ".join(steps)
    return what + (f" after timer {timer}" if timer else "")


def kind(logical: str) -> str:
    """`pin-alpha` -> `pin`: which kind of element, not which row."""
    head, _, _ = logical.partition("-")
    return head if head in ("pin", "note", "details", "edit", "continue", "wizard") else logical
