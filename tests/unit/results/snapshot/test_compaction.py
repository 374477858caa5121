"""Compaction of oversized snapshots, on real trees captured from the fixture site.

The trees come from `scripts/capture_snapshots.py` (`tests/fixtures/snapshots/`): dense.html
(500 table rows, `-i` and full), grid.html (a 500-row ARIA grid inside header, cookie banner,
filter sidebar and footer chrome), and the small long.html / form.html.
"""

from __future__ import annotations

import json
import re
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agent_browser_tools.results.bounds import VISIBLE_LIMIT
from agent_browser_tools.results.snapshot.compaction import (
    _LAST_SHAPE,
    MAX_OMITTED_LINES,
    SPILL_LINE_RESERVE,
    compact_snapshot,
)
from agent_browser_tools.results.snapshot.controls import (
    collect_controls,
    coverage,
    group_controls,
)
from agent_browser_tools.results.snapshot.sections import (
    CHROME,
    JUNK,
    MAIN,
    MODAL,
    classify,
    split_sections,
)
from agent_browser_tools.results.snapshot.tree import named_lines, parse_snapshot
from tests.unit.results.snapshot.dense_trees import changelist, title

SNAPSHOTS = Path(__file__).resolve().parents[3] / "fixtures" / "snapshots"
LARGE = ("dense_i", "dense_full", "grid_i")
SMALL = ("long_i", "form_i")
BUDGET = 15_000
OMITTED_TITLE = "Omitted high-value controls"
INDIVIDUAL_ROLES = (
    "searchbox",
    "textbox",
    "combobox",
    "checkbox",
    "radio",
    "tab",
    "option",
    "menuitem",
)


@cache
def load(name: str) -> tuple[str, dict[str, Any]]:
    record = json.loads((SNAPSHOTS / f"{name}.json").read_text("utf-8"))
    return record["snapshot"], record["refs"]


def visible_refs(text: str) -> set[str]:
    """Refs an agent can read off the text: tree lines (`ref=eN`) and lists (`@eN`)."""
    return set(re.findall(r"(?:ref=|@)(e\d+)\b", text))


def split_at(text: str, title: str) -> tuple[str, str]:
    head, sep, tail = text.partition(title)
    return head, (sep + tail if sep else "")


@pytest.mark.parametrize("name", SMALL)
def test_small_snapshots_are_returned_verbatim(name: str) -> None:
    text, refs = load(name)
    result = compact_snapshot(text, refs, budget=BUDGET)
    assert result.compacted is False
    assert result.text == text
    assert set(result.shown_ref_ids) == visible_refs(text)
    assert result.high_value_ref_ids == ()
    assert result.shown_lines == result.total_lines == len(text.splitlines())


@pytest.mark.parametrize("budget", [BUDGET, 8_000, 4_000])
@pytest.mark.parametrize("name", LARGE)
def test_compacted_text_leaves_room_for_the_spill_line(name: str, budget: int) -> None:
    text, refs = load(name)
    result = compact_snapshot(text, refs, budget=budget)
    assert result.compacted is True
    assert len(text) > budget
    assert len(result.text) <= budget - SPILL_LINE_RESERVE
    spill = (  # the longest line `page.snapshot.compact` writes after the tree
        "Full snapshot (999,999,999 characters): read it with agent_browser "
        '{"args": ["spill", "snapshot-0123456789ab.txt"]}'
    )
    assert len(result.text + "\n" + spill) <= min(budget, VISIBLE_LIMIT)
    assert result.viewport_ordering == "dom-signal-prioritized"
    assert result.details()["viewportOrdering"] == "dom-signal-prioritized"
    assert 0 < result.shown_lines < result.total_lines


@pytest.mark.parametrize("name", LARGE)
def test_every_high_value_control_is_shown_or_listed(name: str) -> None:
    text, refs = load(name)
    result = compact_snapshot(text, refs, budget=BUDGET)
    groups = group_controls(collect_controls(*named_lines(text, refs)))
    seen = visible_refs(result.text)
    report = coverage(groups, seen)
    assert report.complete, [c.label() for c in report.missing[:10]]
    # Editable fields and choices are listed one by one unless they repeat in a large group
    # (500 "Select order N" checkboxes), which must show a sample and the exact count.
    for group in groups:
        if group.role not in INDIVIDUAL_ROLES:
            continue
        if not group.collapsible:
            assert all(c.ref in seen for c in group.members), group.pattern
        else:
            tree, omitted = split_at(result.text, OMITTED_TITLE)
            in_tree = {c.ref for c in group.members} & set(re.findall(r"ref=(e\d+)", tree))
            hidden = len(group.members) - len(in_tree)
            assert hidden <= 1 or f"+{hidden - 1} more" in omitted, group.pattern


