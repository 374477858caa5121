"""`emitImage` end to end: a real worker, with image observations constructed by the test.

The direct tool does not produce `imageObservations` yet, so `run_observation` is replaced by
a stub that returns constructed observations pointing at PNG files written here; everything
else (the worker, the prelude's handle check, the parent's registry and the on-disk recheck)
is the real code path.
"""

from __future__ import annotations

import base64
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from agent_browser_tools.results.tool_result import ImageBlock
from agent_browser_tools.runtime import Runtime
from agent_browser_tools.settings import Settings
from agent_browser_tools.tools import agent_browser
from agent_browser_tools.tools.code.spec import SPEC as CODE
from tests.unit.tools.code.test_output import png_bytes


@pytest.fixture
def shots(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> list[Path]:
    """`screenshot <name>` returns an observation with one image observation of <name>."""
    paths = [tmp_path / f"shot{i}.png" for i in range(10)]
    for i, path in enumerate(paths):
        path.write_bytes(png_bytes(2 + i, 2))

    async def fake_run_observation(rt: Runtime, params: Mapping[str, Any]) -> dict[str, Any]:
        args = [a for a in params["args"] if a not in ("--session", "s1")]
        if args[0] == "screenshot":
            path = tmp_path / args[1]
            return {
                "success": True,
                "resultCategory": "success",
                "data": {"path": str(path)},
                "imageObservations": [
                    {"path": str(path), "mimeType": "image/png", "capture": "viewport"}
                ],
            }
        return {"success": True, "resultCategory": "success", "data": {}}

    monkeypatch.setattr(agent_browser, "run_observation", fake_run_observation)
    return paths


def _runtime(tmp_path: Path, inline_max: int = 5 * 1024 * 1024) -> Runtime:
    settings = Settings(
        env={"HOME": str(tmp_path)},
        state_dir=tmp_path / "state",
        inline_image_max_bytes=inline_max,
    )
    return Runtime(settings, conversation_id="conv-img", cwd=tmp_path)


async def cell(rt: Runtime, code: str) -> Any:
    return await CODE.call(rt, {"code": code, "session": "s1"})


async def test_selected_image_becomes_an_image_block(shots: list[Path], tmp_path: Path) -> None:
    code = """
      const shot = await browser({ args: ['screenshot', 'shot0.png'] });
      emitImage(shot.imageObservations[0]);
      emitImage(shot.imageObservations[0]);
      emit({ id: shot.imageObservations[0].id });
    """
    result = await cell(_runtime(tmp_path), code)
    assert not result.is_error, result.text
    assert len(result.images) == 1
    block = result.images[0]
    assert isinstance(block, ImageBlock)
    assert block.mime_type == "image/png"
    assert base64.b64decode(block.data) == shots[0].read_bytes()
    assert result.details["images"][0]["id"] == result.details["data"]["id"]
    assert "Images attached: 1" in result.text


async def test_only_handles_of_this_cell_are_images(shots: list[Path], tmp_path: Path) -> None:
    rt = _runtime(tmp_path)
    first = await cell(rt, "return (await browser({ args: ['screenshot', 'shot0.png'] }))"
                       ".imageObservations[0]")  # fmt: skip
    old = first.details["data"]
    for code in (
        f"emitImage({old!r})",  # a handle from an earlier cell
        f"emitImage({{ id: {old['id']!r}, path: {old['path']!r} }})",
        "emitImage('shot0.png')",
        "const s = await browser({ args: ['screenshot', 'shot0.png'] });"
        " emitImage({ ...s.imageObservations[0] })",
    ):
        result = await cell(rt, code)
        assert result.is_error, code
        assert result.details["failureCategory"] == "script-error"
        assert "emitImage() takes an entry of imageObservations" in result.details["error"]
        assert result.images == ()


async def test_at_most_eight_images(shots: list[Path], tmp_path: Path) -> None:
    code = """
      for (let i = 0; i < 9; i++) {
        const s = await browser({ args: ['screenshot', `shot${i}.png`] });
        emitImage(s.imageObservations[0]);
      }
    """
    result = await cell(_runtime(tmp_path), code)
    assert result.details["failureCategory"] == "script-error"
    assert "at most 8 images" in result.details["error"]


async def test_image_changed_after_the_call_fails(shots: list[Path], tmp_path: Path) -> None:
    code = """
      const s = await browser({ args: ['screenshot', 'shot1.png'] });
      await browser({ args: ['screenshot', 'shot1.png'] });
      emitImage(s.imageObservations[0]);
    """
    rt = _runtime(tmp_path)
    original = agent_browser.run_observation

    async def rewriting(rt: Runtime, params: Mapping[str, Any]) -> dict[str, Any]:
        observation = await original(rt, params)
        shots[1].write_bytes(png_bytes(5, 5))
        return observation

    agent_browser.run_observation = rewriting
    try:
        result = await cell(rt, code)
    finally:
        agent_browser.run_observation = original
    assert result.details["failureCategory"] == "artifact-missing"
    assert "changed on disk" in result.details["error"]
    assert result.images == ()


async def test_inline_image_bound_applies(shots: list[Path], tmp_path: Path) -> None:
    rt = _runtime(tmp_path, inline_max=10)
    code = """
      const s = await browser({ args: ['screenshot', 'shot0.png'] });
      emitImage(s.imageObservations[0]);
    """
    result = await cell(rt, code)
    assert result.details["failureCategory"] == "validation-error"
    assert "inline image limit" in result.details["error"]


async def test_with_images_omitted_the_cell_names_them_but_attaches_none(
    shots: list[Path], tmp_path: Path
) -> None:
    """The operator's `--image-responses omit`: the selection is checked as always, and the
    result says the image was not attached instead of carrying it."""
    settings = Settings(
        env={"HOME": str(tmp_path), "AGENT_BROWSER_TOOLS_IMAGE_RESPONSES": "omit"},
        state_dir=tmp_path / "state",
    )
    rt = Runtime(settings, conversation_id="conv-omit", cwd=tmp_path)
    code = """
      const shot = await browser({ args: ['screenshot', 'shot0.png'] });
      emitImage(shot.imageObservations[0]);
    """
    result = await cell(rt, code)
    assert not result.is_error, result.text
    assert result.images == () and not any(isinstance(b, ImageBlock) for b in result.content)
    assert f"Images not attached (this server omits images): {shots[0]}." in result.text
    assert "Images attached" not in result.text
    assert result.details["images"][0]["path"] == str(shots[0])
    # The same checks as when images are sent: omitting them changes no verdict.
    capped = Runtime(
        replace(settings, inline_image_max_bytes=10), conversation_id="c2", cwd=tmp_path
    )
    over = await cell(capped, code)
    assert over.details["failureCategory"] == "validation-error"
    assert "inline image limit" in over.details["error"]
