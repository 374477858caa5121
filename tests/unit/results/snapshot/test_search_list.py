"""One `--search` list in page order (issue 33 item 4): merging the rendered-DOM probe's
matches into the ref matches, and a role filter on every line."""

from __future__ import annotations

from typing import Any

from agent_browser_tools.results.snapshot.search_list import header, merge, role_filtered
from agent_browser_tools.results.snapshot.views import (
    filter_snapshot,
    render_search,
    snapshot_filter_details,
)

TREE = "\n".join(
    [
        '- link "notes on len()" [ref=e1]',
        '- generic ">>>" [ref=e2] clickable [cursor:pointer, onclick]',
        '- cell "abs()" [ref=e3]',
        '- cell "len()" [ref=e4]',
        '  - link "len()" [ref=e5]',
        '- cell "3.11" [ref=e6]',
        '- generic ">>>" [ref=e7] clickable [cursor:pointer, onclick]',
        '- textbox "Your email" [ref=e8]',
    ]
)
PROBE: dict[str, Any] = {
    "total": 5,
    "truncated": False,
    "matches": [  # document order, as the probe returns them
        {"text": "notes on len()", "tagName": "a", "role": "link", "name": "notes on len()"},
        {"text": ">>> len([1, 2, 3])", "tagName": "pre"},
        {"text": "len()", "tagName": "a", "role": "link", "name": "len()", "offscreen": True},
        {"text": "Tell us about length", "tagName": "p", "offscreen": True},
        {"text": "length", "tagName": "input", "role": "textbox", "name": "Your email"},
    ],
}


REFS = {
    line.split("ref=")[1].split("]")[0]: {
        "role": line.split()[1],
        "name": line.split('"')[1],
    }
    for line in TREE.splitlines()
}


def _search(role: str | None = None) -> list[str]:
    filtered = filter_snapshot(TREE, REFS, search="len", role=role)
    details = snapshot_filter_details(filtered, ["snapshot", "-i"], probe_result=PROBE, refs=REFS)
    return render_search(filtered, details)


def test_one_list_in_page_order_with_rendered_only_matches_marked() -> None:
    lines = _search()
    assert lines[0] == (
        'Snapshot filter (search "len"): 3 ref matches of 8 refs; 3 more found only in the '
        "rendered page, marked [rendered text]; in page order, hidden elements excluded."
    )
    assert lines[1:] == [
        '- link "notes on len()" [ref=e1]',
        '- [rendered text] <pre>: ">>> len([1, 2, 3])"',
        "  …",
        '- cell "len()" [ref=e4]',
        '  - link "len()" [ref=e5]',
        '- [rendered text] <p> [offscreen]: "Tell us about length"',
        '- [rendered text] @e8 textbox <input>: "length"',
    ]
    assert not any('generic ">>>"' in line for line in lines), "no neighbouring rows"


def test_a_probe_match_on_a_shown_ref_is_that_line_not_a_second_one() -> None:
    tree = ['- link "a" [ref=e1]', '- link "b" [ref=e2]']
    matches = [{"text": "b", "tagName": "a", "ref": "e2"}, {"text": "c", "tagName": "p"}]
    out, added = merge(tree, matches)
    assert out == [*tree, '- [rendered text] <p>: "c"'] and added == 1


def test_a_rendered_match_mapped_to_an_unmatched_ref_carries_the_ref() -> None:
    matches = [{"text": "Promo", "tagName": "label", "role": "textbox", "ref": "e9"}]
    out, _ = merge(['- link "x" [ref=e1]'], matches)
    assert out[0] == '- [rendered text] @e9 textbox <label>: "Promo"'


def test_a_role_filter_keeps_rendered_matches_of_that_role_only() -> None:
    kept, excluded = role_filtered(PROBE["matches"], "LINK")
    assert [m["text"] for m in kept] == ["notes on len()", "len()"] and excluded == 3
    lines = _search(role="link")
    assert lines[0] == (
        'Snapshot filter (search "len" and role=link): 2 ref matches of 8 refs; no other match '
        "in the rendered page; 3 rendered matches without that role left out; in page order, "
        "hidden elements excluded."
    )
    assert not any("[rendered text]" in line for line in lines)
    assert not any("textbox" in line or '"3.11"' in line for line in lines)


def test_validation_and_cut_lists_are_said_on_the_line_and_in_the_header() -> None:
    out, _ = merge([], [{"text": "Required", "tagName": "p", "kind": "validation"}])
    assert out == ['- [rendered text, validation] <p>: "Required"']
    line = header('search "x"', 0, 10, 1, probe_total=40, truncated=True)
    assert "(40 visible text matches, list cut short)" in line


def test_a_gap_marker_is_not_read_as_part_of_the_block_above_it() -> None:
    tree = ['- link "a" [ref=e1]', "  …", '- link "b" [ref=e2]']
    matches = [{"text": "a", "tagName": "a", "ref": "e1"}, {"text": "t", "tagName": "p"}]
    out, _ = merge(tree, matches)
    assert out == ['- link "a" [ref=e1]', '- [rendered text] <p>: "t"', "  …", tree[2]]
