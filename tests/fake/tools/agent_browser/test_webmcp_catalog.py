"""WebMCP catalog updates the real engine emits once and at a moment a test cannot pick (the
page's tools change between the command's answer and the wrapper's url probe), on the fake
engine: the helper read's update still reaches the call's `details.webMcpCatalog`."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.fake.tools.agent_browser.test_argv import PAGE, _call, _open_rule, _tools
from tests.support.fake import FakeEngine

UPDATE = {
    "available": True,
    "status": "ready",
    "toolCount": 1,
    "tools": [{"name": "late", "description": "Registered after a click.", "origin": PAGE}],
    "truncated": False,
    "untrusted": True,
}


def _probe_with_update() -> list[dict[str, Any]]:
    """The probe's page scripts as one `eval` (the title, the click probe's counts), the
    answer naming the page and carrying a catalog update."""
    scripts = json.dumps([{"v": "A"}, {"v": None}])
    said = {"result": scripts, "origin": PAGE, "webmcp": UPDATE}
    return [{"command": ["eval"], "success": True, "result": said, "error": None}]


async def test_a_catalog_update_seen_by_the_url_probe_belongs_to_the_call(
    fake_engine: FakeEngine, tmp_path: Path
) -> None:
    tools = _tools(fake_engine, tmp_path, "webmcp-helper")
    _open_rule(fake_engine)
    fake_engine.on({"command": ["click"]}, envelope={"data": {"clicked": True}})
    installed = [{"command": ["eval"], "success": True, "result": {"result": None}, "error": None}]
    fake_engine.on({"command": ["batch"]}, times=1, json=installed)  # the click probe's install
    fake_engine.on({"command": ["batch"]}, json=_probe_with_update())
    await _call(tools, {"args": ["open", PAGE]})
    clicked = await _call(tools, {"args": ["click", "#go"]})
    assert not clicked.is_error, clicked.text
    catalog = clicked.details["webMcpCatalog"]
    assert [u["source"] for u in catalog["updates"]] == ["helper"]
    assert catalog["tools"][0]["name"] == "late"
    assert "webmcp" not in clicked.details["data"], "the main command's data is unchanged"
    assert '"late"' in clicked.text and "list-webmcp-tools" in clicked.text
    again = await _call(tools, {"args": ["get", "title"]})
    assert "webMcpCatalog" not in again.details, "collection is per call, not a cache"
    await tools.aclose()


async def test_caller_json_keeps_the_catalog_parseable(
    fake_engine: FakeEngine, tmp_path: Path
) -> None:
    tools = _tools(fake_engine, tmp_path, "webmcp-json")
    fake_engine.on({"command": ["open"]}, envelope={"data": {"url": PAGE, "webmcp": UPDATE}})
    opened = await _call(tools, {"args": ["--json", "open", PAGE]})
    visible = json.loads(opened.text)
    assert visible["webMcpCatalog"]["toolCount"] == 1
    await tools.aclose()
