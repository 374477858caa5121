"""`category_line`: the one spelling of the prose category line (pure)."""

from __future__ import annotations

import pytest

from agent_browser_tools.results.categories import (
    FailureCategory,
    SuccessCategory,
    category_line,
)


@pytest.mark.parametrize("category", list(FailureCategory))
def test_a_failure_line_names_its_category_and_never_the_protocol_flag(
    category: FailureCategory,
) -> None:
    """Every host carries `isError` itself; the category is what the text alone would lack."""
    line = category_line(False, category)
    assert line == f"Result category: failure; failureCategory: {category.value}."
    assert "isError" not in line


@pytest.mark.parametrize("category", list(SuccessCategory))
def test_a_success_line_names_its_category(category: SuccessCategory) -> None:
    line = category_line(True, category)
    assert line == f"Result category: success; successCategory: {category.value}."


def test_an_unknown_category_is_a_question_mark() -> None:
    assert category_line(False, None) == "Result category: failure; failureCategory: ?."
