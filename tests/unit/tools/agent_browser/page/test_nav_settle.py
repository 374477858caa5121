"""`nav_settle`: the settle budget setting, which actions get the one-poll hold, and how the
outcome the page left becomes `details.navigationSettle` and its warning."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace as NS
from typing import Any, cast

import pytest

from agent_browser_tools.engine.envelope import BatchRow
from agent_browser_tools.results.observation import Observation
from agent_browser_tools.settings import DEFAULT_SETTLE_MS, Settings, SettingsError
from agent_browser_tools.taxonomy import resolve_command
from agent_browser_tools.tools.agent_browser.call import DirectCall
from agent_browser_tools.tools.agent_browser.page import nav_settle, settle_scripts
from tests.support.fake_calls import fake_call


def _settings(tmp_path: Path, config: str = "", **env: str) -> Settings:
    path = tmp_path / "config.toml"
    path.write_text(config)
    base = {"HOME": str(tmp_path), "AGENT_BROWSER_TOOLS_CONFIG": str(path), **env}
    return Settings.load(env=base, cwd=tmp_path)


def test_the_budget_defaults_to_two_seconds(tmp_path: Path) -> None:
    assert _settings(tmp_path).settle_ms == DEFAULT_SETTLE_MS == 2_000


def test_the_budget_comes_from_the_config_and_the_environment_wins(tmp_path: Path) -> None:
    assert _settings(tmp_path, "[tools]\nsettle_ms = 900\n").settle_ms == 900
    both = _settings(tmp_path, "[tools]\nsettle_ms = 900\n", AGENT_BROWSER_TOOLS_SETTLE_MS="0")
    assert both.settle_ms == 0, "0 turns settling off"
    assert _settings(tmp_path, "[tools]\nsettle_ms = 0\n").settle_ms == 0


@pytest.mark.parametrize("raw", ["soon", "-5"])
def test_a_budget_that_is_not_a_number_of_ms_is_refused(tmp_path: Path, raw: str) -> None:
    with pytest.raises(SettingsError, match="SETTLE_MS"):
        _settings(tmp_path, AGENT_BROWSER_TOOLS_SETTLE_MS=raw)


def _call(*args: str, settle_ms: int = 2_000) -> DirectCall:
    match = resolve_command(list(args))
    assert match is not None
    plan = NS(match=match, is_batch=False)
    rt = NS(settings=NS(settle_ms=settle_ms))
    return cast(DirectCall, fake_call(plan=plan, rt=rt))


@pytest.mark.parametrize(
    ("args", "holds"),
    [
        (("press", "Enter"), True),
        (("press", "NumpadEnter"), True),
        (("press", "Space"), True),
        (("press", "Tab"), False),
        (("press", "a"), False),
        (("click", "@e1"), True),
        (("eval", "1"), False),
        (("back",), False),
    ],
)
def test_clicks_and_submitting_keys_get_one_more_poll_on_an_unarmed_page(
    args: tuple[str, ...], holds: bool
) -> None:
    """Only an action that can submit a form has a navigation that may start after it
    returned; other keys and scripts do not pay the hold."""
    assert nav_settle._holds(_call(*args)) is holds


def _rows(*results: dict[str, Any] | None, ok: bool = True) -> list[BatchRow]:
    return [cast(BatchRow, NS(success=ok, result=r)) for r in results]


def test_an_outcome_the_page_left_becomes_details() -> None:
    call = _call("click", "@e1")
    call.part(nav_settle.SettleState).waiting = True
    page = '{"navigated": true, "settled": true, "reason": "loaded", "waitedMs": 640.4}'
    assert nav_settle.take(call, _rows({"waited": "function"}, {"result": page}))
    obs = Observation(success=True)
    nav_settle.report(call, obs)
    assert obs.extra["navigationSettle"] == {
        "navigated": True,
        "settled": True,
        "reason": "loaded",
        "waitedMs": 640,
        "budgetMs": 2_000,
    }
    assert obs.warnings == []


def test_a_wait_that_failed_asks_for_a_second_read_and_says_it_could_not_confirm() -> None:
    call = _call("click", "@e1")
    call.part(nav_settle.SettleState).waiting = True
    assert not nav_settle.take(call, _rows(None, ok=False))
    obs = Observation(success=True)
    nav_settle.report(call, obs)
    assert obs.extra["navigationSettle"]["reason"] == "wait-failed"
    assert obs.warnings == ["Could not confirm the page settled; snapshot again before acting."]


def test_an_unreadable_outcome_is_said_to_be_unread() -> None:
    call = _call("click", "@e1")
    call.part(nav_settle.SettleState).waiting = True
    assert nav_settle.take(call, _rows({"waited": "function"}, {"result": "null"}))
    assert call.part(nav_settle.SettleState).outcome == {
        "settled": True,
        "reason": "outcome-unread",
    }


def test_an_arming_row_alone_has_nothing_to_take() -> None:
    call = _call("click", "@e1")
    assert nav_settle.take(call, _rows({"result": True}))
    obs = Observation(success=True)
    nav_settle.report(call, obs)
    assert "navigationSettle" not in obs.extra


def test_settling_off_arms_nothing() -> None:
    assert nav_settle.arm_rows(_call("click", "@e1", settle_ms=0)) == []
    assert nav_settle.arm_rows(_call("click", "@e1")) == [["eval", settle_scripts.ARM_JS]]


def _may_navigate_call() -> DirectCall:
    call = _call("click", "@e1")
    cast(Any, call).key = "s"
    cast(Any, call).plan.is_batch = False
    return call


def test_the_quick_check_is_one_page_script_and_its_outcome_needs_no_wait(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Settled at once (nearly every click): the outcome comes back with the probe batch's
    other page scripts; not yet (or unreadable): the polling wait runs in a batch of its own."""
    monkeypatch.setattr(settle_scripts, "confirmation_gated", lambda call: False)
    call = _may_navigate_call()
    (quick,) = nav_settle.rows(call, Observation(success=True), quick=True)
    assert quick[0] == "eval" and "__abtSettle" in quick[1]
    page = '{"navigated": false, "settled": true, "reason": "no-navigation", "waitedMs": 3}'
    settled = _rows({"result": page})
    assert not nav_settle.pending(call, settled)
    assert nav_settle.take(call, settled)
    seen = call.part(nav_settle.SettleState).outcome
    assert seen is not None and seen["reason"] == "no-navigation"
    for answer in (_rows({"result": settle_scripts.PENDING}), _rows(None, ok=False), []):
        assert nav_settle.pending(call, answer)
    wait, outcome = nav_settle.rows(call, Observation(success=True))
    assert wait[:2] == ["wait", "--fn"] and outcome == ["eval", settle_scripts.OUTCOME_JS]
    assert not nav_settle.pending(call, _rows({"waited": "function"}, {"result": page}))
