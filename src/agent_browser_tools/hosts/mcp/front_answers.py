"""The stdio front's protocol: which lines it answers itself, with what, and what it hands on.

Why: a stdio client waits for `initialize` and `tools/list` before the model can act, and the
SDK takes longer to import than the rest of the start. The front answers those two (and
`ping`) from data recorded from the SDK itself (`front_data.json`, written by
`scripts/gen_stdio_front.py` from `front_reference`), so the answers are the SDK's, byte for
byte, for the same request. This module is pure (stdlib `json` only: no SDK, no pydantic).

What the front answers, and only while it is sure the SDK would answer the same:

- `initialize` with well-formed params (protocol version negotiated as the SDK does: the
  requested one if the SDK speaks it in the handshake era, else its latest); any other
  `initialize` goes on to the SDK, which owns the error.
- After that, `ping` and `tools/list` with no params (or `{}`): the handshake era's results.
  A `tools/list` with params (a cursor, `_meta`) goes on to the SDK.
- The moment anything other than `notifications/initialized` has been handed on (a
  `tools/call`, an unparsable line, a request before `initialize`), the front answers nothing
  more: a later answer could depend on it (an `enable` changes the tool list).

At the handoff the SDK replays the client's `initialize` under a private id (its answer is
dropped, the client has one), then every line handed on, in order (`handoff_lines`).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeGuard

DATA_FILE = Path(__file__).with_name("front_data.json")
INITIALIZED = "notifications/initialized"
ANSWERED_AFTER_INITIALIZE = ("ping", "tools/list")
INITIALIZE_KEYS = frozenset({"protocolVersion", "capabilities", "clientInfo", "_meta"})


@dataclass(frozen=True)
class DeclaredTool:
    """What decides whether a declared tool is listed when a conversation starts."""

    name: str
    always_on: bool
    web_search: bool
    """Listed only when a web-search source is configured (`web_search_available`)."""


@dataclass(frozen=True)
class FrontData:
    """The recorded SDK answers: per handshake-era protocol version, the result of each
    answered method (`tools/list` with every always-on tool), and the declared tools."""

    latest: str
    results: Mapping[str, Mapping[str, Any]]
    declared: tuple[DeclaredTool, ...]


def load_data(path: Path = DATA_FILE) -> FrontData:
    raw = json.loads(path.read_text(encoding="utf-8"))
    declared = tuple(
        DeclaredTool(t["name"], t["alwaysOn"], t["webSearch"]) for t in raw["declared"]
    )
    return FrontData(raw["latestProtocolVersion"], raw["results"], declared)


def listed_names(
    data: FrontData, allowlist: frozenset[str] | None, web_search: bool
) -> tuple[str, ...]:
    """The tools a new conversation lists: the rules of `catalog.listed_at_start` (allowed,
    always on, web search only with a source), over the recorded declarations."""
    return tuple(
        tool.name
        for tool in data.declared
        if tool.always_on
        and (allowlist is None or tool.name in allowlist)
        and (web_search or not tool.web_search)
    )


def negotiate(data: FrontData, requested: object) -> str:
    """The protocol version the SDK answers an `initialize` asking for `requested` with."""
    return requested if isinstance(requested, str) and requested in data.results else data.latest


def well_formed_initialize(params: object) -> TypeGuard[dict[str, Any]]:
    """Params the SDK accepts for `initialize` (else it answers an error, so the front must
    not answer): a version string, object-valued capabilities, client name and version."""
    if not isinstance(params, dict) or not params.keys() <= INITIALIZE_KEYS:
        return False
    capabilities, client = params.get("capabilities"), params.get("clientInfo")
    return (
        isinstance(params.get("protocolVersion"), str)
        and isinstance(capabilities, dict)
        and all(isinstance(value, dict) for value in capabilities.values())
        and isinstance(client, dict)
        and isinstance(client.get("name"), str)
        and isinstance(client.get("version"), str)
        and isinstance(params.get("_meta", {}), dict)
    )


def _request_id(message: Mapping[str, Any]) -> int | str | None:
    request_id = message.get("id")
    if isinstance(request_id, bool) or not isinstance(request_id, (int, str)):
        return None
    return request_id


def response_line(request_id: int | str, result: Any) -> str:
    """A JSON-RPC response as the SDK's stdio transport writes it (compact, UTF-8)."""
    body = {"jsonrpc": "2.0", "id": request_id, "result": result}
    return json.dumps(body, ensure_ascii=False, separators=(",", ":"))


@dataclass
class Front:
    """One client's lines before the handoff: answered here, or kept for the SDK."""

    data: FrontData
    listed: tuple[str, ...]
    initialize_params: dict[str, Any] | None = None
    version: str | None = None
    handed_on: list[str] = field(default_factory=list)
    passthrough: bool = False
    """Something other than `notifications/initialized` was handed on: the front answers
    nothing more, and the SDK must see those lines even if the client has already left."""

    def take(self, line: str) -> str | None:
        """The answer line for `line`, or None when `line` is kept for the SDK."""
        message = _parse(line)
        answer = None if self.passthrough or message is None else self._answer(message)
        if answer is None:
            self.handed_on.append(line)
            harmless = message is not None and _is_initialized(message)
            self.passthrough = self.passthrough or not harmless
        return answer

    def _answer(self, message: dict[str, Any]) -> str | None:
        request_id, method = _request_id(message), message.get("method")
        if request_id is None or "result" in message or "error" in message:
            return None
        params = message.get("params")
        if method == "initialize" and self.version is None:
            if not well_formed_initialize(params):
                return None
            self.initialize_params = params
            self.version = negotiate(self.data, params["protocolVersion"])
            return response_line(request_id, self.data.results[self.version]["initialize"])
        no_params = params is None or params == {}  # `[]`, `0`, `""` are the SDK's to refuse
        if method in ANSWERED_AFTER_INITIALIZE and self.version is not None and no_params:
            return response_line(request_id, self._result(str(method)))
        return None

    def _result(self, method: str) -> Any:
        assert self.version is not None
        result = self.data.results[self.version][method]
        if method != "tools/list":
            return result
        by_name = {tool["name"]: tool for tool in result["tools"]}
        return {**result, "tools": [by_name[name] for name in self.listed]}

    def handoff_lines(self, private_id: str) -> list[str]:
        """What the SDK reads first: the replayed `initialize` (under `private_id`) when the
        front answered it, then every line handed on, in order."""
        if self.initialize_params is None:
            return list(self.handed_on)
        replay = {
            "jsonrpc": "2.0",
            "id": private_id,
            "method": "initialize",
            "params": self.initialize_params,
        }
        return [json.dumps(replay, ensure_ascii=False), *self.handed_on]


def _parse(line: str) -> dict[str, Any] | None:
    """A JSON-RPC 2.0 message object, or None for anything else (the SDK's to answer)."""
    try:
        message = json.loads(line)
    except ValueError:
        return None
    if not isinstance(message, dict) or message.get("jsonrpc") != "2.0":
        return None
    return message


def _is_initialized(message: Mapping[str, Any]) -> bool:
    return message.get("method") == INITIALIZED and "id" not in message
