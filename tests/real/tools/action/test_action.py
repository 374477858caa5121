"""`agent_browser_action` through `BrowserTools`: locator actions, accessible select, recovery.

The real-engine tests drive Chromium on the fixture form. Facts the real engine cannot be made
to show on demand (a select that must *not* be dispatched, a stale-ref answer to a `find`, a
label fill that misses a contenteditable) run against the fake engine, whose call log proves
exactly what was spawned.

Engine facts these tests rely on (0.39.4): `find label "Submit" click` misses because a button
has no `<label>`, although `snapshot -i` shows `button "Submit"`; `find placeholder "Rich notes"
fill` misses the contenteditable, which `snapshot -i` shows as `textbox "Rich notes"`; and
`find label "Rich notes" fill` *succeeds* on it (aria-label; it appends to the existing text), so
that miss needs the fake.
"""

from __future__ import annotations

import json
import os
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest

from agent_browser_tools import BrowserTools
from agent_browser_tools.engine.discovery import clear_engine_cache
from agent_browser_tools.results.tool_result import ToolResult
from agent_browser_tools.settings import Settings
from agent_browser_tools.tools.agent_browser.refs import page_watch
from tests.support.fake import FakeEngine
from tests.support.fixture_server import FixtureServer
from tests.support.real_engine import EngineEnv, track_socket_dir

real_engine = pytest.mark.real_engine

SECRET = "Draft-7Q private note"
AUDIT_KEYS = ("args", "effectiveArgs", "compiledSemanticAction")
"""Where the call's own argv is echoed for audit; recovery must not repeat fill text elsewhere."""


async def act(tools: BrowserTools, **fields: Any) -> ToolResult:
    return await tools.call("agent_browser_action", fields)


async def act_ok(tools: BrowserTools, **fields: Any) -> ToolResult:
    result = await act(tools, **fields)
    assert not result.is_error, f"{fields} failed: {result.text}\n{result.details}"
    return result


async def native(tools: BrowserTools, *args: str) -> ToolResult:
    result = await tools.call("agent_browser", {"args": list(args)})
    assert not result.is_error, f"{args} failed: {result.text}"
    return result


def ref_for(result: ToolResult, role: str, name: str) -> str:
    refs: dict[str, dict[str, str]] = result.details["refSnapshot"]["refs"]
    found = [r for r, info in refs.items() if (info.get("role"), info.get("name")) == (role, name)]
    assert len(found) == 1, f"{role} {name!r}: {found}"
    return "@" + found[0]


def action_ids(result: ToolResult) -> list[str]:
    return [a["id"] for a in result.details.get("nextActions", [])]


def assert_fill_text_not_repeated(result: ToolResult, text: str) -> None:
    """The fill text may appear only in the audit echo of the call itself."""
    assert text not in result.text
    rest = {k: v for k, v in result.details.items() if k not in AUDIT_KEYS}
    assert text not in json.dumps(rest)
    for action in result.details.get("nextActions", []):
        args = action["params"].get("args", [])
        assert not {"Enter", "submit", "press", "keyboard", "fill", "type"} & set(args), action
        assert "stdin" not in action["params"]


# ----- real engine ---------------------------------------------------------------------------


@pytest.fixture
async def tools(engine_env: EngineEnv, tmp_path: Path) -> AsyncIterator[BrowserTools]:
    track_socket_dir(engine_env.socket_dir)
    env = {**engine_env.env, "AGENT_BROWSER_TOOLS_STATE_DIR": str(tmp_path / "state")}
    browser = BrowserTools(
        settings=Settings.load(env=env, cwd=tmp_path), cwd=tmp_path, persist=False
    )
    try:
        enabled = await browser.call("agent_browser_tools", {"enable": ["action"]})
        assert not enabled.is_error, enabled.text
        yield browser
    finally:
        await browser.aclose()


