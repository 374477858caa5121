"""When is a ref still the element its snapshot named? (pure)

The engine names a ref after a DOM node and keeps the name while the node lives. A node can
show something else without dying (a list patched in place), so the wrapper asks more of
"the same element": the same node with the same role and name. A twin (one of several refs
with the same role and name, like three "Edit" buttons) is told apart by its anchors, the
nearest refs before and after it whose role and name are unique in the snapshot: the same
twin node between other anchors is another row's button.

An anchor holds when its node is still there showing the same role and name, even if new
elements now stand between (a suggestion list that opens under a field), or, when its node
is gone, when the nearest unique ref on that side now reads the same; a side with no unique
ref at the time holds. An anchor node that now shows something else means the row was
patched in place: another element. A gone anchor (the suggestion list that was the nearest
unique ref has closed) says nothing either way: the twin stays itself while one side holds.
Becoming or ceasing to be a twin counts as a change: a filter that leaves one row changes
which row a twin belongs to without touching the twin's node.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from typing import Any

from agent_browser_tools.redaction import redact_text
from agent_browser_tools.state.models import Anchor, RefInfo

START, END = "^", "$"

Lookup = Callable[[str], RefInfo | None]
"""The element a recorded anchor id names now (None when it is gone)."""


def describe(info: RefInfo) -> str:
    """`button 'Save'`: how an anchor reads in a context."""
    return f"{info.role or '?'} {info.name or ''!r}"


def with_anchors(refs: dict[str, RefInfo], order: Sequence[str]) -> dict[str, RefInfo]:
    """Set `anchors` and `context` on twins (refs whose role and name are not unique), with
    `order` the refs in document order. One pass each way: a page can show thousands."""
    unique = dict.fromkeys(order)
    ordered = list(unique) if unique.keys() == refs.keys() else [r for r in unique if r in refs]
    infos = [refs[ref] for ref in ordered]
    keys = [info[:2] for info in infos]  # (role, name)
    reading = (ordered, keys, [info[2:] for info in infos])
    remembered = _LAST[0] if _LAST else None  # read once: another thread may replace it
    if remembered is not None and remembered[0] == reading:
        return {**refs, **remembered[1]}  # the same refs in the same order: the same twins
    counts = Counter(keys)
    if len(counts) == len(keys):
        return refs
    twin = [counts[key] > 1 for key in keys]
    made: dict[int, Anchor] = {-1: Anchor(START, START), len(ordered): Anchor(END, END)}

    def anchor(index: int) -> Anchor:
        found = made.get(index)
        if found is None:
            found = made[index] = Anchor(ordered[index], describe(infos[index]))
        return found

    before: list[int] = []  # per twin, in document order: the nearest unique ref before it
    last = -1
    for index, is_twin in enumerate(twin):
        if is_twin:
            before.append(last)
        else:
            last = index
    after: list[int] = []  # the same after it, filled from the end
    nxt = len(ordered)
    for index in range(len(ordered) - 1, -1, -1):
        if twin[index]:
            after.append(nxt)
        else:
            nxt = index
    after.reverse()
    out = dict(refs)
    seen: Counter[tuple[str | None, ...]] = Counter()
    twins = [index for index, is_twin in enumerate(twin) if is_twin]
    for index, first, second in zip(twins, before, after, strict=True):
        info, key = infos[index], keys[index]
        pair = (anchor(first), anchor(second))
        nth = seen[key]
        seen[key] = nth + 1
        context = f"{pair[0].text} | {pair[1].text}"
        out[ordered[index]] = RefInfo(info.role, info.name, context, info.engine, pair, nth)
    _LAST[:] = [(reading, {ordered[index]: out[ordered[index]] for index in twins})]
    return out


_LAST: list[tuple[Any, dict[str, RefInfo]]] = []
"""The last answer's (refs in order, their role and name, the rest) and its twins: a page
read again, or changed in a few attributes, has the same twins between the same anchors."""


def same_name(recorded: str | None, now: str | None) -> bool:
    """A recorded name (journaled: redacted, an empty name stored as none) against one read
    from the engine now (neither yet)."""
    was, seen = recorded or "", now or ""
    return was == seen or (was != "" and was == redact_text(seen))


def same_element(was: RefInfo, now: RefInfo, anchor_now: Lookup) -> bool:
    """Whether `now` (the same node, read later) is still the element `was` recorded."""
    if was.role != now.role or (was.name != now.name and not same_name(was.name, now.name)):
        return False
    if was.anchors is None or now.anchors is None:
        # Not twins, or it became or ceased to be one (a twin recorded before anchors
        # existed has a context but no anchors: it reads as changed once).
        return was.anchors is None and now.anchors is None and was.context is None
    held = 0
    for old, new in zip(was.anchors, now.anchors, strict=True):
        if old.ref in (START, END):
            held += 1  # nothing unique on that side then: nothing to lose there
            continue
        node = anchor_now(old.ref)
        if node is not None and describe(node) != old.text:
            return False  # the row around it was patched in place
        held += node is not None or new.text == old.text
    return held > 0


def where_now(now: RefInfo) -> str:
    """The anchors a twin has now, for a refusal."""
    return now.context or "no twin"
