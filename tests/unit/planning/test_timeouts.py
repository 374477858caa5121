"""The per-call watchdog (pure).

Order: caller `timeoutMs`; else a duration the command asks for plus grace (never below the
default); else the short dialog bound; else the dialog-trigger bound; else the default.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agent_browser_tools import taxonomy
from agent_browser_tools.planning.inputs import AgentBrowserInput
from agent_browser_tools.planning.plan import build_plan
from agent_browser_tools.planning.sessions import managed_base_name
from agent_browser_tools.planning.timeouts import (
    WAIT_GRACE_MS,
    TimeoutPlan,
    looks_dialog_triggering,
    plan_timeout,
    requested_duration_ms,
    requested_total_ms,
    retry_budget,
)
from agent_browser_tools.settings import Settings
from agent_browser_tools.state.models import (
    ConversationState,
    RefInfo,
    RefSnapshot,
    SessionPageState,
)

DEFAULT, DIALOG, TRIGGER = 35_000, 5_000, 8_000
SETTINGS = Settings(
    env={},
    state_dir=Path("/nonexistent-state"),
    process_timeout_ms=DEFAULT,
    dialog_process_timeout_ms=DIALOG,
    dialog_trigger_process_timeout_ms=TRIGGER,
)
ROOT = "root"
REFS = {
    "e1": RefInfo(role="button", name="Submit"),
    "e2": RefInfo(role="button", name="Alert"),
    "e3": RefInfo(role="button", name="Show confirm dialog"),
    "e4": RefInfo(role="link", name="Confirmation page"),
}


def _state_with_refs() -> ConversationState:
    name = managed_base_name(ROOT)
    entry = SessionPageState(
        ownership="managed",
        active=True,
        ref_snapshot=RefSnapshot(refs=REFS, target_url="https://x.test/"),
    )
    return ConversationState(managed_session=name, sessions={name: entry})


def _timeout(
    args: list[str],
    stdin: str | None = None,
    *,
    timeout_ms: int | None = None,
    state: ConversationState | None = None,
) -> TimeoutPlan:
    inp = AgentBrowserInput(args=args, stdin=stdin, timeoutMs=timeout_ms)
    plan = build_plan(
        inp, state or ConversationState(), SETTINGS, root_id=ROOT, native_default=None
    )
    return plan.timeout


# --- derived from a requested duration --------------------------------------------------------


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (["wait", "60000"], 60_000 + WAIT_GRACE_MS),
        (["wait", "--timeout", "90000", "--text", "Done"], 90_000 + WAIT_GRACE_MS),
        (["wait", "#ready", "--timeout", "45000"], 45_000 + WAIT_GRACE_MS),
        (["--session", "s", "wait", "50000"], 50_000 + WAIT_GRACE_MS),
        (["webmcp", "invoke", "search", "--timeout", "120000"], 120_000 + WAIT_GRACE_MS),
        (["webmcp", "result", "inv-1", "--timeout", "70000"], 70_000 + WAIT_GRACE_MS),
    ],
)
def test_long_requested_durations_extend_the_watchdog(args: list[str], expected: int) -> None:
    assert _timeout(args) == TimeoutPlan(expected, "derived-wait")


@pytest.mark.parametrize(
    "args", [["wait", "2000"], ["wait", "--timeout", "1000", "--url", "**/done"]]
)
def test_short_durations_never_go_below_the_default(args: list[str]) -> None:
    assert _timeout(args) == TimeoutPlan(DEFAULT, "derived-wait")


@pytest.mark.parametrize(
    "args",
    [
        ["wait", "#selector"],
        ["wait", "--load", "networkidle"],
        ["wait", "--text", "60000"],
        ["webmcp", "invoke", "search"],
        ["webmcp", "list"],
        ["webmcp", "cancel", "inv-1"],
        ["get", "url"],
        ["open", "https://x.test"],
    ],
)
def test_no_requested_duration_means_the_default(args: list[str]) -> None:
    assert _timeout(args) == TimeoutPlan(DEFAULT, "default")


def test_batch_waits_are_summed() -> None:
    stdin = json.dumps(
        [["open", "https://x.test"], ["wait", "20000"], ["click", "#go"], ["wait", "30000"]]
    )
    assert _timeout(["batch", "--bail"], stdin) == TimeoutPlan(
        20_000 + 30_000 + WAIT_GRACE_MS, "derived-wait"
    )


def test_batch_rows_with_their_own_global_flags_still_count() -> None:
    stdin = json.dumps([["--session", "other", "wait", "40000"], ["wait", "--timeout", "10000"]])
    assert _timeout(["batch"], stdin).timeout_ms == 40_000 + 10_000 + WAIT_GRACE_MS


def test_batch_args_rows_are_read_too() -> None:
    plan = _timeout(["batch", "--bail", "wait 40000", "webmcp invoke t --timeout 30000"])
    assert plan == TimeoutPlan(40_000 + 30_000 + WAIT_GRACE_MS, "derived-wait")


def test_batch_without_waits_gets_the_default_even_with_dialog_rows() -> None:
    stdin = json.dumps([["dialog", "accept"], ["eval", "alert(1)"]])
    assert _timeout(["batch"], stdin) == TimeoutPlan(DEFAULT, "default")


# --- dialogs ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "args",
    [
        ["dialog", "accept"],
        ["dialog", "accept", "answer"],
        ["dialog", "dismiss"],
        ["dialog", "status"],
    ],
)
def test_dialog_commands_get_the_short_bound(args: list[str]) -> None:
    assert _timeout(args) == TimeoutPlan(DIALOG, "dialog")


@pytest.mark.parametrize(
    ("args", "stdin"),
    [
        (["eval", "--stdin"], "window.alert('hi')"),
        (["eval", "--stdin"], "confirm('Delete?')"),
        (["eval", "--stdin"], "document.querySelector('dialog').showModal()"),
        (["eval", "--stdin", "prompt('name')"], None),
        (["eval", "alert(1)"], None),
        (["click", "#show-alert"], None),
        (["click", "text=Open dialog"], None),
        (["tap", "#confirm"], None),
        (["dblclick", "button.prompt"], None),
        (["find", "role", "button", "click", "--name", "Alert"], None),
    ],
)
def test_dialog_trigger_like_commands_get_the_trigger_bound(
    args: list[str], stdin: str | None
) -> None:
    assert _timeout(args, stdin) == TimeoutPlan(TRIGGER, "dialog-trigger")


@pytest.mark.parametrize("ref", ["@e2", "e2", "ref=e2", "@e3"])
def test_click_on_a_ref_named_like_a_dialog_trigger_gets_the_trigger_bound(ref: str) -> None:
    assert _timeout(["click", ref], state=_state_with_refs()) == TimeoutPlan(
        TRIGGER, "dialog-trigger"
    )


@pytest.mark.parametrize(
    ("args", "stdin"),
    [
        (["click", "@e1"], None),  # "Submit"
        (["click", "@e4"], None),  # "Confirmation page": a word, not a trigger
        (["click", "@e9"], None),  # unknown ref: no evidence either way
        (["eval", "--stdin"], "document.title"),
        (["fill", "#q", "alert"], None),  # typed text is not a trigger
        (["get", "text", "#alert-banner"], None),
    ],
)
def test_ordinary_commands_are_not_treated_as_triggers(args: list[str], stdin: str | None) -> None:
    assert _timeout(args, stdin, state=_state_with_refs()) == TimeoutPlan(DEFAULT, "default")


def test_ref_names_only_count_without_a_snapshot_when_spelled_in_the_token() -> None:
    assert _timeout(["click", "@e2"]) == TimeoutPlan(DEFAULT, "default")


# --- caller wins --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("args", "stdin"),
    [
        (["wait", "90000"], None),
        (["dialog", "accept"], None),
        (["eval", "--stdin"], "alert(1)"),
        (["batch"], '[["wait", "60000"]]'),
        (["get", "url"], None),
    ],
)
def test_caller_timeout_wins(args: list[str], stdin: str | None) -> None:
    assert _timeout(args, stdin, timeout_ms=1234) == TimeoutPlan(1234, "caller")


# --- the helpers directly -------------------------------------------------------------------------


def test_requested_duration_helper() -> None:
    assert requested_duration_ms(["wait", "1500"]) == 1500
    assert requested_duration_ms(["wait", "--timeout", "9000", "--text", "x"]) == 9000
    assert requested_duration_ms(["wait", "--timeout"]) is None
    assert requested_duration_ms(["webmcp", "result", "id", "--timeout", "abc"]) is None
    assert requested_duration_ms(["webmcp", "list", "--timeout", "100"]) is None
    assert requested_duration_ms([]) is None


def test_dialog_trigger_helper_reads_stdin_only_for_eval_stdin() -> None:
    assert looks_dialog_triggering(["eval", "--stdin"], "alert(1)", {})
    assert not looks_dialog_triggering(["eval", "--stdin"], None, {})
    assert not looks_dialog_triggering(["click", "#x"], "alert(1)", {})


def test_plan_timeout_uses_the_configured_bounds() -> None:
    def pick(command: list[str]) -> TimeoutPlan:
        return plan_timeout(
            caller_ms=None,
            command=command,
            batch_rows=None,
            stdin=None,
            refs={},
            default_ms=10,
            dialog_ms=20,
            dialog_trigger_ms=30,
        )

    assert pick(["get", "url"]) == TimeoutPlan(10, "default")
    assert pick(["dialog", "status"]) == TimeoutPlan(20, "dialog")
    assert pick(["click", "#alert"]) == TimeoutPlan(30, "dialog-trigger")


@pytest.mark.parametrize(
    ("spent", "requested", "cap", "expected"),
    [
        (200, 3000, 600_000, 3000 + WAIT_GRACE_MS),  # covers the wait, not 2 x 200
        (300, None, 600_000, 600),  # nothing asked: double
        (20_000, 3000, 600_000, 40_000),  # doubling already covers the wait
        (200, 9000, 10_000, 10_000),  # the grace does not fit: the limit itself
        (200, 10_000, 10_000, None),  # the wait alone reaches the limit
        (8000, None, 10_000, 10_000),  # doubling capped at the limit
        (10_000, None, 10_000, None),  # already at the limit: nothing better
    ],
)
def test_a_retry_budget_covers_the_request_within_the_operators_limit(
    spent: int, requested: int | None, cap: int, expected: int | None
) -> None:
    assert retry_budget(spent, requested, cap) == expected


def test_the_total_requested_covers_waits_and_webmcp_timeouts_across_rows() -> None:
    rows = [["wait", "2000"], ["get", "title"], ["webmcp", "result", "i1", "--timeout", "9000"]]
    matches = [taxonomy.resolve_command(row) for row in rows]
    assert requested_total_ms(matches) == 11_000
    assert requested_total_ms([taxonomy.resolve_command(["get", "title"])]) is None
