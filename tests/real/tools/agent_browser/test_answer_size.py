"""Huge answers through the Python API, on the real engine: the same budget as over MCP.

A value over the large-value limit reaches neither details nor a code cell whole: its head stays
with a marker naming the file that holds all of it (`details.largeValues`); a call with
`outputPath` keeps it whole in the caller's file, and the message budget still bounds the
answer. The MCP acceptance cases are in `tests/e2e/test_mcp_answer_size.py`.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agent_browser_tools.api import BrowserTools
from agent_browser_tools.credentials import TYPED_PLACEHOLDER
from agent_browser_tools.results.message_budget import message_bytes
from agent_browser_tools.size_limits import (
    LARGE_VALUE_CHARS,
    LARGE_VALUE_HEAD_CHARS,
    MESSAGE_BUDGET_BYTES,
)
from agent_browser_tools.tools.agent_browser.finish import REFS_ALWAYS_REPEATED
from tests.support.fixture_server import FixtureServer
from tests.support.tools import ab

pytestmark = pytest.mark.real_engine

BIG = 3 * 1024 * 1024


def _value_file(row: dict[str, object], spill_dir: Path) -> Path:
    path = Path(str(row["path"]))
    assert path.parent == spill_dir and path.stat().st_mode & 0o777 == 0o600
    return path


async def test_get_html_of_a_huge_page_keeps_a_head_and_names_the_whole(
    browser_tools: BrowserTools, fixture_site: FixtureServer
) -> None:
    opened = await ab(browser_tools, "open", fixture_site.url("/changelist.html?rows=5000"))
    assert not opened.is_error, opened.text
    html = await ab(browser_tools, "get", "html", "#result_list")
    assert not html.is_error, html.text[-1000:]
    assert message_bytes(html) <= MESSAGE_BUDGET_BYTES
    (row,) = html.details["largeValues"]
    whole = _value_file(row, browser_tools.runtime.spill_dir).read_text()
    assert len(whole) == row["characters"] > LARGE_VALUE_CHARS
    assert whole.rstrip().endswith("</tbody>") and whole.count("<tr>") == 1 + 5000  # + header
    shown = html.details["data"]["html"]
    assert shown.startswith(whole[:LARGE_VALUE_HEAD_CHARS])
    name = Path(row["path"]).name
    assert f'read it with agent_browser {{"args": ["spill", "{name}"]}}' in html.text
    window = await ab(browser_tools, "spill", name)  # read back through the tool, no file tool
    assert not window.is_error and window.details["data"]["text"] == whole[:12_000]


async def test_a_batch_saves_one_file_for_a_value_its_roll_up_and_steps_share(
    browser_tools: BrowserTools, fixture_site: FixtureServer
) -> None:
    await ab(browser_tools, "open", fixture_site.url("/clean.html"))
    rows = [["eval", f"'ab'.repeat({BIG // 2})"], ["get", "title"]]
    batch = await ab(browser_tools, "batch", stdin=json.dumps(rows))
    assert not batch.is_error, batch.text[-1000:]
    fields = {row["field"]: row["path"] for row in batch.details["largeValues"]}
    assert set(fields) == {"batchSteps[0].result.result", "data[0].result.result"}
    assert len(set(fields.values())) == 1
    path = _value_file(batch.details["largeValues"][0], browser_tools.runtime.spill_dir)
    assert path.stat().st_size == BIG
    assert batch.details["batchSteps"][1]["result"] == {"title": "Clean Page"}


async def test_output_path_keeps_the_whole_value_and_the_answer_still_fits(
    browser_tools: BrowserTools, fixture_site: FixtureServer, tmp_path: Path
) -> None:
    await ab(browser_tools, "open", fixture_site.url("/clean.html"))
    result = await ab(browser_tools, "eval", f"'z'.repeat({BIG})", outputPath="big.json")
    assert not result.is_error, result.text[-1000:]
    saved = json.loads((tmp_path / "big.json").read_text())
    assert saved["result"] == "z" * BIG
    assert "largeValues" not in result.details
    assert message_bytes(result) <= MESSAGE_BUDGET_BYTES
    moved = {m["part"]: m["path"] for m in result.details["messageBudget"]["moved"]}
    assert json.loads(Path(moved["details.data"]).read_text())["result"] == "z" * BIG
    assert "details.data" in result.text


async def test_a_code_cell_gets_the_head_of_a_huge_value_not_the_whole(
    browser_tools: BrowserTools, fixture_site: FixtureServer
) -> None:
    """Whole, the value is over the bridge's 1 MiB reply limit and the cell would get nothing;
    cut, it gets the head and the file's name."""
    await ab(browser_tools, "open", fixture_site.url("/clean.html"))
    code = """
      const big = await browser({ args: ['eval', "'q'.repeat(4 * 1024 * 1024)"] });
      emit({ length: big.data.result.length, row: big.largeValues[0] });
    """
    cell = await browser_tools.call("agent_browser_code", {"code": code})
    assert not cell.is_error, cell.text
    data = cell.details["data"]
    assert LARGE_VALUE_HEAD_CHARS < data["length"] < LARGE_VALUE_HEAD_CHARS + 400
    assert data["row"]["characters"] == 4 * 1024 * 1024
    path = _value_file(data["row"], browser_tools.runtime.spill_dir)
    assert path.stat().st_size == 4 * 1024 * 1024