def test_grid_lists_every_distinct_control_outside_the_grid_rows() -> None:
    text, refs = load("grid_i")
    result = compact_snapshot(text, refs, budget=BUDGET)
    seen = visible_refs(result.text)
    wanted = {
        ("searchbox", "Search orders"),
        ("textbox", "Customer"),
        ("textbox", "Promo code"),
        ("combobox", "Sort by"),
        ("checkbox", "Only flagged"),
        ("tab", "Archived orders"),
        ("button", "Bulk delete"),
        ("link", "Contact"),
        *(("radio", n) for n in ("All", "Open", "Shipped", "Cancelled")),
        *(("option", n) for n in ("Newest", "Oldest", "Total")),
    }
    by_role_name = {(v["role"], v["name"]): k for k, v in refs.items()}
    for key in wanted:
        assert by_role_name[key] in seen, key


@pytest.mark.parametrize(
    ("name", "main_marker", "chrome_markers"),
    [
        ("dense_i", 'heading "Records"', ['navigation "Primary"', 'navigation "Sidebar"']),
        ("dense_full", "- main", ["- banner", "- complementary"]),
        ("grid_i", 'heading "Orders"', ['navigation "Main menu"', 'region "Cookie consent"']),
    ],
)
def test_main_content_comes_before_navigation_and_sidebar_chrome(
    name: str, main_marker: str, chrome_markers: list[str]
) -> None:
    text, refs = load(name)
    compact = compact_snapshot(text, refs, budget=BUDGET).text
    assert text.index(main_marker) > min(text.index(m) for m in chrome_markers)  # DOM order
    assert main_marker in compact
    for marker in chrome_markers:
        if marker in compact:
            assert compact.index(main_marker) < compact.index(marker), marker
    table_line = next(line for line in compact.splitlines() if 'Row 1"' in line or "#1001" in line)
    assert compact.index(table_line) < min(compact.index(m) for m in chrome_markers if m in compact)


def test_cookie_banner_comes_after_navigation_chrome() -> None:
    text, refs = load("grid_i")
    compact = compact_snapshot(text, refs, budget=BUDGET).text
    assert compact.index('navigation "Main menu"') < compact.index('region "Cookie consent"')


def test_repeated_row_buttons_collapse_into_one_counted_line() -> None:
    text, refs = load("dense_i")
    result = compact_snapshot(text, refs, budget=BUDGET)
    tree, omitted = split_at(result.text, OMITTED_TITLE)
    shown = len(re.findall(r'^\s*- button "Edit \d+"', tree, flags=re.M))
    edit_lines = [line for line in omitted.splitlines() if '"Edit ' in line]
    assert len(edit_lines) == 1
    more = int(re.search(r"\(\+(\d+) more", edit_lines[0]).group(1))  # type: ignore[union-attr]
    assert shown + 1 + more == 500
    assert f"{shown} more shown above" in edit_lines[0]


@pytest.mark.parametrize("name", LARGE)
def test_high_value_ids_are_exactly_the_omitted_list(name: str) -> None:
    text, refs = load(name)
    result = compact_snapshot(text, refs, budget=BUDGET)
    tree, omitted = split_at(result.text, OMITTED_TITLE)
    assert set(result.high_value_ref_ids) == set(re.findall(r"@(e\d+)", omitted))
    assert not set(result.high_value_ref_ids) & set(re.findall(r"ref=(e\d+)", tree))
    assert set(result.high_value_ref_ids) <= set(refs)
    assert set(result.shown_ref_ids) <= set(refs)
    assert len(omitted.splitlines()) <= MAX_OMITTED_LINES + 2


def test_omitted_list_is_bounded_and_counts_what_it_cannot_name() -> None:
    lines = [f'- link "Topic {chr(65 + i % 26)}{i}x" [ref=e{i}]' for i in range(1, 400)]
    lines += [f'- checkbox "Agree {chr(97 + i % 26)}" [ref=e{1000 + i}]' for i in range(26)]
    text = "\n".join(lines)
    result = compact_snapshot(text, {}, budget=3_000)
    _, omitted = split_at(result.text, OMITTED_TITLE)
    assert len(result.text) <= 3_000 - SPILL_LINE_RESERVE
    assert len(omitted.splitlines()) <= MAX_OMITTED_LINES + 2
    assert result.unlisted_control_count > 0
    assert re.search(r"… \d+ more not listed \(link \d+\)", omitted)
    # Checkboxes outrank links, so every checkbox is named.
    assert all(
        f"@e{1000 + i}" in result.text or f"ref=e{1000 + i}" in result.text for i in range(26)
    )


