"""When a ref is still its element: twins are told apart by their anchors (issue 28)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from agent_browser_tools.state.effects import refs_from_snapshot
from agent_browser_tools.state.models import RefInfo
from agent_browser_tools.state.ref_identity import _LAST, same_element, with_anchors


def _refs(*lines: tuple[str, str, str]) -> dict[str, RefInfo]:
    tree = "\n".join(f'- {role} "{name}" [ref={ref}]' for ref, role, name in lines)
    data = {"refs": {ref: {"role": role, "name": name} for ref, role, name in lines}}
    return refs_from_snapshot(data, tree)


FORM = (
    ("e1", "heading", "Book"),
    ("e2", "textbox", ""),
    ("e3", "textbox", ""),
    ("e4", "button", "Search"),
)


def test_a_twin_keeps_its_identity_when_a_list_opens_next_to_it() -> None:
    """An unlabelled field whose suggestion list comes and goes: its anchors are unchanged."""
    was = _refs(*FORM)
    now = _refs(FORM[0], FORM[1], ("e7", "option", "Paris"), ("e8", "option", "Rome"), *FORM[2:])
    assert was["e2"].anchors is not None and was["e2"].nth == 0
    assert same_element(was["e2"], now["e2"], now.get)
    assert same_element(was["e3"], now["e3"], now.get)


def test_a_twin_whose_row_was_patched_in_place_is_another_element() -> None:
    """Index-keyed rows: the node of row A's Edit now sits after "Details C"."""
    was = _refs(
        ("e1", "button", "Details A"),
        ("e2", "button", "Edit"),
        ("e3", "button", "Details B"),
        ("e4", "button", "Edit"),
    )
    now = _refs(
        ("e1", "button", "Details C"),
        ("e2", "button", "Edit"),
        ("e3", "button", "Details B"),
        ("e4", "button", "Edit"),
    )
    assert not same_element(was["e2"], now["e2"], now.get)
    assert same_element(was["e4"], now["e4"], now.get)


def test_becoming_a_twin_is_a_change_but_a_unique_element_needs_no_anchors() -> None:
    was = _refs(("e1", "button", "Edit"), ("e2", "link", "Home"))
    now = _refs(("e1", "button", "Edit"), ("e5", "button", "Edit"), ("e2", "link", "Home"))
    assert not same_element(was["e1"], now["e1"], now.get)
    assert same_element(was["e2"], now["e2"], now.get)


@settings(max_examples=150, deadline=None)
@given(
    st.lists(
        st.lists(st.sampled_from(["Edit", "Edit", "Save", "Row 1", "Row 2", "Row 3"]), max_size=9),
        min_size=1,
        max_size=6,
    )
)
def test_twins_of_a_page_read_again_are_those_a_first_reading_finds(pages: list[list[str]]) -> None:
    """`with_anchors` remembers the last page's twins; whatever the run of pages (the same
    one again, a renamed neighbour, a row more or less), each answer equals a first reading."""
    for names in pages:
        refs = {f"e{i}": RefInfo("button", name) for i, name in enumerate(names, 1)}
        order = list(refs)
        remembered = with_anchors(refs, order)
        _LAST.clear()
        assert remembered == with_anchors(refs, order)
        assert with_anchors(refs, order) == remembered
