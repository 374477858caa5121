"""`agent_browser_qa` input validation and the compiled `batch --bail` plan (pure, no engine)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError

from agent_browser_tools.api import BrowserTools
from agent_browser_tools.settings import Settings
from agent_browser_tools.tools.qa.compile import (
    ASSERT_TIMEOUT_MS,
    CompiledQa,
    QaInput,
    QaRejected,
    compile_qa,
    visible_text_predicate,
)

URL = "http://127.0.0.1:8000/clean.html"


def _compile(**fields: Any) -> CompiledQa:
    return compile_qa(QaInput.model_validate(fields))


def _argv(compiled: CompiledQa) -> list[list[str]]:
    return [list(step.argv) for step in compiled.steps]


def _roles(compiled: CompiledQa) -> list[str]:
    return [step.role for step in compiled.steps]


# ----- URL QA -------------------------------------------------------------------------------


def test_url_qa_resets_diagnostics_opens_waits_settles_asserts_and_reads() -> None:
    compiled = _compile(url=URL, expectedText="All systems nominal", screenshotPath="qa.png")
    argv = _argv(compiled)
    assert argv[:7] == [
        ["network", "requests", "--clear"],
        ["console", "--clear"],
        ["errors", "--clear"],
        ["errors"],
        ["open", URL],
        ["wait", "--load", "domcontentloaded"],
        ["wait", "150"],
    ]
    assert argv[7] == [
        "wait",
        "--fn",
        visible_text_predicate("All systems nominal"),
        "--timeout",
        str(ASSERT_TIMEOUT_MS),
    ]
    assert argv[8:] == [
        ["network", "requests"],
        ["console"],
        ["errors"],
        ["screenshot", "qa.png"],
    ]
    assert _roles(compiled)[2:4] == ["clear-errors", "error-baseline"]


def test_assertions_come_before_diagnostic_reads_so_bail_skips_them() -> None:
    roles = _roles(_compile(url=URL, expectedText=["a", "b"], expectedSelector="#main"))
    first_read = roles.index("read-network")
    assert roles.index("expect-text") < first_read and roles.index("expect-selector") < first_read
    assert roles.count("expect-text") == 2


def test_selector_assertion_uses_a_bounded_native_wait() -> None:
    argv = _argv(_compile(url=URL, expectedSelector="main h1"))
    assert ["wait", "main h1", "--timeout", "5000"] in argv


def test_disabled_diagnostics_are_neither_cleared_nor_read() -> None:
    argv = _argv(_compile(url=URL, expectedText="x", checkConsole=False, checkNetwork=False))
    assert ["console", "--clear"] not in argv and ["console"] not in argv
    assert ["network", "requests"] not in argv
    assert ["errors", "--clear"] in argv and ["wait", "150"] in argv


def test_without_diagnostics_there_is_no_settle_and_no_reset() -> None:
    compiled = _compile(
        url=URL, expectedText="x", checkConsole=False, checkNetwork=False, checkErrors=False
    )
    assert _argv(compiled) == [
        ["open", URL],
        ["wait", "--load", "domcontentloaded"],
        ["wait", "--fn", visible_text_predicate("x"), "--timeout", "5000"],
    ]
    assert compiled.checks["diagnosticsResetAtStart"] is False


def test_load_state_is_the_readiness_wait() -> None:
    assert ["wait", "--load", "networkidle"] in _argv(_compile(url=URL, loadState="networkidle"))


def test_compiled_job_and_preset_details() -> None:
    compiled = _compile(url=URL, expectedText="Status")
    details = compiled.details()
    job = details["compiledJob"]
    assert job["args"] == ["batch", "--bail"] and job["failFast"] is True
    assert job["steps"] == _argv(compiled)
    assert json.loads(job["stdin"]) == job["steps"]
    preset = details["compiledQaPreset"]
    assert {k: v for k, v in preset.items() if k != "checks"} == job
    assert preset["checks"] == {
        "attached": False,
        "url": URL,
        "diagnosticsResetAtStart": True,
        "expectedText": ["Status"],
        "checkNetwork": True,
        "checkConsole": True,
        "checkErrors": True,
        "loadState": "domcontentloaded",
    }


def test_secrets_in_the_url_are_redacted_in_details_but_sent_to_the_engine() -> None:
    secret_url = "https://user:hunter2secret@example.test/app?token=abcdef0123456789"
    compiled = _compile(url=secret_url, expectedText="x")
    assert ["open", secret_url] in json.loads(compiled.stdin)
    details = json.dumps(compiled.details())
    assert "hunter2secret" not in details and "abcdef0123456789" not in details
    assert "hunter2secret" not in compiled.steps[4].label


# ----- attached QA --------------------------------------------------------------------------


def test_attached_qa_never_navigates_clears_or_settles() -> None:
    compiled = _compile(attached=True, expectedText="Explorer")
    argv = _argv(compiled)
    assert argv == [["wait", "--fn", visible_text_predicate("Explorer"), "--timeout", "5000"]]
    checks = compiled.checks
    assert checks["attached"] is True and "url" not in checks
    assert checks["diagnosticsResetAtStart"] is False
    assert (checks["checkNetwork"], checks["checkConsole"], checks["checkErrors"]) == (
        False,
        False,
        False,
    )


def test_attached_error_check_reads_a_baseline_without_clearing() -> None:
    compiled = _compile(attached=True, checkErrors=True, loadState="load")
    assert _argv(compiled) == [["errors"], ["wait", "--load", "load"], ["errors"]]
    assert _roles(compiled) == ["error-baseline", "ready", "read-errors"]


def test_attached_qa_may_check_a_current_ref() -> None:
    assert ["wait", "@e3", "--timeout", "5000"] in _argv(
        _compile(attached=True, expectedSelector="@e3")
    )


# ----- expected text ------------------------------------------------------------------------


def test_expected_text_is_whitespace_normalized_and_json_quoted() -> None:
    compiled = _compile(url=URL, expectedText='  Say   "hi"\n\\ now ')
    assert compiled.checks["expectedText"] == ['Say "hi" \\ now']
    predicate = compiled.steps[7].argv[2]
    assert json.dumps('Say "hi" \\ now') in predicate
    assert "innerText" in predicate


# ----- validation ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"url": URL, "attached": True}, "exclusive"),
        ({"expectedText": "x"}, "either url"),
        ({"attached": True, "sessionMode": "fresh", "expectedText": "x"}, "sessionMode"),
        ({"url": URL, "expectedText": []}, "empty list"),
        ({"url": URL, "expectedText": ["ok", "   "]}, "visible characters"),
        ({"url": URL, "expectedText": ["t"] * 21}, "at most"),
        ({"url": "--headed"}, "flag"),
        ({"url": "   "}, "empty"),
        ({"url": URL, "expectedSelector": "1500"}, "milliseconds"),
        ({"url": URL, "expectedSelector": "@e2"}, "refs"),
        ({"url": URL, "screenshotPath": "-x.png"}, "flag"),
        ({"attached": True}, "nothing to check"),
        ({"attached": True, "screenshotPath": "a.png"}, "nothing to check"),
        (
            {"url": URL, "checkNetwork": False, "checkConsole": False, "checkErrors": False},
            "nothing to check",
        ),
    ],
)
def test_bad_combinations_are_rejected(fields: dict[str, Any], message: str) -> None:
    with pytest.raises(QaRejected, match=message):
        _compile(**fields)


@pytest.mark.parametrize(
    "fields",
    [
        {"url": URL, "bogus": 1},
        {"attached": False, "expectedText": "x"},
        {"url": URL, "checkNetwork": "yes"},
        {"url": URL, "timeoutMs": 0},
        {"url": URL, "loadState": "idle"},
        {"url": URL, "expectedText": 5},
        {"url": URL, "sessionMode": "new"},
    ],
)
def test_bad_shapes_fail_model_validation(fields: dict[str, Any]) -> None:
    with pytest.raises(ValidationError):
        QaInput.model_validate(fields)


def _tools(tmp_path: Path) -> BrowserTools:
    settings = Settings.load(
        env={"HOME": str(tmp_path), "AGENT_BROWSER_TOOLS_STATE_DIR": str(tmp_path / "state")},
        cwd=tmp_path,
    )
    return BrowserTools(settings=settings, cwd=tmp_path, persist=False)


@pytest.mark.parametrize(
    "params",
    [
        {"url": URL, "attached": True},
        {"attached": True, "sessionMode": "fresh", "expectedText": "x"},
        {"url": URL, "job": {"steps": []}},
        {"attached": True},
        {"url": URL, "expectedText": "x", "screenshotPath": "a.png", "outputPath": "a.png"},
    ],
)
async def test_the_tool_rejects_before_any_dispatch(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, params: dict[str, Any]
) -> None:
    tools = _tools(tmp_path)

    async def no_spawn(*_args: Any, **_kwargs: Any) -> Any:
        raise AssertionError("QA dispatched an engine command for an invalid input")

    monkeypatch.setattr(tools.runtime, "spawn", no_spawn)
    enabled = await tools.call("agent_browser_tools", {"enable": ["qa"]})
    assert not enabled.is_error, enabled.text
    result = await tools.call("agent_browser_qa", params)
    assert result.is_error
    assert result.details["failureCategory"] == "validation-error", result.text
    assert "compiledJob" not in result.details


def test_schema_is_compact_and_flat(tmp_path: Path) -> None:
    tools = _tools(tmp_path)
    spec = tools.toolkit.specs["agent_browser_qa"]
    assert spec.implemented and spec.capability == "qa"
    properties = spec.input_schema["properties"]
    assert set(properties) == {
        "url",
        "attached",
        "expectedText",
        "expectedSelector",
        "screenshotPath",
        "checkNetwork",
        "checkConsole",
        "checkErrors",
        "loadState",
        "outputPath",
        "timeoutMs",
        "sessionMode",
    }
    assert spec.input_schema.get("additionalProperties") is False
    assert len(json.dumps(spec.input_schema)) < 2_500