@real_engine
async def test_fill_check_select_and_click_by_locator(
    tools: BrowserTools, fixture_site: FixtureServer
) -> None:
    await native(tools, "open", fixture_site.url("form.html"))

    filled = await act_ok(tools, action="fill", locator="label", value="Full name", text="Ada")
    await act_ok(tools, action="check", locator="label", value="Subscribe")
    flavor = await act_ok(
        tools, action="select", locator="label", value="Flavor", values=["chocolate"]
    )
    toppings = await act_ok(
        tools, action="select", role="listbox", name="Toppings", values=["nuts", "fudge"]
    )
    clicked = await act_ok(tools, action="click", role="button", name="Submit")

    assert filled.details["compiledSemanticAction"] == {
        "action": "fill",
        "locator": "label",
        "args": ["find", "label", "Full name", "fill", "Ada"],
    }
    combobox = ref_for(flavor, "combobox", "Flavor")
    assert flavor.details["effectiveArgs"][-3:] == ["select", combobox, "chocolate"]
    assert flavor.details["compiledSemanticAction"] == {
        "action": "select",
        "selector": combobox,
        "locator": "label",
        "values": ["chocolate"],
        "args": ["select", combobox, "chocolate"],
    }
    listbox = ref_for(toppings, "listbox", "Toppings")
    assert toppings.details["effectiveArgs"][-4:] == ["select", listbox, "nuts", "fudge"]
    assert clicked.details["compiledSemanticAction"]["args"] == [
        "find",
        "role",
        "button",
        "click",
        "--name",
        "Submit",
    ]
    result = (await native(tools, "get", "text", "#result")).text
    for line in ("Full name: Ada", "Flavor: chocolate", "Toppings: nuts, fudge", "Subscribe: yes"):
        assert line in result


@real_engine
async def test_role_combobox_select_by_name_and_a_missing_select_changes_nothing(
    tools: BrowserTools, fixture_site: FixtureServer
) -> None:
    await native(tools, "open", fixture_site.url("form.html"))

    chosen = await act_ok(
        tools, action="select", locator="role", role="combobox", name="Flavor", value="strawberry"
    )
    missing = await act(tools, action="select", locator="label", value="Colour", values=["red"])

    assert chosen.details["compiledSemanticAction"]["locator"] == "role"
    assert chosen.details["effectiveArgs"][-2:] == [
        ref_for(chosen, "combobox", "Flavor"),
        "strawberry",
    ]
    assert missing.is_error
    assert missing.details["failureCategory"] == "selector-not-found"
    assert missing.details["semanticSelect"]["status"] == "missing"
    assert missing.details["command"] == "snapshot"  # the only command that ran
    assert "nothing was selected" in missing.text
    value = await native(tools, "get", "value", "#flavor")
    assert value.details["data"]["value"] == "strawberry"


@real_engine
async def test_a_locator_miss_offers_the_exact_visible_ref(
    tools: BrowserTools, fixture_site: FixtureServer
) -> None:
    await native(tools, "open", fixture_site.url("form.html"))

    compiled = await act(tools, action="click", locator="label", value="Submit")
    raw = await tools.call("agent_browser", {"args": ["find", "label", "Submit", "click"]})

    for result in (compiled, raw):
        assert result.details["failureCategory"] == "selector-not-found"
        fallback = result.details["visibleRefFallback"]
        submit = ref_for(result, "button", "Submit")
        assert [(c["ref"], c["role"], c["name"]) for c in fallback["candidates"]] == [
            (submit, "button", "Submit")
        ]
        assert fallback["candidates"][0]["args"] == ["click", submit]
        assert fallback["target"] == {"locator": "label", "value": "Submit", "action": "click"}
        assert fallback["snapshot"]["refs"] == result.details["refSnapshot"]["refs"]
        assert "Current snapshot ref fallback" in result.text
        assert action_ids(result) == ["try-current-visible-ref"]
    assert "compiledSemanticAction" not in raw.details
    retry = raw.details["nextActions"][0]
    submitted = await tools.call(retry["tool"], retry["params"])
    assert not submitted.is_error, submitted.text
    assert "Full name:" in (await native(tools, "get", "text", "#result")).text


