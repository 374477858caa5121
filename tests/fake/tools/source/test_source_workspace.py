"""`agent_browser_source` on the fake engine: its workspace search never reads the server's own
state dir, hidden dirs or dotfiles, even when they sit inside the execution dir."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from agent_browser_tools.api import BrowserTools
from agent_browser_tools.engine.discovery import clear_engine_cache
from tests.support.fake import FakeEngine, fake_settings

NAME = "agent_browser_source"
PAGE = "https://shop.test/cart.html"
DEFINES = "export function SaveButton() { return null; } // {marker}\n"


@pytest.fixture(autouse=True)
def _fresh_engine_cache() -> Iterator[None]:
    clear_engine_cache()
    yield
    clear_engine_cache()


async def test_the_state_dir_and_hidden_files_in_the_workspace_are_never_searched(
    fake_engine: FakeEngine, tmp_path: Path
) -> None:
    """Attack: the state dir sits in the execution dir; a component definition planted there
    (and in a hidden dir and a dotfile) must never become a candidate or an excerpt."""
    workspace = tmp_path / "app"
    (workspace / "src").mkdir(parents=True)
    (workspace / "src" / "SaveButton.tsx").write_text(DEFINES.replace("{marker}", "real"))
    state = workspace / "abt-state"
    settings = fake_settings(fake_engine, tmp_path, AGENT_BROWSER_TOOLS_STATE_DIR=str(state))
    tools = BrowserTools(settings=settings, conversation_id="conv-src-ws", cwd=workspace)
    enabled = await tools.call("agent_browser_tools", {"enable": ["source"]})
    assert not enabled.is_error, enabled.text
    planted = DEFINES.replace("{marker}", "SECRET-STATE")
    (state / "spill").mkdir(parents=True, exist_ok=True)
    (state / "spill" / "page.tsx").write_text(planted)
    (workspace / ".cache").mkdir()
    (workspace / ".cache" / "x.tsx").write_text(planted)
    (workspace / ".SaveButton.tsx").write_text(planted)
    fake_engine.on({"command": ["open"]}, envelope={"data": {"url": PAGE, "title": "Cart"}})
    opened = await tools.call("agent_browser", {"args": ["open", PAGE]})
    assert not opened.is_error, opened.text
    tree = [{"command": ["react", "tree"], "success": True, "error": None, "result": {"tree": ""}}]
    fake_engine.on({"command": ["batch"]}, json=tree)
    result = await tools.call(NAME, {"componentName": "SaveButton"})
    found = result.details["sourceLookup"]
    files = [c["file"] for c in found["candidates"] if "file" in c]
    assert files == ["src/SaveButton.tsx"]
    assert any("server's own" in note for note in found["limitations"])
    assert "SECRET-STATE" not in result.text + json.dumps(result.details)
    await tools.aclose()
