"""Wrapper-side snapshot views: flag splitting, filter/search, ref diff and probe parsing.

Trees and probe results are real captures (`scripts/capture_snapshots.py`); the probe
results came from running `search_probe_js(...)` / `VIEWPORT_PROBE_JS` through the engine's
`eval --stdin` on the fixture pages.
"""

from __future__ import annotations

import json
import re
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from agent_browser_tools.results.snapshot.probes import PROBE_MAX_NODES, SEARCH_MAX_MATCHES
from agent_browser_tools.results.snapshot.views import (
    SEARCH_PROBE_JS,
    VIEWPORT_PROBE_JS,
    diff_refs,
    filter_snapshot,
    parse_search_probe,
    parse_viewport_probe,
    render_diff,
    render_search,
    search_probe_counts,
    search_probe_js,
    snapshot_filter_details,
    split_snapshot_flags,
)

SNAPSHOTS = Path(__file__).resolve().parents[3] / "fixtures" / "snapshots"


@cache
def load(name: str) -> dict[str, Any]:
    record: dict[str, Any] = json.loads((SNAPSHOTS / f"{name}.json").read_text("utf-8"))
    return record


def probe(name: str) -> Any:
    return load("probes")[name]["result"]


# --- flags ------------------------------------------------------------------------------


def test_wrapper_flags_are_stripped_and_engine_flags_kept() -> None:
    clean, flags = split_snapshot_flags(
        ["snapshot", "-i", "-c", "-d", "3", "-s", "#main", "--search", "Edit 3", "--viewport"]
    )
    assert clean == ["snapshot", "-i", "-c", "-d", "3", "-s", "#main"]
    assert (flags.search, flags.role, flags.viewport, flags.diff) == ("Edit 3", None, True, False)
    assert flags.any and flags.notes == ()


def test_equals_forms_and_bundled_interactive_flag() -> None:
    clean, flags = split_snapshot_flags(["-ic", "--search=row 4", "--filter=role=button", "--diff"])
    assert clean == ["-ic"]
    assert (flags.search, flags.role, flags.diff) == ("row 4", "button", True)


def test_a_selector_value_is_never_read_as_a_wrapper_flag() -> None:
    clean, flags = split_snapshot_flags(["-i", "-s", "--search"])
    assert clean == ["-i", "-s", "--search"]
    assert not flags.any


def test_no_wrapper_flags_leaves_args_untouched_including_delta() -> None:
    args = ["snapshot", "-i", "--delta", "--full"]
    clean, flags = split_snapshot_flags(args)
    assert clean == args and not flags.any and flags.stripped_delta == ()


def test_delta_is_stripped_with_a_note_when_a_wrapper_view_needs_the_full_tree() -> None:
    clean, flags = split_snapshot_flags(["snapshot", "-i", "--delta", "--full", "--diff"])
    assert clean == ["snapshot", "-i"]
    assert flags.stripped_delta == ("--delta", "--full")
    assert len(flags.notes) == 1 and "full snapshot tree" in flags.notes[0]


@pytest.mark.parametrize(
    ("args", "fix"),
    [
        (["snapshot", "--search", "Edit"], "add -i, e.g. snapshot -i --search <text>"),
        (["snapshot", "-c", "--filter", "role=button"], "add -i"),
        (["-i", "--filter", "button"], "--filter accepts only role=<role>"),
        (["-i", "--filter", "name=Edit"], "snapshot -i --filter role=button"),
        (["-i", "--filter", "role="], "--filter accepts only role=<role>"),
        (["-i", "--search"], "--search needs a value: snapshot -i --search <text>"),
        (["-i", "--search", "  "], "--search needs a non-empty value"),
    ],
)
def test_invalid_wrapper_flags_name_the_exact_fix(args: list[str], fix: str) -> None:
    with pytest.raises(ValueError, match=re.escape(fix)):
        split_snapshot_flags(args)


def test_viewport_and_diff_do_not_need_interactive() -> None:
    clean, flags = split_snapshot_flags(["snapshot", "--viewport", "--diff"])
    assert clean == ["snapshot"] and flags.viewport and flags.diff


# --- filter / search --------------------------------------------------------------------


