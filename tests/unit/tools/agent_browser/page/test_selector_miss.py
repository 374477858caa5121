"""`selector_miss`: the `find` selector-miss recovery (decision, then application against
the refs the recovery snapshot recorded)."""

from __future__ import annotations

from dataclasses import replace

import pytest

from agent_browser_tools.planning.plan import ExecutionPlan
from agent_browser_tools.results.categories import FailureCategory
from agent_browser_tools.results.observation import Observation
from agent_browser_tools.results.selector_recovery import FindTarget
from agent_browser_tools.tools.agent_browser.observe import observe
from agent_browser_tools.tools.agent_browser.page.selector_miss import (
    apply_selector_miss,
    selector_miss,
)
from tests.support.envelopes import (
    engine_error,
    engine_error_command,
    timed_out,
)
from tests.support.plans import FORM, managed, named, page, plan

STATE = managed(page(FORM, refs_from=FORM))


# --- selector_miss --------------------------------------------------------------------------

ROLE_MISS = "find-role-name-miss"


def _missed(args: list[str], scenario: str = ROLE_MISS) -> tuple[ExecutionPlan, Observation]:
    call = plan(args, STATE)
    return call, observe(call, engine_error(scenario))


def test_a_find_selector_miss_asks_for_one_interactive_snapshot() -> None:
    call, obs = _missed(["find", "role", "button", "click", "--name", "Submit"])
    assert obs.failure_category is FailureCategory.SELECTOR_NOT_FOUND
    miss = selector_miss(call, obs)
    assert miss is not None
    assert miss.target == FindTarget(locator="role", value="button", action="click", name="Submit")
    assert miss.prefix == []
    assert miss.snapshot_params == {"args": ["snapshot", "-i"]}


@pytest.mark.parametrize(
    "prefix",
    [["--session", "mine"], ["--namespace", "ns", "--session", "mine"]],
    ids=["session", "namespace"],
)
def test_the_recovery_snapshot_targets_the_callers_session(prefix: list[str]) -> None:
    """Its refs must be journaled for the session the miss happened in."""
    call = plan([*prefix, "find", "text", "Nope", "click"], named("mine", page()))
    miss = selector_miss(call, observe(call, engine_error("find-text-miss")))
    assert miss is not None
    assert miss.prefix == prefix
    assert miss.snapshot_params == {"args": [*prefix, "snapshot", "-i"]}


def test_a_selector_miss_outside_find_is_not_recovered() -> None:
    scenario = "css-selector-not-found"
    call, obs = _missed(engine_error_command(scenario), scenario)
    assert obs.failure_category is FailureCategory.SELECTOR_NOT_FOUND
    assert selector_miss(call, obs) is None


def test_a_css_selector_spelled_like_a_locator_is_not_a_find() -> None:
    """`fill label Ada` targets the CSS tag `label`: only `find` has role/name locators."""
    missed = engine_error("css-selector-not-found")
    answer = replace(missed, error=(missed.error or "").replace("#nope", "label"))
    call = plan(["fill", "label", "Ada"], STATE)
    obs = observe(call, answer)
    assert obs.failure_category is FailureCategory.SELECTOR_NOT_FOUND
    assert selector_miss(call, obs) is None


def test_a_find_that_failed_for_another_reason_is_not_recovered() -> None:
    call = plan(["find", "role", "button", "click", "--name", "Submit"], STATE)
    obs = observe(call, timed_out())
    assert obs.failure_category is FailureCategory.TIMEOUT
    assert selector_miss(call, obs) is None


def test_a_css_locator_find_has_no_role_or_name_to_recover() -> None:
    scenario = "find-nth-miss"
    call, obs = _missed(engine_error_command(scenario), scenario)
    assert selector_miss(call, obs) is None


# --- apply_selector_miss --------------------------------------------------------------------


def _apply(args: list[str], *, refs: bool = True, snapshot_failed: bool = False) -> Observation:
    """Decide, then apply against a state whose latest snapshot is the form page (or none)."""
    call, obs = _missed(args)
    miss = selector_miss(call, obs)
    assert miss is not None
    after = managed(page(FORM, refs_from=FORM if refs else None))
    apply_selector_miss(call, after, miss, obs, snapshot_failed=snapshot_failed)
    return obs


def test_an_exact_role_and_name_match_is_offered_as_a_current_ref() -> None:
    obs = _apply(["find", "role", "button", "click", "--name", "Submit"])
    assert [(a.id, a.params) for a in obs.next_actions] == [
        ("try-current-visible-ref", {"args": ["click", "@e13"]})
    ]
    assert "visibleRefFallback" in obs.extra
    assert "@e13 button 'Submit': click @e13" in obs.warnings[0]


def test_a_fill_miss_on_a_label_offers_focus_or_click_on_the_editable_ref() -> None:
    """Typing is left to a separate call: a rich editor may need real key events."""
    obs = _apply(["find", "label", "Full name", "fill", "Ada"])
    assert "richInputRecovery" in obs.extra
    actions = [(a.id, a.params["args"]) for a in obs.next_actions]
    assert ("focus-current-editable-ref", ["focus", "@e3"]) in actions
    assert ("click-current-editable-ref", ["click", "@e3"]) in actions


def test_no_match_falls_back_to_refreshing_refs() -> None:
    obs = _apply(["find", "role", "button", "click", "--name", "Nope"])
    assert "visibleRefFallback" not in obs.extra
    assert [a.id for a in obs.next_actions][-1] == "refresh-interactive-refs"


@pytest.mark.parametrize(
    ("refs", "snapshot_failed"), [(True, True), (False, False)], ids=["failed", "no-refs"]
)
def test_without_a_recorded_snapshot_only_the_refresh_is_offered(
    refs: bool, snapshot_failed: bool
) -> None:
    obs = _apply(
        ["find", "role", "button", "click", "--name", "Submit"],
        refs=refs,
        snapshot_failed=snapshot_failed,
    )
    assert [(a.id, a.params) for a in obs.next_actions] == [
        ("refresh-interactive-refs", {"args": ["snapshot", "-i"]})
    ]
    assert obs.extra == {}


def test_the_probe_runs_url_and_title_before_any_read_that_can_fail() -> None:
    """A fail-fast probe batch: the settle wait, url and title first, the page scripts next
    (one merged eval), the element reads last, so a read of a field that went away stops
    only the reads after it (the answer marks the rest as not run)."""
    from agent_browser_tools.tools.agent_browser.followups import _order

    lead = [["wait", "--fn", "x"], ["eval", "outcome"]]
    rows = [
        *lead,
        ["get", "url"],
        ["get", "title"],
        ["eval", "collect"],
        ["get", "value", "@e1"],
        ["eval", "focused"],
    ]
    assert [rows[i][1] for i in _order(rows, lead)] == [
        "--fn",
        "url",
        "title",
        "outcome",
        "collect",
        "focused",
        "value",
    ]
