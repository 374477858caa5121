"""Refs that cannot hit the wrong element (issue 14), measured on a page that keeps re-rendering.

The walk (`tests/support/ref_walk.py`) plays a model for about a thousand calls over
`walk.html` and checks every dispatched ref call against the page's own event log; the small
tests below pin one re-render mechanism each, so a regression names its mechanism.
"""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from agent_browser_tools.results.tool_result import ToolResult
from tests.real.tools.agent_browser.test_direct_tool import (
    Conversation,
    assert_stale_ref,
    open_conversation,
    real_engine,
    ref_for,
)
from tests.support.fixture_server import FixtureServer
from tests.support.real_engine import EngineEnv
from tests.support.ref_walk import RefWalk
from tests.support.ref_walk_judge import Figures

SEEDS = (1, 2, 3)
ACTIONS_PER_SEED = 340
MAX_REFUSED_UNCHANGED_RATE = 0.01

_TREE_LINE = re.compile(r'- (\w+) "([^"]*)".*\bref=(e\d+)\b')


# ----- the walk -------------------------------------------------------------------------------


@real_engine
@pytest.mark.timeout(900)
async def test_a_thousand_random_calls_never_hit_another_element(
    engine_env: EngineEnv, fixture_site: FixtureServer, tmp_path: Path
) -> None:
    """Wrong dispatches must be 0 and refusals of unchanged elements at most 1%."""
    total = Figures()
    for seed in SEEDS:
        home = tmp_path / f"seed-{seed}"
        home.mkdir()
        async with open_conversation(engine_env, home) as conv:
            walk = RefWalk(conv.tools, fixture_site.base_url, seed)
            total.add(await walk.run(ACTIONS_PER_SEED))
    report = total.report()
    print(report)
    wrong, rate, unmatched = total.wrong, total.refused_unchanged_rate, total.snapshots_unmatched

    assert total.actions >= len(SEEDS) * ACTIONS_PER_SEED
    assert unmatched <= total.snapshots // 10, report  # else too little was judged
    assert wrong == 0, report
    assert rate <= MAX_REFUSED_UNCHANGED_RATE, report


# ----- one mechanism each -----------------------------------------------------------------------


@pytest.fixture
async def conv(engine_env: EngineEnv, tmp_path: Path) -> AsyncIterator[Conversation]:
    async with open_conversation(engine_env, tmp_path) as conversation:
        yield conversation


async def _walk_page(conv: Conversation, site: FixtureServer) -> ToolResult:
    """Open walk.html and return the model's first snapshot."""
    await conv.ok(["open", site.url("walk.html")])
    return await conv.ok(["snapshot", "-i"])


def _nth_ref(result: ToolResult, role: str, name: str, n: int) -> str:
    """`@eN` of the n-th (0-based, tree order) ref with this role and name: for twins."""
    text = str(result.details["data"]["snapshot"])
    found = [m[3] for m in _TREE_LINE.finditer(text) if (m[1], m[2]) == (role, name)]
    return "@" + found[n]


async def _events(conv: Conversation) -> list[tuple[str, str]]:
    """(logical element, event type) of everything the page received since it was cleared."""
    result = await conv.ok(["eval", "JSON.stringify(walkEvents)"])
    events = json.loads(result.details["data"]["result"])
    return [(e["logical"], e["type"]) for e in events]


async def _refused(conv: Conversation, args: list[str], reason: str | None = None) -> None:
    """The call is refused as stale-ref (for `reason`, when given) and nothing is hit."""
    blocked = await conv.call(args)
    assert_stale_ref(blocked)
    if reason is not None:
        assert blocked.details["staleRef"]["reason"] == reason, blocked.details["staleRef"]
    assert await _events(conv) == []


@real_engine
async def test_an_index_keyed_rotate_refuses_the_old_ref(
    conv: Conversation, fixture_site: FixtureServer
) -> None:
    alpha = ref_for(await _walk_page(conv, fixture_site), "button", "Details Alpha")
    await conv.ok(["eval", "walkOp('rotate')"])

    await _refused(conv, ["click", alpha], "element-changed")