def test_search_is_case_insensitive_over_names_and_counts_match_details() -> None:
    record = load("dense_i")
    filtered = filter_snapshot(record["snapshot"], record["refs"], search="edit 49", role=None)
    # "Edit 49" and "Edit 490".."Edit 499": one cell and one button each.
    assert filtered.matched_refs == 22
    assert filtered.total_refs == len(record["refs"]) == 2022
    assert filtered.total_lines == len(record["snapshot"].splitlines())
    snapshot_lines = [line for line in filtered.text.splitlines() if line.strip() != "…"]
    assert filtered.visible_lines == len(snapshot_lines)
    # Each button's cell is its ancestor; no neighbouring row is shown as context.
    assert filtered.matched_refs == filtered.visible_lines
    for ref in filtered.matched_ref_ids:
        assert f"ref={ref}]" in filtered.text
    details = snapshot_filter_details(filtered, ["snapshot", "-i"])
    assert details == {
        "cleanArgs": ["snapshot", "-i"],
        "search": "edit 49",
        "matchedRefs": 22,
        "totalRefs": 2022,
        "visibleLines": filtered.visible_lines,
        "totalLines": filtered.total_lines,
    }


def test_role_filter_and_search_combine() -> None:
    record = load("dense_i")
    filtered = filter_snapshot(record["snapshot"], record["refs"], search="Edit 49", role="BUTTON")
    assert filtered.matched_refs == 11
    assert all(record["refs"][r]["role"] == "button" for r in filtered.matched_ref_ids)
    only_search = filter_snapshot(record["snapshot"], record["refs"], search=None, role="searchbox")
    assert only_search.matched_refs == 1
    assert 'searchbox "Search rows"' in only_search.text


def test_context_keeps_ancestors_of_nested_matches() -> None:
    record = load("grid_i")
    filtered = filter_snapshot(
        record["snapshot"], record["refs"], search="Order #1250", role="link"
    )
    lines = filtered.text.splitlines()
    link = next(i for i, line in enumerate(lines) if 'link "Order #1250"' in line)
    assert 'gridcell "Order #1250"' in lines[link - 1]


def test_huge_filters_are_cut_at_the_budget_but_counted_in_full() -> None:
    record = load("grid_i")
    filtered = filter_snapshot(record["snapshot"], record["refs"], search=None, role="checkbox")
    assert filtered.matched_refs == 501
    assert filtered.truncated
    assert len(filtered.text) <= 15_000
    assert re.search(r"… \d+ more matches not shown", filtered.text)


def test_rendered_summary_keeps_direct_and_rendered_matches_apart() -> None:
    record = load("grid_i")
    filtered = filter_snapshot(
        record["snapshot"], record["refs"], search="export failed", role=None
    )
    result = probe("search_grid_export_failed")
    matches = parse_search_probe(result, record["refs"])
    total, truncated = search_probe_counts(result)
    details = snapshot_filter_details(
        filtered, ["snapshot", "-i"], probe_result=result, refs=record["refs"]
    )
    lines = render_search(filtered, details)
    assert lines[0].startswith('Snapshot filter (search "export failed"): 0 ref matches')
    assert "1 more found only in the rendered page, marked [rendered text]" in lines[0]
    assert lines[1:] == [
        '- [rendered text, validation] alert <p> [offscreen]: "Export failed: 3 orders are '
        'missing an address"'
    ]
    assert details["renderedTextTotalMatches"] == total == 1
    assert details["renderedTextTruncated"] is truncated is False
    assert details["renderedTextMatches"] == matches


# --- probes -----------------------------------------------------------------------------


def test_search_probe_reports_only_the_visible_validation_message() -> None:
    """grid.html holds "export failed" in seven hidden forms and one visible alert."""
    matches = parse_search_probe(probe("search_grid_export_failed"), load("grid_i")["refs"])
    assert matches == [
        {
            "text": "Export failed: 3 orders are missing an address",
            "tagName": "p",
            "kind": "validation",
            "offscreen": True,
            "role": "alert",
        }
    ]


def test_search_probe_maps_a_label_match_to_its_unique_control_ref() -> None:
    refs = load("grid_i")["refs"]
    [match] = parse_search_probe(probe("search_grid_promo"), refs)
    assert (match["role"], match["name"]) == ("textbox", "Promo code")
    assert refs[match["ref"]] == {"role": "textbox", "name": "Promo code"}


