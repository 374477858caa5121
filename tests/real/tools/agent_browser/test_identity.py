"""The identity check with the real engine: a ref acts on the element the snapshot named.

Engine 0.39.4 keys refs by DOM node: a node keeps its id across snapshots and the engine acts
on whatever that node shows now. The churn fixture reports which logical row and which node
each click hit, so these tests see what really happened, not what the tool said.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from tests.real.tools.agent_browser.test_direct_tool import (
    Conversation,
    assert_stale_ref,
    open_conversation,
    real_engine,
    ref_for,
)
from tests.support.fixture_server import FixtureServer
from tests.support.real_engine import EngineEnv


@pytest.fixture
async def conv(engine_env: EngineEnv, tmp_path: Path) -> AsyncIterator[Conversation]:
    async with open_conversation(engine_env, tmp_path) as conversation:
        yield conversation


async def _hits(conv: Conversation) -> list[str]:
    result = await conv.ok(["eval", "JSON.stringify(window.hits)"])
    hits: list[str] = json.loads(result.details["data"]["result"])
    return hits


async def _churn(conv: Conversation, fixture_site: FixtureServer) -> str:
    """Open the fixture and return the ref of row A's button from a fresh snapshot."""
    await conv.ok(["open", fixture_site.url("churn.html")])
    return ref_for(await conv.ok(["snapshot", "-i"]), "button", "Details A")


@real_engine
async def test_an_in_place_patch_is_refused_instead_of_clicking_another_row(
    conv: Conversation, fixture_site: FixtureServer
) -> None:
    row_a = await _churn(conv, fixture_site)
    await conv.ok(["eval", "patchInPlace(['C', 'A', 'B'])"])

    blocked = await conv.call(["click", row_a])

    assert_stale_ref(blocked)
    assert blocked.details["staleRef"]["reason"] == "element-changed"
    assert 'was button "Details A"; it is now button "Details C"' in blocked.details["error"]
    assert await _hits(conv) == []


async def _leftovers(conv: Conversation) -> str:
    """What the wrapper's own checks left on the page: markers and a click probe."""
    found = await conv.ok(
        [
            "eval",
            "document.querySelectorAll('[data-abt-ref-check],[data-abt-click-probe]').length"
            " + '/' + !!window.__abtClickProbe",
        ]
    )
    return str(found.details["data"]["result"])


@real_engine
async def test_the_checks_leave_no_marker_or_probe_behind_a_click_or_a_refusal(
    conv: Conversation, fixture_site: FixtureServer
) -> None:
    """A ref click's identity markers bind its dispatch probe and stay on the page until the
    probe is collected after the click; a refused click removes them at once."""
    row_a = await _churn(conv, fixture_site)
    clicked = await conv.ok(["click", row_a])
    assert "clickDispatch" not in clicked.details
    assert await _leftovers(conv) == "0/false"
    assert await _hits(conv) != []
    row_b = ref_for(await conv.ok(["snapshot", "-i"]), "button", "Details B")
    await conv.ok(["eval", "patchInPlace(['C', 'A', 'B'])"])
    blocked = await conv.call(["click", row_b])
    assert_stale_ref(blocked)
    assert await _leftovers(conv) == "0/false"


@real_engine
async def test_a_sort_that_moves_the_same_nodes_still_clicks_the_named_row(
    conv: Conversation, fixture_site: FixtureServer
) -> None:
    """An unchanged element is not refused just because the list around it moved."""
    row_a = await _churn(conv, fixture_site)
    await conv.ok(["eval", "sortMoving(['C', 'B', 'A'])"])

    await conv.ok(["click", row_a])

    assert [hit.split(":")[0] for hit in await _hits(conv)] == ["A"]


@real_engine
async def test_a_removed_row_is_refused_as_gone(
    conv: Conversation, fixture_site: FixtureServer
) -> None:
    row_a = await _churn(conv, fixture_site)
    await conv.ok(["eval", "removeRow('A')"])

    blocked = await conv.call(["click", row_a])

    assert_stale_ref(blocked)
    assert blocked.details["staleRef"]["reason"] == "element-gone"
    assert await _hits(conv) == []


@real_engine
async def test_a_read_of_a_patched_row_is_refused_not_answered_for_another_row(
    conv: Conversation, fixture_site: FixtureServer
) -> None:
    row_a = await _churn(conv, fixture_site)
    await conv.ok(["eval", "patchInPlace(['B', 'C', 'A'])"])

    blocked = await conv.call(["get", "text", row_a])

    assert_stale_ref(blocked)
    assert blocked.details["staleRef"]["reason"] == "element-changed"


