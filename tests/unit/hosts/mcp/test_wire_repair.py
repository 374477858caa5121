"""Messages the SDK's parser refuses become ones it takes, whose calls the tool gate refuses
(hosts/mcp/wire_repair.py). Each case is checked against the SDK's own parser."""

from __future__ import annotations

import json
from typing import Any

import mcp_types as types
import pytest

from agent_browser_tools.hosts.mcp import wire_repair
from agent_browser_tools.hosts.mcp.wire_repair import (
    WIRE_NESTING,
    cut_deep,
    repair_body,
    repair_line,
)
from agent_browser_tools.input_limits import REFUSAL_KEY, input_problem


def _call(arguments: bytes, call_id: int = 7) -> bytes:
    return (
        b'{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"agent_browser",'
        b'"arguments":%s}}' % (call_id, arguments)
    )


def _sdk_parses(body: bytes) -> bool:
    try:
        types.jsonrpc_message_adapter.validate_json(body, by_name=False)
    except ValueError:
        return False
    return True


def _arguments(body: bytes) -> Any:
    message = types.jsonrpc_message_adapter.validate_json(body, by_name=False)
    assert isinstance(message, types.JSONRPCRequest) and message.params is not None
    assert message.id == 7 and message.params["name"] == "agent_browser"
    return message.params["arguments"]


DEEP = b"[" * 10_000 + b"]" * 10_000


@pytest.mark.parametrize(
    ("arguments", "field", "limit"),
    [
        (b'{"args": ["get", "url\\ud800"]}', "args[1]", "lone-surrogate"),
        (b'{"args": ["get", "\\udfff"]}', "args[1]", "lone-surrogate"),
        (b'{"args": ["fill", "@e1", "a\xff\xfeb"]}', "args[2]", "invalid-utf8"),
        (b'{"args": ["get", "\xed\xa0\x80"]}', "args[1]", "invalid-utf8"),  # UTF-8 surrogate
        (b'{"args": ["get", "url\x00"]}', "args[1]", "nul-byte"),  # raw, unescaped
        (b'{"args": ["get", "url"], "x": ' + DEEP + b"}", "x[0]", "nesting"),
        (b'{"code": "' + b"[" * 10_000 + b'"}', "code", "string-ok"),
    ],
)
def test_a_call_the_sdk_would_drop_becomes_a_refusal_it_can_answer(
    arguments: bytes, field: str, limit: str
) -> None:
    body = _call(arguments)
    repaired = repair_body(body)
    if limit == "string-ok":  # brackets inside a string nest nothing: untouched
        assert repaired is body and _sdk_parses(body)
        return
    assert not _sdk_parses(body)
    assert _sdk_parses(repaired)
    problem = input_problem(_arguments(repaired))
    assert problem is not None
    assert problem.limit == limit and problem.where.startswith(field), problem
    assert set(_arguments(repaired)) == {REFUSAL_KEY}


def test_invalid_utf8_is_named_with_its_byte() -> None:
    repaired = repair_body(_call(b'{"stdin": "ok\xc3("}'))
    problem = input_problem(_arguments(repaired))
    assert problem is not None and problem.limit == "invalid-utf8"
    assert "0xc3 at character 2" in problem.message and "UTF-8" in problem.message


@pytest.mark.parametrize(
    "body",
    [
        _call(b'{"args": ["get", "url"]}'),
        _call(b'{"args": ["get", "\\ud83d\\ude00"]}'),  # an escaped pair is a character
        _call(b'{"args": ["get", "url\\u0000"]}'),  # an escaped NUL parses: the gate refuses it
        _call(b'{"args": ["\xf0\x9f\x98\x80 \xc3\xa9"]}'),
        b'{"jsonrpc":"2.0","method":"notifications/initialized"}',
    ],
)
def test_what_the_sdk_takes_is_passed_on_untouched(body: bytes) -> None:
    assert _sdk_parses(body)
    assert repair_body(body) is body


@pytest.mark.parametrize(
    ("body", "path", "expected"),
    [
        (b'{"jsonrpc":"2.0","id":1,"method":"resources/read","params":{"uri":"x\\ud800"}}',
         ("params", "uri"), "x\ufffd"),
        (b'{"jsonrpc":"2.0","id":1,"method":"resources/read","params":{"uri":"x\xff"}}',
         ("params", "uri"), "x\ufffd"),
        (b'{"jsonrpc":"2.0","id":1,"result":{"roots":[{"uri":"file:///a\\udc00"}]}}',
         ("result", "roots", 0, "uri"), "file:///a\ufffd"),
        (b'{"jsonrpc":"2.0","id":1,"method":"ping","params":{"x":' + DEEP + b"}}",
         ("params", "x") + (0,) * (WIRE_NESTING - 2), None),
    ],
)  # fmt: skip
def test_other_messages_are_mended_and_keep_their_id(
    body: bytes, path: tuple[Any, ...], expected: Any
) -> None:
    repaired = repair_body(body)
    assert _sdk_parses(repaired)
    value: Any = json.loads(repaired)
    assert value["id"] == 1
    for step in path:
        value = value[step]
    assert value == expected


def test_a_line_keeps_its_ending_and_garbage_stays_garbage() -> None:
    line = _call(b'{"args": ["a\\ud800"]}').decode() + "\n"
    repaired = repair_line(line)
    assert repaired.endswith("\n") and REFUSAL_KEY in repaired
    assert repair_line("not json \udcff\n") == "not json \ufffd\n"  # as the SDK decodes it
    assert repair_line("[[[[\n" * 1) == "[[[[\n"


def test_a_batch_array_is_repaired_message_by_message() -> None:
    body = b"[" + _call(b'{"args": ["\\ud800"]}') + b"," + _call(b'{"args": ["ok"]}', 8) + b"]"
    repaired = json.loads(repair_body(body))
    assert REFUSAL_KEY in repaired[0]["params"]["arguments"]
    assert repaired[1]["params"]["arguments"] == {"args": ["ok"]}


def test_cut_deep_ignores_brackets_in_strings_and_cuts_unclosed_ones() -> None:
    assert cut_deep('[[[1],[2]],"[[[",[[[[3]]]]]', 2) == '[[null,null],"[[[",[null]]'
    assert cut_deep('{"a": {"b": {"c": 1}}}', 2) == '{"a": {"b": null}}'
    assert cut_deep("[[[[", 2) == "[[null"
    assert json.loads(cut_deep(DEEP.decode(), WIRE_NESTING)) is not None


def test_a_failing_repair_never_stops_the_transport(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    def broken(text: str) -> str:
        raise RuntimeError("bug")

    monkeypatch.setattr(wire_repair, "repair_text", broken)
    assert wire_repair.repair_line("x \udcff\n") == "x \ufffd\n"
    assert wire_repair.repair_body(b'{"a": 1}') == b'{"a": 1}'
    assert "could not repair" in caplog.text
