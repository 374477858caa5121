"""What a stopped batch says about the page now and a dialog a finished step opened (pure)."""

from __future__ import annotations

from agent_browser_tools.engine.envelope import BatchRow
from agent_browser_tools.engine.live_page import LivePage
from agent_browser_tools.results.timeout_progress import progress_lines
from agent_browser_tools.tools.agent_browser.batches.batch_progress import dialog_opened_at
from agent_browser_tools.tools.agent_browser.page.stopped_page import shown


def _row(result: dict[str, object]) -> BatchRow:
    return BatchRow(("click", "#alert"), True, result, None)


def test_a_finished_step_that_opened_a_dialog_is_named() -> None:
    rows = [_row({"title": "x"}), _row({"clicked": "#alert", "dialogOpened": True})]
    assert dialog_opened_at(rows) == 2
    assert dialog_opened_at(rows[:1]) is None


def test_the_live_page_is_redacted_and_an_unread_one_says_why() -> None:
    read = shown(LivePage(url="https://u:hunter2@example.test/a", title="A"))
    assert read["readFrom"] == "browser-devtools" and "hunter2" not in read["url"]
    assert shown(LivePage(unread="no engine daemon runs for this session")) == {
        "url": None,
        "unknownBecause": "no engine daemon runs for this session",
    }


def test_the_block_shows_the_page_now_the_dialog_and_the_busy_engine() -> None:
    progress = {
        "completedSteps": 2,
        "timedOutStep": 3,
        "steps": [],
        "livePage": {"url": "http://h/d.html", "title": "Dialogs", "readFrom": "browser-devtools"},
        "dialogOpenedAtStep": 2,
        "engineBusy": "The engine keeps running step 3.",
    }
    text = "\n".join(progress_lines(progress))
    assert "Page now (read after the stop): Dialogs - http://h/d.html" in text
    assert "Step 2 reported a JavaScript dialog opening" in text
    assert "The engine keeps running step 3." in text
    unread = "\n".join(progress_lines({"livePage": {"url": None, "unknownBecause": "why"}}))
    assert "Page now: unknown (why)." in unread
