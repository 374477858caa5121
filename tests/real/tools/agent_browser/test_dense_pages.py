"""Dense pages on the real engine (issue 19 item 5): row titles stay in the compact view, and
one search reaches what the view leaves out.

Why real: the ranking reads the engine's `snapshot -i` text, which flattens table rows into
runs of cells; only the real engine shows what that text looks like for a Django admin
changelist (`changelist.html`) and a Sphinx reference page (`docs.html`). The row titles
come from the page's DOM, not from the code under test.
"""

from __future__ import annotations

import re
from typing import Any

import pytest

from agent_browser_tools.api import BrowserTools
from agent_browser_tools.results.tool_result import ToolResult
from tests.support.fixture_server import FixtureServer
from tests.support.tools import ab

pytestmark = pytest.mark.real_engine

ROW_TITLES_JS = "[...document.querySelectorAll('#result_list tbody th a')].map(a => a.textContent)"


def in_view(result: ToolResult, ref: str) -> bool:
    """Shown in the tree (`ref=eN]`) or named in a list after it (`@eN`)."""
    return re.search(rf"(?:ref=|@){ref}\b", result.text) is not None


def refs_named(result: ToolResult, role: str, name: str) -> list[str]:
    refs: dict[str, Any] = result.details["refSnapshot"]["refs"]
    return [r for r, info in refs.items() if info.get("role") == role and info.get("name") == name]


async def test_every_row_title_of_the_changelist_is_in_the_compact_view(
    browser_tools: BrowserTools, fixture_site: FixtureServer
) -> None:
    await ab(browser_tools, "open", fixture_site.url("/changelist.html"))
    titles = (await ab(browser_tools, "eval", ROW_TITLES_JS)).details["data"]["result"]
    assert len(titles) == len(set(titles)) == 48
    snap = await ab(browser_tools, "snapshot", "-i")
    assert snap.details["snapshotCompaction"]["compacted"] is True
    assert len(snap.text) <= 16_000
    missing = [t for t in titles if not any(in_view(snap, r) for r in refs_named(snap, "link", t))]
    assert missing == []
    # The 29 filter links are still there: ranking put rows first, it did not drop the rest.
    assert all(in_view(snap, r) for r in refs_named(snap, "link", "Past 7 days"))


async def test_a_filter_link_left_out_of_the_view_is_found_by_one_search(
    browser_tools: BrowserTools, fixture_site: FixtureServer
) -> None:
    """200 rows: more titles than the list can name, so filter links give way to them."""
    await ab(browser_tools, "open", fixture_site.url("/changelist.html?rows=200"))
    titles = (await ab(browser_tools, "eval", ROW_TITLES_JS)).details["data"]["result"]
    snap = await ab(browser_tools, "snapshot", "-i")
    filters = refs_named(snap, "link", "Past 7 days")
    assert len(filters) == 3 and not any(in_view(snap, r) for r in filters)
    shown_titles = {t for t in titles if any(in_view(snap, r) for r in refs_named(snap, "link", t))}
    assert len(shown_titles) >= 90, len(shown_titles)
    more = next(line for line in snap.text.splitlines() if " more not listed " in line)
    assert "--search <name>" in more and "--search-exact <name>" in more
    found = await ab(browser_tools, "snapshot", "-i", "--search", "Past 7 days")
    assert found.details["snapshotFilter"]["matchedRefs"] == 3
    assert all(in_view(found, r) for r in filters)


async def test_the_exact_name_search_finds_the_link_named_in_alone(
    browser_tools: BrowserTools, fixture_site: FixtureServer
) -> None:
    await ab(browser_tools, "open", fixture_site.url("/docs.html"))
    exact = await ab(browser_tools, "snapshot", "-i", "--search-exact", "in")
    info = exact.details["snapshotFilter"]
    (link,) = refs_named(exact, "link", "in")
    assert (info["matchedRefs"], info["searchExact"]) == (1, True)
    assert in_view(exact, link) and "renderedTextMatches" not in info
    assert "--search-exact" not in exact.details["effectiveArgs"]
    # The substring form matches hundreds of names ("int", "index", "min()") and still shows
    # the whole-name match, because it is picked first.
    plain = await ab(browser_tools, "snapshot", "-i", "--search", "in")
    assert plain.details["snapshotFilter"]["matchedRefs"] > 150
    assert in_view(plain, link)
