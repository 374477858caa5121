"""Which batch steps carry the settle watcher, and what their answers become (no engine)."""

from __future__ import annotations

import json
from types import SimpleNamespace as NS
from typing import Any

import pytest

from agent_browser_tools.engine.envelope import BatchRow, Envelope, OutputMode
from agent_browser_tools.results.observation import Observation
from agent_browser_tools.state.models import RefInfo
from agent_browser_tools.taxonomy import batch_row_words
from agent_browser_tools.tools.agent_browser.batches import step_lines, step_settle
from agent_browser_tools.tools.agent_browser.batches.step_settle import ARM_ROW, StepPages
from agent_browser_tools.tools.agent_browser.page import settle_scripts
from tests.support.fake_calls import fake_call


def _call(settle_ms: int = 3_000, last: int | None = 6, **fields: Any) -> Any:
    rt = NS(settings=NS(settle_ms=settle_ms))
    return fake_call(StepPages(last_step=last), rt=rt, **fields)


@pytest.fixture(autouse=True)
def _no_confirmation_policy(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(settle_scripts, "confirmation_gated", lambda call: False)


def test_only_steps_that_may_navigate_and_are_not_last_are_watched() -> None:
    call = _call(key="s")
    assert step_settle.watched(call, ["click", "@e3"], 5)
    assert step_settle.watched(call, ["press", "Enter"], 2)
    assert step_settle.watched(call, ["--session", "s", "click", "@e3"], 5)
    assert not step_settle.watched(call, ["fill", "@e1", "x"], 1), "a fill cannot navigate"
    assert not step_settle.watched(call, ["get", "title"], 2)
    assert not step_settle.watched(call, ["click", "@e3"], 6), "the call's own settle does it"
    assert not step_settle.watched(call, [], 3)
    assert not step_settle.watched(_call(settle_ms=0, key="s"), ["click", "@e3"], 5)
    assert not step_settle.watched(_call(key=None), ["click", "@e3"], 5), "no session"


def test_a_confirmation_policy_turns_the_watcher_off(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(settle_scripts, "confirmation_gated", lambda call: True)
    assert not step_settle.watched(_call(key="s"), ["click", "@e3"], 5)


def test_the_arming_row_string_splits_back_into_the_same_words() -> None:
    args = ["--json", "batch", "click @e3", "get url"]
    armed = step_settle.armed_args(args, 2)
    assert armed[:2] == ["--json", "batch"] and armed[3:] == ["click @e3", "get url"]
    assert batch_row_words(armed[2]) == ARM_ROW
    assert step_settle.armed_rows([["click", "@e3"]]) == [list(ARM_ROW), ["click", "@e3"]]


def _env(*rows: BatchRow, success: bool = True, error: str | None = None) -> Envelope:
    return Envelope(mode=OutputMode.JSON, success=success, rows=rows, error=error)


ARM_OK = BatchRow(command=ARM_ROW, success=True, result={"result": True}, error=None)
CLICK = BatchRow(command=("click", "@e3"), success=True, result={"clicked": "@e3"}, error=None)


def test_the_arming_answer_is_taken_out_and_its_failure_is_not_the_steps() -> None:
    assert step_settle.unarmed(_env(ARM_OK, CLICK)).rows == (CLICK,)
    arm_failed = BatchRow(command=ARM_ROW, success=False, result=None, error="no page")
    kept = step_settle.unarmed(_env(arm_failed, CLICK, success=False, error="no page"))
    assert kept.rows == (CLICK,) and kept.success is True and kept.error is None
    # Under --bail the step never ran: it reads as not sent, with the reason.
    alone = step_settle.unarmed(_env(arm_failed, success=False, error="no page"))
    assert alone.rows == () and alone.success is False
    assert alone.error is not None and alone.error.startswith("Step not sent")
    # Not ours: left alone (a process failure has no rows at all).
    assert step_settle.unarmed(_env(CLICK)).rows == (CLICK,)
    none = Envelope(mode=OutputMode.JSON, success=False, rows=None, error="killed")
    assert step_settle.unarmed(none) is none


def _settle_rows(page: object, wait_ok: bool = True) -> list[BatchRow]:
    wait = BatchRow(command=("wait",), success=wait_ok, result={}, error=None)
    told = BatchRow(command=("eval",), success=True, result={"result": page}, error=None)
    return [wait, told]


def test_the_outcome_names_the_page_with_its_url_redacted() -> None:
    page = {
        "outcome": {"navigated": True, "settled": True, "reason": "loaded", "waitedMs": 812},
        "url": "https://shop.test/done?token=s3cr3t-value-here",
        "title": "Order received",
    }
    out = step_settle.read_outcome(_settle_rows(json.dumps(page)))
    assert out["navigated"] is True and out["waitedMs"] == 812
    assert out["title"] == "Order received"
    assert "s3cr3t-value-here" not in out["url"] and out["url"].startswith("https://shop.test/")
    assert step_settle.read_outcome(_settle_rows("{}", wait_ok=False))["reason"] == "wait-failed"
    assert step_settle.read_outcome(_settle_rows("not json"))["reason"] == "outcome-unread"
    assert step_settle.read_outcome(None)["reason"] == "wait-failed"


def test_step_lines_name_the_element_and_the_page_a_step_moved_to() -> None:
    table = {"e3": RefInfo("button", "Place order"), "e2": RefInfo("checkbox", "Gift")}
    call = _call(ref_table=table, plan=NS(is_batch=True))
    call.part(StepPages).by_step[2] = {"navigated": True, "url": "https://a.test/done"}
    steps = [
        {"step": 1, "command": ["check", "@e2"], "success": True, "dispatchOnly": True},
        {"step": 2, "command": ["click", "@e3"], "success": True, "dispatchOnly": True},
        {"step": 3, "command": ["click", "@e9"], "success": False},
    ]
    obs = Observation(success=True)
    obs.extra["batchSteps"] = steps
    step_lines.annotate(call, obs)
    assert steps[0]["effect"] == {
        "verb": "checked",
        "ref": "@e2",
        "role": "checkbox",
        "name": "Gift",
    }
    assert steps[0]["dispatchOnly"] is True, "nothing read the box back"
    assert steps[1]["page"] == {"navigated": True, "url": "https://a.test/done"}
    assert "dispatchOnly" not in steps[1], "its page move was observed"
    assert "effect" not in steps[2] and "page" not in steps[2]
