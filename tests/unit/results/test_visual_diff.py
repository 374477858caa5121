"""A screenshot comparison in words: the verdict, the counts, and whether an image exists."""

from __future__ import annotations

from typing import Any

import pytest

from agent_browser_tools.results.visual_diff import diff_lines

SAME = {"match": True, "differentPixels": 0, "totalPixels": 810240, "diffPath": "/w/d.png"}


def test_a_match_says_so_and_that_no_image_was_written() -> None:
    assert diff_lines(SAME) == [
        "Screenshots match: 0 of 810,240 pixels differ; no diff image was written "
        "(nothing to show)."
    ]


def test_a_match_without_counts_claims_none() -> None:
    assert diff_lines({"match": True}) == [
        "Screenshots match; no diff image was written (nothing to show)."
    ]


def test_a_difference_gives_its_share_and_leaves_the_image_to_the_artifact_line() -> None:
    data = {**SAME, "match": False, "differentPixels": 2496, "mismatchPercentage": 0.308}
    assert diff_lines(data) == ["Screenshots differ: 2,496 of 810,240 pixels (0.31%)."]


def test_without_output_the_line_says_how_to_save_an_image() -> None:
    (line,) = diff_lines({**SAME, "match": False, "differentPixels": 5, "diffPath": None}) or []
    assert line.endswith("No diff image was asked for: add `--output <file>.png` to save one.")


@pytest.mark.parametrize(
    ("mismatch", "said"),
    [
        (
            {"baseline": {"width": 800, "height": 600}, "current": {"width": 1280, "height": 720}},
            "baseline 800x600, current 1280x720",
        ),
        ("800x600 vs 1280x720", "800x600 vs 1280x720"),
    ],
)
def test_a_size_mismatch_is_named(mismatch: Any, said: str) -> None:
    (line,) = diff_lines({**SAME, "match": False, "dimensionMismatch": mismatch}) or []
    assert line.startswith(f"Screenshots differ in size: {said}.")


@pytest.mark.parametrize("data", [{}, {"match": "yes"}, {"diffPath": "/w/d.png"}])
def test_other_answers_are_not_read_as_a_comparison(data: dict[str, Any]) -> None:
    assert diff_lines(data) is None
