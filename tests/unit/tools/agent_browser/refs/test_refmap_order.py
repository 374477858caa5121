"""A page whose every ref is new shows them in document order (pure translation rules).

The engine numbers a new document's refs from one counter per browser, level by level of the
accessibility tree: a form's fields first, then the options inside its lists. These tests
hold what the reordering may never do: give an id shown before to another element, send a
shown id to any engine id but its own element's, or move a ref the model already holds.
"""

from __future__ import annotations

import json

from agent_browser_tools.engine.envelope import BatchRow, Envelope, OutputMode
from agent_browser_tools.state.effects import refs_from_snapshot
from agent_browser_tools.state.models import RefInfo
from agent_browser_tools.tools.agent_browser.refs import refmap, shown_ids
from tests.support.plans import plan

HEADING = RefInfo(role="heading", name="Profile")
NAME = RefInfo(role="textbox", name="Full name")
FLAVOR = RefInfo(role="combobox", name="Flavor")
VANILLA = RefInfo(role="option", name="Vanilla")
CHOC = RefInfo(role="option", name="Chocolate")
SUBMIT = RefInfo(role="button", name="Submit")
REGION = RefInfo(role="region", name="Result")

# Document order, with the engine's level-by-level numbers (as 0.39.4 and 0.41.2 give them).
FORM = (
    ("e1259", HEADING),
    ("e1261", NAME),
    ("e1262", FLAVOR),
    ("e1264", VANILLA),
    ("e1265", CHOC),
    ("e1263", SUBMIT),
    ("e1260", REGION),
)


def _snapshot(rows: tuple[tuple[str, RefInfo], ...]) -> dict[str, object]:
    tree = "\n".join(f'- {i.role} "{i.name}" [ref={ref}]' for ref, i in rows)
    refs = {ref: {"role": i.role, "name": i.name} for ref, i in sorted(rows)}
    return {"snapshot": tree, "refs": refs}


def _shown_rows(data: dict[str, object]) -> list[tuple[str, RefInfo]]:
    table = refs_from_snapshot(data, str(data["snapshot"]))
    order = [line.rsplit("ref=", 1)[1].rstrip("]") for line in str(data["snapshot"]).splitlines()]
    return [(ref, table[ref]) for ref in order]


def _recorded(data: dict[str, object], shown: refmap.Shown) -> dict[str, RefInfo]:
    """The table the journal records for this answer: shown ids, engine ids where they differ."""
    reverse = shown.reverse()
    table = refs_from_snapshot(data, str(data["snapshot"]))
    return {ref: info._replace(engine=reverse.get(ref)) for ref, info in table.items()}


def test_a_new_documents_refs_are_numbered_top_to_bottom_from_its_own_new_ids() -> None:
    """Above every id shown before (the big page's e1..e1258), in document order, each shown
    id going back to its own element's engine id."""
    old_page = {"e5": RefInfo(role="link", name="Home")}
    shown = refmap.Shown(old_page, high=1258)
    data = refmap.data_to_model(_snapshot(FORM), shown)
    rows = _shown_rows(data)
    assert [ref for ref, _ in rows] == [f"e{n}" for n in range(1259, 1266)]
    assert [info for _, info in rows] == [info for _, info in FORM]
    engine_of = dict(FORM)
    recorded = _recorded(data, shown)
    for ref, info in rows:
        engine = refmap.engine_id(ref, recorded)
        assert engine_of[engine] == info  # the shown id reaches its own element
    args, _ = refmap.to_engine(plan(["click", "@e1260"]), recorded)
    assert args[-1] == "@e1261"  # e1260 is shown for "Full name", the engine's e1261


def test_the_reordering_never_reuses_an_id_shown_before() -> None:
    """A ref of the page before (e5, e1258) is never an id of the new page."""
    shown = refmap.Shown({"e5": RefInfo(role="link", name="Home")}, high=1258)
    data = refmap.data_to_model(_snapshot(FORM), shown)
    refs = data["refs"]
    assert isinstance(refs, dict)
    assert all(shown_ids.ref_number(ref) > 1258 for ref in refs)


def test_the_same_document_read_again_keeps_every_id() -> None:
    """The next snapshot of the document: nothing changed, nothing moves; a new element gets
    a new id above them; a changed one a new id too."""
    first = refmap.Shown({}, high=1258)
    data = refmap.data_to_model(_snapshot(FORM), first)
    recorded = _recorded(data, first)
    again = refmap.Shown(recorded, high=1265)
    reread = refmap.data_to_model(_snapshot(FORM), again)
    assert _shown_rows(reread) == _shown_rows(data)
    grown = (*FORM, ("e1266", RefInfo(role="option", name="Mint")))
    later = refmap.Shown(recorded, high=1265)
    assert [r for r, _ in _shown_rows(refmap.data_to_model(_snapshot(grown), later))] == [
        *(r for r, _ in _shown_rows(data)),
        "e1266",
    ]
    patched = tuple((e, RefInfo("button", "Send") if i == SUBMIT else i) for e, i in FORM)
    moved = refmap.Shown(recorded, high=1265)
    rows = _shown_rows(refmap.data_to_model(_snapshot(patched), moved))
    assert rows[5] == ("e1266", RefInfo("button", "Send"))  # the changed element: a new id
    assert [r for r, _ in rows[:5]] == ["e1259", "e1260", "e1261", "e1262", "e1263"]


def test_a_page_with_one_known_element_is_not_reordered() -> None:
    """A ref the model holds keeps its id, and the others keep the engine's numbers."""
    table = {"e1262": FLAVOR}
    shown = refmap.Shown(table, high=1262)
    data = refmap.data_to_model(_snapshot(FORM), shown)
    refs = data["refs"]
    assert isinstance(refs, dict) and refs.keys() >= {"e1262"}
    assert refmap.engine_id("e1262", _recorded(data, shown)) == "e1262"


