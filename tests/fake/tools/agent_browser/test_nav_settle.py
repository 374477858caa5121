"""The settle wait's rows in the one post-action probe batch, at the process boundary.

The fake engine runs no page script, so these tests script what the page-side check left and
assert the exact rows, the details and the warning; the real waiting is in
`tests/real/tools/agent_browser/test_settle.py`.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from agent_browser_tools.api import BrowserTools
from agent_browser_tools.results.tool_result import ToolResult
from agent_browser_tools.tools.agent_browser.followups import TITLE_JS
from agent_browser_tools.tools.agent_browser.page.settle_scripts import ARM_JS, OUTCOME_JS, PENDING
from tests.support.fake import FakeEngine, fake_settings

PAGE = "https://a.test/"
NEXT = "https://a.test/next"
PROBE = ["batch", "--bail"]


def _row(command: list[str], result: dict[str, Any] | None, error: str | None = None) -> Any:
    return {"command": command, "success": error is None, "result": result, "error": error}


def _page_rows(url: str, title: str) -> list[Any]:
    """What a probe batch without page scripts answers (a confirmation policy)."""
    return [_row(["get", "url"], {"url": url}), _row(["get", "title"], {"title": title})]


def _merged(*values: Any, origin: str | None = None) -> Any:
    """The answer of the wrapper's page scripts sent as one `eval` (`eval_merge`), with the
    page url the engine gives with every script's answer."""
    said = {"result": json.dumps([{"v": value} for value in values])}
    return _row(["eval"], {**said, "origin": origin} if origin else said)


def _quick_rows(first: Any, url: str, title: str) -> list[Any]:
    """The first probe batch: the scripts alone (the quick settle check, `first`: an
    outcome, or `PENDING`; the title; the click probe's counts, none: the fake page ran no
    probe), their answer naming the page's url."""
    return [_merged(first, title, None, origin=url)]


def _settled_rows(outcome: dict[str, Any], url: str, title: str) -> list[Any]:
    """The second probe batch, after a pending check: the wait, `get url`, then the scripts:
    the settle outcome, the title and the click probe's counts."""
    return [
        _row(["wait", "--fn"], {"waited": "function"}),
        _row(["get", "url"], {"url": url}),
        _merged(json.dumps(outcome), title, None),
    ]


def _tools(fake: FakeEngine, tmp_path: Path, **env: str) -> BrowserTools:
    fake.on({"command": ["open"]}, envelope={"data": {"url": PAGE, "title": "A"}})
    fake.on({"command": ["click"]}, envelope={"data": {"clicked": "#go"}})
    fake.on({"command": ["batch"]}, json=[_merged(0, None)])  # the probe's install, armed
    settings = fake_settings(fake, tmp_path, AGENT_BROWSER_TOOLS_SETTLE_MS="2000", **env)
    return BrowserTools(settings=settings, cwd=tmp_path)


async def _click(tools: BrowserTools) -> ToolResult:
    await tools.call("agent_browser", {"args": ["open", PAGE]})
    return await tools.call("agent_browser", {"args": ["click", "#go"]})


def _batches(fake: FakeEngine, head: list[str]) -> list[list[list[str]]]:
    """The stdin rows of every helper batch whose argv ends with `head`."""
    return [
        json.loads(str(call["stdin"]))
        for call, argv in zip(fake.calls(), fake.argvs(), strict=True)
        if argv[-len(head) :] == head
    ]


async def test_a_click_that_started_no_navigation_waits_for_nothing(
    fake_engine: FakeEngine, tmp_path: Path
) -> None:
    """The click probe's install arms the watcher (its scripts run as one `eval`); the one
    probe batch reads the url and runs the settle check once beside the title read: settled
    at once, no wait row is sent and no settle warning is added (the fake page changed
    nothing, which the result says)."""
    outcome = {"navigated": False, "settled": True, "reason": "no-navigation", "waitedMs": 2}
    fake_engine.on({"command": PROBE}, json=_quick_rows(json.dumps(outcome), PAGE, "A"))
    tools = _tools(fake_engine, tmp_path)
    clicked = await _click(tools)
    await tools.aclose()
    assert not clicked.is_error, clicked.text
    (install,) = _batches(fake_engine, ["batch"])
    assert install[-1][0] == "eval" and ARM_JS in install[-1][1]
    (probe,) = _batches(fake_engine, PROBE)
    (scripts,) = probe  # the url comes with the scripts' answer: no `get url` row
    assert scripts[0] == "eval"
    assert "__abtSettle" in scripts[1] and PENDING in scripts[1] and TITLE_JS in scripts[1]
    assert clicked.details["navigationSettle"] == {**outcome, "budgetMs": 2000}
    assert clicked.details["warnings"] == ["Action dispatched; application change unverified."]