@real_engine
async def test_a_rich_input_fill_miss_offers_focus_and_click_but_never_the_text(
    tools: BrowserTools, fixture_site: FixtureServer
) -> None:
    await native(tools, "open", fixture_site.url("form.html"))

    missed = await act(tools, action="fill", locator="placeholder", value="Rich notes", text=SECRET)

    assert missed.details["failureCategory"] == "selector-not-found"
    rich = missed.details["richInputRecovery"]
    notes = ref_for(missed, "textbox", "Rich notes")
    assert [(c["ref"], c["focusArgs"], c["clickArgs"]) for c in rich["candidates"]] == [
        (notes, ["focus", notes], ["click", notes])
    ]
    assert "keyboard type" in rich["inputMethodHint"]
    assert "Rich input recovery" in missed.text
    assert action_ids(missed) == ["focus-current-editable-ref", "click-current-editable-ref"]
    assert "args" not in missed.details["visibleRefFallback"]["candidates"][0]
    assert_fill_text_not_repeated(missed, SECRET)
    # The recovery ladder: focus the current ref, then type in a separate call.
    focus = missed.details["nextActions"][0]
    assert not (await tools.call(focus["tool"], focus["params"])).is_error
    await native(tools, "keyboard", "type", SECRET)
    assert (await native(tools, "get", "text", "#rich-notes")).details["data"]["text"] == SECRET
    # Engine fact: a label fill reaches the contenteditable, but appends instead of replacing.
    await act_ok(tools, action="fill", locator="label", value="Rich notes", text="+more")
    text = (await native(tools, "get", "text", "#rich-notes")).details["data"]["text"]
    assert text == SECRET + "+more"


# ----- fake engine: what must not be dispatched ------------------------------------------------

PAGE = "https://shop.test/"


@pytest.fixture
def fake_tools(fake_engine: FakeEngine, tmp_path: Path) -> Iterator[BrowserTools]:
    clear_engine_cache()
    (tmp_path / "home").mkdir()
    base = {k: v for k, v in os.environ.items() if not k.startswith("AGENT_BROWSER")}
    env = {
        **base,
        "HOME": str(tmp_path / "home"),
        "AGENT_BROWSER_TOOLS_BIN": str(fake_engine.path),
        "AGENT_BROWSER_TOOLS_STATE_DIR": str(tmp_path / "state"),
    }
    browser = BrowserTools(
        settings=Settings.load(env=env, cwd=tmp_path), cwd=tmp_path, persist=False
    )
    assert browser.runtime.engine.path == str(fake_engine.path)
    browser.toolkit.enable(["action"])
    fake_engine.reset()
    try:
        yield browser
    finally:
        clear_engine_cache()


def snapshot_rule(fake: FakeEngine, refs: dict[str, dict[str, str]]) -> None:
    lines = "\n".join(f'- {r["role"]} "{r["name"]}" [ref={k}]' for k, r in refs.items())
    data = {"origin": PAGE, "refs": refs, "snapshot": lines}
    fake.on({"command": ["snapshot"]}, envelope={"data": data})


def commands(fake: FakeEngine) -> list[str]:
    """The command word of every spawned call (global flags dropped), without the change
    log's epoch read before a snapshot (`page_watch.begin_args`: the wrapper's own eval)."""
    from tests.support.fake_engine import command_path

    own = page_watch.begin_args()
    return [command_path(argv)[0] for argv in fake.argvs() if argv[-len(own) :] != own]


async def test_an_ambiguous_select_target_fails_before_any_select(
    fake_tools: BrowserTools, fake_engine: FakeEngine
) -> None:
    snapshot_rule(
        fake_engine,
        {"e1": {"role": "combobox", "name": "Size"}, "e2": {"role": "combobox", "name": "Size"}},
    )

    result = await act(fake_tools, action="select", role="combobox", name="Size", value="L")

    assert commands(fake_engine) == ["snapshot"]
    assert result.is_error
    assert result.details["failureCategory"] == "validation-error"
    assert result.details["semanticSelect"]["status"] == "ambiguous"
    assert action_ids(result) == ["try-current-visible-ref-1", "try-current-visible-ref-2"]
    assert result.details["nextActions"][1]["params"] == {"args": ["select", "@e2", "L"]}
    assert result.details["compiledSemanticAction"]["args"] == []


