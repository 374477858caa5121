"""Messages the MCP SDK cannot parse, made into ones it can, so a bad call gets an answer (pure).

Why: the SDK parses each JSON-RPC message with a strict parser that refuses a string with a
lone surrogate escape (`"\\ud800"`, what JavaScript's `JSON.stringify` writes for half an
emoji), bytes that are not UTF-8, a raw control character inside a string, and nesting past
its recursion limit. Over stdio it then drops the message without a word, so the client waits
for an answer that never comes; over HTTP it answers 400 with a parse error instead of a tool
result. The server is not harmed either way, but the model never learns what was wrong.

So before the SDK sees a message (a stdin line, an HTTP body), one that trips any of these is
read leniently here (invalid bytes kept as the surrogates `surrogateescape` made of them, raw
control characters allowed, anything nested past `WIRE_NESTING` levels cut off) and written
again as JSON the SDK accepts:

- a `tools/call` whose arguments break a generic input limit (`input_limits`) keeps its id and
  tool name, and its arguments become `{REFUSAL_KEY: the problem}`: the tool gate answers it
  as the same `validation-error` a direct call gets (invalid UTF-8 named as such);
- any other message keeps its content with lone surrogates replaced by U+FFFD (what the SDK
  makes of invalid UTF-8 on stdio anyway) and cut-off parts as `null`.

A message that is still not JSON after that is passed on as before (the SDK drops it): there
is no id to answer. Messages without any of these marks are passed on untouched, unparsed.
"""

from __future__ import annotations

import json
import logging
import re
from typing import Any

from agent_browser_tools.input_limits import (
    REFUSAL_KEY,
    input_problem,
    invalid_utf8_problem,
    json_text_too_deep,
    well_formed_data,
    well_formed_text,
)

logger = logging.getLogger(__name__)

WIRE_NESTING = 64
"""Levels a message keeps: the envelope (message, params, arguments) plus more than the
32 levels arguments may have, and well under the SDK parser's own limit (about 200)."""

_RAW = re.compile("[\ud800-\udfff\x00-\x09\x0b\x0c\x0e-\x1f]")
"""A raw surrogate (an invalid byte) or a raw control character: the SDK refuses both."""
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")
_RAW_BYTE = re.compile("[\udc80-\udcff]")
_TOKEN = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"?|[\[\]{}]', re.DOTALL)


def repair_line(line: str) -> str:
    """One stdin line (decoded with `surrogateescape`) as the SDK should get it."""
    body = line.rstrip("\r\n")
    ending = line[len(body) :]
    repaired = _safely(body)
    return line if repaired is body else repaired + ending


def repair_body(body: bytes) -> bytes:
    """One HTTP request body as the SDK should get it (the same object when untouched)."""
    text = body.decode("utf-8", "surrogateescape")
    repaired = _safely(text)
    return body if repaired is text else repaired.encode("utf-8", "replace")


def _safely(text: str) -> str:
    """`repair_text`, which must never stop the transport that reads the wire: should it
    fail, the message goes on as the SDK would have read it."""
    try:
        return repair_text(text)
    except Exception:
        logger.exception("could not repair an incoming message; passing it on as read")
        return well_formed_text(text)


def repair_text(text: str) -> str:
    """The message `text` as the SDK should get it: `text` itself when nothing in it would
    trip the SDK, else the repaired JSON (see the module docstring)."""
    raw = not text.isprintable() and _RAW.search(text) is not None  # isprintable is quick
    deep = _too_deep(text)
    if not raw and not deep and not _SURROGATE_ESCAPE.search(text):
        return text
    raw_bytes = {m.group() for m in _RAW_BYTE.finditer(text)}
    lenient = _RAW_BYTE.sub(lambda m: f"\\u{ord(m.group()):04x}", text)
    if deep:
        lenient = cut_deep(lenient, WIRE_NESTING)
    try:
        message = json.loads(lenient, strict=False)
    except (ValueError, RecursionError):
        return well_formed_text(text) if raw_bytes else text
    if isinstance(message, list):
        repaired: Any = [_repair_message(item, raw_bytes) for item in message]
    else:
        repaired = _repair_message(message, raw_bytes)
    mended = well_formed_data(repaired)
    if mended is message and not raw and not deep:
        return text  # only escaped surrogate pairs (an emoji): the SDK takes it as sent
    return json.dumps(mended, ensure_ascii=False)


def _too_deep(text: str) -> bool:
    return json_text_too_deep(text, WIRE_NESTING)


def _repair_message(message: Any, raw_bytes: set[str]) -> Any:
    """A tools/call with bad arguments becomes a refusal; anything else is kept as is (the
    caller makes it well-formed)."""
    if not isinstance(message, dict) or message.get("method") != "tools/call":
        return message
    params = message.get("params")
    if not isinstance(params, dict) or "id" not in message:
        return message
    problem = input_problem(params.get("arguments"))
    if problem is None:
        return message
    if problem.limit == "lone-surrogate" and problem.character in raw_bytes:
        problem = invalid_utf8_problem(problem)
    refused = {**params, "arguments": {REFUSAL_KEY: problem.to_wire()}}
    return {**message, "params": refused}


def cut_deep(text: str, limit: int) -> str:
    """JSON `text` with every array or object opened past `limit` levels replaced, through its
    closing bracket, by `null` (brackets inside strings do not count). An unclosed one is cut
    to the end."""
    out: list[str] = []
    depth = 0
    kept = 0
    cut_from: int | None = None
    for match in _TOKEN.finditer(text):
        token = match.group()
        if token[0] == '"':
            continue
        opening = token in "[{"
        depth += 1 if opening else -1
        if opening and depth == limit + 1 and cut_from is None:
            cut_from = match.start()
        elif not opening and depth == limit and cut_from is not None:
            out.append(text[kept:cut_from] + "null")
            kept, cut_from = match.end(), None
    if cut_from is not None:
        out.append(text[kept:cut_from] + "null")
        return "".join(out)
    out.append(text[kept:])
    return "".join(out)
