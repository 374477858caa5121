"""Result classifiers against real engine strings, synthetic wrapper cases and chain order.

Real strings come from `tests/fixtures/engine_errors-0.39.4.json` (written by
`scripts/capture_engine_errors.py`); synthetic rows cover categories the engine cannot be
made to produce on demand (wrapper flags, explicit categories, wrapper phrasing).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from agent_browser_tools.results.categories import FailureCategory, SuccessCategory
from agent_browser_tools.results.classify import (
    FAILURE_CHAIN_ORDER,
    classify_failure,
    classify_success,
)

F = FailureCategory
S = SuccessCategory

FIXTURE = Path(__file__).resolve().parents[2] / "fixtures" / "engine_errors-0.39.4.json"
RECORDS: list[dict[str, Any]] = json.loads(FIXTURE.read_text(encoding="utf-8"))
SUCCESS_VALUES = {c.value for c in SuccessCategory}


def _inputs(record: dict[str, Any]) -> tuple[str, tuple[str, ...], bool]:
    """Error text, argv and confirmation flag as the result layer would derive them."""
    envelope = record["envelope"]
    if envelope is None:
        return record.get("stderr", ""), tuple(record["argv"]), False
    data = envelope.get("data")
    pending = isinstance(data, dict) and data.get("confirmation_required") is True
    return envelope.get("error") or "", tuple(record["argv"]), pending


def _record(scenario: str) -> dict[str, Any]:
    return next(r for r in RECORDS if r["scenario"] == scenario)


# --- real engine strings ------------------------------------------------------------------


@pytest.mark.parametrize("record", RECORDS, ids=[r["scenario"] for r in RECORDS])
def test_captured_engine_output_classifies_as_expected(record: dict[str, Any]) -> None:
    text, argv, pending = _inputs(record)
    if record["expected_category"] in SUCCESS_VALUES:
        assert record["envelope"]["success"] is True and not pending
        value = classify_success(
            inspection=False,
            pending_artifacts=0,
            unverified_artifacts=0,
            saved_file=False,
            artifact_count=0,
        ).value
    else:
        value = classify_failure(text, command=argv, confirmation_required=pending).value
    assert value == record["expected_category"]


def test_fixture_covers_every_category_the_engine_produces() -> None:
    produced = {r["expected_category"] for r in RECORDS}
    assert produced >= {
        F.STALE_REF.value,
        F.SELECTOR_NOT_FOUND.value,
        F.SELECTOR_UNSUPPORTED.value,
        F.TAB_GONE.value,
        F.CONFIRMATION_REQUIRED.value,
        F.DOWNLOAD_NOT_VERIFIED.value,
        F.POLICY_BLOCKED.value,
        F.TIMEOUT.value,
        F.UPSTREAM_ERROR.value,
    }


def test_fixture_envelopes_are_verbatim_engine_json() -> None:
    for record in RECORDS:
        envelope = record["envelope"]
        if envelope is None:
            assert record["stderr"], record["scenario"]
        else:
            assert isinstance(envelope["success"], bool), record["scenario"]


# --- synthetic rows: wrapper flags, explicit categories, wrapper phrasing ------------------

SYNTHETIC: list[tuple[str, str, dict[str, Any], FailureCategory]] = [
    ("explicit-artifact-missing", "", {"explicit": F.ARTIFACT_MISSING}, F.ARTIFACT_MISSING),
    ("explicit-qa-failure", "assertion failed", {"explicit": F.QA_FAILURE}, F.QA_FAILURE),
    ("explicit-script-error", "TypeError: x", {"explicit": F.SCRIPT_ERROR}, F.SCRIPT_ERROR),
    ("missing-binary-flag", "", {"missing_binary": True}, F.MISSING_BINARY),
    (
        "missing-binary-spawn-error",
        "FileNotFoundError: [Errno 2] No such file or directory: '/opt/bin/agent-browser'",
        {},
        F.MISSING_BINARY,
    ),
    ("missing-binary-wrapper-text", "engine binary could not be executed", {}, F.MISSING_BINARY),
    ("parse-failure-flag", "", {"parse_failure": True}, F.PARSE_FAILURE),
    (
        "parse-failure-wrapper-text",
        "could not parse agent-browser output: output is not valid JSON (Expecting value)",
        {},
        F.PARSE_FAILURE,
    ),
    (
        "nonzero-exit-without-envelope-is-upstream",
        "agent-browser exited with code 1 (output is not valid JSON (Expecting value))",
        {},
        F.UPSTREAM_ERROR,
    ),
    ("aborted-flag", "", {"aborted": True}, F.ABORTED),
    ("aborted-text", "The tool call was aborted by the caller.", {}, F.ABORTED),
    (
        "chromium-err-aborted-is-not-caller-abort",
        "Navigation failed: net::ERR_ABORTED",
        {},
        F.UPSTREAM_ERROR,
    ),
    (
        "cleanup-failed",
        "close succeeded but cleanup failed: 2 remaining processes",
        {},
        F.CLEANUP_FAILED,
    ),
    ("cleanup-partial", "partial cleanup of profile directory", {}, F.CLEANUP_FAILED),
    (
        "validation-error-flag",
        'args must name a command, e.g. ["snapshot", "-i"].',
        {"validation_error": True},
        F.VALIDATION_ERROR,
    ),
    (
        "tab-drift-reselect",
        "Could not re-select the intended tab after the command.",
        {},
        F.TAB_DRIFT,
    ),
    ("tab-drift-about-blank", "The session landed on about:blank unexpectedly.", {}, F.TAB_DRIFT),
    ("tab-drift-target-lost", "Electron page target was lost after the command.", {}, F.TAB_DRIFT),
    ("timeout-flag", "", {"timed_out": True}, F.TIMEOUT),
    (
        "timeout-wrapper-watchdog",
        "agent-browser did not finish within 30000 ms and was stopped",
        {},
        F.TIMEOUT,
    ),
    ("timeout-cdp", "CDP command timed out", {}, F.TIMEOUT),
    ("bare-timeout-word-is-not-timeout", "Invalid value for --timeout: abc", {}, F.UPSTREAM_ERROR),
    (
        "confirmation-text",
        "Confirmation required:\n  click\n  Run: confirm r1",
        {},
        F.CONFIRMATION_REQUIRED,
    ),
    ("confirmation-flag", "", {"confirmation_required": True}, F.CONFIRMATION_REQUIRED),
    ("policy-wrapper-text", "policy-blocked: prompt guard refused close", {}, F.POLICY_BLOCKED),
    ("stale-ref-text", "ref @e4 may be stale after navigation", {}, F.STALE_REF),
    ("stale-ref-in-text-element-miss", "element not found for @e7", {}, F.STALE_REF),
    (
        "selector-unsupported-text",
        "Unsupported selector: role=button[name=Save]",
        {},
        F.SELECTOR_UNSUPPORTED,
    ),
    (
        "selector-unsupported-dialect-miss",
        "No elements found for selector text=Close",
        {},
        F.SELECTOR_UNSUPPORTED,
    ),
    ("selector-not-found-generic", "Unable to find element for locator", {}, F.SELECTOR_NOT_FOUND),
    ("selector-not-found-no-elements", "No elements found", {}, F.SELECTOR_NOT_FOUND),
    (
        "download-not-verified-text",
        "Download did not complete: file missing",
        {"command": ("download", "#file", "/tmp/x.txt")},
        F.DOWNLOAD_NOT_VERIFIED,
    ),
    (
        "wait-download-failure",
        "Failed to save file",
        {"command": ("--session", "s1", "wait", "--download", "/tmp/x.txt")},
        F.DOWNLOAD_NOT_VERIFIED,
    ),
    (
        "download-usage-error-is-upstream",
        "Missing arguments for: download",
        {"command": ("download",)},
        F.UPSTREAM_ERROR,
    ),
    ("default-upstream-error", "Something unexpected happened", {}, F.UPSTREAM_ERROR),
    ("empty-text-upstream-error", "", {}, F.UPSTREAM_ERROR),
]


@pytest.mark.parametrize(
    ("text", "kwargs", "expected"),
    [row[1:] for row in SYNTHETIC],
    ids=[row[0] for row in SYNTHETIC],
)
def test_synthetic_failures(text: str, kwargs: dict[str, Any], expected: FailureCategory) -> None:
    assert classify_failure(text, **kwargs) is expected


# --- chain order ---------------------------------------------------------------------------

TAB_GONE_TEXT = _record("pinned-tab-closed-get-url")["envelope"]["error"]
NAMES_SEEN_TEXT = _record("find-role-name-miss")["envelope"]["error"]
REMOVED_REF_TEXT = _record("ref-element-removed")["envelope"]["error"]

ORDERING: list[tuple[str, str, dict[str, Any], FailureCategory]] = [
    (
        "explicit-beats-confirmation-flag",
        TAB_GONE_TEXT,
        {"explicit": F.SCRIPT_ERROR, "confirmation_required": True},
        F.SCRIPT_ERROR,
    ),
    (
        "confirmation-flag-beats-tab-gone",
        TAB_GONE_TEXT,
        {"confirmation_required": True},
        F.CONFIRMATION_REQUIRED,
    ),
    (
        "tab-gone-beats-every-text-and-flag-below-it",
        "tab_gone: bound tab is gone (target T1, last url https://x.test/aborted/about:blank). "
        'Names seen: "Timed out". Confirmation required. Action denied by policy. '
        "cleanup failed. Unknown ref: e1. Invalid selector. download failed",
        {"timed_out": True, "aborted": True, "validation_error": True, "parse_failure": True},
        F.TAB_GONE,
    ),
    (
        "names-seen-with-timed-out-and-confirmation-names-is-selector-miss",
        NAMES_SEEN_TEXT,
        {"command": ("find", "role", "button", "click", "--name", "Nope")},
        F.SELECTOR_NOT_FOUND,
    ),
    (
        "locator-miss-beats-timeout-flag",
        NAMES_SEEN_TEXT,
        {"timed_out": True},
        F.SELECTOR_NOT_FOUND,
    ),
    (
        "names-seen-with-unrelated-prose-is-not-a-locator-miss",
        'Diagnostics. Names seen: "Upload timed out"',
        {"command": ("eval", "x")},
        F.TIMEOUT,
    ),
    (
        "no-pending-confirmation-is-not-confirmation-required",
        "No pending confirmation",
        {},
        F.UPSTREAM_ERROR,
    ),
    (
        "timeout-beats-download",
        "Operation timed out. The page may still be loading or the element may not exist.",
        {"command": ("wait", "--download", "/tmp/x.txt")},
        F.TIMEOUT,
    ),
    (
        "timeout-flag-beats-aborted-flag",
        "",
        {"timed_out": True, "aborted": True},
        F.TIMEOUT,
    ),
    (
        "missing-binary-beats-parse-failure",
        "",
        {"missing_binary": True, "parse_failure": True},
        F.MISSING_BINARY,
    ),
    (
        "policy-beats-validation-flag",
        "Action 'click' denied by policy: Action 'click' is not in the allow list",
        {"validation_error": True},
        F.POLICY_BLOCKED,
    ),
    (
        "validation-flag-beats-stale-ref",
        "Unknown ref: e3",
        {"validation_error": True},
        F.VALIDATION_ERROR,
    ),
    (
        "tab-drift-beats-stale-ref",
        "tab drift detected; Unknown ref: e3",
        {},
        F.TAB_DRIFT,
    ),
    (
        "ref-heuristic-needs-a-ref-in-argv",
        REMOVED_REF_TEXT,
        {"command": ("click", "#close")},
        F.SELECTOR_NOT_FOUND,
    ),
    (
        "ref-heuristic-fires-with-ref-in-argv",
        REMOVED_REF_TEXT,
        {"command": ("--session", "s", "click", "@e2")},
        F.STALE_REF,
    ),
    (
        "ref-heuristic-accepts-ref-equals-spelling",
        REMOVED_REF_TEXT,
        {"command": ("click", "ref=e2")},
        F.STALE_REF,
    ),
    (
        "stale-ref-beats-selector-unsupported",
        "Unknown ref: e9 (selector text=Close not found)",
        {},
        F.STALE_REF,
    ),
    (
        "unsupported-beats-selector-not-found",
        "Invalid selector 'text=Close': element not found",
        {},
        F.SELECTOR_UNSUPPORTED,
    ),
    (
        "playwright-dialect-as-locator-detail-miss-stays-not-found",
        _record("playwright-text-dialect-click")["envelope"]["error"],
        {},
        F.SELECTOR_NOT_FOUND,
    ),
    (
        "selector-miss-beats-download",
        _record("css-selector-not-found")["envelope"]["error"],
        {"command": ("download", "#nope", "/tmp/x.txt")},
        F.SELECTOR_NOT_FOUND,
    ),
    (
        "download-dir-no-such-file-is-not-missing-binary",
        _record("download-directory-unwritable")["envelope"]["error"],
        {"command": ("download", "#file", "/proc/x/y.txt")},
        F.DOWNLOAD_NOT_VERIFIED,
    ),
]


@pytest.mark.parametrize(
    ("text", "kwargs", "expected"),
    [row[1:] for row in ORDERING],
    ids=[row[0] for row in ORDERING],
)
def test_chain_order(text: str, kwargs: dict[str, Any], expected: FailureCategory) -> None:
    assert classify_failure(text, **kwargs) is expected


def test_chain_order_matches_contract() -> None:
    assert FAILURE_CHAIN_ORDER == (
        F.CONFIRMATION_REQUIRED,
        F.TAB_GONE,
        F.SELECTOR_NOT_FOUND,
        F.CONFIRMATION_REQUIRED,
        F.TIMEOUT,
        F.MISSING_BINARY,
        F.PARSE_FAILURE,
        F.ABORTED,
        F.POLICY_BLOCKED,
        F.CLEANUP_FAILED,
        F.VALIDATION_ERROR,
        F.TAB_DRIFT,
        F.STALE_REF,
        F.SELECTOR_UNSUPPORTED,
        F.SELECTOR_NOT_FOUND,
        F.DOWNLOAD_NOT_VERIFIED,
    )


def test_every_failure_category_is_reachable_through_explicit() -> None:
    for category in FailureCategory:
        assert classify_failure("tab_gone: x", explicit=category) is category


# --- success ---------------------------------------------------------------------------

SUCCESS_ROWS: list[tuple[str, dict[str, Any], SuccessCategory]] = [
    (
        "inspection-wins",
        {
            "inspection": True,
            "pending_artifacts": 1,
            "unverified_artifacts": 1,
            "saved_file": True,
            "artifact_count": 3,
        },
        S.INSPECTION,
    ),
    (
        "pending-recording",
        {
            "inspection": False,
            "pending_artifacts": 1,
            "unverified_artifacts": 1,
            "saved_file": True,
            "artifact_count": 2,
        },
        S.ARTIFACT_PENDING,
    ),
    (
        "unverified-artifact",
        {
            "inspection": False,
            "pending_artifacts": 0,
            "unverified_artifacts": 1,
            "saved_file": True,
            "artifact_count": 1,
        },
        S.ARTIFACT_UNVERIFIED,
    ),
    (
        "saved-file-only",
        {
            "inspection": False,
            "pending_artifacts": 0,
            "unverified_artifacts": 0,
            "saved_file": True,
            "artifact_count": 0,
        },
        S.ARTIFACT_SAVED,
    ),
    (
        "verified-artifacts",
        {
            "inspection": False,
            "pending_artifacts": 0,
            "unverified_artifacts": 0,
            "saved_file": False,
            "artifact_count": 2,
        },
        S.ARTIFACT_SAVED,
    ),
    (
        "nothing-special",
        {
            "inspection": False,
            "pending_artifacts": 0,
            "unverified_artifacts": 0,
            "saved_file": False,
            "artifact_count": 0,
        },
        S.COMPLETED,
    ),
]


@pytest.mark.parametrize(
    ("kwargs", "expected"), [row[1:] for row in SUCCESS_ROWS], ids=[row[0] for row in SUCCESS_ROWS]
)
def test_success_categories(kwargs: dict[str, Any], expected: SuccessCategory) -> None:
    assert classify_success(**kwargs) is expected


# --- enum coverage ---------------------------------------------------------------------------


def test_every_category_value_appears_in_a_test_table() -> None:
    failure_seen = {row[-1] for row in SYNTHETIC} | {row[-1] for row in ORDERING}
    failure_seen |= {
        F(r["expected_category"]) for r in RECORDS if r["expected_category"] not in SUCCESS_VALUES
    }
    success_seen = {row[-1] for row in SUCCESS_ROWS}
    success_seen |= {
        S(r["expected_category"]) for r in RECORDS if r["expected_category"] in SUCCESS_VALUES
    }
    assert set(FailureCategory) - failure_seen == set()
    assert set(SuccessCategory) - success_seen == set()
