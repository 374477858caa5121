"""Every command with a captured engine answer, through the direct tool: the model reads our
prose, never the engine's JSON or its internals (fake engine answering the capture).

Why: the engine echoes requests back as JSON (`{"closed": true, "restoreStatus": ...}`) and
answers a `find` with its own marker selector; the README promises results that say what
happened, briefly. Caller `--json` still gets the structured data.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import pytest

from agent_browser_tools.taxonomy import resolve_command
from tests.fake.tools.agent_browser.test_argv import _call, _tools
from tests.support import envelopes
from tests.support.fake import FakeEngine

NAMES = sorted(
    path.stem
    for folder in (envelopes.ENVELOPES, envelopes.BY_HAND)
    for path in folder.glob("*.json")
)

INTERNALS = (
    "launchHash",
    "data-agent-browser-located",
    "effectiveLaunch",
    "lifecycle",
    "restoreStatus",
    "saveStatus",
    "confirmation_id",
    "targetId",
)
"""Engine bookkeeping and internal selectors: never in the model-facing text."""

_OBJECT_KEY = re.compile(r'\{\s*"([^"]+)"\s*:')


def _answers(stdout: Any) -> Iterator[Mapping[str, Any]]:
    """The engine's own answer objects: the envelope's data (or each batch row's result) and
    a `confirm`'s nested answer. Values inside them (an `eval` result) are the page's."""
    rows = stdout if isinstance(stdout, list) else [{"result": stdout.get("data")}]
    for row in rows:
        answer = row.get("result")
        while isinstance(answer, Mapping):
            yield answer
            nested = answer.get("result") if "confirmed" in answer else None
            answer = nested.get("data") if isinstance(nested, Mapping) else None
            if isinstance(nested, Mapping):
                yield nested


def raw_engine_json(text: str, stdout: Any) -> list[str]:
    """What in `text` is the engine's JSON or one of its internals (empty: prose)."""
    keys = {key for answer in _answers(stdout) for key in answer}
    found = [needle for needle in INTERNALS if needle in text]
    return found + [f'{{"{key}"' for key in _OBJECT_KEY.findall(text) if key in keys]


def test_the_check_catches_an_engine_envelope() -> None:
    stdout = envelopes.capture("close")["stdout"]
    dumped = json.dumps({k: v for k, v in stdout["data"].items() if k != "lifecycle"})
    assert raw_engine_json(dumped, stdout) == ["restoreStatus", "saveStatus", '{"closed"']
    located = '{"clicked": "[data-agent-browser-located=\'true\']"}'
    assert raw_engine_json(located, envelopes.capture("find_text_click")["stdout"])
    assert raw_engine_json("Closed the browser session.", stdout) == []


@pytest.mark.parametrize("name", NAMES)
def test_each_capture_is_a_command_of_the_taxonomy(name: str) -> None:
    if name == "unknown_command":
        pytest.skip("the engine's own refusal of a word it does not know")
    assert resolve_command(envelopes.command(name)) is not None, name


async def _run(name: str, fake: FakeEngine, tmp_path: Path, *lead: str) -> tuple[str, Any]:
    """The capture's command through the direct tool, the fake answering with the capture
    (once: the tool's own follow-up probes get the fake's empty answer)."""
    record = envelopes.capture(name)
    stdout = json.loads(json.dumps(record["stdout"]).replace("<TMP>", str(tmp_path)))
    argv = envelopes.command(name)
    tmp_path.mkdir(exist_ok=True)
    tools = _tools(fake, tmp_path)  # forgets earlier rules: the capture's comes after
    fake.on({"command": argv[:1]}, times=1, json=stdout, exit=record["exit_code"])
    params: dict[str, Any] = {"args": [*lead, *argv]}
    if "stdin" in record:
        params["stdin"] = record["stdin"]
    try:
        result = await _call(tools, params)
    finally:
        await tools.aclose()
    return result.text, stdout


@pytest.mark.parametrize("name", NAMES)
async def test_the_model_reads_prose_not_the_engine_answer(
    name: str, fake_engine: FakeEngine, tmp_path: Path
) -> None:
    text, stdout = await _run(name, fake_engine, tmp_path)
    assert raw_engine_json(text, stdout) == [], text


@pytest.mark.parametrize(
    ("name", "line"),
    [
        ("close", "Closed the browser session."),
        ("find_text_click", 'Clicked the element found by text "Subscribe".'),
        ("find_label_fill", 'Filled the field labelled "Full name".'),
        ("confirm_click", "Approved `click`; it ran: Clicked #subscribe."),
        ("back", "Went back to http://127.0.0.1:PORT/page-a.html."),
        ("wait_ms", "Waited 100 ms."),
        ("tab_new", "Opened tab t2 on about:blank (2 tabs open)."),
    ],
)
async def test_the_prose_says_what_happened(
    name: str, line: str, fake_engine: FakeEngine, tmp_path: Path
) -> None:
    text, _ = await _run(name, fake_engine, tmp_path)
    assert line in text.splitlines(), text


async def test_batch_rows_are_prose_too(fake_engine: FakeEngine, tmp_path: Path) -> None:
    text, _ = await _run("batch_actions", fake_engine, tmp_path)
    lines = text.splitlines()
    assert "ok   1. fill #email a@b.c -> Filled #email." in lines, text
    assert 'ok   2. find label Full name fill Ada -> Filled the field labelled "Full name".' in (
        lines
    ), text


async def test_caller_json_still_gets_the_structured_answer(
    fake_engine: FakeEngine, tmp_path: Path
) -> None:
    text, _ = await _run("close", fake_engine, tmp_path / "close", "--json")
    assert json.loads(text)["data"]["closed"] is True
    text, _ = await _run("find_text_click", fake_engine, tmp_path / "find", "--json")
    assert "data-agent-browser-located" in json.loads(text)["data"]["clicked"]
