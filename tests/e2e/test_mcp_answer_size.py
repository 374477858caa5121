"""Every answer fits the client: the official MCP client over HTTP against `serve --http`.

The SDK's HTTP client drops any message over 1 MiB (`Server-sent event exceeded the 1048576
byte limit`), so each answer arriving at all is the first proof; its encoded size is measured
too, and the spill files it names are read back to check they hold what the answer left out.
Before the budget these answered 10 MB (`snapshot -i` of 5,000 rows), 9 MB (10,000 batch rows)
and 58 MB (`eval` of a 50 MB string).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import mcp_types as types
import pytest

from agent_browser_tools.size_limits import CLIENT_MESSAGE_LIMIT_BYTES, MESSAGE_BUDGET_BYTES
from tests.support.fixture_server import FixtureServer
from tests.support.mcp_server import (
    HttpServer,
    ab,
    details_of,
    http_client,
    http_server,
    serve_env,
    text_of,
)
from tests.support.real_engine import EngineEnv, track_socket_dir

pytestmark = pytest.mark.real_engine

ROWS = 5_000
BATCH_ROWS = 10_000
EVAL_CHARS = 50 * 1024 * 1024
PATTERN = "0123456789abcdef"


@pytest.fixture(scope="module")
def state_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("answer-size") / "state"


@pytest.fixture(scope="module")
def server(engine_env: EngineEnv, state_dir: Path) -> Iterator[HttpServer]:
    track_socket_dir(engine_env.socket_dir)
    with http_server(serve_env(engine_env, state_dir)) as running:
        yield running
    assert running.proc.returncode == 0, running.log


def wire_bytes(result: types.CallToolResult) -> int:
    """The answer's size as the client got it (the JSON-RPC framing adds a few dozen bytes)."""
    return len(result.model_dump_json(by_alias=True, exclude_none=True).encode("utf-8"))


def moved(details: dict[str, Any], part: str, state_dir: Path) -> Path:
    """The private spill file `details.messageBudget` names for `part`."""
    (entry,) = [m for m in details["messageBudget"]["moved"] if m["part"] == part]
    path = Path(entry["path"])
    assert path.is_relative_to(state_dir / "spill") and path.is_file()
    assert path.stat().st_mode & 0o777 == 0o600
    return path


def fits(result: types.CallToolResult) -> dict[str, Any]:
    size = wire_bytes(result)
    assert size <= MESSAGE_BUDGET_BYTES < CLIENT_MESSAGE_LIMIT_BYTES, size
    assert not result.is_error, text_of(result)[-2000:]
    return details_of(result)


async def test_snapshot_of_a_5000_row_page_fits_and_its_ref_map_is_spilled_once(
    server: HttpServer, fixture_site: FixtureServer, state_dir: Path
) -> None:
    assert server.url is not None
    async with http_client(server.url) as client:
        opened = await ab(client, "open", fixture_site.url(f"/changelist.html?rows={ROWS}"))
        assert not opened.is_error, text_of(opened)
        snapshot = await ab(client, "snapshot", "-i", timeoutMs=120_000)
        details = fits(snapshot)
        text = text_of(snapshot)
        assert "refSnapshot" not in details and "data" not in details
        ref_file = moved(details, "details.refSnapshot", state_dir)
        written = ref_file.stat().st_mtime_ns
        assert ref_file.name in text and "message budget" in text
        refs = json.loads(ref_file.read_text())["refs"]
        checkboxes = [r for r in refs.values() if r.get("role") == "checkbox"]
        assert len(refs) > 2 * ROWS and len(checkboxes) >= ROWS
        data = json.loads(moved(details, "details.data", state_dir).read_text())
        assert set(data["refs"]) == set(refs)
        # A later answer names the map it already carried (refCount), neither repeating nor
        # writing it again, so it needs no budget at all.
        title = await ab(client, "get", "title")
        later = fits(title)
        assert later["refSnapshot"]["refCount"] == len(refs)
        assert later["refSnapshot"]["refsUnchanged"] is True and "messageBudget" not in later
        assert text_of(title).startswith("Select article to change")
        assert ref_file.stat().st_mtime_ns == written
        # A caller's --json answer stays parseable.
        as_json = json.loads(text_of(await ab(client, "--json", "get", "title")))
        assert as_json["data"]["title"] == "Select article to change | Django site admin"


async def test_a_10000_row_batch_fits_and_its_steps_are_spilled(
    server: HttpServer, fixture_site: FixtureServer, state_dir: Path
) -> None:
    assert server.url is not None
    async with http_client(server.url) as client:
        opened = await ab(client, "open", fixture_site.url("page-a.html"))
        assert not opened.is_error, text_of(opened)
        rows = json.dumps([["get", "title"]] * BATCH_ROWS)
        batch = await ab(client, "batch", stdin=rows, timeoutMs=300_000)
        details = fits(batch)
        assert details["summary"] == f"Batch: {BATCH_ROWS}/{BATCH_ROWS} steps succeeded" + (
            f" ({BATCH_ROWS} planned)."
        )
        steps = json.loads(moved(details, "details.batchSteps", state_dir).read_text())
        assert len(steps) == BATCH_ROWS and steps[-1]["step"] == BATCH_ROWS
        assert steps[-1]["result"] == {"title": "Page A"}
        text = text_of(batch)
        assert "details.batchSteps" in text and f"{BATCH_ROWS}/{BATCH_ROWS} steps" in text
        one_more = json.dumps([["get", "title"]] * (BATCH_ROWS + 1))
        refused = await ab(client, "batch", stdin=one_more)
        assert refused.is_error and details_of(refused)["failureCategory"] == "validation-error"
        assert "the limit is 10,000 rows per call" in text_of(refused)


async def test_eval_of_a_50_mb_string_fits_and_the_whole_value_is_in_its_file(
    server: HttpServer, fixture_site: FixtureServer, state_dir: Path
) -> None:
    assert server.url is not None
    async with http_client(server.url) as client:
        opened = await ab(client, "open", fixture_site.url("page-a.html"))
        assert not opened.is_error, text_of(opened)
        script = f"'{PATTERN}'.repeat({EVAL_CHARS // len(PATTERN)})"
        result = await ab(client, "eval", script, timeoutMs=120_000)
        details = fits(result)
        (row,) = details["largeValues"]
        assert row["field"] == "data.result" and row["characters"] == EVAL_CHARS
        value = Path(row["path"])
        assert value.is_relative_to(state_dir / "spill") and value.stat().st_size == EVAL_CHARS
        with value.open() as handle:
            assert handle.read(64) == PATTERN * 4
        read = f'read it with agent_browser {{"args": ["spill", "{value.name}"]}}'
        assert read in text_of(result) and str(value) not in text_of(result)
        assert details["data"]["result"].startswith(PATTERN * 100)
        # The runner's raw overflow file is gone; only named spill files stay.
        assert not list((state_dir / "spill").rglob("stdout-*"))


async def test_a_1_mib_fill_is_a_validation_error_naming_the_limit(
    server: HttpServer, fixture_site: FixtureServer
) -> None:
    assert server.url is not None
    async with http_client(server.url) as client:
        opened = await ab(client, "open", fixture_site.url("form.html"))
        assert not opened.is_error, text_of(opened)
        result = await ab(client, "fill", "#full-name", "a" * (1024 * 1024))
        assert result.is_error and wire_bytes(result) <= MESSAGE_BUDGET_BYTES
        assert details_of(result)["failureCategory"] == "validation-error"
        assert "fill text is 1,048,576 bytes; the limit is 102,400 bytes" in text_of(result)
        assert not (await ab(client, "get", "title")).is_error
