"""Where the runtime runs the stream guard (`engine.stream_guard`), in exact argv.

The fake engine writes no daemon files, so to the guard no daemon ever runs: every call on a
session is preceded by its session's `stream disable`, and calls on no session or on a whole
socket dir (`session list`, `close --all`) are not. The decision itself (a live quiet daemon
costs nothing) is unit-tested in `tests/unit/engine/test_stream_guard.py`, and the real
daemon's stream is checked off in `tests/real/engine/test_stream_guard.py`.
"""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from agent_browser_tools.api import BrowserTools
from tests.fake.tools.agent_browser.test_argv import MANAGED, PAGE, _call, _open_rule, _tools
from tests.support.fake import FakeEngine, fake_settings


def _argv(record: dict[str, object]) -> list[str]:
    value = record["argv"]
    assert isinstance(value, list)
    return [str(item) for item in value]


def _time(record: dict[str, object]) -> float:
    value = record["time"]
    assert isinstance(value, float)
    return value


async def test_a_call_on_a_session_is_preceded_by_its_stream_disable(
    fake_engine: FakeEngine, tmp_path: Path
) -> None:
    tools = _tools(fake_engine, tmp_path)
    _open_rule(fake_engine)
    opened = await _call(tools, {"args": ["open", PAGE]})
    assert not opened.is_error, opened.text
    named = await _call(tools, {"args": ["--namespace", "team", "--session", "s2", "get", "url"]})
    assert not named.is_error, named.text
    offs = fake_engine.stream_offs()
    argvs = [_argv(off) for off in offs]
    assert ["--json", "--session", MANAGED, "stream", "disable"] in argvs
    assert ["--json", "--namespace", "team", "--session", "s2", "stream", "disable"] in argvs
    assert all(argv[-2:] == ["stream", "disable"] for argv in argvs)
    [open_call] = [c for c in fake_engine.calls() if "open" in _argv(c)]
    first_off = min(_time(off) for off in offs if MANAGED in _argv(off))
    assert first_off < _time(open_call)


async def test_calls_on_a_whole_dir_or_no_session_are_not_guarded(
    fake_engine: FakeEngine, tmp_path: Path
) -> None:
    tools = _tools(fake_engine, tmp_path)
    for args in (["session", "list"], ["close", "--all"], ["skills", "list"]):
        result = await _call(tools, {"args": args})
        assert not result.is_error, (args, result.text)
    assert fake_engine.calls(), "the commands ran"
    assert fake_engine.stream_offs() == []


async def test_a_stream_disable_that_fails_is_logged_for_the_operator_and_retried(
    fake_engine: FakeEngine, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """The call itself still runs (its own answer says what is wrong with the engine); the
    operator learns a stream may have stayed on, and the next call tries again."""
    settings = fake_settings(fake_engine, tmp_path, FAKE_ENGINE_STREAM_OFF_FAILS="1")
    tools = BrowserTools(settings=settings, conversation_id="conv-fails", cwd=tmp_path)
    fake_engine.reset()
    _open_rule(fake_engine)
    with caplog.at_level(logging.WARNING, logger="agent_browser_tools.runtime"):
        assert not (await _call(tools, {"args": ["open", PAGE]})).is_error
        assert not (await _call(tools, {"args": ["get", "url"]})).is_error
    warned = [r.getMessage() for r in caplog.records if "stream server" in r.getMessage()]
    assert len(warned) >= 2 and "Operation not permitted" in warned[0], warned
    assert len(fake_engine.stream_offs()) >= 2
    await tools.aclose()
