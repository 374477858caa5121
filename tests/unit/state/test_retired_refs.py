"""Retired refs say what became of their element as of the latest snapshot (pure)."""

from __future__ import annotations

from agent_browser_tools.state.models import RefInfo, RefSnapshot, RetiredRef
from agent_browser_tools.state.reducers import retired_refs

SHOW = RefInfo(role="button", name="Show details")
HIDE = RefInfo(role="button", name="Hide details", engine="e3")
OPEN = RefInfo(role="button", name="Open details", engine="e3")


def test_a_retired_ref_follows_its_node_until_it_is_shown_again_or_gone() -> None:
    """e3 showed "Show", then "Hide" as e5: e3 is retired as now "Hide". When the node reads
    "Open" (as e6), the retired e3 says so; when the node is gone, it says gone; when the
    node reads "Show" again, e3 is shown again and no longer retired."""
    first = RefSnapshot(refs={"e3": SHOW}, target_url="u")
    second = RefSnapshot(refs={"e5": HIDE}, retired=retired_refs(first, {"e5": HIDE}))
    assert second.retired == {"e3": RetiredRef(was=SHOW, now=HIDE)}

    third = retired_refs(second, {"e6": OPEN})
    assert third["e3"] == RetiredRef(was=SHOW, now=OPEN)
    assert third["e5"] == RetiredRef(was=HIDE, now=OPEN)
    gone = retired_refs(RefSnapshot(refs={"e6": OPEN}, retired=third), {})
    assert gone["e3"].now is None and gone["e5"].now is None
    back = RefSnapshot(refs={"e6": OPEN}, retired=third)
    shown_again = retired_refs(back, {"e3": SHOW})
    assert "e3" not in shown_again and shown_again["e6"] == RetiredRef(was=OPEN, now=SHOW)


def test_a_ref_retired_as_gone_stays_gone() -> None:
    """An engine never gives a new node an old id: a gone element is not looked up again."""
    before = RefSnapshot(refs={}, retired={"e3": RetiredRef(was=SHOW, now=None)})
    assert retired_refs(before, {"e3x": SHOW})["e3"].now is None
