"""Screenshot geometry from bracketing samples (pure): measured only when it is exact."""

from __future__ import annotations

from typing import Any

from agent_browser_tools.tools.agent_browser.files.geometry import measure

SAMPLE: dict[str, Any] = {
    "scrollX": 0,
    "scrollY": 1000,
    "innerWidth": 1280,
    "innerHeight": 720,
    "documentWidth": 1280,
    "documentHeight": 3000,
    "devicePixelRatio": 1,
    "visualScale": 1,
}


def test_a_viewport_capture_maps_to_the_scrolled_document_crop() -> None:
    geometry = measure("viewport", 1280, 720, SAMPLE, dict(SAMPLE))
    assert geometry["status"] == "measured"
    assert geometry["crop"] == {"x": 0, "y": 1000, "width": 1280, "height": 720}
    assert geometry["pixelsPerCssPixel"] == {"x": 1.0, "y": 1.0}


def test_a_full_page_capture_starts_at_the_document_origin_at_the_sampled_ratio() -> None:
    retina = {**SAMPLE, "devicePixelRatio": 2}
    geometry = measure("full-page", 2560, 6000, retina, dict(retina))
    assert geometry["crop"] == {"x": 0, "y": 0, "width": 1280, "height": 3000}
    assert geometry["pixelsPerCssPixel"] == {"x": 2.0, "y": 2.0}


def test_anything_inexact_stays_unknown_with_the_reason() -> None:
    scrolled = {**SAMPLE, "scrollY": 1200}
    cases = [
        (measure("viewport", 1280, 720, SAMPLE, scrolled), "scrolled or resized"),
        (measure("viewport", 1280, 700, SAMPLE, SAMPLE), "not the sampled CSS crop"),
        (measure("viewport", 1280, 720, SAMPLE, None), "could not be sampled"),
        (measure("element", 50, 40, SAMPLE, SAMPLE), "element capture"),
        (
            measure("viewport", 1280, 720, {**SAMPLE, "visualScale": 2}, None),
            "could not be sampled",
        ),
        (
            measure(
                "viewport", 1280, 720, {**SAMPLE, "visualScale": 2}, {**SAMPLE, "visualScale": 2}
            ),
            "zoomed",
        ),
    ]
    for geometry, reason in cases:
        assert geometry["status"] == "unknown" and reason in geometry["reason"], geometry
