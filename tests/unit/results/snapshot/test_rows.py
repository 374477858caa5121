"""Row titles, other links and navigation/filter groups, on synthetic trees."""

from __future__ import annotations

from agent_browser_tools.results.snapshot.rows import CONTENT, GROUP, ROW, link_kinds
from agent_browser_tools.results.snapshot.tree import parse_snapshot, ref_names
from tests.unit.results.snapshot.dense_trees import changelist, filter_refs


def kinds_by_ref(text: str) -> dict[str, int]:
    lines = parse_snapshot(text)
    return {str(lines[i].ref): kind for i, kind in link_kinds(lines, ref_names(lines, {})).items()}


def test_changelist_row_header_links_are_titles_and_sidebar_and_filters_are_groups() -> None:
    text, titles = changelist(12)
    kinds = kinds_by_ref(text)
    assert {kinds[ref] for ref in titles.values()} == {ROW}
    assert {kinds[ref] for ref in filter_refs(text)} == {GROUP}
    assert {kinds[r] for r in ("e2", "e3", "e4")} == {GROUP}  # the Sidebar navigation


def test_in_a_table_with_row_headers_other_cell_links_are_not_titles() -> None:
    text = "\n".join(
        [
            '- columnheader "Title" [ref=e1]',
            '- columnheader "Author" [ref=e2]',
            '- rowheader "Tide tables" [ref=e3]',
            '  - link "Tide tables" [ref=e4]',
            '- cell "Ada Lovelace" [ref=e5]',
            '  - link "Ada Lovelace" [ref=e6]',
        ]
    )
    assert kinds_by_ref(text) == {"e4": ROW, "e6": CONTENT}


def test_without_row_headers_cells_are_cut_into_rows_by_the_column_count() -> None:
    lines = ['- columnheader "Select" [ref=e1]', '- columnheader "Order" [ref=e2]']
    lines.append('- columnheader "Customer" [ref=e3]')
    for row in range(3):
        base = 10 + row * 10
        lines += [
            f'- gridcell "Pick {row}" [ref=e{base}]',
            f'  - checkbox "Pick {row}" [ref=e{base + 1}]',
            f'- gridcell "Order #{row}" [ref=e{base + 2}]',
            f'  - link "Order #{row}" [ref=e{base + 3}]',
            f'- gridcell "Customer {row}" [ref=e{base + 4}]',
            f'  - link "Customer {row}" [ref=e{base + 5}]',
        ]
    kinds = kinds_by_ref("\n".join(lines))
    assert [kinds[f"e{13 + r * 10}"] for r in range(3)] == [ROW] * 3
    assert [kinds[f"e{15 + r * 10}"] for r in range(3)] == [CONTENT] * 3


def test_full_snapshot_rows_and_list_items_give_their_first_link() -> None:
    text = "\n".join(
        [
            "- table",
            "  - row",
            '    - cell "Quiet river maps" [ref=e1]',
            '      - link "Quiet river maps" [ref=e2]',
            '    - cell "Edit" [ref=e3]',
            '      - link "Edit" [ref=e4]',
            "- list",
            "  - listitem [ref=e5]",
            '    - link "Result one: a long title" [ref=e6]',
            '    - link "cached" [ref=e7]',
            "  - listitem [ref=e8]",
            '    - link "Result two: another title" [ref=e9]',
        ]
    )
    assert kinds_by_ref(text) == {"e2": ROW, "e4": CONTENT, "e6": ROW, "e7": CONTENT, "e9": ROW}


def test_runs_of_short_named_sibling_links_are_groups_even_outside_landmarks() -> None:
    dates = ["Any date", "Today", "Past 7 days", "This month", "This year"]
    run = [f'- link "{d}" [ref=e{i}]' for i, d in enumerate(dates, start=1)]
    short = [f'- link "{d}" [ref=e{i}]' for i, d in enumerate(dates[:4], start=11)]
    long = [f'- link "A much longer article title, part {c}" [ref=e{c}]' for c in range(21, 27)]
    text = "\n".join([*run, '- heading "Elsewhere" [ref=e9]', *short, "- separator", *long])
    kinds = kinds_by_ref(text)
    assert {kinds[f"e{i}"] for i in range(1, 6)} == {GROUP}
    assert {kinds[f"e{i}"] for i in range(11, 15)} == {CONTENT}, "four is not a group"
    assert {kinds[f"e{c}"] for c in range(21, 27)} == {CONTENT}, "long names are not filters"