def test_search_probe_is_bounded_and_maps_unique_buttons() -> None:
    result = probe("search_dense_edit_3")
    refs = load("dense_i")["refs"]
    matches = parse_search_probe(result, refs)
    assert search_probe_counts(result) == (111, True)  # Edit 3, 30-39, 300-399
    assert len(matches) == SEARCH_MAX_MATCHES
    first = matches[0]
    assert (first["name"], first["offscreen"]) == ("Edit 3", False)
    assert refs[first["ref"]] == {"role": "button", "name": "Edit 3"}
    assert all(m["offscreen"] for m in matches[1:])


def test_ambiguous_or_malformed_probe_rows_get_no_ref() -> None:
    refs = {"e1": {"role": "link", "name": "More"}, "e2": {"role": "link", "name": "More"}}
    result = {
        "matches": [
            {"text": "More", "tagName": "a", "kind": "text", "role": "link", "name": "More"},
            {"text": 5},
            "junk",
            {"text": "x" * 500, "kind": "weird", "offscreen": "yes"},
        ],
        "total": -3,
    }
    matches = parse_search_probe(result, refs)
    assert len(matches) == 2 and "ref" not in matches[0]
    assert matches[1] == {"text": "x" * 160, "tagName": "", "kind": "text", "offscreen": False}
    assert search_probe_counts(result) == (0, False)
    assert parse_search_probe(None, refs) == [] and parse_search_probe({"matches": 3}, refs) == []


def test_viewport_probe_result_is_reported_as_measured() -> None:
    view = parse_viewport_probe(probe("viewport_long_scrolled"))
    assert view is not None
    assert (view["scrollX"], view["scrollY"]) == (0, 1200)
    assert view["documentHeight"] > view["innerHeight"] > 0
    assert view["scrollableContainers"] == 1
    assert view["containers"] == [
        {
            "selector": "div#scroller",
            "scrollTop": 140,
            "scrollLeft": 0,
            "scrollHeight": view["containers"][0]["scrollHeight"],
            "scrollWidth": 320,
            "clientHeight": 200,
            "clientWidth": 320,
        }
    ]
    assert parse_viewport_probe({"scrollX": "0"}) is None
    assert parse_viewport_probe([]) is None


def test_probe_scripts_embed_the_search_as_a_literal_and_stay_read_only() -> None:
    tricky = 'say "hi" </script> __MAX__ ${x}`'
    script = search_probe_js(tricky)
    assert json.dumps(tricky) in script
    assert SEARCH_PROBE_JS is search_probe_js
    assert str(PROBE_MAX_NODES) in script and str(PROBE_MAX_NODES) in VIEWPORT_PROBE_JS
    for text in (script, VIEWPORT_PROBE_JS):
        assert "__" not in text.replace(json.dumps(tricky), "")
        for writer in (
            ".click(",
            ".focus(",
            "scrollTo(",
            "scrollIntoView",
            ".value =",
            "innerHTML =",
            "setAttribute(",
            "dispatchEvent",
            "fetch(",
        ):
            assert writer not in text, writer


# --- diff -------------------------------------------------------------------------------


def test_diff_against_the_real_filtered_page() -> None:
    record = load("dense_filtered_i")
    diff = diff_refs(record["previousRefs"], record["refs"])
    assert diff["addedRefs"] == [] and diff["changedRefs"] == []
    assert len(diff["unchangedRefs"]) == len(record["refs"]) == 66
    assert len(diff["removedRefs"]) == 2022 - 66
    assert (
        diff["summary"]
        == "0 added, 1956 removed, 0 changed, 66 unchanged refs since the previous snapshot."
    )


def test_diff_detects_role_and_name_changes_with_tuple_or_map_values() -> None:
    previous = {"e1": ("button", "Save"), "e2": ("link", "Home"), "e3": ("checkbox", "A")}
    current = {
        "e1": {"role": "button", "name": "Saved"},
        "e2": {"role": "link", "name": "Home"},
        "e10": {"role": "textbox", "name": "Note"},
    }
    diff = diff_refs(previous, current)
    assert diff == {
        "addedRefs": ["e10"],
        "removedRefs": ["e3"],
        "changedRefs": ["e1"],
        "unchangedRefs": ["e2"],
        "summary": "1 added, 1 removed, 1 changed, 1 unchanged refs since the previous snapshot.",
    }
    lines = render_diff(diff, previous, current)
    assert lines[1:] == [
        '+ @e10 textbox "Note"',
        '- @e3 checkbox "A"',
        '~ @e1 button "Saved" (was button "Save")',
    ]


