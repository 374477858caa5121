"""A QA run the watchdog stops reports what it finished (fake engine: a hang on demand)."""

from __future__ import annotations

from pathlib import Path

from agent_browser_tools.api import BrowserTools
from tests.support.fake import FakeEngine, fake_settings


def _row(command: list[str], result: dict[str, object]) -> dict[str, object]:
    return {"command": command, "success": True, "result": result, "error": None}


FIRST_SEGMENT = [
    _row(["network", "requests", "--clear"], {"cleared": True}),
    _row(["console", "--clear"], {"cleared": True}),
    _row(["errors", "--clear"], {"cleared": True}),
    _row(["errors"], {"errors": []}),
    _row(["open", "https://a.test/"], {"url": "https://a.test/", "title": "A"}),
]


async def test_a_timed_out_qa_run_reports_its_finished_steps_and_the_rest_to_retry(
    fake_engine: FakeEngine, tmp_path: Path
) -> None:
    """Every step runs as its own engine call: when the load wait hangs, the clears and the
    `open` before it are known done, and the retry payload starts at the wait."""
    for row in FIRST_SEGMENT:  # one engine call per step
        fake_engine.on({"command": ["batch"]}, json=[row], times=1)
    fake_engine.on({"command": ["batch"]}, hang=True)
    tools = BrowserTools(settings=fake_settings(fake_engine, tmp_path), persist=False)
    try:
        await tools.call("agent_browser_tools", {"enable": ["qa"]})
        result = await tools.call("agent_browser_qa", {"url": "https://a.test/", "timeoutMs": 2000})
        assert result.details["failureCategory"] == "timeout", result.text
        progress = result.details["timeoutPartialProgress"]
        statuses = [step["status"] for step in progress["steps"]]
        assert statuses[:6] == ["done"] * 5 + ["timed-out"], statuses
        assert set(statuses[6:]) == {"not-run"}
        assert progress["remainingRows"][0][:2] == ["wait", "--load"]
        assert progress["pageReached"] == "https://a.test/" and progress["pageTitle"] == "A"
        assert "Timeout partial progress: 5 of" in result.text
        retry = next(
            a for a in result.details["nextActions"] if a["id"] == "retry-remaining-batch-steps"
        )
        assert retry["params"]["args"][-2:] == ["batch", "--bail"]
    finally:
        await tools.aclose()
