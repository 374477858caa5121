"""The message budget: every answer fits, moved parts go in a defined order and are named.

The writer here keeps files in a dict (the real one is `bounds.spill_bytes`), so each test can
check that what was moved out is exactly what the answer lost.
"""

from __future__ import annotations

import base64
import json
import random
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agent_browser_tools.results.bounds import spill_bytes
from agent_browser_tools.results.message_budget import (
    DECISION_KEYS,
    MESSAGE_BUDGET_BYTES,
    TRIM_ORDER,
    _sized,
    fit_message,
    message_bytes,
)
from agent_browser_tools.results.tool_result import ContentBlock, ImageBlock, TextBlock, ToolResult
from agent_browser_tools.size_limits import CLIENT_MESSAGE_LIMIT_BYTES

KIB = 1024
MIB = 1024 * 1024


class Files:
    """An in-memory writer: path -> bytes."""

    def __init__(self, fail: bool = False) -> None:
        self.saved: dict[str, bytes] = {}
        self.fail = fail

    def __call__(self, stem: str, suffix: str, data: bytes) -> str:
        if self.fail:
            raise OSError(28, "No space left on device")
        path = f"/spill/{stem}-{len(self.saved)}{suffix}"
        self.saved[path] = data
        return path

    def json(self, path: str) -> Any:
        return json.loads(self.saved[path])


def _result(text: str = "ok", images: tuple[ImageBlock, ...] = (), **details: Any) -> ToolResult:
    base = {"resultCategory": "success", "successCategory": "completed", "success": True}
    blocks: tuple[ContentBlock, ...] = (TextBlock(text=text), *images)
    return ToolResult(content=blocks, details={**base, **details})


def _moved(result: ToolResult) -> list[str]:
    return [m["part"] for m in result.details["messageBudget"]["moved"]]


def _png(size: int, path: str | None = None) -> ImageBlock:
    data = base64.b64encode(b"\x89PNG\r\n\x1a\n" + b"\0" * size).decode("ascii")
    return ImageBlock(data=data, mime_type="image/png", path=path)


def test_an_answer_that_fits_is_returned_as_it_is() -> None:
    result = _result(data={"title": "Example"}, refSnapshot={"refs": {"e1": {"role": "link"}}})
    files = Files()
    assert fit_message(result, files) is result
    assert not files.saved


def test_a_big_ref_map_alone_is_moved_and_everything_else_stays() -> None:
    refs = {f"e{i}": {"role": "link", "name": f"Row {i} title link"} for i in range(30_000)}
    result = _result("Snapshot: 2 refs", data={"title": "small"}, refSnapshot={"refs": refs})
    files = Files()
    fitted = fit_message(result, files)
    assert message_bytes(fitted) <= MESSAGE_BUDGET_BYTES
    assert _moved(fitted) == ["details.refSnapshot"]
    assert "refSnapshot" not in fitted.details and fitted.details["data"] == {"title": "small"}
    (entry,) = fitted.details["messageBudget"]["moved"]
    assert files.json(entry["path"]) == {"refs": refs}
    assert fitted.text.startswith("Snapshot: 2 refs\n[This answer was over the 768 KiB")
    assert "details.refSnapshot" in fitted.text and entry["path"].rsplit("/", 1)[1] in fitted.text


def test_details_go_in_the_documented_order_and_stop_as_soon_as_it_fits() -> None:
    big = "y" * (300 * KIB)
    result = _result(
        "text",
        extraNote=big,  # an "other" key: moved only after the named ones
        batchSteps=[big],
        data=big,
        refSnapshot={"refs": big},
        error="kept",
        nextActions=[{"id": "retry"}],
    )
    fitted = fit_message(result, Files())
    assert _moved(fitted) == ["details.refSnapshot", "details.data"]
    assert TRIM_ORDER == ("refSnapshot", "data", "batchSteps")
    assert fitted.details["batchSteps"] == [big] and fitted.details["extraNote"] == big
    smaller = fit_message(result, Files(), budget=200 * KIB)
    assert _moved(smaller) == [
        "details.refSnapshot",
        "details.data",
        "details.batchSteps",
        "details.extraNote",
    ]
    assert smaller.details["error"] == "kept" and smaller.details["nextActions"]