@real_engine
async def test_a_twin_edit_button_whose_row_rotated_is_refused(
    conv: Conversation, fixture_site: FixtureServer
) -> None:
    """Duplicate names: the second "Edit" is told apart by its neighbours."""
    edit_bravo = _nth_ref(await _walk_page(conv, fixture_site), "button", "Edit", 1)
    await conv.ok(["eval", "walkOp('rotate')"])

    await _refused(conv, ["click", edit_bravo], "element-changed")


@real_engine
async def test_a_keyed_sort_that_moves_nodes_still_clicks_the_named_row(
    conv: Conversation, fixture_site: FixtureServer
) -> None:
    snap = await _walk_page(conv, fixture_site)
    charlie, edit_bravo = (
        ref_for(snap, "button", "Details Charlie"),
        _nth_ref(snap, "button", "Edit", 1),
    )
    await conv.ok(["eval", "walkOp('sort')"])

    await conv.ok(["click", charlie])
    await conv.ok(["click", edit_bravo])

    assert await _events(conv) == [("details-charlie", "click"), ("edit-bravo", "click")]


@real_engine
async def test_a_shuffle_to_fresh_nodes_refuses_the_old_ref(
    conv: Conversation, fixture_site: FixtureServer
) -> None:
    alpha = ref_for(await _walk_page(conv, fixture_site), "button", "Details Alpha")
    await conv.ok(["eval", "walkOp('shuffle')"])

    await _refused(conv, ["click", alpha], "element-gone")


@real_engine
async def test_a_removed_row_is_refused(conv: Conversation, fixture_site: FixtureServer) -> None:
    note_alpha = _nth_ref(await _walk_page(conv, fixture_site), "textbox", "Note", 0)
    await conv.ok(["eval", "walkOp('remove')"])

    await _refused(conv, ["fill", note_alpha, "gone"], "element-gone")


@real_engine
async def test_typing_into_the_filter_refuses_a_row_ref_from_before(
    conv: Conversation, fixture_site: FixtureServer
) -> None:
    snap = await _walk_page(conv, fixture_site)
    await conv.ok(["fill", ref_for(snap, "textbox", "Filter"), "ch"])
    await conv.ok(["eval", "walkClear()"])

    await _refused(conv, ["click", ref_for(snap, "button", "Details Alpha")], "element-changed")


@real_engine
async def test_pinning_a_row_refuses_the_checkbox_that_now_shows_another_row(
    conv: Conversation, fixture_site: FixtureServer
) -> None:
    snap = await _walk_page(conv, fixture_site)
    await conv.ok(["click", ref_for(snap, "checkbox", "Pin Charlie")])
    assert await _events(conv) == [("pin-charlie", t) for t in ("click", "input", "change")]
    await conv.ok(["eval", "walkClear()"])

    await _refused(conv, ["click", ref_for(snap, "checkbox", "Pin Alpha")], "element-changed")


@real_engine
async def test_the_wizards_old_continue_is_refused_not_resolved_to_the_new_one(
    conv: Conversation, fixture_site: FixtureServer
) -> None:
    """The engine would re-resolve a gone node by role and name: the next step's Continue."""
    proceed = ref_for(await _walk_page(conv, fixture_site), "button", "Continue")
    await conv.ok(["click", proceed])
    assert await _events(conv) == [("continue-1", "click")]
    await conv.ok(["eval", "walkClear()"])

    await _refused(conv, ["click", proceed], "element-gone")


@real_engine
async def test_a_pushstate_view_swap_refuses_refs_from_the_other_view(
    conv: Conversation, fixture_site: FixtureServer
) -> None:
    snap = await _walk_page(conv, fixture_site)
    await conv.ok(["click", ref_for(snap, "link", "Tasks view")])
    url = await conv.ok(["get", "url"])
    assert url.details["data"]["url"] == fixture_site.url("walk.html?view=tasks")
    await conv.ok(["eval", "walkClear()"])

    await _refused(conv, ["click", ref_for(snap, "button", "Details Alpha")])