async def test_a_typed_password_inside_a_huge_value_never_reaches_its_file(
    browser_tools: BrowserTools, fixture_site: FixtureServer, tmp_path: Path
) -> None:
    password = "Tr0ub4dor-and-3"
    await ab(browser_tools, "open", fixture_site.url("login.html"))
    filled = await ab(browser_tools, "fill", "#code", password)
    assert not filled.is_error, filled.text
    script = "document.querySelector('#code').value + 'y'.repeat(2 * 1024 * 1024)"
    for huge in (
        await ab(browser_tools, "eval", script),
        await ab(browser_tools, "batch", stdin=json.dumps([["eval", script]])),
    ):
        assert not huge.is_error, huge.text[-1000:]
        for row in huge.details["largeValues"]:
            whole = _value_file(row, browser_tools.runtime.spill_dir).read_text()
            assert whole.startswith(TYPED_PLACEHOLDER) and password not in whole
        assert password not in huge.text and password not in json.dumps(huge.details)
    spilled = [p.read_bytes() for p in (tmp_path / "state").rglob("*") if p.is_file()]
    assert spilled and not any(password.encode() in data for data in spilled)


async def test_a_large_ref_map_travels_once_and_later_answers_name_it(
    browser_tools: BrowserTools, fixture_site: FixtureServer
) -> None:
    """`details.refSnapshot` of a page of 200 rows (605 refs) comes whole with the snapshot
    that recorded it; a click, a read and a snapshot that reads the same map again name it by
    its size instead of repeating (and spilling) it; a `--search` view and a snapshot of
    another map bring it whole again."""
    await ab(browser_tools, "open", fixture_site.url("/rows.html?n=200"))
    snap = await ab(browser_tools, "snapshot", "-i")
    refs = snap.details["refSnapshot"]["refs"]
    assert len(refs) > REFS_ALWAYS_REPEATED
    edit = next(k for k, v in refs.items() if v.get("name") == "Edit")
    for args in (["click", f"@{edit}"], ["get", "title"], ["snapshot", "-i"]):
        later = await ab(browser_tools, *args)
        assert not later.is_error, later.text
        shown = later.details["refSnapshot"]
        assert shown == {
            "refCount": len(refs),
            "refsUnchanged": True,
            "target": snap.details["refSnapshot"]["target"],
        }
        assert "messageBudget" not in later.details
    searched = await ab(browser_tools, "snapshot", "-i", "--search", "Item 7")
    assert searched.details["refSnapshot"]["refs"] == refs, "a search view keeps the whole map"
    await ab(browser_tools, "open", fixture_site.url("/rows.html?n=201"))
    again = await ab(browser_tools, "snapshot", "-i")
    assert len(again.details["refSnapshot"]["refs"]) > len(refs)


async def test_a_small_ref_map_travels_in_every_answer(
    browser_tools: BrowserTools, fixture_site: FixtureServer
) -> None:
    await ab(browser_tools, "open", fixture_site.url("/stable-refs.html"))
    snap = await ab(browser_tools, "snapshot", "-i")
    title = await ab(browser_tools, "get", "title")
    assert title.details["refSnapshot"]["refs"] == snap.details["refSnapshot"]["refs"]
