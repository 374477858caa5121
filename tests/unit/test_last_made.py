"""The one-slot memory the dense-page stages share: it answers only for the very objects."""

from __future__ import annotations

from agent_browser_tools.last_made import LastMade


def test_a_value_is_found_only_for_the_very_objects_it_was_made_from() -> None:
    memory: LastMade[list[int]] = LastMade()
    table, text = {"e1": 1}, "tree"
    made = memory.put((table, text), [1])
    assert memory.get((table, text)) is made
    assert memory.get((dict(table), text)) is None  # equal is not the same object
    assert memory.get((table,)) is None and memory.get((table, None)) is None
    assert memory.get_or_make((table, None), lambda: [2]) == [2]
    assert memory.get((table, text)) is None  # one slot: the last keys only
