"""Which id the model is shown for each engine ref of an answer (pure).

The engine keys a ref by DOM node and keeps it across snapshots, but a node patched in place
shows another element under the same id, and the engine counts from `e1` again whenever it
launches a browser. So an engine ref keeps its shown id from one snapshot to the next while
it is the same element (same node, role and name and, for look-alikes, anchors:
`state.ref_identity`), which is nearly always; otherwise, and after the engine launched a
browser, it gets a new id above every id shown so far (`refmap` translates both ways).

A page whose every ref is new (the first snapshot of a new document) shows its refs in
document order when it is shown whole (`WHOLE_TREE`): the engine numbers them from one
counter per browser in the order of the accessibility tree's levels (a form's options after
all its fields), and those new ids, never shown before, are handed out again top to bottom
(`Shown.bind`). Which new id goes to which new element changes nothing the ref rules rely
on: every id is still new, names one element, and goes back to that element's engine id at
dispatch. The numbers stay above every id shown so far: a small number would be an id an
earlier page's element was shown under, and a ref remembered from that page would then act
on this one.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field

from agent_browser_tools.last_made import LastMade
from agent_browser_tools.results.bounds import VISIBLE_LIMIT
from agent_browser_tools.state.models import Anchor, RefInfo, RetiredRef
from agent_browser_tools.state.ref_identity import END, START, same_element

TREE_REF = re.compile(r"\bref=(e\d+)\b")
"""A ref named in a snapshot tree's attribute block (`[ref=e3]`)."""

WHOLE_TREE = VISIBLE_LIMIT
"""The longest tree whose new refs are numbered in document order: one the model is shown
whole. A longer one is compacted (its lines chosen by priority, not in document order), so
the order of its numbers is not what the model reads, while carrying ids other than the
engine's through every later snapshot of a page of thousands of refs costs (measured: +31 ms
of wrapper time a snapshot on 9,005 refs, the engine's own taking about 840 ms)."""


