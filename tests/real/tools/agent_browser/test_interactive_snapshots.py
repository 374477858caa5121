"""Interactive snapshots stay interactive (issue 33 item 4), on the real engine.

`table-docs.html` is a documentation page whose `snapshot -i` (about 19,600 characters) is
mostly 180 table cells that engine 0.39 gives refs, with five links inside cells, clickable
">>>" prompt toggles, and a feedback form below the table. Before: the compact view spent
about 13,000 of its 15,000 characters on cells, the form was only named in the omitted list,
and `--search` printed a rendered-text list and then the ref matches with their neighbours
(the ">>>" toggle among them). Why real: what the engine prints for `-i` (cells with refs, a
flat tree) and what the rendered-DOM probe finds are the engine's and the page's facts.
"""

from __future__ import annotations

import re

import pytest

from agent_browser_tools.api import BrowserTools
from agent_browser_tools.results.tool_result import ToolResult
from tests.support.fixture_server import FixtureServer
from tests.support.tools import ab

pytestmark = pytest.mark.real_engine

FORM = (("textbox", "Your email"), ("textbox", "Comment"), ("button", "Send feedback"))
CELL_LINKS = ("dict()", "filter()", "format()", "len()", "list()")
_TREE_LINE = re.compile(r'^\s*- (\w+) "((?:[^"\\]|\\.)*)".*\bref=(e\d+)\b')


def ref_of(result: ToolResult, role: str, name: str) -> str:
    refs = result.details["refSnapshot"]["refs"]
    (ref,) = [r for r, i in refs.items() if (i.get("role"), i.get("name")) == (role, name)]
    return str(ref)


def list_lines(result: ToolResult) -> list[str]:
    """The search list: the lines after the `Snapshot filter (...)` summary line."""
    lines = result.text.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("Snapshot filter ("))
    return [line for line in lines[start + 1 :] if line.strip() != "…"]


async def test_the_interactive_budget_goes_to_controls_not_table_cells(
    browser_tools: BrowserTools, fixture_site: FixtureServer
) -> None:
    await ab(browser_tools, "open", fixture_site.url("/table-docs.html"))
    snap = await ab(browser_tools, "snapshot", "-i")
    assert not snap.is_error, snap.text
    refs = snap.details["refSnapshot"]["refs"]
    cells = [r for r, i in refs.items() if i.get("role") == "cell"]
    assert len(cells) == 180, "every cell keeps its ref in the map"
    assert snap.details["snapshotCompaction"]["totalLines"] == 202
    # The form below the table is in the tree itself, not only in an omitted-controls list.
    for role, name in FORM:
        line = f'- {role} "{name}" [ref={ref_of(snap, role, name)}]'
        assert line in snap.text.splitlines(), (line, snap.text)
    assert "Omitted high-value controls" not in snap.text
    for name in CELL_LINKS:  # a cell holding a link stays, with its link, as context
        assert f'  - link "{name}" [ref={ref_of(snap, "link", name)}]' in snap.text
    shown_cells = [line for line in snap.text.splitlines() if line.startswith("- cell ")]
    assert len(shown_cells) <= 10, shown_cells
    assert "table cells under columns Function, Description, Since not shown" in snap.text
    assert len(snap.text) < 4_000, len(snap.text)
    # A search still finds a collapsed cell by its text, with its ref.
    found = await ab(browser_tools, "snapshot", "-i", "--search", "customise memoryview")
    now = found.details["refSnapshot"]["refs"]
    (cell,) = [r for r, i in now.items() if "customise memoryview" in i.get("name", "")]
    assert now[cell]["role"] == "cell" and f"ref={cell}]" in found.text


async def test_search_is_one_list_in_page_order_with_refs_and_no_unrelated_rows(
    browser_tools: BrowserTools, fixture_site: FixtureServer
) -> None:
    await ab(browser_tools, "open", fixture_site.url("/table-docs.html"))
    found = await ab(browser_tools, "snapshot", "-i", "--search", "len")
    info = found.details["snapshotFilter"]
    order = list(found.details["refSnapshot"]["refs"])
    assert len(order) == 202, "the full ref map is preserved"
    lines = list_lines(found)
    assert not any(">>>" in line and "generic" in line for line in found.text.splitlines())
    assert "Rendered page text:" not in found.text, "one list, not two"
    assert not any("hidden" in line for line in lines), "hidden nodes stay excluded"
    tree_refs = [m.group(3) for line in lines if (m := _TREE_LINE.match(line))]
    # intro link, the "len()" cell and its link, the description cell; nothing else.
    assert len(tree_refs) == info["matchedRefs"] == 4
    for ref in tree_refs:  # every ref line mentions the search text, or holds a line that does
        index = next(i for i, line in enumerate(lines) if f"ref={ref}]" in line)
        assert "len" in lines[index].casefold() or lines[index + 1].startswith("  ")
    rendered = [line for line in lines if line.startswith("- [rendered text]")]
    assert [r.split(": ", 1)[1] for r in rendered] == [
        '">>> len([1, 2, 3]) 3"',
        '"Tell us which function length example was unclear."',
    ]
    assert "2 more found only in the rendered page, marked [rendered text]" in found.text
    # Page order: the code sample sits between the intro link and the table; the hint below it.
    position = {line: i for i, line in enumerate(lines)}
    intro = next(line for line in lines if 'link "notes on len()"' in line)
    table_link = next(line for line in lines if 'link "len()"' in line)
    assert position[intro] < position[rendered[0]] < position[table_link] < position[rendered[1]]
    # The rendered-DOM probe found the long description cell too: one line, with its ref.
    cell_refs = [m["ref"] for m in info["renderedTextMatches"] if m.get("role") == "cell"]
    assert len(cell_refs) == 1 and sum(f"ref={cell_refs[0]}]" in line for line in lines) == 1


async def test_a_role_filter_applies_to_every_line_of_a_search(
    browser_tools: BrowserTools, fixture_site: FixtureServer
) -> None:
    await ab(browser_tools, "open", fixture_site.url("/table-docs.html"))
    found = await ab(browser_tools, "snapshot", "-i", "--search", "len", "--filter", "role=link")
    info = found.details["snapshotFilter"]
    lines = list_lines(found)
    assert info["matchedRefs"] == 2 and info["role"] == "link"
    assert all(m.get("role") == "link" for m in info["renderedTextMatches"])
    assert info["renderedTextRoleExcluded"] == 3  # the <pre>, the <p> and the long cell
    assert not any(line.startswith("- [rendered text]") for line in lines)
    for index, line in enumerate(lines):
        match = _TREE_LINE.match(line)
        assert match is not None, line
        # A link, or the cell a link sits in (its context line, followed by the link).
        nested = index + 1 < len(lines) and lines[index + 1].startswith("  - link ")
        assert match.group(1) == "link" or nested, line
    assert {m.group(2) for line in lines if (m := _TREE_LINE.match(line))} >= {
        "notes on len()",
        "len()",
    }
