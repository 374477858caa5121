"""Refs as stable as the engine's (issue 28), on the real engine.

A ref names a DOM node and keeps its name while the node shows the same element, so a model
that remembers a ref from an earlier snapshot can still use it; a node that now shows
something else is still refused (`element-changed`).
"""

from __future__ import annotations

import json
import re
from collections.abc import AsyncIterator, Sequence
from pathlib import Path
from typing import Any

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

_TREE_LINE = re.compile(r'- (\w+)(?: "([^"]*)")?.*\bref=(e\d+)\b')


@pytest.fixture
async def conv(engine_env: EngineEnv, tmp_path: Path) -> AsyncIterator[Conversation]:
    async with open_conversation(engine_env, tmp_path) as conversation:
        yield conversation


async def _page(conv: Conversation, site: FixtureServer) -> ToolResult:
    await conv.ok(["open", site.url("stable-refs.html")])
    return await conv.ok(["snapshot", "-i"])


def _refs(result: ToolResult, role: str, name: str = "") -> list[str]:
    """`@eN` of every ref with this role and name, in tree order."""
    text = str(result.details["data"]["snapshot"])
    return ["@" + m[3] for m in _TREE_LINE.finditer(text) if (m[1], m[2] or "") == (role, name)]


async def _events(conv: Conversation) -> list[list[str]]:
    result = await conv.ok(["eval", "JSON.stringify(window.events.splice(0))"])
    return list(json.loads(result.details["data"]["result"]))


@real_engine
async def test_a_tree_whose_folder_opens_on_a_click_keeps_its_siblings_refs(
    conv: Conversation, fixture_site: FixtureServer
) -> None:
    first = await _page(conv, fixture_site)
    names = ("Documents", "Emile", "Photos", "Music")
    before = {name: ref_for(first, "treeitem", name) for name in names}

    await conv.ok(["find", "text", "Emile", "click"])
    second = await conv.ok(["snapshot", "-i"])

    assert {name: ref_for(second, "treeitem", name) for name in names} == before
    assert ref_for(second, "treeitem", "notes.txt") not in before.values()
    await _events(conv)
    await conv.ok(["click", before["Photos"]])  # remembered from the first snapshot
    assert await _events(conv) == [["photos", "click"]]


@real_engine
async def test_an_unlabelled_field_keeps_its_ref_while_a_suggestion_list_comes_and_goes(
    conv: Conversation, fixture_site: FixtureServer
) -> None:
    first = await _page(conv, fixture_site)
    fields = _refs(first, "textbox")
    assert len(fields) == 2  # two unlabelled look-alikes: told apart by their anchors

    await conv.ok(["fill", fields[0], "P"])
    with_list = await conv.ok(["snapshot", "-i"])
    assert _refs(with_list, "option", "Paris")
    assert _refs(with_list, "textbox") == fields
    await conv.ok(["fill", fields[0], ""])
    without = await conv.ok(["snapshot", "-i"])
    assert not _refs(without, "option", "Paris")
    assert _refs(without, "textbox") == fields

    await _events(conv)
    await conv.ok(["fill", fields[0], "Paris"])  # the first snapshot's ref acts
    await conv.ok(["fill", fields[1], "Rome"])
    assert {e[0] for e in await _events(conv)} == {"from", "to"}
    values = await conv.ok(
        ["eval", "[from.value, document.querySelector('[data-logical=to]').value]"]
    )
    assert values.details["data"]["result"] == ["Paris", "Rome"]


@real_engine
async def test_a_toggle_relabelled_button_is_still_refused_as_element_changed(
    conv: Conversation, fixture_site: FixtureServer
) -> None:
    first = await _page(conv, fixture_site)
    show = ref_for(first, "button", "Show details")
    await conv.ok(["click", show])
    await _events(conv)

    blocked = await conv.call(["click", show])

    assert_stale_ref(blocked)
    assert blocked.details["staleRef"]["reason"] == "element-changed"
    assert 'was button "Show details"' in blocked.text and "Hide details" in blocked.text
    assert await _events(conv) == []

    second = await conv.ok(["snapshot", "-i"])  # a later snapshot shows the node anew
    assert ref_for(second, "button", "Hide details") != show
    again = await conv.call(["click", show])
    assert_stale_ref(again)
    assert again.details["staleRef"]["reason"] == "element-changed"
    assert await _events(conv) == []