def test_decision_keys_outlast_images_and_text() -> None:
    """Stages 5 and 6 (images, then text) come before the caller's decision fields."""
    result = _result(
        "t" * (200 * KIB),
        images=(_png(400 * KIB, "/work/shot.png"),),
        data="d" * (200 * KIB),
        error="Element not found",
        warnings=["w"],
    )
    fitted = fit_message(result, Files(), budget=160 * KIB)
    assert _moved(fitted) == ["details.data", "image 2", "text"]
    assert fitted.details["error"] == "Element not found" and fitted.details["warnings"] == ["w"]
    assert not fitted.images
    image = fitted.details["messageBudget"]["moved"][1]
    assert image["path"] == "/work/shot.png"  # already a file: named, not written again


def test_cut_text_keeps_its_head_and_tail_and_the_whole_text_is_saved() -> None:
    body = "\n".join(f"line {i}" for i in range(200_000))
    text = f"{body}\nResult category: failure; failureCategory: timeout; isError: true."
    files = Files()
    fitted = fit_message(_result(text), files, budget=64 * KIB)
    assert message_bytes(fitted) <= 64 * KIB
    shown = fitted.text
    assert shown.startswith("line 0\nline 1\n")
    assert "failureCategory: timeout; isError: true." in shown
    (path,) = [p for p in files.saved if "/text-" in p]
    assert files.saved[path].decode() == text
    name = path.rsplit("/", 1)[1]
    read = f'read it with agent_browser {{"args": ["spill", "{name}"]}}'
    assert f"characters cut here; the whole text: {name}, {read}]" in shown


def test_an_image_without_a_file_is_written_decoded() -> None:
    image = _png(900 * KIB)
    files = Files()
    fitted = fit_message(_result("shot", images=(image,)), files)
    (entry,) = fitted.details["messageBudget"]["moved"]
    assert entry["part"] == "image 2" and entry["path"].endswith(".png")
    assert files.saved[entry["path"]] == base64.b64decode(image.data)


def test_a_write_failure_still_fits_and_says_nothing_was_saved() -> None:
    result = _result("x" * (2 * MIB), data="d" * (2 * MIB))
    fitted = fit_message(result, Files(fail=True))
    assert message_bytes(fitted) <= MESSAGE_BUDGET_BYTES
    moved = fitted.details["messageBudget"]["moved"]
    assert all(m["path"] is None and "No space left" in m["error"] for m in moved)
    assert "could not be saved; narrow the command" in fitted.text
    assert "the whole text: not saved" in fitted.text


def _adversarial(seed: int) -> ToolResult:
    """Huge content, huge details, images, and text that escapes to 6-12 bytes a character."""
    rng = random.Random(seed)
    nasty = '\x00\x1f"\\\u2028😀é<>&' * (rng.randint(20, 60) * KIB)
    images = tuple(
        _png(rng.randint(100, 700) * KIB, path=None if i % 2 else f"/s/{i}.png")
        for i in range(rng.randint(0, 4))
    )
    details: dict[str, Any] = {
        "refSnapshot": {"refs": {f"e{i}": {"name": nasty[:50]} for i in range(20_000)}},
        "data": {"result": nasty},
        "batchSteps": [{"result": nasty[:1000]}] * 500,
        "error": nasty[: rng.randint(1, 400) * KIB],
        "nextActions": [{"id": "x", "reason": nasty[:2000]}] * rng.randint(1, 300),
        "warnings": [nasty[:500]] * rng.randint(1, 500),
        "summary": nasty[:100],
        **{f"k{i}": nasty[: rng.randint(10, 4000)] for i in range(rng.randint(10, 400))},
    }
    texts = tuple(TextBlock(text=nasty[: rng.randint(1, 200) * KIB]) for _ in range(3))
    base = {"resultCategory": "failure", "failureCategory": "timeout", "success": False}
    return ToolResult(content=(*texts, *images), details={**base, **details}, is_error=True)


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("budget", [48 * KIB, 256 * KIB, MESSAGE_BUDGET_BYTES])
def test_the_answer_always_fits_however_big_every_part_is(seed: int, budget: int) -> None:
    result = _adversarial(seed)
    assert message_bytes(result) > 4 * MIB
    files = Files()
    fitted = fit_message(result, files, budget=budget)
    assert message_bytes(fitted) <= budget
    assert fitted.is_error and fitted.details["failureCategory"] == "timeout"
    assert fitted.details["resultCategory"] == "failure"
    assert "over the" in fitted.text and "message budget" in fitted.text
    moved = fitted.details["messageBudget"]["moved"]
    assert moved and all(m["path"] in files.saved or m["path"].startswith("/s/") for m in moved)