@dataclass
class Shown:
    """Engine id -> shown id for one answer: the previous snapshot's ids where the element
    is the same, new ones above `high` otherwise."""

    table: Mapping[str, RefInfo]
    high: int
    restarted: bool = False
    assigned: dict[str, str] = field(default_factory=dict)
    kept: Mapping[str, str] = field(default_factory=dict)
    """Engine id -> the shown id it had before a page change within the same document, for
    elements proven to be the very nodes those refs named (`same_document`)."""
    retired: Mapping[str, RetiredRef] = field(default_factory=dict)
    """The page's retired refs: a node that showed something else for a while and now reads
    exactly as one of its retired refs did gets that ref back (`_changed_back`)."""

    def __post_init__(self) -> None:
        self.fresh: Mapping[str, RefInfo] = {}
        """The refs of the snapshot being shown, by engine id (for twins' anchors)."""
        self.named: set[str] = set()
        """Engine ids an echo or error of this answer showed as themselves, unbound: a ref
        map after them must not hand those ids to other elements (`bind`)."""
        self._renamed = {} if self.restarted else _renamed(self.table)

    def _known(self, engine: str) -> tuple[str, RefInfo] | None:
        """(shown id, recorded info) of an engine id the recorded table knows."""
        if self.restarted:
            return None
        shown = self._renamed.get(engine)
        if shown is not None:
            return shown, self.table[shown]
        info = self.table.get(engine)
        return (engine, info) if info is not None and not info.engine else None

    def _anchor_now(self, shown: str) -> RefInfo | None:
        """What a recorded anchor (a shown id) shows in the snapshot being shown."""
        info = self.table.get(shown)
        return self.fresh.get(info.engine or shown if info is not None else shown)

    def ref(self, engine: str, info: RefInfo | None = None) -> str:
        """The shown id of `engine`; with `info` (the element it is now, from a snapshot) a
        changed or unknown element gets a new id: its own number when no id up to it was
        shown yet (the engine's numbers, which `bind` may pair anew in document order), else
        the next one."""
        if engine in self.assigned:
            return self.assigned[engine]
        known = self._known(engine)
        if info is None:
            # An echo or error names an element without describing it: show the id it had,
            # but bind nothing, so a later ref map in the same answer still compares it.
            if known is not None:
                return known[0]
            if _number(engine) > self.high:
                self.named.add(engine)
                return engine
        elif known is not None and same_element(known[1], info, self._anchor_now):
            self.assigned[engine] = known[0]
            return known[0]
        number = _number(engine)
        shown = engine if number > self.high else f"e{self.high + 1}"
        self.high = max(self.high, _number(shown))
        self.assigned[engine] = shown
        return shown

    def bind(self, infos: Mapping[str, RefInfo], tree: str | None = None) -> None:
        """Shown ids for every ref of a snapshot being shown (`ref` with its info), in the
        engine's numeric order so new ids count up as the engine's do; when every ref is new,
        in the document order of `tree` (`_in_document_order`). A ref recorded under the id it
        was shown with that reads exactly as recorded (nearly all of them, on a page read
        again) keeps it without the element-by-element comparison (`_unchanged`)."""
        self.fresh = infos
        bound = set(self.assigned)  # by an echo or an earlier ref map of the same answer
        rest = self._unchanged(infos)
        if self.kept and not self.restarted:
            taken = set(self.table) | set(self.assigned.values())
            for engine, shown in self.kept.items():
                if engine in rest and engine not in self.assigned and shown not in taken:
                    self.assigned[engine] = shown
                    taken.add(shown)
            rest = {engine: info for engine, info in rest.items() if engine not in self.assigned}
        if self.retired and not self.restarted:
            rest = self._changed_back(rest)
        every_new = len(rest) == len(infos) and not any(
            engine in bound or engine in self.named or self._known(engine) is not None
            for engine in rest
        )
        for engine in sorted(rest, key=_number):
            self.ref(engine, rest[engine])
        if every_new and tree is not None and len(tree) <= WHOLE_TREE:
            self._in_document_order(list(rest), tree)

    def _unchanged(self, infos: Mapping[str, RefInfo]) -> Mapping[str, RefInfo]:
        """Bind the refs recorded under their shown id that read exactly as recorded, and
        return the rest (compared element by element, `ref`). A twin's anchors name shown
        ids, so where shown ids differ from engine ids its anchors are compared once the
        anchors themselves are bound here: the same anchoring elements, read the same."""
        if self.restarted:
            return infos
        assigned, renamed = self.assigned, self._renamed
        used = set(assigned.values())
        rest: dict[str, RefInfo] = {}
        twins: dict[str, RefInfo] = {}
        for engine, info in infos.items():
            if info.anchors is not None and renamed:
                twins[engine] = info
            elif not self._bind_same(engine, info, used):
                rest[engine] = info
        for engine, info in twins.items():
            pair = self._shown_anchors(info)
            if pair is None or not self._bind_same(engine, info, used, pair):
                rest[engine] = info
        return rest

    def _shown_anchors(self, info: RefInfo) -> tuple[Anchor, Anchor] | None:
        """A twin's anchors under the shown ids this answer bound them to (None: an anchor
        is not bound yet, so the twin is compared element by element)."""
        out: list[Anchor] = []
        for anchor in info.anchors or ():
            if anchor.ref in (START, END):
                out.append(anchor)
                continue
            shown = self.assigned.get(anchor.ref)
            if shown is None:
                return None
            out.append(Anchor(shown, anchor.text))
        return (out[0], out[1]) if len(out) == 2 else None

    def _bind_same(
        self,
        engine: str,
        info: RefInfo,
        used: set[str],
        anchors: tuple[Anchor, Anchor] | None = None,
    ) -> bool:
        """Bind `engine` to the id it was shown with when it reads exactly as recorded there
        (a twin's `anchors` given under shown ids)."""
        shown = self._renamed.get(engine, engine)
        was = self.table.get(shown)
        if (
            was is None
            or engine in self.assigned
            or shown in used
            or was[:3] != info[:3]
            or was.anchors != (info.anchors if anchors is None else anchors)
            or was.nth != info.nth
            or was.engine != (engine if shown != engine else None)
        ):
            return False
        self.assigned[engine] = shown
        used.add(shown)
        return True

    def _in_document_order(self, engines: list[str], tree: str) -> None:
        """Hand the new ids just given to `engines` out again in the order the tree lists
        them (refs the tree does not name keep the engine's order, after them). The same
        ids go to the same elements, only paired differently: each stays new and unique."""
        ids = sorted((self.assigned[engine] for engine in engines), key=_number)
        wanted = set(engines)
        order = [e for e in dict.fromkeys(TREE_REF.findall(tree)) if e in wanted]
        placed = set(order)
        order += [e for e in sorted(engines, key=_number) if e not in placed]
        for engine, shown in zip(order, ids, strict=True):
            self.assigned[engine] = shown

    def _changed_back(self, rest: Mapping[str, RefInfo]) -> dict[str, RefInfo]:
        """Give a node its retired ref back when it reads exactly as that ref did (a label
        that rotated away and back): the engine keeps a node's id, so it is the very element
        a model that remembers the ref means. Returns the refs still without a shown id."""
        back: dict[str, list[tuple[str, RefInfo]]] = {}
        for shown, old in self.retired.items():
            if old.now is not None:
                back.setdefault(old.was.engine or shown, []).append((shown, old.was))
        taken = set(self.table) | set(self.assigned.values())
        for engine, info in rest.items():
            for shown, was in reversed(back.get(engine, ())):
                if shown not in taken and same_element(was, info, self._anchor_now):
                    self.assigned[engine] = shown
                    taken.add(shown)
                    break
        return {engine: info for engine, info in rest.items() if engine not in self.assigned}

    def reverse(self) -> dict[str, str]:
        """Shown id -> engine id, for ids this answer assigned that differ."""
        return {shown: engine for engine, shown in self.assigned.items() if shown != engine}


_RENAMED: LastMade[dict[str, str]] = LastMade()


def _renamed(table: Mapping[str, RefInfo]) -> dict[str, str]:
    """Engine id -> shown id of a recorded table's refs shown under another number (few).
    Every call of a session reads the same (immutable) table until the next snapshot, which
    can hold thousands of refs: the index is kept for the last table seen (read only)."""
    return _RENAMED.get_or_make(
        (table,), lambda: {info.engine: shown for shown, info in table.items() if info.engine}
    )


def ref_number(engine: str) -> int:
    """The number of an `eN` id (0 for anything else): ids sort by it."""
    return _number(engine)


def _number(engine: str) -> int:
    digits = engine[1:]
    return int(digits) if engine[:1] == "e" and digits.isdigit() and digits.isascii() else 0
