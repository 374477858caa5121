"""`followups`: which calls get the url/title probe."""

from __future__ import annotations

from dataclasses import replace

import pytest

from agent_browser_tools.engine.envelope import Envelope
from agent_browser_tools.planning.plan import ExecutionPlan
from agent_browser_tools.taxonomy import PageEffect
from agent_browser_tools.tools.agent_browser.followups import wants_probe
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
from tests.support.plans import FORM, managed, page, plan

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
