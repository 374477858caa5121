"""Click checks on the fake engine, where the exact dispatches can be counted: the overlay
probe's snapshot is the wrapper's own (the host callback does not see it), a dialog the
recorded snapshot already showed is not claimed as the click's doing (and is not re-read),
and no helper `eval` runs on a session the engine may guard with confirmations."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from agent_browser_tools.api import BrowserTools
from agent_browser_tools.tools.agent_browser import DispatchContext
from tests.support.fake import FakeEngine, fake_settings

PAGE = "https://a.test/"
LINK = '- link "More" [ref=e1]'
DIALOG = '- dialog "Cookies" [ref=e2]\n  - button "Close" [ref=e3]'
DIALOG_REFS = {
    "e2": {"role": "dialog", "name": "Cookies"},
    "e3": {"role": "button", "name": "Close"},
}
UNVERIFIED = "Action dispatched; application change unverified."


def _engine(fake: FakeEngine, before: str, before_refs: dict[str, Any]) -> FakeEngine:
    """A page whose post-click full snapshot shows a cookie dialog."""
    fake.on({"command": ["open"]}, envelope={"data": {"url": PAGE, "title": "A"}})
    snap = {"origin": PAGE, "snapshot": before, "refs": before_refs}
    fake.on({"command": ["snapshot", "-i"]}, envelope={"data": snap})
    after = {"origin": PAGE, "snapshot": DIALOG, "refs": DIALOG_REFS}
    fake.on({"command": ["snapshot", "-c"]}, envelope={"data": after})
    fake.on({"command": ["click"]}, envelope={"data": {"clicked": "@e1"}})
    rows = [
        {"command": ["get", "url"], "success": True, "result": {"url": PAGE}, "error": None},
        {"command": ["get", "title"], "success": True, "result": {"title": "A"}, "error": None},
    ]
    fake.on({"contains": ["batch"]}, json=rows)
    return fake


async def _clicked(
    fake: FakeEngine, tmp_path: Path, seen: list[tuple[str, ...]]
) -> tuple[dict[str, Any], list[list[str]]]:
    """open, snapshot -i, click @e1: (the click's details, the argv of its dispatches)."""

    async def before_execute(call_id: str, ctx: DispatchContext) -> None:
        seen.append(ctx.args)

    settings = fake_settings(fake, tmp_path)
    tools = BrowserTools(settings=settings, cwd=tmp_path, before_execute=before_execute)
    await tools.call("agent_browser", {"args": ["open", PAGE]})
    await tools.call("agent_browser", {"args": ["snapshot", "-i"]})
    seen.clear()
    done = len(fake.argvs())
    result = await tools.call("agent_browser", {"args": ["click", "@e1"]})
    assert not result.is_error, result.text
    await tools.aclose()
    return result.details, fake.argvs()[done:]


def _reads(argvs: list[list[str]]) -> int:
    return sum(1 for argv in argvs if argv[-2:] == ["snapshot", "-c"])


async def test_a_dialog_the_click_opened_is_read_again_without_the_host_callback(
    fake_engine: FakeEngine, tmp_path: Path
) -> None:
    """The journaled re-read is the wrapper's own: the host saw only the click."""
    seen: list[tuple[str, ...]] = []
    fake = _engine(fake_engine, LINK, {"e1": {"role": "link", "name": "More"}})
    details, argvs = await _clicked(fake, tmp_path, seen)
    assert seen == [("click", "@e1")]
    assert _reads(argvs) == 2, "an unjournaled look, then the journaled snapshot"
    assert details["pageChangeSummary"]["observed"] is True
    assert "preexisting" not in details["overlayBlockers"]


async def test_a_dialog_already_in_the_recorded_snapshot_is_not_the_clicks_doing(
    fake_engine: FakeEngine, tmp_path: Path
) -> None:
    """A persistent cookie banner: evidence with the recorded refs, no change claimed, one
    read only (the session's refs stay the model's own)."""
    refs = {"e1": {"role": "link", "name": "More"}, **DIALOG_REFS}
    fake = _engine(fake_engine, LINK + "\n" + DIALOG, refs)
    details, argvs = await _clicked(fake, tmp_path, [])
    assert _reads(argvs) == 1
    blockers = details["overlayBlockers"]
    assert blockers["preexisting"] is True and blockers["candidates"][0]["ref"] == "@e3"
    assert details["pageChangeSummary"]["observed"] is False
    assert UNVERIFIED in details["warnings"]


def _gate_env(tmp_path: Path, how: str) -> dict[str, str]:
    if how == "config":
        config = tmp_path / "engine.json"
        config.write_text(json.dumps({"confirmActions": "eval,click"}))
        return {"AGENT_BROWSER_CONFIG": str(config)}
    return {how: "eval,click"} if how else {}


@pytest.mark.parametrize(
    "how", ["AGENT_BROWSER_CONFIRM_ACTIONS", "AGENT_BROWSER_ACTION_POLICY", "config", ""]
)
async def test_no_helper_eval_runs_under_an_environment_confirmation_policy(
    fake_engine: FakeEngine, tmp_path: Path, how: str
) -> None:
    """The click probe, the selector-visibility read and the geometry sample all stay away
    when the operator's environment or engine config gates actions (`""`: ungated, where
    each of them does run)."""
    refs = {"e1": {"role": "button", "name": "Buy"}}
    fake = _engine(fake_engine, '- button "Buy" [ref=e1]', refs)
    fake.on({"command": ["get", "text"]}, envelope={"data": {"text": "hidden"}})
    fake.on({"command": ["screenshot"]}, envelope={"data": {"path": str(tmp_path / "s.png")}})
    settings = fake_settings(fake, tmp_path, **_gate_env(tmp_path, how))
    tools = BrowserTools(settings=settings, cwd=tmp_path)
    await tools.call("agent_browser", {"args": ["open", PAGE]})
    await tools.call("agent_browser", {"args": ["snapshot", "-i"]})
    for args in (["click", "@e1"], ["get", "text", ".panel"], ["screenshot"]):
        await tools.call("agent_browser", {"args": args})
    await tools.aclose()
    evals = [
        call
        for call in fake.calls()
        if "eval" in json.dumps(call.get("argv")) or '"eval"' in str(call.get("stdin") or "")
    ]
    if how:
        assert evals == [], evals
    else:
        assert len(evals) >= 3, "click probe, visibility read, geometry samples"