def test_sections_rank_dialog_main_nearby_chrome_junk() -> None:
    text = "\n".join(
        [
            '- region "Cookie consent" [ref=e1]',
            '  - button "Accept" [ref=e2]',
            "- banner",
            '  - link "Home" [ref=e3]',
            "- main",
            '  - heading "Article" [level=1, ref=e4]',
            '- dialog "Confirm delete" [ref=e5]',
            '  - button "Delete" [ref=e6]',
            "- contentinfo",
            '  - link "Terms" [ref=e7]',
        ]
    )
    lines = parse_snapshot(text)
    assert [classify(lines[i]) for i in (0, 2, 4, 6, 8)] == [JUNK, CHROME, MAIN, MODAL, CHROME]
    order = [lines[s.start].text for s in split_sections(lines)]
    assert order == [
        '- dialog "Confirm delete" [ref=e5]',
        "- main",
        "- banner",
        "- contentinfo",
        '- region "Cookie consent" [ref=e1]',
    ]


def test_without_landmarks_the_run_with_the_h1_is_primary() -> None:
    text = "\n".join(
        ['- link "Skip" [ref=e1]', '- navigation "Top" [ref=e2]', '  - link "A" [ref=e3]']
        + ['- heading "Results" [level=1, ref=e4]']
        + [f'- link "Result {i}" [ref=e{10 + i}]' for i in range(300)]
    )
    result = compact_snapshot(text, {}, budget=2_500)
    body = result.text.splitlines()
    assert body[1] == '- heading "Results" [level=1, ref=e4]'
    assert result.text.index('"Result 0"') < result.text.index('navigation "Top"')


def test_tiny_budget_still_fits() -> None:
    text, refs = load("grid_i")
    result = compact_snapshot(text, refs, budget=1_000)
    assert len(result.text) <= 1_000 - SPILL_LINE_RESERVE


@settings(max_examples=40, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.integers(min_value=0, max_value=3),
            st.sampled_from(["button", "link", "textbox", "cell", "navigation", "main", "row"]),
            st.text(alphabet='ab 12"\\', max_size=12),
        ),
        min_size=1,
        max_size=300,
    ),
    st.integers(min_value=400, max_value=6_000),
)
def test_any_tree_fits_any_budget(rows: list[tuple[int, str, str]], budget: int) -> None:
    lines, depth = [], 0
    for i, (want, role, name) in enumerate(rows):
        depth = min(want, depth + 1)
        quoted = name.replace("\\", "\\\\").replace('"', '\\"')
        lines.append(f'{"  " * depth}- {role} "{quoted}" [ref=e{i + 1}]')
    text = "\n".join(lines)
    result = compact_snapshot(text, {}, budget=budget)
    limit = budget if not result.compacted else max(budget - SPILL_LINE_RESERVE, budget // 2)
    assert len(result.text) <= limit
    assert visible_refs(result.text) <= {f"e{i + 1}" for i in range(len(rows))}


def test_a_page_read_again_or_ticked_compacts_as_a_first_reading() -> None:
    """The compaction keeps what it derived from the last tree's shape; a tree read again,
    one whose boxes were ticked (attributes only), a renamed row and a row fewer each compact
    exactly as they do with nothing remembered."""
    text, titles = changelist(300)
    ticked = text.replace("[checked=false", "[checked=true", 40)
    renamed = text.replace(title(7), "A row renamed in place", 1)
    fewer = "\n".join(text.splitlines()[:-30])
    relabelled = {ref: {"role": "button", "name": "Open"} for ref in list(titles.values())[-9:]}
    moved = text.replace('\n  - link "', '\n- link "')  # each title link out of its cell
    recast = text.replace('- rowheader "', '- cell "')  # roles change, names stay
    runs: list[tuple[str, dict[str, dict[str, str]]]] = [(text, {}), (text, {}), (ticked, {})]
    runs += [(renamed, {}), (fewer, {}), (text, {})]
    runs += [(text, relabelled), (text, {}), (moved, {}), (text, {}), (recast, {})]
    for tree, refs in runs:
        remembered = compact_snapshot(tree, refs, budget=VISIBLE_LIMIT)
        _LAST_SHAPE.clear()
        assert remembered == compact_snapshot(tree, refs, budget=VISIBLE_LIMIT)
