"""Non-interactive table structure collapses out of an oversized `snapshot -i` (issue 33)."""

from __future__ import annotations

from agent_browser_tools.results.snapshot.compaction import compact_snapshot
from agent_browser_tools.results.snapshot.structure import collapse_structure


def _table(rows: int, link_rows: frozenset[int] = frozenset()) -> list[str]:
    lines = [
        '- columnheader "Function" [ref=e1]',
        '- columnheader "Description" [ref=e2]',
    ]
    ref = 3
    for row in range(rows):
        lines.append(f'- cell "f{row}()" [ref=e{ref}]')
        if row in link_rows:
            lines.append(f'  - link "f{row}()" [ref=e{ref + 1}]')
        lines.append(
            f'- cell "Returns f{row} of the argument; {"long text " * 12}" [ref=e{ref + 2}]'
        )
        ref += 3
    return lines


FORM = [
    '- heading "Was this page helpful?" [level=2, ref=e900]',
    '- textbox "Your email" [ref=e901]',
    '- button "Send feedback" [ref=e902]',
]


def test_runs_of_plain_cells_become_one_line_and_linked_cells_stay() -> None:
    text = "\n".join(
        ['- heading "Functions" [level=1, ref=e0]', *_table(10, frozenset({4})), *FORM]
    )
    out = collapse_structure(text)
    lines = out.text.splitlines()
    assert lines[0] == '- heading "Functions" [level=1, ref=e0]'
    assert lines[1].startswith("- … 8 table cells under columns Function, Description not shown")
    assert "snapshot -i --search <text>" in lines[1]
    # The linked cell keeps its own line and its link (context for the ref).
    assert lines[2:4] == ['- cell "f4()" [ref=e15]', '  - link "f4()" [ref=e16]']
    assert lines[4] == "- … 11 table cells not shown (11 refs)"
    assert lines[5:] == FORM
    assert (out.collapsed_lines, out.collapsed_refs) == (21, 21)


def test_short_runs_gridcells_and_cells_holding_controls_are_kept() -> None:
    text = "\n".join(
        [
            '- cell "a" [ref=e1]',
            '- cell "b" [ref=e2]',
            '- link "x" [ref=e3]',
            '- gridcell "g1" [ref=e4]',
            '- gridcell "g2" [ref=e5]',
            '- gridcell "g3" [ref=e6]',
            '- row "r"',
            '  - cell "c1"',
            '  - cell "c2"',
            '    - checkbox "pick" [ref=e7]',
        ]
    )
    out = collapse_structure(text)
    assert out.text == text and out.collapsed_lines == 0


def test_an_oversized_interactive_table_page_shows_the_form_in_the_tree() -> None:
    text = "\n".join(
        ['- heading "Functions" [level=1, ref=e0]', *_table(120, frozenset({7})), *FORM]
    )
    assert len(text) > 20_000
    before = compact_snapshot(text, {}, budget=15_000)
    after = compact_snapshot(text, {}, budget=15_000, interactive=True)
    # Before: the tree is cells up to the budget and the form is only in a list after it.
    assert '- textbox "Your email" [ref=e901]' not in before.text
    assert after.compacted and len(after.text) < 2_000
    for line in FORM:
        assert line in after.text.splitlines()
    assert '  - link "f7()" [ref=e25]' in after.text
    assert after.total_lines == len(text.splitlines())
    assert after.text.startswith("[Interactive snapshot: ")


def test_a_snapshot_that_fits_is_never_collapsed() -> None:
    text = "\n".join(_table(5))
    result = compact_snapshot(text, {}, budget=15_000, interactive=True)
    assert result.text == text and not result.compacted


def test_when_collapsing_is_not_enough_the_compact_view_is_built_without_plain_cells() -> None:
    buttons = [f'- button "Action number {i} of the toolbar" [ref=e{2000 + i}]' for i in range(400)]
    text = "\n".join([*_table(120, frozenset({7})), *buttons, *FORM])
    result = compact_snapshot(text, {}, budget=15_000, interactive=True)
    assert result.text.startswith("[Compact snapshot: ") and len(result.text) <= 15_000
    plain_cells = [
        line
        for line in result.text.splitlines()
        if line.startswith("- cell ") and "f7()" not in line
    ]
    assert plain_cells == []
    assert "table cells under columns Function, Description not shown" in result.text
    assert result.total_lines == len(text.splitlines())
    # Without -i the same tree keeps its cells: a full snapshot is for reading.
    assert "- cell " in compact_snapshot(text, {}, budget=15_000).text
