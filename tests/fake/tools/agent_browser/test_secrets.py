"""Secrets at the process boundary, against the fake engine: what the engine receives versus
what details, text, the journal and code cells hold.

- `{{secret:NAME}}` reaches the engine as the value (argv and JSON stdin) and nothing else;
- an unknown name is a `validation-error` naming the known ones, with nothing spawned;
- a value typed into a credential field (the probe batch says `type=password`) is masked in the
  journal, details and every later output; `get value` of such a field answers redacted;
- the credential probe costs one engine call only when the selector does not already tell.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from agent_browser_tools.api import BrowserTools
from agent_browser_tools.credentials import READ_PLACEHOLDER, TYPED_PLACEHOLDER
from agent_browser_tools.engine.discovery import clear_engine_cache
from agent_browser_tools.results.tool_result import ToolResult
from agent_browser_tools.tools.code.spec import SPEC as CODE
from tests.support.fake import FakeEngine, fake_settings

OP_VALUE = 'op-"Secret"\\Value-1'
OP = "{{secret:PW}}"
TYPED = "hunter2secret"
ATTRS = ("type", "autocomplete", "name", "id", "aria-label", "placeholder")


@pytest.fixture(autouse=True)
def _fresh_engine_cache() -> Iterator[None]:
    clear_engine_cache()
    yield
    clear_engine_cache()


@pytest.fixture
def tools(fake_engine: FakeEngine, tmp_path: Path) -> BrowserTools:
    config = tmp_path / "config.toml"
    config.write_text(f'[secrets]\nPW = {json.dumps(OP_VALUE)}\nAPI = "api-key-9999"\n')
    settings = fake_settings(fake_engine, tmp_path, AGENT_BROWSER_TOOLS_CONFIG=str(config))
    built = BrowserTools(settings=settings, conversation_id="conv-secrets", cwd=tmp_path)
    assert built.runtime.engine.path == str(fake_engine.path)
    fake_engine.reset()
    return built


def _journal(tmp_path: Path) -> str:
    """Every byte of the SQLite journal (and its WAL), as text."""
    text = ""
    for path in (tmp_path / "state").glob("journal.sqlite3*"):
        text += path.read_bytes().decode("utf-8", errors="replace")
    with sqlite3.connect(tmp_path / "state" / "journal.sqlite3") as conn:
        text += "\n".join(row[0] for row in conn.execute("SELECT payload FROM events"))
    return text


def _everything(result: ToolResult) -> str:
    return result.text + json.dumps(result.details, default=str)


async def _opened(tools: BrowserTools, fake: FakeEngine) -> None:
    """A page the conversation knows of (the credential probe reads only known pages)."""
    fake.on({"command": ["open"]}, envelope={"data": {"url": "https://a.test/", "title": "A"}})
    opened = await tools.call("agent_browser", {"args": ["open", "https://a.test/"]})
    assert not opened.is_error, opened.text


def _probe_answer(selector: str, values: dict[str, str]) -> list[dict[str, Any]]:
    return [
        {
            "command": ["get", "attr", selector, attr],
            "success": True,
            "result": {"value": values.get(attr)},
            "error": None,
        }
        for attr in ATTRS
    ]


async def test_operator_secret_reaches_only_the_engine(
    tools: BrowserTools, fake_engine: FakeEngine, tmp_path: Path
) -> None:
    # The page echoes what was typed: the answer must show the placeholder, not the value.
    fake_engine.on({"command": ["fill"]}, envelope={"data": {"filled": "#user", "v": OP_VALUE}})
    result = await tools.call("agent_browser", {"args": ["fill", "#user", OP]})
    assert not result.is_error, result.text
    (fill,) = [argv for argv in fake_engine.argvs() if "fill" in argv]
    assert fill[-1] == OP_VALUE
    assert result.details["args"] == ["fill", "#user", OP]
    assert result.details["effectiveArgs"][-1] == OP
    assert result.details["data"]["v"] == OP
    assert OP_VALUE not in _everything(result) and "Secret" not in _everything(result)
    journal = _journal(tmp_path)
    assert OP in journal and "Secret" not in journal


async def test_operator_secret_in_json_stdin_stays_valid_json(
    tools: BrowserTools, fake_engine: FakeEngine
) -> None:
    rows = [["fill", "#user", OP], ["fill", "#key", "k={{secret:API}}"]]
    answer = [{"command": ["fill"], "success": True, "result": {}, "error": None}]
    fake_engine.on({"command": ["batch"]}, json=answer)  # each step is a call of its own
    await tools.call("agent_browser", {"args": ["batch"], "stdin": json.dumps(rows)})
    batches = [call for call in fake_engine.calls() if "batch" in str(call["argv"])]
    sent = [row for call in batches for row in json.loads(str(call["stdin"]))]  # per step
    assert sent == [["fill", "#user", OP_VALUE], ["fill", "#key", "k=api-key-9999"]]


async def test_unknown_secret_name_is_refused_before_any_spawn(
    tools: BrowserTools, fake_engine: FakeEngine
) -> None:
    result = await tools.call("agent_browser", {"args": ["fill", "#pw", "{{secret:NOPE}}"]})
    assert result.is_error
    assert result.details["failureCategory"] == "validation-error"
    assert "{{secret:NOPE}}" in result.text and "API, PW" in result.text
    assert fake_engine.calls() == []


async def test_typed_password_is_masked_everywhere_and_read_back_redacted(
    tools: BrowserTools, fake_engine: FakeEngine, tmp_path: Path
) -> None:
    await _opened(tools, fake_engine)
    fake_engine.on({"command": ["batch"]}, json=_probe_answer("#f1", {"type": "password"}))
    fake_engine.on({"command": ["fill"]}, envelope={"data": {"filled": "#f1"}})
    fake_engine.on({"command": ["eval"]}, envelope={"data": {"result": f"seen {TYPED}"}})
    fake_engine.on({"command": ["get", "value"]}, envelope={"data": {"value": TYPED}})
    filled = await tools.call("agent_browser", {"args": ["fill", "#f1", TYPED]})
    assert not filled.is_error, filled.text
    assert [argv[-1] for argv in fake_engine.argvs() if "fill" in argv] == [TYPED]
    assert filled.details["args"] == ["fill", "#f1", TYPED_PLACEHOLDER]
    assert filled.details["redacted"]["fields"][0]["why"] == "input type=password"
    later = await tools.call("agent_browser", {"args": ["eval", "document.title"]})
    assert later.details["data"]["result"] == f"seen {TYPED_PLACEHOLDER}"
    read = await tools.call("agent_browser", {"args": ["get", "value", "#f1"]})
    assert read.details["data"]["value"] == READ_PLACEHOLDER
    assert read.details["redacted"]["reason"] == "credential-field"
    for result in (filled, later, read):
        assert TYPED not in _everything(result)
    assert TYPED not in _journal(tmp_path)


async def test_batch_rows_of_a_typed_password_are_masked(
    tools: BrowserTools, fake_engine: FakeEngine, tmp_path: Path
) -> None:
    # The selector says it: no probe, and the engine's row echo comes back masked.
    echo = [
        {"command": ["fill", "#password", TYPED], "success": True, "result": {}, "error": None},
        {"command": ["focus", "#go"], "success": True, "result": {}, "error": None},
    ]
    fake_engine.on({"command": ["batch"]}, json=echo[:1], times=1)  # one call per step
    fake_engine.on({"command": ["batch"]}, json=echo[1:])
    result = await tools.call(
        "agent_browser", {"args": ["batch", f"fill #password {TYPED}", "focus #go"]}
    )
    assert [argv[-2:] for argv in fake_engine.argvs()] == [
        ["batch", f"fill #password {TYPED}"],
        ["batch", "focus #go"],
    ]
    steps = result.details["batchSteps"]
    assert steps[0]["command"] == ["fill", "#password", TYPED_PLACEHOLDER]
    assert result.details["args"][1] == f"fill #password {TYPED_PLACEHOLDER}"
    assert TYPED not in _everything(result) and TYPED not in _journal(tmp_path)


async def test_the_probe_costs_one_call_only_when_needed(
    tools: BrowserTools, fake_engine: FakeEngine
) -> None:
    # A session with no known page is never read (the read would launch its browser). After
    # the fill, the post-action read-back batch (`action_readback`) is not this probe.
    await tools.call("agent_browser", {"args": ["fill", "#q", "shoes"]})
    assert [argv[-3:] for argv in _before_readback(fake_engine.argvs())] == [
        ["fill", "#q", "shoes"]
    ]
    await _opened(tools, fake_engine)
    seen = len(fake_engine.calls())
    await tools.call("agent_browser", {"args": ["focus", "#go"]})
    assert len(fake_engine.calls()) == seen + 1
    await tools.call("agent_browser", {"args": ["fill", "#pwd", "x-1234567"]})
    assert [argv[-3:] for argv in _before_readback(fake_engine.argvs()[seen + 1 :])] == [
        ["fill", "#pwd", "x-1234567"]
    ]
    seen = len(fake_engine.calls())
    await tools.call("agent_browser", {"args": ["fill", "#q", "shoes"]})
    probe, fill = _before_readback(fake_engine.argvs()[seen:])
    assert probe[-1] == "batch" and "--session" in probe
    probe_rows = json.loads(str(fake_engine.calls()[seen]["stdin"]))
    assert [row[:2] + row[3:] for row in probe_rows] == [["get", "attr", attr] for attr in ATTRS]
    assert fill[-3:] == ["fill", "#q", "shoes"]


def _before_readback(argvs: list[list[str]]) -> list[list[str]]:
    """The calls up to the fill: what follows it is the one post-action read-back batch."""
    at = next(i for i, argv in enumerate(argvs) if "fill" in argv)
    assert [argv[-2:] for argv in argvs[at + 1 :]] in ([], [["batch", "--bail"]]), argvs
    return argvs[: at + 1]


async def test_a_code_cell_never_holds_an_operator_secret(
    tools: BrowserTools, fake_engine: FakeEngine
) -> None:
    fake_engine.on({"command": ["fill"]}, envelope={"data": {"v": OP_VALUE}})
    # The worker reverses what it got: a value that reached it would survive the parent's
    # final scrub reversed.
    code = """
      const r = await browser({ args: ['fill', '#user', '{{secret:PW}}'] });
      return JSON.stringify(r).split('').reverse().join('');
    """
    result = await CODE.call(tools.runtime, {"code": code})
    assert not result.is_error, result.text
    reversed_data = str(result.details["data"])
    assert OP[::-1] in reversed_data
    assert "terceS" not in reversed_data
    (fill,) = [argv for argv in fake_engine.argvs() if "fill" in argv]
    assert fill[-1] == OP_VALUE