async def test_a_missing_select_target_fails_before_any_select(
    fake_tools: BrowserTools, fake_engine: FakeEngine
) -> None:
    snapshot_rule(fake_engine, {"e1": {"role": "combobox", "name": "Size"}})

    result = await act(
        fake_tools, action="select", locator="label", value="Colour", values=["red"], session="s9"
    )

    assert commands(fake_engine) == ["snapshot"]
    assert fake_engine.argvs()[0][:3] == ["--json", "--session", "s9"]
    assert result.details["failureCategory"] == "selector-not-found"
    assert result.details["nextActions"][0]["params"] == {
        "args": ["--session", "s9", "snapshot", "-i"]
    }


async def test_a_stale_compiled_find_offers_refresh_then_the_same_find(
    fake_tools: BrowserTools, fake_engine: FakeEngine
) -> None:
    fake_engine.on({"command": ["find"]}, envelope={"error": "Unknown ref: e99"})

    result = await act(fake_tools, action="click", locator="text", value="Submit", session="work")

    assert result.details["failureCategory"] == "stale-ref"
    assert action_ids(result) == [
        "refresh-interactive-refs",
        "retry-semantic-action-after-stale-ref",
    ]
    refresh, retry = result.details["nextActions"]
    assert refresh["params"] == {"args": ["--session", "work", "snapshot", "-i"]}
    assert retry["params"] == {"args": ["--session", "work", "find", "text", "Submit", "click"]}
    assert retry["params"]["args"] == result.details["compiledSemanticAction"]["args"]


async def test_a_stale_direct_select_ref_gets_refresh_guidance_only(
    fake_tools: BrowserTools, fake_engine: FakeEngine
) -> None:
    """A ref the conversation's snapshot issued that the engine no longer knows: stale (a
    ref no snapshot ever issued is a validation error instead, `unknown-ref`)."""
    snapshot_rule(fake_engine, {"e5": {"role": "combobox", "name": "Size"}})
    snap = await fake_tools.call("agent_browser", {"args": ["snapshot", "-i"]})
    assert not snap.is_error, snap.text
    fake_engine.on({"command": ["select"]}, envelope={"error": "Unknown ref: e5"})

    result = await act(fake_tools, action="select", selector="@e5", value="L")

    assert result.details["failureCategory"] == "stale-ref"
    assert action_ids(result) == ["refresh-interactive-refs"]


async def test_a_label_fill_miss_on_a_contenteditable_offers_rich_input_recovery(
    fake_tools: BrowserTools, fake_engine: FakeEngine
) -> None:
    miss = (
        "No element found by label 'Rich notes'. Verify the selector, role, or name is correct "
        "and the element exists in the DOM."
    )
    fake_engine.on({"command": ["find"]}, envelope={"error": miss})
    snapshot_rule(
        fake_engine,
        {"e3": {"role": "textbox", "name": "Rich notes"}, "e4": {"role": "button", "name": "Send"}},
    )

    result = await act(
        fake_tools, action="fill", locator="label", value="Rich notes", text=SECRET, session="w"
    )

    assert commands(fake_engine) == ["find", "snapshot"]
    assert result.details["failureCategory"] == "selector-not-found"
    assert action_ids(result) == ["focus-current-editable-ref", "click-current-editable-ref"]
    assert [a["params"]["args"] for a in result.details["nextActions"]] == [
        ["--session", "w", "focus", "@e3"],
        ["--session", "w", "click", "@e3"],
    ]
    assert result.details["richInputRecovery"]["nextActionIds"] == action_ids(result)
    assert_fill_text_not_repeated(result, SECRET)


async def test_bad_input_and_an_inactive_tool_spawn_nothing(
    fake_tools: BrowserTools, fake_engine: FakeEngine, tmp_path: Path
) -> None:
    bad = await act(fake_tools, action="fill", selector="#a", locator="label", text="x")
    fake_tools.toolkit.activated.clear()
    inactive = await act(fake_tools, action="click", selector="#a")

    assert bad.details["failureCategory"] == "validation-error"
    assert "cannot be combined" in bad.text
    assert inactive.is_error
    assert "enable it first" in inactive.text
    assert fake_engine.argvs() == []
