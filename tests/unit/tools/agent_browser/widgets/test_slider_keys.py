"""The key presses that move a slider: fewest presses, from an end when shorter; values off
the step grid or outside the range are refused with the nearest ones that work."""

from __future__ import annotations

import pytest

from agent_browser_tools.tools.agent_browser.widgets.slider_keys import (
    MAX_PRESSES,
    Slider,
    nearest,
    number,
    presses,
    shown,
)

VOLUME = Slider(now=25, low=0, high=50, step=1, native=True)


def test_presses_go_from_where_it_is_or_from_an_end() -> None:
    assert presses(VOLUME, 37, 1) == ["ArrowRight"] * 12
    assert presses(VOLUME, 20, 1) == ["ArrowLeft"] * 5
    assert presses(VOLUME, 2, 1) == ["Home", "ArrowRight", "ArrowRight"]
    assert presses(VOLUME, 49, 1) == ["End", "ArrowLeft"]
    assert presses(VOLUME, 25, 1) == []


def test_a_native_grid_is_anchored_at_its_minimum() -> None:
    budget = Slider(now=500, low=0, high=1000, step=5, native=True)
    assert presses(budget, 735, 5) == ["ArrowRight"] * 47
    assert presses(budget, 737, 5) is None
    assert nearest(budget, 737, 5) == [735, 740]


def test_an_aria_grid_is_anchored_at_its_value() -> None:
    """An ARIA slider's minimum need not lie on its step grid (noUiSlider from -10 by 0.5)."""
    temperature = Slider(now=20, low=-10, high=40, step=None, native=False)
    assert presses(temperature, 31.5, 0.5) == ["End"] + ["ArrowLeft"] * 17
    odd = Slider(now=3, low=0, high=9, step=None, native=False)
    assert presses(odd, 7, 2) == ["ArrowRight"] * 2
    assert presses(odd, 0, 2) is None, "0 is off the grid anchored at 3"


@pytest.mark.parametrize(("value", "near"), [(38.5, [38, 39]), (80, [50]), (-3, [0]), (12, [12])])
def test_nearest_values_are_inside_the_range(value: float, near: list[float]) -> None:
    assert nearest(VOLUME, value, 1) == near


def test_out_of_range_and_too_far_are_refused() -> None:
    assert presses(VOLUME, 51, 1) is None
    assert presses(VOLUME, -1, 1) is None
    wide = Slider(now=0, low=0, high=10_000, step=1, native=True)
    assert presses(wide, MAX_PRESSES - 1, 1) is not None
    assert presses(wide, 5_000, 1) is None


def test_numbers_from_the_page_and_the_model() -> None:
    assert [number(x) for x in ("37", " 31.5 ", "-2", 4)] == [37, 31.5, -2, 4]
    assert [number(x) for x in ("", "nan", "inf", "12px", None, True)] == [None] * 6
    assert Slider.parse({"now": "x"}) is None
    assert Slider.parse([1]) is None
    parsed = Slider.parse({"native": True, "now": "5", "min": "0", "max": "9", "step": "0"})
    assert parsed == Slider(now=5, low=0, high=9, step=None, native=True)
    assert (shown(37.0), shown(31.5), shown(-0.25)) == ("37", "31.5", "-0.25")
