"""`observe`: captured engine answers -> the canonical observation (categories, redaction,
batch steps) and `add_recovery`'s next actions."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest

from agent_browser_tools.engine.envelope import BatchRow, Envelope
from agent_browser_tools.planning.policy import DEFAULT_MAX_TIMEOUT_MS
from agent_browser_tools.planning.timeouts import WAIT_GRACE_MS
from agent_browser_tools.results.categories import FailureCategory, SuccessCategory
from agent_browser_tools.results.observation import Observation
from agent_browser_tools.tools.agent_browser.observe import add_recovery, observe
from tests.support.envelopes import (
    command,
    engine_error,
    engine_error_command,
    envelope,
    missing_binary,
    text_answer,
    timed_out,
)
from tests.support.plans import CLEAN, FORM, managed, named, page, plan

STATE = managed(page(FORM, refs_from=FORM))
CAP = DEFAULT_MAX_TIMEOUT_MS
SECRET = "hunter2-secret-pw"
LIFECYCLE = {"effectiveLaunch": {"browserLaunched": True}}


def _observe(capture: str) -> Observation:
    """The observation of a captured single command, planned exactly as it was run."""
    return observe(plan(command(capture), STATE), envelope(capture))


# --- JSON mode: single commands --------------------------------------------------------------


def test_a_json_success_is_completed_with_the_engine_lifecycle_removed() -> None:
    obs = _observe("get_text")
    assert obs.success and obs.success_category is SuccessCategory.COMPLETED
    assert obs.failure_category is None and obs.error is None
    assert obs.data == {"origin": FORM, "text": "Profile"}


@pytest.mark.parametrize(
    ("capture", "category", "error"),
    [
        ("click_missing_ref", FailureCategory.STALE_REF, "Unknown ref: e999"),
        ("unknown_command", FailureCategory.UPSTREAM_ERROR, "Unknown command: frobnicate"),
    ],
)
def test_captured_json_failures_get_their_category(
    capture: str, category: FailureCategory, error: str
) -> None:
    obs = _observe(capture)
    assert not obs.success and obs.success_category is None
    assert obs.failure_category is category
    assert obs.error == error


@pytest.mark.parametrize(
    ("scenario", "category"),
    [
        ("css-selector-not-found-getter", FailureCategory.SELECTOR_NOT_FOUND),
        ("find-role-name-miss", FailureCategory.SELECTOR_NOT_FOUND),
        ("pinned-tab-closed-click", FailureCategory.TAB_GONE),
        ("allowed-domains-blocked", FailureCategory.POLICY_BLOCKED),
    ],
)
def test_captured_engine_errors_get_their_category(
    scenario: str, category: FailureCategory
) -> None:
    # A fresh conversation: some records carry launch-scoped flags (`--cdp`, `--allowed-domains`).
    obs = observe(plan(engine_error_command(scenario)), engine_error(scenario))
    assert not obs.success and obs.failure_category is category


def test_process_failures_are_categorised_from_the_parser_not_the_text() -> None:
    """A watchdog kill and a missing binary have dedicated categories and no data."""
    click = plan(["click", "@e13"], STATE)
    stopped = observe(click, timed_out())
    assert stopped.failure_category is FailureCategory.TIMEOUT and stopped.data is None
    absent = observe(click, missing_binary())
    assert absent.failure_category is FailureCategory.MISSING_BINARY


def test_a_pending_confirmation_is_a_failure_with_exact_confirm_and_deny_actions() -> None:
    """The engine says success, but nothing ran: reporting success would be a lie."""
    scenario = "confirm-actions-click-pending"
    command = engine_error_command(scenario)
    policy = command[command.index("--confirm-actions") + 1]
    started = page(FORM, refs_from=FORM).model_copy(
        update={"launch_flags": (f"--confirm-actions={policy}",)}
    )
    obs = observe(plan(command, managed(started)), engine_error(scenario))
    assert not obs.success
    assert obs.failure_category is FailureCategory.CONFIRMATION_REQUIRED
    assert obs.data == {"confirmationId": "r626721", "action": "click"}
    assert "(id r626721); it has not run" in (obs.error or "")
    assert [(a.id, a.params) for a in obs.next_actions] == [
        ("confirm-pending-action", {"args": ["confirm", "r626721"]}),
        ("deny-pending-action", {"args": ["deny", "r626721"]}),
    ]


def test_confirmation_actions_keep_an_explicit_session() -> None:
    scenario = "confirm-actions-click-pending"
    obs = observe(
        plan(["--session", "mine", *engine_error_command(scenario)]), engine_error(scenario)
    )
    assert [a.params["args"] for a in obs.next_actions] == [
        ["--session", "mine", "confirm", "r626721"],
        ["--session", "mine", "deny", "r626721"],
    ]


def test_an_engine_warning_is_kept_redacted() -> None:
    answer = replace(envelope("get_text"), warning=f"slow page; token={SECRET}")
    obs = observe(plan(command("get_text"), STATE), answer)
    assert obs.warnings == ["slow page; token=[REDACTED]"]


# --- text mode ------------------------------------------------------------------------------


def test_text_mode_scrubs_a_password_flag_from_output_and_error() -> None:
    """Upstream quotes the offending argv back; the secret must not survive in either field."""
    args = ["--json", "false", "auth", "save", "site", "--password", SECRET]
    answer = text_answer(
        f"saving site with {SECRET}", exit_code=1, stderr=f"unknown flag '--password={SECRET}'"
    )
    obs = observe(plan(args), answer)
    assert not obs.success and obs.failure_category is FailureCategory.UPSTREAM_ERROR
    assert obs.error == "unknown flag '--password=[REDACTED]'"
    assert obs.data == "saving site with [REDACTED]"


def test_text_mode_success_is_completed_and_help_is_inspection() -> None:
    title = observe(plan(["--json", "false", "get", "title"]), text_answer("Clean Page\n"))
    assert title.success and title.success_category is SuccessCategory.COMPLETED
    assert title.data == "Clean Page\n"
    usage = observe(plan(["click", "--help"]), text_answer("Usage: agent-browser click"))
    assert usage.success_category is SuccessCategory.INSPECTION


def test_text_mode_failures_are_still_classified() -> None:
    obs = observe(
        plan(["--json", "false", "click", "@e999"], STATE),
        text_answer("", exit_code=1, stderr="Unknown ref: e999"),
    )
    assert obs.failure_category is FailureCategory.STALE_REF


# --- batches --------------------------------------------------------------------------------


def _batch(capture: str) -> Observation:
    """A captured batch, planned with the rows it ran (they are in its stdin)."""
    rows = [list(row.command) for row in envelope(capture).rows or ()]
    return observe(plan(["batch"], STATE, rows=rows), envelope(capture))


def test_a_successful_batch_reports_every_step() -> None:
    obs = _batch("batch_success")
    assert obs.success and obs.success_category is SuccessCategory.COMPLETED
    assert obs.summary == "Batch: 2/2 steps succeeded (2 planned)."
    assert obs.extra["batchSteps"] == [
        {
            "step": 1,
            "command": ["get", "url"],
            "success": True,
            "resultCategory": "success",
            "successCategory": "completed",
            "result": {"url": CLEAN},
            "lifecycle": LIFECYCLE,
        },
        {
            "step": 2,
            "command": ["get", "title"],
            "success": True,
            "resultCategory": "success",
            "successCategory": "completed",
            "result": {"title": "Clean Page"},
            "lifecycle": LIFECYCLE,
        },
    ]
    assert obs.data == [
        {"success": True, "command": ["get", "url"], "result": {"url": CLEAN}},
        {"success": True, "command": ["get", "title"], "result": {"title": "Clean Page"}},
    ]


def test_a_failing_row_names_the_failed_step_and_its_category() -> None:
    obs = _batch("batch_failing_row")
    assert not obs.success
    assert obs.failure_category is FailureCategory.STALE_REF
    assert obs.summary == "Batch: 2/3 steps succeeded (3 planned)."
    assert obs.error == "step 2 (click @e999) failed: Unknown ref: e999"
    assert obs.extra["batchFailure"] == {
        "failedStep": {
            "step": 2,
            "command": ["click", "@e999"],
            "success": False,
            "resultCategory": "failure",
            "error": "Unknown ref: e999",
            "failureCategory": "stale-ref",
        }
    }
    assert [s["success"] for s in obs.extra["batchSteps"]] == [True, False, True]


def test_a_successful_mutating_row_is_marked_dispatch_only() -> None:
    """A batch row gets no probe of its own: a clicked row only says it was dispatched."""
    clicked = envelope("click_ref").data
    rows = (BatchRow(command=("click", "@e13"), success=True, result=clicked, error=None),)
    answer = Envelope(mode=envelope("batch_success").mode, success=True, rows=rows)
    obs = observe(plan(["batch"], STATE, rows=[["click", "@e13"]]), answer)
    (step,) = obs.extra["batchSteps"]
    assert step["dispatchOnly"] is True
    assert step["result"] == {"clicked": "@e13"}


def test_an_open_row_that_answered_with_its_page_is_not_dispatch_only() -> None:
    """`open` reports where it landed: "no observed change" would contradict its `Opened:`."""
    landed = {"url": CLEAN, "title": "Clean Page"}
    rows = (
        BatchRow(command=("open", CLEAN), success=True, result=landed, error=None),
        BatchRow(command=("click", "@e13"), success=True, result={"clicked": "@e13"}, error=None),
    )
    answer = Envelope(mode=envelope("batch_success").mode, success=True, rows=rows)
    obs = observe(plan(["batch"], STATE, rows=[["open", CLEAN], ["click", "@e13"]]), answer)
    opened, clicked = obs.extra["batchSteps"]
    assert "dispatchOnly" not in opened
    assert clicked["dispatchOnly"] is True


def test_a_failed_row_quoting_a_secret_operand_is_scrubbed() -> None:
    row = ("cookies", "set", "sid", SECRET)
    answer = Envelope(
        mode=envelope("batch_success").mode,
        success=False,
        rows=(BatchRow(command=row, success=False, result=None, error=f"bad cookie {SECRET}"),),
        error=f"bad cookie {SECRET}",
    )
    obs = observe(plan(["batch"], STATE, rows=[list(row)]), answer)
    assert SECRET not in (obs.error or "")
    (step,) = obs.extra["batchSteps"]
    assert step["command"] == ["cookies", "set", "sid", "[REDACTED]"]
    assert step["error"] == "bad cookie [REDACTED]"


# --- add_recovery ---------------------------------------------------------------------------


def _ids(obs: Observation) -> list[str]:
    return [a.id for a in obs.next_actions]


def test_a_timeout_on_an_unknown_target_asks_to_verify_the_page() -> None:
    click = plan(["click", "@e13"], STATE)
    obs = observe(click, timed_out())
    add_recovery(click, obs, target_unknown=True, max_timeout_ms=CAP)
    (action,) = obs.next_actions
    assert action.id == "verify-page-target-after-timeout"
    assert action.params["args"] == ["batch", "--bail"]


def test_a_read_only_timeout_offers_a_retry_with_twice_the_budget() -> None:
    getter = plan(["get", "text", "h1"], STATE)
    obs = observe(getter, timed_out())
    add_recovery(getter, obs, target_unknown=False, max_timeout_ms=CAP)
    (action,) = obs.next_actions
    assert action.id == "retry-with-longer-timeout"
    assert action.params == {
        "args": ["get", "text", "h1"],
        "timeoutMs": 2 * getter.timeout.timeout_ms,
    }


def _timeout_recovery(
    args: list[str],
    *,
    timeout_ms: int | None,
    rows: list[list[str]] | None = None,
    cap: int = CAP,
) -> Observation:
    """The next actions after the watchdog stopped `args` planned with `timeout_ms`."""
    called = plan(args, STATE, rows=rows, timeout_ms=timeout_ms)
    obs = observe(called, timed_out())
    add_recovery(called, obs, target_unknown=False, max_timeout_ms=cap)
    return obs


@pytest.mark.parametrize(
    ("args", "asked"),
    [
        (["wait", "3000"], 3000),
        (["wait", "--text", "Done", "--timeout", "4000"], 4000),
    ],
)
def test_a_timed_out_wait_is_offered_a_budget_that_covers_what_it_asked(
    args: list[str], asked: int
) -> None:
    """Doubling 200 ms would offer 400 ms to a 3000 ms wait: a retry that cannot finish."""
    obs = _timeout_recovery(args, timeout_ms=200)
    (action,) = obs.next_actions
    assert action.id == "retry-with-longer-timeout"
    assert action.params["args"] == args
    assert action.params["timeoutMs"] >= asked + WAIT_GRACE_MS


def test_a_timed_out_batch_of_waits_is_offered_their_sum() -> None:
    rows = [["wait", "2000"], ["get", "title"], ["wait", "--timeout", "3000"]]
    obs = _timeout_recovery(["batch", "--bail"], timeout_ms=500, rows=rows)
    (action,) = obs.next_actions
    assert action.params["timeoutMs"] == 2000 + 3000 + WAIT_GRACE_MS
    assert json.loads(action.params["stdin"]) == rows


def test_a_batch_with_an_action_row_is_not_retried_blindly() -> None:
    obs = _timeout_recovery(
        ["batch", "--bail"], timeout_ms=500, rows=[["wait", "2000"], ["click", "@e13"]]
    )
    assert "retry-with-longer-timeout" not in _ids(obs)


def test_a_retry_budget_is_capped_by_the_operators_limit() -> None:
    """A wait that fits under the limit only without the full grace gets the limit itself."""
    obs = _timeout_recovery(["wait", "9000"], timeout_ms=200, cap=10_000)
    (action,) = obs.next_actions
    assert action.params["timeoutMs"] == 10_000


def test_a_wait_longer_than_the_operators_limit_says_no_retry_can_finish() -> None:
    obs = _timeout_recovery(["wait", "20000"], timeout_ms=5000, cap=10_000)
    assert "retry-with-longer-timeout" not in _ids(obs)
    (warning,) = obs.warnings
    assert "wait 20000 ms" in warning and "at most timeoutMs 10000" in warning


def test_a_read_already_at_the_limit_is_not_offered_the_same_budget_again() -> None:
    obs = _timeout_recovery(["get", "text", "h1"], timeout_ms=10_000, cap=10_000)
    assert "retry-with-longer-timeout" not in _ids(obs)
    (warning,) = obs.warnings
    assert "already this server's limit (10000 ms)" in warning


def test_a_mutation_timeout_on_a_known_page_is_not_retried() -> None:
    """Repeating a click that may have run could submit twice."""
    click = plan(["click", "@e13"], STATE)
    obs = observe(click, timed_out())
    add_recovery(click, obs, target_unknown=False, max_timeout_ms=CAP)
    assert "retry-with-longer-timeout" not in _ids(obs)


def test_a_gone_tab_offers_listing_and_opening_tabs() -> None:
    scenario = "pinned-tab-closed-click"
    argv = plan(engine_error_command(scenario))
    obs = observe(argv, engine_error(scenario))
    add_recovery(argv, obs, target_unknown=False, max_timeout_ms=CAP)
    assert [a.params["args"] for a in obs.next_actions] == [["tab", "list"], ["tab", "new"]]


def test_a_successful_mutation_asks_for_fresh_refs_and_a_read_does_not() -> None:
    fill = plan(command("fill_ref"), STATE)
    filled = observe(fill, envelope("fill_ref"))
    add_recovery(fill, filled, target_unknown=False, max_timeout_ms=CAP)
    assert _ids(filled) == ["inspect-after-mutation"]
    read = plan(command("get_text"), STATE)
    text = observe(read, envelope("get_text"))
    add_recovery(read, text, target_unknown=False, max_timeout_ms=CAP)
    assert text.next_actions == []


def test_an_engine_unknown_ref_gets_the_guards_reason_field_and_refresh_action() -> None:
    """The engine's own `Unknown ref` is a stale ref like the guard's refusal: same fix."""
    click = plan(["click", "@e999"], STATE)
    obs = observe(click, envelope("click_missing_ref"))
    add_recovery(click, obs, target_unknown=False, max_timeout_ms=CAP)
    assert obs.failure_category is FailureCategory.STALE_REF
    assert obs.extra["staleRef"] == {
        "refs": ["@e999"],
        "step": None,
        "reason": "engine-unknown-ref",
    }
    assert [a.params["args"] for a in obs.next_actions] == [["snapshot", "-i"]]


def test_an_engine_element_miss_on_a_ref_names_the_ref_and_keeps_the_session() -> None:
    """`Could not locate element` after the node behind a ref is gone: refresh, same session."""
    click = plan(["--session", "mine", "click", "@e9"], named("mine", page()))
    gone = Envelope(
        mode=click.output_mode,
        success=False,
        error="Could not locate element with role=button name=Close",
    )
    obs = observe(click, gone)
    add_recovery(click, obs, target_unknown=False, max_timeout_ms=CAP)
    assert obs.failure_category is FailureCategory.STALE_REF
    assert obs.extra["staleRef"]["reason"] == "engine-element-not-found"
    assert obs.extra["staleRef"]["refs"] == ["@e9"]
    assert [a.params["args"] for a in obs.next_actions] == [["--session", "mine", "snapshot", "-i"]]


def test_an_engine_stale_ref_inside_a_batch_names_the_failed_step() -> None:
    rows = [["fill", "@e13", "x"], ["click", "@e999"]]
    batch = plan(["batch", "--bail"], STATE, rows=rows)
    answer = Envelope(
        mode=batch.output_mode,
        success=False,
        rows=(
            BatchRow(("fill", "@e13", "x"), True, {"filled": "@e13"}, None),
            BatchRow(("click", "@e999"), False, None, "Unknown ref: e999"),
        ),
    )
    obs = observe(batch, answer)
    add_recovery(batch, obs, target_unknown=False, max_timeout_ms=CAP)
    assert obs.extra["staleRef"] == {"refs": ["@e999"], "step": 2, "reason": "engine-unknown-ref"}
    assert "refresh-interactive-refs" in _ids(obs)


@pytest.mark.parametrize("args", [["eval", "x"], ["--json", "false", "eval", "x"]])
def test_an_endpoint_refusal_after_dispatch_is_policy_blocked_with_its_rule(
    args: list[str],
) -> None:
    """The endpoint guard's refusal (`planning/script_guard.py` settles it) reads like a
    refusal before dispatch, in JSON and in native text mode."""
    policy = {"rule": "browser-endpoint", "subject": "http://127.0.0.1:9", "allowWith": None}
    error = "policy-blocked (browser-endpoint): the page is on http://127.0.0.1:9, ..."
    planned = plan(args, STATE)
    mode = planned.output_mode
    answer = Envelope(mode=mode, success=False, error=error, extra={"policy": policy})
    obs = observe(planned, answer)
    assert obs.failure_category is FailureCategory.POLICY_BLOCKED
    assert obs.extra["policy"] == policy