@real_engine
async def test_a_button_relabelled_and_back_acts_under_its_first_ref_again(
    conv: Conversation, fixture_site: FixtureServer
) -> None:
    """ "Show details" becomes "Hide details" (a snapshot shows it under a new ref), then
    "Show details" again: the same node reads as the first ref did, so that ref acts again,
    and the next snapshot shows the button under it."""
    first = await _page(conv, fixture_site)
    show = ref_for(first, "button", "Show details")
    await conv.ok(["click", show])
    hide = ref_for(await conv.ok(["snapshot", "-i"]), "button", "Hide details")
    assert hide != show
    await conv.ok(["click", hide])
    await _events(conv)

    await conv.ok(["click", show])

    assert await _events(conv) == [["toggle", "click"]]
    third = await conv.ok(["snapshot", "-i"])
    assert ref_for(third, "button", "Hide details") == hide
    assert_stale_ref(await conv.call(["click", show]))  # it reads "Hide details" again
    assert await _events(conv) == []


@real_engine
async def test_a_tabs_refs_act_again_after_a_visit_to_another_tab(
    conv: Conversation, fixture_site: FixtureServer
) -> None:
    """Looking at a second tab and coming back: the first tab's refs (which the engine
    forgot when the second was snapshotted) act again, proven against the page; the second
    tab's refs do not pass for elements of the first."""
    first = await _page(conv, fixture_site)
    photos = ref_for(first, "treeitem", "Photos")
    await conv.ok(["tab", "new", fixture_site.url("form.html")])
    other = await conv.ok(["snapshot", "-i"])
    submit = ref_for(other, "button", "Submit")

    await conv.ok(["tab", "t1"])
    await _events(conv)
    await conv.ok(["click", photos])
    assert await _events(conv) == [["photos", "click"]]
    elsewhere = await conv.call(["click", submit])
    assert_stale_ref(elsewhere)
    assert await _events(conv) == []


@real_engine
async def test_an_element_relabelled_while_its_tab_was_away_is_refused(
    conv: Conversation, fixture_site: FixtureServer
) -> None:
    first = await _page(conv, fixture_site)
    show = ref_for(first, "button", "Show details")
    await conv.ok(["tab", "new", fixture_site.url("form.html")])
    await conv.ok(["snapshot", "-i"])
    await conv.ok(["tab", "t1"])
    await conv.ok(["eval", "toggle.textContent = 'Hide details'"])
    await _events(conv)

    blocked = await conv.call(["click", show])

    assert_stale_ref(blocked)
    assert blocked.details["staleRef"]["reason"] == "element-changed"
    assert await _events(conv) == []


async def _twins(conv: Conversation, site: FixtureServer) -> ToolResult:
    await conv.ok(["open", site.url("twin-rows.html")])
    return await conv.ok(["snapshot", "-i"])


def _spawned(conv: Conversation) -> list[list[str]]:
    """Every engine argv the conversation spawns from now on."""
    rt = conv.tools.runtime
    spawn, seen = rt.spawn, []

    async def recorded(args: Sequence[str], *rest: Any, **kw: Any) -> Any:
        seen.append(list(args))
        return await spawn(args, *rest, **kw)

    rt.spawn = recorded  # type: ignore[method-assign]
    return seen


@real_engine
async def test_unchanged_refs_are_proven_in_the_page_without_reading_it_again(
    conv: Conversation, fixture_site: FixtureServer
) -> None:
    """A twin "Edit" and a unique "Save": the page proves each is the engine's node, unchanged,
    in one helper batch; no snapshot runs and no marker stays on the page. After an in-place
    change next to the twin, the proof fails and the full re-read decides."""
    first = await _twins(conv, fixture_site)
    edits, save = _refs(first, "button", "Edit"), ref_for(first, "button", "Save")
    await _events(conv)
    seen = _spawned(conv)

    await conv.ok(["click", edits[2]])
    await conv.ok(["click", save])

    assert not [argv for argv in seen if "snapshot" in argv]
    assert await _events(conv) == [["edit-c", "click"], ["save", "click"]]
    marked = await conv.ok(["eval", "document.querySelectorAll('[data-abt-ref-check]').length"])
    assert marked.details["data"]["result"] == 0
    await conv.ok(["eval", "document.getElementById('row-b').append(' (new)')"])
    seen.clear()
    await conv.ok(["click", edits[1]])
    assert [argv for argv in seen if "snapshot" in argv]


@real_engine
async def test_a_twin_whose_row_was_removed_is_not_proven_by_the_next_twin(
    conv: Conversation, fixture_site: FixtureServer
) -> None:
    """Rows A, B, C each have an "Edit" button; B's row is removed in place. B's ref must not
    pass as C's button (the engine re-resolves a gone node by role, name and position)."""
    first = await _twins(conv, fixture_site)
    edits = _refs(first, "button", "Edit")
    assert len(edits) == 3
    await conv.ok(["eval", "document.getElementById('row-b').remove()"])
    await _events(conv)

    blocked = await conv.call(["click", edits[1]])

    assert await _events(conv) == []
    assert_stale_ref(blocked)
    assert blocked.details["staleRef"]["reason"] == "element-gone"
    await conv.ok(["click", edits[2]])  # C's own ref still acts
    assert await _events(conv) == [["edit-c", "click"]]


