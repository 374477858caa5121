"""The key presses that move a slider to a value (pure).

Why keys: a slider (`<input type=range>`, or an ARIA `slider` drawn from divs) moves only with
the keyboard or the pointer; the engine's `fill` sets nothing on it. Every slider takes
ArrowRight/ArrowLeft (one step) and Home/End (the ends), so the way out starts from where the
slider is, or from an end when that is fewer presses, and presses one step at a time.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass

MAX_PRESSES = 400
"""More presses than this are not sent in one batch (a slider of 10,000 steps)."""


def number(raw: object) -> float | None:
    """A finite number from a page attribute or the model's text, else None."""
    if isinstance(raw, bool) or raw is None:
        return None
    try:
        value = float(str(raw).strip())
    except ValueError:
        return None
    return value if math.isfinite(value) else None


@dataclass(frozen=True)
class Slider:
    """A slider as its page reported it. `step` is None until known (ARIA has no step)."""

    now: float
    low: float | None
    high: float | None
    step: float | None
    native: bool

    @classmethod
    def parse(cls, data: object) -> Slider | None:
        if not isinstance(data, Mapping):
            return None
        now = number(data.get("now"))
        if now is None:
            return None
        step = number(data.get("step"))
        return cls(
            now=now,
            low=number(data.get("min")),
            high=number(data.get("max")),
            step=step if step is not None and step > 0 else None,
            native=data.get("native") is True,
        )


def on_grid(slider: Slider, value: float, step: float) -> bool:
    """Whether `value` is a multiple of `step` away from the slider's anchor (its minimum for a
    native range input, whose values are min + k * step; its current value otherwise)."""
    anchor = slider.low if slider.native and slider.low is not None else slider.now
    count = (value - anchor) / step
    return abs(count - round(count)) < 1e-6


def nearest(slider: Slider, value: float, step: float) -> list[float]:
    """The reachable values next to `value`, within the slider's range (for the error)."""
    anchor = slider.low if slider.native and slider.low is not None else slider.now
    if slider.high is not None:
        value = min(value, slider.high)
    if slider.low is not None:
        value = max(value, slider.low)
    below = anchor + math.floor((value - anchor) / step + 1e-9) * step
    out = [round(below, 9)] if on_grid(slider, value, step) else [below, below + step]
    return [round(v, 9) for v in out if _inside(slider, v)]


def _inside(slider: Slider, value: float) -> bool:
    low_ok = slider.low is None or value >= slider.low - 1e-9
    return low_ok and (slider.high is None or value <= slider.high + 1e-9)


def presses(slider: Slider, value: float, step: float) -> list[str] | None:
    """The fewest presses from the slider's value (or an end) to `value`; None when `value`
    is outside the range, off the step grid, or too far for one batch."""
    if not _inside(slider, value) or not on_grid(slider, value, step):
        return None
    plans = [_arrows(value - slider.now, step)]
    if slider.low is not None and on_grid(slider, slider.low, step):
        plans.append(["Home", *_arrows(value - slider.low, step)])
    if slider.high is not None and on_grid(slider, slider.high, step):
        plans.append(["End", *_arrows(value - slider.high, step)])
    best = min(plans, key=len)
    return best if len(best) <= MAX_PRESSES else None


def _arrows(distance: float, step: float) -> list[str]:
    count = round(abs(distance) / step)
    return ["ArrowRight" if distance > 0 else "ArrowLeft"] * count


def shown(value: float) -> str:
    """`37`, `31.5`: the value as the page would write it."""
    return str(int(value)) if value == int(value) else f"{value:g}"
