"""A code cell's inner calls are read as data (`modelVisible: false`): no prose rendering, no
observation spill and no base64 image per inner call; the same calls made directly do all
three, so each assertion would fail if inner calls ran the direct presentation."""

from __future__ import annotations

import base64
from pathlib import Path

import pytest

from agent_browser_tools.api import BrowserTools
from agent_browser_tools.results import bounds, present
from agent_browser_tools.tools.agent_browser import finish
from tests.support.fixture_server import FixtureServer
from tests.support.tools import ab

pytestmark = pytest.mark.real_engine

BIG_EVAL = "'x'.repeat(40000)"


async def test_inner_calls_skip_rendering_spills_and_image_encoding(
    browser_tools: BrowserTools,
    fixture_site: FixtureServer,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    encoded: list[int] = []
    rendered: list[int] = []
    real_encode, real_render = base64.b64encode, present.render_prose

    def counting_encode(data: bytes, *args: object) -> bytes:
        encoded.append(len(data))
        return real_encode(data)

    def counting_render(*args: object, **kwargs: object) -> tuple[str, str]:
        rendered.append(1)
        return real_render(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(base64, "b64encode", counting_encode)
    monkeypatch.setattr(finish, "render_prose", counting_render)
    spill_dir = browser_tools.runtime.spill_dir
    await ab(browser_tools, "open", fixture_site.url("/clean.html"))
    encoded.clear()
    rendered.clear()
    code = f"""
      const shot = await browser({{ args: ['screenshot', 'inner.png'] }});
      const big = await browser({{ args: ['eval', '--stdin'], stdin: "{BIG_EVAL}" }});
      emit({{ shot: shot.imageObservations.length, size: big.data.result.length,
              spilled: 'observationPath' in big }});
    """
    cell = await browser_tools.call("agent_browser_code", {"code": code})
    assert cell.details["data"] == {"shot": 1, "size": 40000, "spilled": False}, cell.text
    assert (tmp_path / "inner.png").is_file()
    assert encoded == [] and rendered == []
    spilled = sorted(spill_dir.glob("*")) if spill_dir.exists() else []
    direct_shot = await ab(browser_tools, "screenshot", "direct.png")
    direct_big = await ab(browser_tools, "eval", "--stdin", stdin=BIG_EVAL)
    assert direct_shot.images and encoded and rendered  # the direct path does all three
    assert "observationPath" in direct_big.details
    assert len(sorted(spill_dir.glob("*"))) > len(spilled)
    assert len(direct_big.text) <= bounds.VISIBLE_LIMIT