@real_engine
async def test_a_renamed_element_under_a_stacked_look_alike_is_refused(
    conv: Conversation, fixture_site: FixtureServer
) -> None:
    """The page renames "Save" to "Delete"; an unchanged, invisible "Save" look-alike sits
    exactly on it. The look-alike must not prove the ref: the click would reach "Delete"."""
    first = await _twins(conv, fixture_site)
    save = ref_for(first, "button", "Save")
    await conv.ok(["eval", "document.getElementById('save').textContent = 'Delete'"])
    await _events(conv)

    blocked = await conv.call(["click", save])

    assert await _events(conv) == []
    assert_stale_ref(blocked)
    assert blocked.details["staleRef"]["reason"] == "element-changed"
    assert 'was button "Save"' in blocked.text and "Delete" in blocked.text


@real_engine
async def test_refs_from_before_a_back_within_one_document_act_again(
    conv: Conversation, fixture_site: FixtureServer
) -> None:
    """`back` between two views of one document: the engine numbers every element anew, but
    the page-side change log proves the same document, so the elements that read as before
    show the ids the model saw first and act on them; the slot, which read another label in
    between, is no longer the element that snapshot named; after a reload (a new document
    that reads the same) every element is new."""
    first = await _page(conv, fixture_site)
    shuffle, note = ref_for(first, "button", "Shuffle"), ref_for(first, "textbox", "Note")
    await conv.ok(["click", ref_for(first, "link", "Second view")])
    second = await conv.ok(["snapshot", "-i"])
    slot = ref_for(second, "button", "Second item")
    await conv.ok(["back"])
    third = await conv.ok(["snapshot", "-i"])
    assert ref_for(third, "button", "Shuffle") == shuffle
    assert ref_for(third, "textbox", "Note") == note
    assert ref_for(third, "button", "First item") != slot

    await _events(conv)
    await conv.ok(["click", shuffle])
    await conv.ok(["fill", note, "kept"])
    events = await _events(conv)
    assert events[0] == ["shuffle", "click"] and events[1:]  # `fill` may input twice
    assert all(event == ["note", "input"] for event in events[1:])
    assert_stale_ref(await conv.call(["click", slot]))
    assert await _events(conv) == []

    await conv.ok(["reload"])  # a new document that reads exactly the same
    again = await conv.ok(["snapshot", "-i"])
    assert ref_for(again, "button", "Shuffle") != shuffle
    assert_stale_ref(await conv.call(["click", shuffle]))


@real_engine
async def test_a_ref_used_right_after_a_back_within_one_document_needs_no_snapshot(
    conv: Conversation, fixture_site: FixtureServer
) -> None:
    """The model acts right after `back` between two views of one document, with refs of the
    snapshot before it: the wrapper snapshots first. The slot, which reads another label
    now, is refused as changed; the untouched button acts under the ref the model saw."""
    first = await _page(conv, fixture_site)
    await conv.ok(["click", ref_for(first, "link", "Second view")])
    second = await conv.ok(["snapshot", "-i"])
    shuffle, slot = ref_for(second, "button", "Shuffle"), ref_for(second, "button", "Second item")
    await conv.ok(["back"])
    await _events(conv)

    blocked = await conv.call(["click", slot])

    assert_stale_ref(blocked)
    assert blocked.details["staleRef"]["reason"] == "element-changed"
    assert 'was button "Second item"' in blocked.text
    assert await _events(conv) == []
    await conv.ok(["click", shuffle])
    assert await _events(conv) == [["shuffle", "click"]]


@real_engine
async def test_a_button_hidden_by_css_alone_is_not_proven_and_never_clicks_its_twin(
    conv: Conversation, fixture_site: FixtureServer
) -> None:
    """Tab A's "Save" is hidden by a stylesheet rule (a radio's checked state: no DOM change
    the page's change log sees). The engine would click by role and name when the node has
    no box, reaching tab B's "Save": the proof refuses an element without a box, and the
    full re-read finds tab A's button gone."""
    await conv.ok(["open", fixture_site.url("css-tabs.html")])
    save_a = _refs(await conv.ok(["snapshot", "-i"]), "button", "Save")[0]
    await conv.ok(["eval", "document.getElementById('tab-b').checked = true"])
    await _events(conv)

    blocked = await conv.call(["click", save_a])

    assert_stale_ref(blocked)
    assert await _events(conv) == []
