"""`agent_browser_qa` verdict rules (pure) and how they turn the executor's result (no engine).

Rows are shaped like `batchSteps` from a real engine 0.39.4 batch (`step`, `command`,
`success`, `result` / `error`); diagnostic payloads are the engine's own `requests`,
`messages` and `errors` lists.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from agent_browser_tools.api import BrowserTools
from agent_browser_tools.results.categories import FailureCategory, SuccessCategory
from agent_browser_tools.results.observation import Observation
from agent_browser_tools.settings import Settings
from agent_browser_tools.tools import agent_browser
from agent_browser_tools.tools.qa.compile import CompiledQa, QaInput, compile_qa
from agent_browser_tools.tools.qa.run import apply_verdict
from agent_browser_tools.tools.qa.verdict import UNVERIFIED_ERRORS, QaStep, evaluate

URL = "http://127.0.0.1:8000/page.html"
BOOM = {"text": "Error: boom\n    at page.html:3:9", "line": 2, "column": 8, "url": None}
OTHER = {"text": "TypeError: x is undefined", "line": 9, "column": 1, "url": None}
DOC_OK = {"url": URL, "method": "GET", "resourceType": "Document", "status": 200, "requestId": "1"}
FAVICON_404 = {
    "url": "http://127.0.0.1:8000/favicon.ico",
    "method": "GET",
    "resourceType": "Other",
    "status": 404,
    "requestId": "9.3",
}
API_500 = {
    "url": "http://127.0.0.1:8000/api/fail",
    "method": "GET",
    "resourceType": "Fetch",
    "status": 500,
    "requestId": "9.2",
}


def _compile(**fields: Any) -> CompiledQa:
    return compile_qa(QaInput.model_validate(fields))


def _results(compiled: CompiledQa, **overrides: Any) -> list[Any]:
    """Clean results for every step; `overrides` replaces results by role."""
    clean: dict[str, Any] = {
        "clear-network": {"cleared": True},
        "clear-console": {"cleared": True},
        "clear-errors": {"errors": []},
        "error-baseline": {"errors": []},
        "open": {"url": URL, "title": "Page"},
        "ready": {"state": "domcontentloaded"},
        "settle": {"ms": 150, "waited": "timeout"},
        "expect-text": {"result": True},
        "expect-selector": {"selector": "h1", "waited": "selector"},
        "read-network": {"requests": [DOC_OK]},
        "read-console": {"messages": []},
        "read-errors": {"errors": []},
        "screenshot": {"path": "qa.png"},
    }
    clean.update({k.replace("_", "-"): v for k, v in overrides.items()})
    return [clean[step.role] for step in compiled.steps]


def _rows(compiled: CompiledQa, results: list[Any], fail_at: int | None = None) -> list[Any]:
    rows = []
    for index, (step, result) in enumerate(zip(compiled.steps, results, strict=True), start=1):
        row: dict[str, Any] = {"step": index, "command": list(step.argv), "success": True}
        if index == fail_at:
            rows.append({**row, "success": False, "error": "Wait timed out after 5000ms"})
            return rows
        rows.append({**row, "result": result})
    return rows


def test_a_clean_page_passes_with_a_summary_of_the_checks() -> None:
    compiled = _compile(url=URL, expectedText="Status")
    verdict = evaluate(compiled.steps, _rows(compiled, _results(compiled)))
    assert verdict.passed and verdict.failed_checks == [] and verdict.warnings == []
    assert verdict.summary.startswith('QA preset passed: expected text "Status"')
    assert set(verdict.to_dict()) == {
        "passed",
        "failedChecks",
        "notRunChecks",
        "warnings",
        "summary",
    }


def test_console_errors_fail_but_other_console_levels_do_not() -> None:
    compiled = _compile(url=URL)
    messages = [
        {"type": "log", "text": "started"},
        {"type": "warning", "text": "deprecated"},
        {"type": "error", "text": "widget failed to load"},
    ]
    rows = _rows(compiled, _results(compiled, read_console={"messages": messages}))
    verdict = evaluate(compiled.steps, rows)
    assert not verdict.passed
    assert verdict.failed_checks == ["1 console error(s): widget failed to load"]
    assert verdict.findings == {"console"}


def test_new_page_errors_with_an_empty_baseline_are_counted() -> None:
    compiled = _compile(url=URL)
    rows = _rows(compiled, _results(compiled, read_errors={"errors": [BOOM]}))
    verdict = evaluate(compiled.steps, rows)
    assert verdict.failed_checks == ["1 new page error(s): Error: boom"]
    assert UNVERIFIED_ERRORS not in verdict.failed_checks


def test_errors_matching_the_baseline_are_an_unverified_check_not_new_errors() -> None:
    compiled = _compile(url=URL)
    results = _results(compiled, error_baseline={"errors": [BOOM]}, read_errors={"errors": [BOOM]})
    verdict = evaluate(compiled.steps, _rows(compiled, results))
    assert not verdict.passed
    assert verdict.failed_checks == [UNVERIFIED_ERRORS]
    assert not any("new page error" in check for check in verdict.failed_checks)
    assert verdict.findings == {"unverified-errors"}
    assert any("pre-check error baseline" in warning for warning in verdict.warnings)


def test_rows_beyond_the_baseline_are_new_even_when_identical() -> None:
    compiled = _compile(url=URL)
    results = _results(
        compiled,
        error_baseline={"errors": [BOOM]},
        read_errors={"errors": [BOOM, BOOM, OTHER]},
    )
    verdict = evaluate(compiled.steps, _rows(compiled, results))
    assert verdict.failed_checks[0].startswith("2 new page error(s): Error: boom; TypeError")
    assert UNVERIFIED_ERRORS in verdict.failed_checks


def test_a_baseline_that_vanished_leaves_only_new_errors() -> None:
    compiled = _compile(url=URL)
    results = _results(compiled, error_baseline={"errors": [BOOM]}, read_errors={"errors": []})
    assert evaluate(compiled.steps, _rows(compiled, results)).passed


def test_a_benign_icon_miss_passes_with_a_warning() -> None:
    compiled = _compile(url=URL)
    results = _results(compiled, read_network={"requests": [DOC_OK, FAVICON_404]})
    verdict = evaluate(compiled.steps, _rows(compiled, results))
    assert verdict.passed and verdict.failed_checks == []
    assert len(verdict.warnings) == 1 and "favicon.ico" in verdict.warnings[0]
    assert verdict.summary.startswith("QA preset passed with warnings: ")


def test_an_actionable_failed_request_fails_and_names_the_request() -> None:
    compiled = _compile(url=URL)
    results = _results(compiled, read_network={"requests": [DOC_OK, API_500, FAVICON_404]})
    verdict = evaluate(compiled.steps, _rows(compiled, results))
    assert not verdict.passed
    assert verdict.failed_checks == [
        "1 failed request(s): GET http://127.0.0.1:8000/api/fail: fetch request failed (HTTP 500)"
    ]
    assert verdict.request_id == "9.2" and verdict.findings == {"network"}
    assert verdict.summary.startswith("QA preset failed: 1 failed request(s)")


def test_a_missed_assertion_stops_before_later_diagnostics() -> None:
    compiled = _compile(url=URL, expectedText=["Status", "Missing words"])
    fail_at = [s.role for s in compiled.steps].index("expect-text") + 2
    verdict = evaluate(compiled.steps, _rows(compiled, _results(compiled), fail_at=fail_at))
    assert verdict.failed_checks == [
        'expected text "Missing words" not visible: Wait timed out after 5000ms'
    ]
    assert verdict.not_run_checks == ["network requests check", "console check", "page-error check"]
    assert verdict.findings == {"assertion"}


def test_a_failed_plumbing_step_is_a_failed_check() -> None:
    compiled = _compile(url=URL, expectedText="x")
    fail_at = [s.role for s in compiled.steps].index("open") + 1
    verdict = evaluate(compiled.steps, _rows(compiled, _results(compiled), fail_at=fail_at))
    assert verdict.failed_checks[0].startswith(f"step {fail_at} (open {URL}) failed:")
    assert verdict.findings == {"step"}
    assert 'expected text "x"' in verdict.not_run_checks


def test_a_batch_without_rows_reports_where_it_stopped() -> None:
    compiled = _compile(url=URL, expectedText="x")
    verdict = evaluate(compiled.steps, [], batch_error="timed out after 35000 ms")
    assert verdict.failed_checks == [
        "QA batch stopped before clear network requests: timed out after 35000 ms"
    ]
    assert len(verdict.not_run_checks) == 4


@pytest.mark.parametrize(
    ("role", "payload", "check"),
    [
        ("read_network", {"cleared": True}, "network requests could not be read"),
        ("read_console", {}, "console messages could not be read"),
        ("read_errors", {"errors": "n/a"}, "page errors could not be read"),
        ("error_baseline", None, "page-error baseline could not be read"),
    ],
)
def test_a_diagnostic_read_without_rows_is_never_a_pass(
    role: str, payload: Any, check: str
) -> None:
    compiled = _compile(url=URL)
    verdict = evaluate(compiled.steps, _rows(compiled, _results(compiled, **{role: payload})))
    assert not verdict.passed and check in verdict.failed_checks


def test_a_plan_without_checks_never_passes() -> None:
    steps = [QaStep("open", ("open", URL), f"open {URL}")]
    rows = [{"step": 1, "command": ["open", URL], "success": True, "result": {"url": URL}}]
    verdict = evaluate(steps, rows)
    assert not verdict.passed and verdict.failed_checks == ["no QA check ran"]


def test_the_screenshot_needs_a_verified_artifact() -> None:
    compiled = _compile(url=URL, expectedText="x", screenshotPath="qa.png")
    rows = _rows(compiled, _results(compiled))
    step_no = len(compiled.steps)
    verified = [{"step": step_no, "state": "verified", "status": "saved", "path": "qa.png"}]
    assert evaluate(compiled.steps, rows, artifacts=verified).passed
    missing = [{"step": step_no, "state": "missing", "status": "missing", "path": "qa.png"}]
    verdict = evaluate(compiled.steps, rows, artifacts=missing)
    assert verdict.failed_checks == ["screenshot artifact not verified (missing)"]
    assert not evaluate(compiled.steps, rows, artifacts=[]).passed


# ----- applying the verdict to the executor's observation ----------------------------------------


@pytest.fixture
def tools(tmp_path: Path) -> BrowserTools:
    settings = Settings.load(
        env={"HOME": str(tmp_path), "AGENT_BROWSER_TOOLS_STATE_DIR": str(tmp_path / "state")},
        cwd=tmp_path,
    )
    return BrowserTools(settings=settings, cwd=tmp_path, persist=False)


def _apply(tools: BrowserTools, compiled: CompiledQa, obs: Observation) -> None:
    call = {"args": ["batch", "--bail"], "stdin": compiled.stdin}
    plan = agent_browser.preview_plan(tools.runtime, call)
    apply_verdict(plan, obs, compiled, {"url": URL}, None)


def _batch_obs(compiled: CompiledQa, rows: list[Any], success: bool = True) -> Observation:
    obs = Observation(success=success, success_category=SuccessCategory.COMPLETED)
    obs.extra["batchSteps"] = rows
    return obs


def test_a_failed_verdict_fails_a_successful_batch_as_qa_failure(tools: BrowserTools) -> None:
    compiled = _compile(url=URL)
    rows = _rows(compiled, _results(compiled, read_errors={"errors": [BOOM]}))
    obs = _batch_obs(compiled, rows)
    _apply(tools, compiled, obs)
    assert not obs.success and obs.failure_category is FailureCategory.QA_FAILURE
    assert obs.error == obs.summary and str(obs.summary).startswith("QA preset failed")
    assert obs.extra["qaPreset"]["passed"] is False
    assert [a.id for a in obs.next_actions] == ["read-page-errors"]


def test_unverified_url_qa_offers_a_fresh_session_rerun(tools: BrowserTools) -> None:
    compiled = _compile(url=URL)
    results = _results(compiled, error_baseline={"errors": [BOOM]}, read_errors={"errors": [BOOM]})
    obs = _batch_obs(compiled, _rows(compiled, results))
    _apply(tools, compiled, obs)
    rerun = next(a for a in obs.next_actions if a.id == "rerun-qa-in-fresh-session")
    assert rerun.tool == "agent_browser_qa" and rerun.params == {"url": URL, "sessionMode": "fresh"}


def test_a_passing_verdict_keeps_success_and_clears_the_open_dispatch_marker(
    tools: BrowserTools,
) -> None:
    compiled = _compile(url=URL, expectedText="x")
    results = _results(compiled, read_network={"requests": [DOC_OK, FAVICON_404]})
    rows = _rows(compiled, results)
    rows[4]["dispatchOnly"] = True
    obs = _batch_obs(compiled, rows)
    _apply(tools, compiled, obs)
    assert obs.success and obs.success_category is SuccessCategory.COMPLETED
    assert obs.summary is not None and obs.summary.startswith("QA preset passed with warnings")
    assert any("favicon.ico" in w for w in obs.warnings)
    assert "dispatchOnly" not in rows[4]


def test_a_batch_level_timeout_keeps_its_category(tools: BrowserTools) -> None:
    compiled = _compile(url=URL, expectedText="x")
    obs = Observation(
        success=False, failure_category=FailureCategory.TIMEOUT, error="timed out after 35000 ms"
    )
    _apply(tools, compiled, obs)
    assert obs.failure_category is FailureCategory.TIMEOUT
    assert obs.extra["qaPreset"]["failedChecks"][0].endswith("timed out after 35000 ms")


def test_a_missing_screenshot_keeps_artifact_missing(tools: BrowserTools) -> None:
    compiled = _compile(url=URL, expectedText="x", screenshotPath="qa.png")
    obs = _batch_obs(compiled, _rows(compiled, _results(compiled)))
    obs.success = False
    obs.failure_category = FailureCategory.ARTIFACT_MISSING
    obs.extra["artifacts"] = [{"step": len(compiled.steps), "state": "missing", "path": "qa.png"}]
    _apply(tools, compiled, obs)
    assert obs.failure_category is FailureCategory.ARTIFACT_MISSING
    assert "screenshot artifact not verified (missing)" in obs.extra["qaPreset"]["failedChecks"]


def test_no_rerun_action_echoes_a_url_with_secrets(tools: BrowserTools) -> None:
    secret = "https://example.test/app?token=abcdef0123456789"
    compiled = _compile(url=secret)
    results = _results(compiled, error_baseline={"errors": [BOOM]}, read_errors={"errors": [BOOM]})
    obs = _batch_obs(compiled, _rows(compiled, results))
    plan = agent_browser.preview_plan(
        tools.runtime, {"args": ["batch", "--bail"], "stdin": compiled.stdin}
    )
    apply_verdict(plan, obs, compiled, {"url": secret}, None)
    assert [a.id for a in obs.next_actions] == ["read-page-errors"]
