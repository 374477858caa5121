"""One explainer for refused tool inputs, worded per tool by its hints and examples (pure)."""

from __future__ import annotations

from typing import Literal

import pytest
from pydantic import BaseModel, ConfigDict, ValidationError

from agent_browser_tools.results.validation import explain_validation_error, field_list


class Shape(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)

    args: list[str]
    mode: Literal["a", "b"] = "a"


def _explain(params: object, **wording: dict[str, str]) -> str:
    with pytest.raises(ValidationError) as caught:
        Shape.model_validate(params)
    return explain_validation_error(caught.value, "t", field_list(Shape), **wording)


def test_each_problem_is_named_with_its_fix() -> None:
    message = _explain(
        {"old": 1, "mode": "c"},
        hints={"old": "use `args`"},
        examples={"args": 'e.g. {"args": ["x"]}'},
    )
    assert message == (
        't input rejected: missing required field `args` (e.g. {"args": ["x"]}); `mode`: Input '
        "should be 'a' or 'b'; unknown field `old` (use `args`). t accepts only args and mode."
    )


def test_without_wording_the_problems_stand_alone() -> None:
    assert _explain({"args": "x"}) == (
        "t input rejected: `args`: Input should be a valid list. t accepts only args and mode."
    )


def test_field_list_reads_like_prose() -> None:
    class One(BaseModel):
        only: int

    assert field_list(One) == "only"
