"""A password pressed key by key stays covered when a key changes nothing (real engine).

Each `press` into a password field registers the value the field will hold; a key that
changes nothing (the field is full, the page cancels it, an input filter takes it out again)
must not leave the value the field really holds uncovered. Each field mirrors its value into
text, so `get text` of the mirror shows whatever is not scrubbed. Both paths are tried: the
wrapper's own browser, where a press uses the focused-field read of the press before it, and
a session the caller named, where every press reads the field itself.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pytest

from agent_browser_tools.api import BrowserTools
from agent_browser_tools.credentials import TYPED_PLACEHOLDER
from agent_browser_tools.engine.runner import RawOutcome
from tests.support.fixture_server import FixtureServer
from tests.support.tools import ab

pytestmark = pytest.mark.real_engine

CASES = {
    # field: (keys pressed one per call, the value the field ends with)
    "short": ("Zq7Kw2RmX", "Zq7Kw2Rm"),  # maxlength=8
    "cancel": ("Pq9Wz9Xy79", "PqWzXy7"),  # keydown preventDefault of `9`
    "filter": ("Pq9Wz9Xy79", "PqWzXy7"),  # an input handler takes `9` out again
}
SESSIONS = {"managed": (), "named": ("--session", "keys-named")}


@pytest.mark.parametrize("session", sorted(SESSIONS))
@pytest.mark.parametrize("field", sorted(CASES))
async def test_a_key_that_changes_nothing_leaves_the_real_value_covered(
    field: str, session: str, browser_tools: BrowserTools, fixture_site: FixtureServer
) -> None:
    keys, real = CASES[field]
    prefix = SESSIONS[session]
    try:
        opened = await ab(browser_tools, *prefix, "open", fixture_site.url("key-fields.html"))
        assert not opened.is_error, opened.text
        assert not (await ab(browser_tools, *prefix, "focus", f"#{field}")).is_error
        for key in keys:
            pressed = await ab(browser_tools, *prefix, "press", key)
            assert not pressed.is_error, pressed.text
            assert pressed.details["redacted"]["reason"] == "credential-field", pressed.details
        shown = await ab(browser_tools, *prefix, "get", "text", f"#{field}-echo")
        assert not shown.is_error, shown.text
        assert shown.text.strip() == f"value: {TYPED_PLACEHOLDER}", shown.text
        read = await ab(browser_tools, *prefix, "eval", f"document.getElementById('{field}').value")
        seen = read.text + repr(read.details)
        assert real not in seen and real[2:] not in seen and TYPED_PLACEHOLDER in seen, seen
    finally:
        if prefix:
            await ab(browser_tools, *prefix, "close")


async def test_an_ordinary_field_pressed_key_by_key_is_left_alone(
    browser_tools: BrowserTools, fixture_site: FixtureServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The control: nothing of a plain field's value is redacted, and a press after a press
    needs no read of its own: two engine calls, the press and its post-action batch."""
    assert not (await ab(browser_tools, "open", fixture_site.url("key-fields.html"))).is_error
    assert not (await ab(browser_tools, "focus", "#plain")).is_error
    rt = browser_tools.runtime
    spawn = rt.spawn
    spawned: list[list[str]] = []

    async def counting(args: Sequence[str], **kwargs: Any) -> RawOutcome:
        spawned.append(list(args))
        return await spawn(args, **kwargs)

    monkeypatch.setattr(rt, "spawn", counting)
    per_press = []
    for key in "hello":
        spawned.clear()
        pressed = await ab(browser_tools, "press", key)
        assert not pressed.is_error and "redacted" not in pressed.details, pressed.details
        per_press.append([argv[argv.index("--session") + 2 :][:2] for argv in spawned])
    # The first press reads the field once; its probe batch may run twice: a page opened
    # under 200 ms ago counts as the press's own new page, so the settle wait runs (`nav_settle`).
    assert per_press[0][:3] == [["batch"], ["press", "h"], ["batch", "--bail"]], per_press
    assert per_press[0][3:] in ([], [["batch", "--bail"]]), per_press
    assert per_press[1:] == [[["press", key], ["batch", "--bail"]] for key in "ello"], per_press
    shown = await ab(browser_tools, "get", "text", "#plain-echo")
    assert shown.text.strip() == "value: hello", shown.text