async def test_a_pending_navigation_is_waited_for_and_the_settled_page_read(
    fake_engine: FakeEngine, tmp_path: Path
) -> None:
    """The quick check finds a navigation on its way: the probe batch runs again led by
    the polling wait and reads url and title of the page the wait ended on, then the
    outcome. A wait that stopped at the budget says so in details and in one warning."""
    outcome = {"navigated": True, "settled": False, "reason": "loading", "waitedMs": 2004}
    fake_engine.on({"command": PROBE}, times=1, json=_quick_rows(PENDING, PAGE, "A"))
    rows = _settled_rows({**outcome, "readyState": "interactive"}, NEXT, "Next")
    fake_engine.on({"command": PROBE}, json=rows)
    tools = _tools(fake_engine, tmp_path)
    clicked = await _click(tools)
    await tools.aclose()
    assert not clicked.is_error, clicked.text
    quick, probe = _batches(fake_engine, PROBE)
    assert len(quick) == 1 and PENDING in quick[0][1]
    wait, url, scripts = probe
    assert wait[:2] == ["wait", "--fn"] and wait[3:] == ["--timeout", "5000"]
    assert url == ["get", "url"]
    assert scripts[0] == "eval" and OUTCOME_JS in scripts[1] and TITLE_JS in scripts[1]
    settle = clicked.details["navigationSettle"]
    assert settle == {**outcome, "readyState": "interactive", "budgetMs": 2000}
    assert clicked.details["navigationSummary"]["url"] == NEXT
    assert clicked.details["navigationSummary"]["title"] == "Next"
    warning = "Page still loading after 2004 ms; snapshot again before acting."
    assert warning in clicked.details["warnings"] and warning in clicked.text


async def test_a_settled_navigation_adds_no_warning(
    fake_engine: FakeEngine, tmp_path: Path
) -> None:
    outcome = {"navigated": True, "settled": True, "reason": "loaded", "waitedMs": 612}
    fake_engine.on({"command": PROBE}, times=1, json=_quick_rows(PENDING, PAGE, "A"))
    fake_engine.on({"command": PROBE}, json=_settled_rows(outcome, NEXT, "Next"))
    tools = _tools(fake_engine, tmp_path)
    clicked = await _click(tools)
    await tools.aclose()
    assert clicked.details["navigationSettle"] == {**outcome, "budgetMs": 2000}
    assert not any("still loading" in w for w in clicked.details.get("warnings", []))


async def test_a_wait_that_failed_mid_navigation_reads_the_page_once_more(
    fake_engine: FakeEngine, tmp_path: Path
) -> None:
    """The fail-fast batch stopped at the wait (the page went away under the check): one
    more batch without it reads url and title."""
    failed = [_row(["wait", "--fn"], None, "Execution context was destroyed")]
    fake_engine.on({"command": PROBE}, times=1, json=_quick_rows(PENDING, PAGE, "A"))
    fake_engine.on({"command": PROBE}, times=1, json=failed)
    fake_engine.on({"command": PROBE}, json=[_merged("Next", None, origin=NEXT)])
    tools = _tools(fake_engine, tmp_path)
    clicked = await _click(tools)
    await tools.aclose()
    _quick, waited, last = _batches(fake_engine, PROBE)
    assert waited[0][:2] == ["wait", "--fn"]
    assert len(last) == 1 and TITLE_JS in last[0][1]
    assert clicked.details["navigationSettle"] == {
        "settled": False,
        "reason": "wait-failed",
        "budgetMs": 2000,
    }
    assert clicked.details["navigationSummary"]["title"] == "Next"
    assert "still loading" not in clicked.text
    assert "Could not confirm the page settled" in clicked.text


async def test_a_probe_after_a_failed_action_only_arms_the_watcher(
    fake_engine: FakeEngine, tmp_path: Path
) -> None:
    """A failed `back` is probed (where is the page now?) but waits for nothing."""
    fake_engine.on({"command": ["back"]}, exit=1, stderr="no history")
    fake_engine.on({"command": PROBE}, json=[_merged(True, "A", origin=PAGE)])
    tools = _tools(fake_engine, tmp_path)
    await tools.call("agent_browser", {"args": ["open", PAGE]})
    back = await tools.call("agent_browser", {"args": ["back"]})
    await tools.aclose()
    assert back.is_error
    (probe,) = _batches(fake_engine, PROBE)
    (scripts,) = probe
    assert TITLE_JS in scripts[1] and ARM_JS in scripts[1]
    assert "navigationSettle" not in back.details


async def test_no_settle_script_runs_under_a_confirmation_policy(
    fake_engine: FakeEngine, tmp_path: Path
) -> None:
    """Under `AGENT_BROWSER_CONFIRM_ACTIONS` a helper script could queue a prompt of its own:
    the probe batch is url and title only."""
    fake_engine.on({"command": PROBE}, json=_page_rows(NEXT, "Next"))
    tools = _tools(fake_engine, tmp_path, AGENT_BROWSER_CONFIRM_ACTIONS="eval,click")
    clicked = await _click(tools)
    await tools.aclose()
    (probe,) = _batches(fake_engine, PROBE)
    assert probe == [["get", "url"], ["get", "title"]]
    assert "navigationSettle" not in clicked.details


async def test_scripts_that_did_not_run_leave_the_url_to_a_row_of_its_own(
    fake_engine: FakeEngine, tmp_path: Path
) -> None:
    """The url comes with the page scripts' answer; when they fail (the page went away),
    the probe batch runs once more with `get url` as a row of its own."""
    fake_engine.on({"command": ["back"]}, exit=1, stderr="no history")
    failed = [_row(["eval"], None, "Execution context was destroyed")]
    fake_engine.on({"command": PROBE}, times=1, json=failed)
    fake_engine.on(
        {"command": PROBE}, json=[_row(["get", "url"], {"url": NEXT}), _merged(True, "Next")]
    )
    tools = _tools(fake_engine, tmp_path)
    await tools.call("agent_browser", {"args": ["open", PAGE]})
    back = await tools.call("agent_browser", {"args": ["back"]})
    await tools.aclose()
    first, second = _batches(fake_engine, PROBE)
    assert len(first) == 1 and first[0][0] == "eval"
    assert second[0] == ["get", "url"] and TITLE_JS in second[1][1]
    assert back.details["sessionTabTarget"]["url"] == NEXT
