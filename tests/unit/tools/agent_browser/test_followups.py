"""`followups`: which calls get the url/title probe, and the `find` selector-miss recovery
(decision, then application against the refs the recovery snapshot recorded)."""

from __future__ import annotations

from dataclasses import replace

import pytest

from agent_browser_tools.engine.envelope import Envelope
from agent_browser_tools.planning.plan import ExecutionPlan
from agent_browser_tools.results.categories import FailureCategory
from agent_browser_tools.results.observation import Observation
from agent_browser_tools.results.selector_recovery import FindTarget
from agent_browser_tools.taxonomy import PageEffect
from agent_browser_tools.tools.agent_browser.followups import (
    apply_selector_miss,
    selector_miss,
    wants_probe,
)
from agent_browser_tools.tools.agent_browser.observe import observe
from tests.support.envelopes import (
    capture,
    command,
    engine_error,
    engine_error_command,
    envelope,
    missing_binary,
    text_answer,
    timed_out,
)
from tests.support.plans import FORM, managed, named, page, plan

STATE = managed(page(FORM, refs_from=FORM))


def _captured(name: str) -> tuple[ExecutionPlan, Envelope]:
    """A captured command planned as it ran (with its stdin), and the engine's answer."""
    return plan(command(name), STATE, stdin=capture(name).get("stdin")), envelope(name)


# --- wants_probe ----------------------------------------------------------------------------


def test_a_successful_click_is_probed_for_its_navigation_summary() -> None:
    click, answer = _captured("click_ref")
    assert click.match is not None and click.match.spec.navigation_summary
    assert wants_probe(click, answer) is True


@pytest.mark.parametrize("name", ["press", "eval_stdin"])
def test_a_may_navigate_command_is_probed_even_without_a_navigation_summary(name: str) -> None:
    """An unobserved navigation would let old refs pass the stale-ref guard on a new page."""
    call, answer = _captured(name)
    assert call.match is not None
    assert call.match.spec.page_effect is PageEffect.MAY_NAVIGATE
    assert call.match.spec.navigation_summary is False
    assert wants_probe(call, answer) is True


@pytest.mark.parametrize("name", ["get_text", "scroll_down", "snapshot"])
def test_commands_that_cannot_navigate_are_not_probed(name: str) -> None:
    """The probe is an extra engine call: it is spent only where the page may have moved."""
    call, answer = _captured(name)
    assert answer.success
    assert wants_probe(call, answer) is False


@pytest.mark.parametrize(
    "args", [["fill", "@e3", "Ada"], ["type", "@e3", "x"], ["check", "@e9"], ["select", "#f", "b"]]
)
def test_element_actions_are_probed_to_read_their_effect_back(args: list[str]) -> None:
    """The read-back rows ride in the probe batch (`action_readback`): one call, not two."""
    _call, answer = _captured("fill_ref")
    assert wants_probe(plan(args, STATE), answer) is True


def test_a_failure_is_probed_only_for_commands_with_a_failure_probe() -> None:
    click, missed = _captured("click_missing_ref")
    assert wants_probe(click, missed) is False
    scenario = "eval-throws"
    failing_eval = plan(engine_error_command(scenario), STATE)
    assert wants_probe(failing_eval, engine_error(scenario)) is True


def test_text_mode_is_never_probed() -> None:
    """Native text is never parsed for state, so a probe would have nothing to complete."""
    click = plan(["--json", "false", "click", "@e13"], STATE)
    assert wants_probe(click, text_answer("Done")) is False


@pytest.mark.parametrize("answer", [timed_out(), missing_binary()], ids=["timeout", "missing"])
def test_no_probe_after_a_timeout_or_a_missing_binary(answer: Envelope) -> None:
    """A stuck engine would stall the probe too; a missing one cannot answer it."""
    back = plan(["back"], STATE)
    assert back.match is not None and back.match.spec.failure_probe
    assert wants_probe(back, answer) is False


def test_a_batch_is_probed_when_a_reached_row_may_navigate() -> None:
    rows = [list(r.command) for r in envelope("batch_failing_row").rows or ()]
    assert rows == [["get", "title"], ["click", "@e999"], ["get", "url"]]
    batch = plan(["batch"], STATE, rows=rows)
    assert wants_probe(batch, envelope("batch_failing_row")) is True
    reads = [list(r.command) for r in envelope("batch_success").rows or ()]
    assert wants_probe(plan(["batch"], STATE, rows=reads), envelope("batch_success")) is False


def test_a_batch_row_the_engine_never_reached_does_not_trigger_the_probe() -> None:
    """`--bail` stops after a failed row: a click planned after it cannot have navigated."""
    answer = envelope("batch_failing_row")
    assert answer.rows is not None
    stopped = replace(answer, rows=answer.rows[:1])
    batch = plan(["batch", "--bail"], STATE, rows=[["get", "title"], ["click", "@e999"]])
    assert wants_probe(batch, stopped) is False


def test_help_inspection_has_no_session_to_probe() -> None:
    assert wants_probe(plan(["click", "--help"]), text_answer("Usage")) is False


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