def test_the_budget_is_well_under_the_client_limit() -> None:
    assert MESSAGE_BUDGET_BYTES <= CLIENT_MESSAGE_LIMIT_BYTES * 3 // 4
    assert {"resultCategory", "error", "nextActions"} <= DECISION_KEYS


def test_spill_files_are_named_by_content_and_written_once(tmp_path: Any) -> None:
    first = spill_bytes(tmp_path / "spill", "details-refSnapshot", ".json", b'{"refs": {}}')
    stamp = first.stat().st_mtime_ns
    again = spill_bytes(tmp_path / "spill", "details-refSnapshot", ".json", b'{"refs": {}}')
    other = spill_bytes(tmp_path / "spill", "details-refSnapshot", ".json", b'{"refs": 1}')
    assert again == first and again.stat().st_mtime_ns == stamp and other != first
    assert first.stat().st_mode & 0o777 == 0o600
    assert (tmp_path / "spill").stat().st_mode & 0o777 == 0o700


@pytest.mark.parametrize("budget", [3 * KIB, 8 * KIB])
def test_even_a_budget_smaller_than_the_notes_keeps_the_categories(budget: int) -> None:
    fitted = fit_message(_adversarial(1), Files(), budget=budget)
    assert message_bytes(fitted) <= budget
    assert fitted.details["failureCategory"] == "timeout" and fitted.is_error
    assert fitted.text.startswith("[")


def test_a_callers_json_text_stays_parseable_and_names_the_moved_parts() -> None:
    observation = {"success": True, "data": {"snapshot": "- button [ref=e1]"}, "warnings": []}
    text = json.dumps(observation, ensure_ascii=False)
    refs = {f"e{i}": {"role": "checkbox", "name": f"Select row {i}"} for i in range(20_000)}
    fitted = fit_message(_result(text, refSnapshot={"refs": refs}), Files())
    shown = json.loads(fitted.text)
    assert shown["data"] == observation["data"]
    note = shown["messageBudget"]
    assert [m["part"] for m in note["moved"]] == ["details.refSnapshot"]
    assert note["notice"].startswith("[This answer was over the 768 KiB message budget")
    assert note["moved"] == fitted.details["messageBudget"]["moved"]


_TEXTS = st.text(alphabet=st.characters(codec="utf-8", exclude_categories=["Cs"]), max_size=40)
_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | _TEXTS,
    lambda inner: st.lists(inner, max_size=5) | st.dictionaries(_TEXTS, inner, max_size=5),
    max_leaves=30,
)


@settings(max_examples=300, deadline=None)
@given(_VALUES)
def test_a_details_part_is_sized_as_the_json_the_message_carries(value: Any) -> None:
    """The fast size (pydantic's encoder, escapes counted) equals the ASCII-escaped JSON's
    length: control characters, DEL, accents, CJK and characters outside the BMP alike."""
    assert _sized(value) == len(json.dumps(value, ensure_ascii=True, separators=(",", ":")))


def test_a_value_json_cannot_encode_is_sized_as_its_string() -> None:
    """What `json` writes through `default=str` (an object) is sized the same way."""
    value = {"a": object(), "b": [1.5, None]}
    expected = json.dumps(value, ensure_ascii=True, separators=(",", ":"), default=str)
    assert _sized(value) == len(expected)
