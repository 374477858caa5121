"""The operator's image-responses choice on the real engine: `screenshot x.png` carries the
image inline by default (the contract) and no image content at all with `omit` (playwright-mcp's
`--image-responses omit`), while the text still names the saved, verified file."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agent_browser_tools.api import BrowserTools
from agent_browser_tools.hosts.cli.main import _parser
from agent_browser_tools.hosts.mcp.operator_flags import operator_layer
from agent_browser_tools.results.tool_result import ImageBlock, ToolResult
from agent_browser_tools.settings import Settings
from tests.support.fixture_server import FixtureServer
from tests.support.real_engine import EngineEnv
from tests.support.tools import ab, tools_settings

pytestmark = pytest.mark.real_engine


def _omitting(engine_env: EngineEnv, tmp_path: Path) -> Settings:
    """Settings as `serve --image-responses omit` makes them: the flag's config layer."""
    flags = operator_layer(_parser().parse_args(["serve", "--image-responses", "omit"]))
    return tools_settings(engine_env, tmp_path / "state").with_layer("serve flags", flags)


def _no_images(result: ToolResult) -> None:
    assert result.images == ()
    assert not [block for block in result.content if isinstance(block, ImageBlock)]
    assert "base64" not in json.dumps(result.details)  # nor smuggled into the details


async def test_screenshot_carries_its_image_by_default(
    browser_tools: BrowserTools, fixture_site: FixtureServer, tmp_path: Path
) -> None:
    await ab(browser_tools, "open", fixture_site.url("/page-a.html"))
    shot = await ab(browser_tools, "screenshot", "x.png")
    assert not shot.is_error, shot.text
    (image,) = shot.images
    assert image.path == str(tmp_path / "x.png") and image.mime_type == "image/png"
    assert len(image.data) > 100


async def test_with_images_omitted_a_screenshot_result_has_no_image_content(
    engine_env: EngineEnv, fixture_site: FixtureServer, tmp_path: Path
) -> None:
    tools = BrowserTools(settings=_omitting(engine_env, tmp_path), cwd=tmp_path)
    try:
        await ab(tools, "open", fixture_site.url("/page-a.html"))
        shot = await ab(tools, "screenshot", "x.png")
        rows = json.dumps([["screenshot", "y.png"], ["get", "title"]])
        batch = await ab(tools, "batch", "--bail", stdin=rows)
    finally:
        await tools.aclose()
    assert not shot.is_error, shot.text
    _no_images(shot)
    saved = tmp_path / "x.png"
    assert saved.read_bytes().startswith(b"\x89PNG")  # the file is there all the same
    assert shot.details["artifactVerification"]["verifiedCount"] == 1
    assert shot.details["imagePath"] == str(saved)
    # The text still names the saved file and its verification.
    assert str(saved) in shot.text and "verified" in shot.text, shot.text
    assert not batch.is_error, batch.text
    _no_images(batch)
    assert (tmp_path / "y.png").is_file() and "y.png" in batch.text, batch.text