def test_an_id_an_echo_already_named_is_not_reordered() -> None:
    """`[click @e1261, snapshot -i]`: the click's echo named e1261 before the ref map came;
    the answer keeps the engine's numbers rather than show one id for two elements."""
    shown = refmap.Shown({}, high=1258)
    assert refmap.text_to_model("@e1261", shown) == "@e1261"
    data = refmap.data_to_model(_snapshot(FORM), shown)
    assert shown.reverse() == {}
    assert "ref=e1261]" in str(data["snapshot"]).splitlines()[1]


def test_after_a_browser_launch_the_new_ids_are_in_document_order_too() -> None:
    """The engine counts from e1 again; the page gets ids above every shown one, top down."""
    launched = tuple(
        (f"e{n}", info) for n, (_, info) in zip((1, 3, 4, 6, 7, 5, 2), FORM, strict=True)
    )
    shown = refmap.Shown({"e9": RefInfo(role="link", name="Old")}, high=1258, restarted=True)
    rows = _shown_rows(refmap.data_to_model(_snapshot(launched), shown))
    assert [r for r, _ in rows] == [f"e{n}" for n in range(1259, 1266)]
    assert [i for _, i in rows] == [i for _, i in FORM]


def test_a_twin_on_a_reordered_page_is_still_compared_by_its_anchors() -> None:
    """Two "Edit" buttons on a reordered page: read again unchanged, each keeps its id; the
    rows patched in place (the same link nodes now read the other row), each twin is another
    row's button and gets a new id, as on a page that was never reordered."""
    edit = RefInfo(role="button", name="Edit")
    a, b = RefInfo(role="link", name="Row A"), RefInfo(role="link", name="Row B")
    rows = (("e12", a), ("e10", edit), ("e13", b), ("e11", edit))
    first = refmap.Shown({}, high=9)
    data = refmap.data_to_model(_snapshot(rows), first)
    recorded = _recorded(data, first)
    assert [r for r, _ in _shown_rows(data)] == ["e10", "e11", "e12", "e13"]
    assert recorded["e11"].anchors is not None  # a twin, anchored by shown ids
    same = refmap.data_to_model(_snapshot(rows), refmap.Shown(recorded, high=13))
    assert [r for r, _ in _shown_rows(same)] == ["e10", "e11", "e12", "e13"]
    patched = (("e12", b), ("e10", edit), ("e13", a), ("e11", edit))
    out = _shown_rows(refmap.data_to_model(_snapshot(patched), refmap.Shown(recorded, high=13)))
    assert [info.name for _, info in out] == ["Row B", "Edit", "Row A", "Edit"]
    assert all(shown_ids.ref_number(ref) > 13 for ref, _ in out)


def test_an_engine_error_names_the_shown_id() -> None:
    """`Element '@e1261' is covered by ...` is about the element the model knows as e1260."""
    shown = refmap.Shown({"e1260": NAME._replace(engine="e1261")}, high=1265)
    error = "Element '@e1261' is covered by <div#overlay> at its click point."
    answer = Envelope(
        mode=OutputMode.JSON,
        success=False,
        rows=(BatchRow(("click", "@e1261"), False, None, error),),
        error=error,
    )
    out = refmap.envelope_to_model(answer, shown)
    assert out.error == "Element '@e1260' is covered by <div#overlay> at its click point."
    assert out.rows is not None and out.rows[0].command == ("click", "@e1260")


def test_a_reordered_answer_remembers_the_table_a_fresh_build_gives() -> None:
    """The shown answer's table is translated from the engine-id build, twins' anchors too:
    it must be exactly what building it again from the shown answer gives."""
    edit = RefInfo(role="button", name="Edit")
    rows = (*FORM, ("e1267", edit), ("e1266", edit))
    data = refmap.data_to_model(_snapshot(rows), refmap.Shown({}, high=1258))
    kept = refs_from_snapshot(data, str(data["snapshot"]))
    refs = data["refs"]
    assert isinstance(refs, dict)
    fresh = refs_from_snapshot({"refs": dict(refs)}, str(data["snapshot"]))
    assert kept == fresh
    twin = kept["e1266"]
    assert twin.anchors is not None and twin.anchors[0].ref == "e1265"  # a shown id
    assert refs["e1260"] == {"role": "textbox", "name": "Full name"}  # the record as given


def test_batch_rows_of_a_reordered_page_go_out_as_their_elements_engine_ids() -> None:
    shown = refmap.Shown({}, high=1258)
    data = refmap.data_to_model(_snapshot(FORM), shown)
    recorded = _recorded(data, shown)
    rows = [["fill", "@e1260", "Ada"], ["click", "@e1264"]]
    _, stdin = refmap.to_engine(plan(["batch", "--bail"], rows=rows), recorded)
    assert json.loads(stdin or "") == [["fill", "@e1261", "Ada"], ["click", "@e1263"]]


def test_a_tree_too_long_to_be_shown_whole_keeps_the_engines_numbers() -> None:
    """A compacted snapshot shows its lines by priority, not in document order: its new
    refs keep the engine's numbers (and the later snapshots of that page their fast path)."""
    long_name = "x" * shown_ids.WHOLE_TREE
    rows = ((FORM[0][0], RefInfo(role="heading", name=long_name)), *FORM[1:])
    shown = refmap.Shown({}, high=1258)
    refmap.data_to_model(_snapshot(rows), shown)
    assert shown.reverse() == {}
    short = refmap.Shown({}, high=1258)
    refmap.data_to_model(_snapshot(FORM), short)
    assert short.reverse() != {}