@real_engine
async def test_a_batch_whose_later_element_already_changed_runs_nothing(
    conv: Conversation, fixture_site: FixtureServer
) -> None:
    await conv.ok(["open", fixture_site.url("churn.html")])
    snap = await conv.ok(["snapshot", "-i"])
    row_a, row_b = ref_for(snap, "button", "Details A"), ref_for(snap, "button", "Details B")
    await conv.ok(["eval", "patchInPlace(['A', 'C', 'B'])"])

    rows = [["click", row_a], ["click", row_b]]
    blocked = await conv.call(["batch", "--bail"], stdin=json.dumps(rows))

    assert_stale_ref(blocked)
    assert blocked.details["staleRef"] == {"refs": [row_b], "step": 2, "reason": "element-changed"}
    assert await _hits(conv) == []  # refused before step 1 ran: every ref is re-read first


@real_engine
async def test_a_batch_re_reads_refs_after_a_step_that_re_rendered_the_list(
    conv: Conversation, fixture_site: FixtureServer
) -> None:
    """Step 1 patches the rows in place; step 2's ref is re-read there and refused."""
    await conv.ok(["open", fixture_site.url("churn.html")])
    snap = await conv.ok(["snapshot", "-i"])
    rows = [
        ["click", ref_for(snap, "button", "Rotate")],
        ["click", ref_for(snap, "button", "Details A")],
    ]

    blocked = await conv.call(["batch", "--bail"], stdin=json.dumps(rows))

    assert_stale_ref(blocked)
    assert blocked.details["staleRef"]["step"] == 2
    assert blocked.details["staleRef"]["reason"] == "element-changed"
    steps = blocked.details["batchSteps"]
    assert [s["success"] for s in steps] == [True, False]
    assert await _hits(conv) == []


@real_engine
async def test_a_batch_of_unchanged_elements_after_a_click_is_not_refused(
    conv: Conversation, fixture_site: FixtureServer
) -> None:
    """The blanket latch used to refuse step 2 although nothing re-rendered."""
    await conv.ok(["open", fixture_site.url("churn.html")])
    snap = await conv.ok(["snapshot", "-i"])
    rows = [
        ["click", ref_for(snap, "button", "Details A")],
        ["click", ref_for(snap, "button", "Details B")],
    ]

    await conv.ok(["batch", "--bail"], stdin=json.dumps(rows))

    assert [hit.split(":")[0] for hit in await _hits(conv)] == ["A", "B"]


@real_engine
async def test_a_ref_from_before_a_browser_restart_never_names_a_new_element(
    conv: Conversation, fixture_site: FixtureServer
) -> None:
    """The engine counts refs from e1 again in a new browser; shown refs keep counting up."""
    old_a = await _churn(conv, fixture_site)
    await conv.ok(["close"])
    # The engine answers a command sent while its daemon is still exiting with "Invalid
    # response: EOF"; wait for the daemon's socket to go first (an engine race, not ours).
    deadline = time.monotonic() + 10
    while conv.sockets() and time.monotonic() < deadline:
        await asyncio.sleep(0.1)
    await conv.ok(["open", fixture_site.url("churn.html")])
    snap = await conv.ok(["snapshot", "-i"])
    new_a = ref_for(snap, "button", "Details A")
    assert int(new_a.removeprefix("@e")) > int(old_a.removeprefix("@e")), (old_a, new_a)
    assert old_a.removeprefix("@") not in snap.details["refSnapshot"]["refs"]

    assert_stale_ref(await conv.call(["click", old_a]))
    # The new browser has no element with the shown number: the click only lands on row A
    # because the wrapper sends the engine its own id.
    await conv.ok(["click", new_a])

    assert [hit.split(":")[0] for hit in await _hits(conv)] == ["A"]


@real_engine
async def test_a_ref_from_an_older_snapshot_never_passes_for_the_node_it_now_shows(
    conv: Conversation, fixture_site: FixtureServer
) -> None:
    """The engine keeps a node's id when it is patched in place; the shown id must not."""
    row_a = await _churn(conv, fixture_site)
    await conv.ok(["eval", "patchInPlace(['C', 'A', 'B'])"])
    later = await conv.ok(["snapshot", "-i"])
    assert ref_for(later, "button", "Details C") != row_a  # the node's new content, new id

    blocked = await conv.call(["click", row_a])  # the model reads its older snapshot

    assert_stale_ref(blocked)
    # Refused for what became of its element (issue 28), not for being old.
    assert blocked.details["staleRef"]["reason"] == "element-changed"
    assert 'now shows button "Details C"' in blocked.text
    assert await _hits(conv) == []
    await conv.ok(["click", ref_for(later, "button", "Details A")])
    assert [hit.split(":")[0] for hit in await _hits(conv)] == ["A"]
