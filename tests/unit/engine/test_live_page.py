"""The live page read past the engine daemon: which tab is the session's (pure parts)."""

from __future__ import annotations

import json
from pathlib import Path

from agent_browser_tools.engine.live_page import LivePage, active_target, pick, read

TARGETS = [
    {"id": "A", "type": "page", "title": "Form", "url": "http://127.0.0.1/form.html"},
    {"id": "B", "type": "page", "title": "New Tab", "url": "chrome://newtab/"},
    {"id": "C", "type": "browser_ui", "title": "Omnibox", "url": "chrome://omnibox/"},
]


def test_the_tab_the_engine_bound_is_the_one_read() -> None:
    assert pick(TARGETS, "A") == LivePage(url="http://127.0.0.1/form.html", title="Form")


def test_without_a_bound_tab_only_a_lone_page_is_taken() -> None:
    assert pick(TARGETS[:1], None).url == "http://127.0.0.1/form.html"
    assert pick(TARGETS, None).unread is not None  # two pages: not guessed


def test_a_bound_tab_the_browser_no_longer_has_is_unread() -> None:
    found = pick(TARGETS, "gone")
    assert found.url is None and found.unread is not None


def test_the_target_file_names_the_active_tab(tmp_path: Path) -> None:
    (tmp_path / "s.target").write_text(json.dumps({"targetId": "A", "url": ""}))
    (tmp_path / "bad.target").write_text("not json")
    assert active_target(tmp_path / "s.target") == "A"
    assert active_target(tmp_path / "bad.target") is None
    assert active_target(tmp_path / "missing.target") is None


async def test_no_daemon_means_unread_with_the_reason(tmp_path: Path) -> None:
    found = await read(tmp_path, "nobody", None)
    assert found.url is None and found.unread == "no engine daemon runs for this session"