def test_diff_without_a_previous_map_is_a_baseline() -> None:
    diff = diff_refs(
        None, {"e2": {"role": "link", "name": "b"}, "e1": {"role": "link", "name": "a"}}
    )
    assert diff["addedRefs"] == ["e1", "e2"]
    assert diff["summary"].startswith("No previous snapshot refs for this session")
    many = diff_refs({}, {f"e{i}": ("link", str(i)) for i in range(50)})
    assert render_diff(many, {}, {f"e{i}": ("link", str(i)) for i in range(50)})[-1].startswith(
        "… 30 more ref changes"
    )


# --- whole-name search (issue 19 item 5) -------------------------------------------------

IN_PAGE = "\n".join(
    [
        '- heading "Built-in Types" [level=1, ref=e1]',
        '- link "index" [ref=e2]',
        '- link "in" [ref=e3]',
        '- link "not in" [ref=e4]',
        '- link "int" [ref=e5]',
        '- button "Sign in" [ref=e6]',
        '- link "Home" [ref=e7]',
    ]
)


@pytest.mark.parametrize(
    "args",
    [
        ["snapshot", "-i", "--search-exact", "in"],
        ["snapshot", "--search-exact=in", "-i"],
    ],
)
def test_search_exact_is_stripped_and_marks_the_search_exact(args: list[str]) -> None:
    clean, flags = split_snapshot_flags(args)
    assert clean == ["snapshot", "-i"]
    assert (flags.search, flags.exact, flags.any) == ("in", True, True)


@pytest.mark.parametrize(
    ("args", "fix"),
    [
        (["snapshot", "-i", "--search", "a", "--search-exact", "b"], "one of --search"),
        (["snapshot", "--search-exact", "in"], "add -i"),
        (["snapshot", "-i", "--search-exact"], "snapshot -i --search-exact <name>"),
    ],
)
def test_misused_search_exact_names_the_fix(args: list[str], fix: str) -> None:
    with pytest.raises(ValueError, match=re.escape(fix)):
        split_snapshot_flags(args)


def test_search_exact_finds_the_link_named_in_alone() -> None:
    exact = filter_snapshot(IN_PAGE, {}, search="in", role=None, exact=True)
    assert exact.matched_ref_ids == ("e3",)
    assert 'link "in" [ref=e3]' in exact.text
    upper = filter_snapshot(IN_PAGE, {}, search=" IN ", role="link", exact=True)
    assert upper.matched_ref_ids == ("e3",), "any case, outer spaces ignored"


def test_substring_search_matches_names_not_the_role_word() -> None:
    """`link` contains "in": the role word must not make every link a match."""
    found = filter_snapshot(IN_PAGE, {}, search="in", role=None)
    assert found.matched_ref_ids == ("e1", "e2", "e3", "e4", "e5", "e6")  # "Built-in" too
    assert filter_snapshot(IN_PAGE, {}, search="link", role=None).matched_refs == 0


def test_a_cut_substring_search_still_shows_the_whole_name_match() -> None:
    many = [f'- link "Maintain item {i}" [ref=e{i}]' for i in range(1, 800)]
    text = "\n".join([*many, '- link "in" [ref=e900]'])
    found = filter_snapshot(text, {}, search="in", role=None)
    assert found.truncated and found.matched_refs == 800
    assert "ref=e900]" in found.text


def test_exact_search_details_and_summary_say_exact_and_skip_rendered_text() -> None:
    exact = filter_snapshot(IN_PAGE, {}, search="in", role=None, exact=True)
    details = snapshot_filter_details(exact, ["snapshot", "-i"])
    assert (details["search"], details["searchExact"], details["matchedRefs"]) == ("in", True, 1)
    lines = render_search(exact, details)
    assert (
        lines[0] == 'Snapshot filter (search-exact "in"): 1 ref matches of 7 refs, in page order.'
    )
    assert lines[1:] == exact.text.splitlines()
    plain = filter_snapshot(IN_PAGE, {}, search="in", role=None)
    assert "searchExact" not in snapshot_filter_details(plain, ["snapshot", "-i"])