@real_engine
async def test_a_form_post_that_redirects_to_the_same_url_refuses_old_refs(
    conv: Conversation, fixture_site: FixtureServer
) -> None:
    snap = await _walk_page(conv, fixture_site)
    await conv.ok(["fill", ref_for(snap, "textbox", "Comment"), "hello"])
    await conv.ok(["click", ref_for(snap, "button", "Submit")])
    url = await conv.ok(["get", "url"])
    assert url.details["data"]["url"] == fixture_site.url("walk.html")
    await conv.ok(["eval", "walkClear()"])

    await _refused(conv, ["click", ref_for(snap, "button", "Details Alpha")], "element-gone")


@real_engine
async def test_a_timer_patch_between_snapshot_and_action_is_refused(
    conv: Conversation, fixture_site: FixtureServer
) -> None:
    alpha = ref_for(await _walk_page(conv, fixture_site), "button", "Details Alpha")
    await conv.ok(["eval", "armTimer(50, 'rotate')"])
    await asyncio.sleep(0.2)  # the model's think time; the patch lands in it

    await _refused(conv, ["click", alpha], "element-changed")


@real_engine
async def test_refs_from_the_opener_tab_are_refused_in_a_new_tab(
    conv: Conversation, fixture_site: FixtureServer
) -> None:
    snap = await _walk_page(conv, fixture_site)
    await conv.ok(["click", ref_for(snap, "link", "Open copy")])
    tabs = await conv.ok(["tab", "list"])
    assert len(tabs.details["data"]["tabs"]) == 2
    await conv.ok(["eval", "walkClear()"])

    await _refused(conv, ["click", ref_for(snap, "button", "Details Alpha")])


# ----- mechanisms the walk found hitting another element (issue 14) --------------------------


@real_engine
async def test_check_on_a_pin_that_resorts_in_place_touches_only_that_row(
    conv: Conversation, fixture_site: FixtureServer
) -> None:
    snap = await _walk_page(conv, fixture_site)

    await conv.ok(["check", ref_for(snap, "checkbox", "Pin Charlie")])

    assert await _events(conv) == [("pin-charlie", t) for t in ("click", "input", "change")]


@real_engine
async def test_a_batch_row_after_a_select_is_checked_against_the_page(
    conv: Conversation, fixture_site: FixtureServer
) -> None:
    snap = await _walk_page(conv, fixture_site)
    alpha = ref_for(snap, "button", "Details Alpha")
    await conv.ok(["eval", "walkOp('rotate')"])
    rows = [["select", ref_for(snap, "combobox", "Order"), "name"], ["click", alpha]]

    blocked = await conv.call(["batch", "--bail"], stdin=json.dumps(rows))

    assert_stale_ref(blocked)
    assert blocked.details["staleRef"]["refs"] == [alpha]
    assert await _events(conv) == []


@real_engine
@pytest.mark.parametrize(
    "first",
    [("click", "checkbox", "Pin Charlie"), ("fill", "textbox", "Filter")],
    ids=["pin", "filter"],
)
async def test_a_batch_row_that_rerenders_the_list_does_not_redirect_later_rows(
    conv: Conversation, fixture_site: FixtureServer, first: tuple[str, str, str]
) -> None:
    snap = await _walk_page(conv, fixture_site)
    verb, role, name = first
    row = [verb, ref_for(snap, role, name)] + (["ch"] if verb == "fill" else [])
    rows = [row, ["click", ref_for(snap, "button", "Details Alpha")]]

    result = await conv.call(["batch", "--bail"], stdin=json.dumps(rows))

    hit = {logical for logical, _ in await _events(conv)}
    assert hit <= {f"{'pin-charlie' if verb == 'click' else 'ctl-filter'}", "details-alpha"}, (
        result.details
    )
