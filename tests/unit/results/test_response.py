"""The one result builder: refusals, plain text answers and observation answers (pure)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from agent_browser_tools.results import response
from agent_browser_tools.results.categories import FailureCategory, SuccessCategory
from agent_browser_tools.results.observation import Observation
from agent_browser_tools.results.tool_result import ImageBlock

CATEGORY_LINE = "Result category: failure; failureCategory: validation-error."


@pytest.mark.parametrize(
    "params",
    [
        {},
        {"args": ["get", "url"]},
        {"args": ["open", "https://user:hunter22@x.example/"], "bogus": 1},
        {"args": "not a list"},
    ],
)
@pytest.mark.parametrize("wants_json", [False, True])
def test_rejected_redacts_the_message_and_echoes_the_argv(
    params: dict[str, Any], wants_json: bool
) -> None:
    """The refused argv may hold credentials: neither the text nor the details repeat them."""
    message = "agent_browser input rejected: see https://user:hunter22@x.example/"
    ours = response.rejected(message, params, wants_json=wants_json)
    assert ours.is_error
    assert ours.details["failureCategory"] == "validation-error"
    args = params.get("args")
    assert (ours.details["args"] is None) is (not isinstance(args, list))
    assert "hunter22" not in ours.text + json.dumps(ours.details)


def test_rejected_renders_json_when_asked() -> None:
    shaped = response.rejected("bad", {"args": ["get", "url"]}, wants_json=True)
    assert json.loads(shaped.text)["failureCategory"] == "validation-error"
    assert response.rejected("bad").details["args"] is None


@pytest.mark.parametrize(
    ("args", "wanted"),
    [
        (["get", "url"], False),
        (["get", "url", "--json"], True),
        (["--json", "false", "get", "url"], False),
        (["--json", "true"], True),
        ("--json", False),
    ],
)
def test_caller_wants_json_reads_the_last_json_flag(args: Any, wanted: bool) -> None:
    assert response.caller_wants_json({"args": args}) is wanted


def test_refused_is_a_plain_validation_failure() -> None:
    result = response.refused("unknown tool 'x'.", extra=1)
    assert result.is_error
    assert result.text == f"Error: unknown tool 'x'.\n{CATEGORY_LINE}"
    assert result.details == {
        "success": False,
        "resultCategory": "failure",
        "failureCategory": "validation-error",
        "error": "unknown tool 'x'.",
        "validationError": "unknown tool 'x'.",
        "extra": 1,
    }


def test_text_writes_the_category_fields_and_line() -> None:
    done = response.text("2 enabled", SuccessCategory.COMPLETED, {"enable": {}})
    assert not done.is_error and done.text == "2 enabled"
    assert done.details == {
        "resultCategory": "success",
        "successCategory": "completed",
        "enable": {},
    }
    stopped = response.text("Error: stopped", FailureCategory.ABORTED)
    assert stopped.is_error
    assert stopped.text == "Error: stopped\nResult category: failure; failureCategory: aborted."
    assert stopped.details == {"resultCategory": "failure", "failureCategory": "aborted"}


def test_from_observation_follows_the_observation() -> None:
    failed = Observation(success=False, failure_category=FailureCategory.TIMEOUT, error="slow")
    result = response.from_observation(failed)
    assert result.is_error and result.details == failed.to_dict()
    line = "Result category: failure; failureCategory: timeout."
    assert result.text == f"Error: slow\n{line}"
    image = ImageBlock(data="aGk=", mime_type="image/png")
    shown = response.from_observation(
        Observation(success=True), text="ok", details={"x": 1}, images=[image]
    )
    assert not shown.is_error and shown.details == {"x": 1}
    assert shown.content[1] == image and shown.text == "ok"


def test_a_failed_inner_step_keeps_the_inner_text_under_the_compound_tools_head() -> None:
    inner = response.refused("snapshot failed.")
    shaped = response.failed_step(inner, "select could not resolve its target.", {"k": 1})
    assert shaped.is_error
    assert shaped.text.splitlines()[0] == "select could not resolve its target."
    assert shaped.text.endswith(inner.text)
    assert shaped.details == {"k": 1}
