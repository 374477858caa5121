"""The generic bounds on what one tool call may carry, and the text no tool can use (pure).

Why: tool input is written by a model that reads untrusted pages, and it arrives from every
host (MCP over stdio or HTTP, the Python API, a code cell's `browser()`). Input no tool can
use is refused at the boundary as a `validation-error` that names the limit and what to send
instead, rather than failing deeper as a raw exception:

- a NUL byte: no argv, path or URL can hold one (the process spawn raises on it);
- a lone UTF-16 surrogate (`"\\ud800"`, what a client makes of invalid UTF-8 or half an
  emoji): it is not Unicode, so it cannot be written as UTF-8 to the engine, the journal or
  the wire;
- nesting hundreds of levels deep, in the call's arguments or in JSON sent as text (batch
  stdin): readers recurse, and no tool's input is deeper than a few levels;
- sizes no call needs: how many items one list or object holds, how long one string is, how
  much text one call carries in all.

All the limits are here, in one place, and generous: tighter limits that belong to one command
(text typed by `fill`/`type`, rows of a batch) are that command's own.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

MAX_NESTING = 32
"""Objects and arrays inside one call's arguments (every tool's input is a few levels deep)."""
MAX_JSON_TEXT_NESTING = 64
"""Objects and arrays inside JSON sent as text (batch stdin rows are two levels deep)."""
MAX_ITEMS = 10_000
"""Items of one list (`args`) or keys of one object."""
MAX_STRING_CHARS = 2_000_000
"""Characters of one string (one argument, stdin, code, a URL)."""
MAX_TOTAL_CHARS = 4_000_000
"""Characters of all the strings of one call together."""
MAX_MESSAGE_BYTES = 64 * 1024 * 1024
"""Bytes of one MCP message an HTTP client may send: room for the largest call the limits
above allow, written as escapes (`\\u0000` is six bytes a character)."""

_SURROGATE = re.compile("[\ud800-\udfff]")
_JSON_TOKEN = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"?|[\[\]{}]', re.DOTALL)
"""A JSON string (to its end, or to the end of the text: it never fails, so no backtracking
over quotes) or one bracket."""
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")

SPLIT = "Send less per call: split the work across several calls"

REFUSAL_KEY = "agent-browser-tools/refused-input"
"""The only argument of a call the MCP host refused on the wire (a message the SDK could not
parse, `hosts/mcp/wire_repair`): its value is the problem (`InputProblem.to_wire`), which
the tool gate answers like one it found itself."""


@dataclass(frozen=True)
class InputProblem:
    """Why a call's input is refused: where, which limit, and the message with the fix."""

    where: str
    """The field, as `args[2]` or `stdin` (`input` for the whole call)."""
    limit: str
    """`nul-byte`, `lone-surrogate`, `invalid-utf8`, `nesting`, `json-nesting`, `items`,
    `string-size` or `total-size`."""
    message: str
    maximum: int | None = None
    character: str | None = None
    """The offending character (a NUL byte, a lone surrogate), for the host's wire repair."""
    position: int | None = None
    """Where in the string `character` is."""

    def details(self) -> dict[str, Any]:
        """`details.inputLimit`: the machine-readable part of the refusal."""
        out: dict[str, Any] = {"field": self.where, "limit": self.limit}
        if self.maximum is not None:
            out["maximum"] = self.maximum
        return out

    def to_wire(self) -> dict[str, Any]:
        """The problem as the value of `REFUSAL_KEY`."""
        return {**self.details(), "message": self.message}

    @classmethod
    def from_wire(cls, value: Mapping[str, Any]) -> InputProblem:
        """The problem a `REFUSAL_KEY` argument carries (whoever wrote it, it only refuses
        the call it came with)."""
        maximum = value.get("maximum")
        return cls(
            str(value.get("field", "input"))[:200],
            str(value.get("limit", "input"))[:40],
            str(value.get("message", "the input was refused on the wire"))[:2000],
            maximum if isinstance(maximum, int) else None,
        )


def text_problem(text: str, where: str) -> InputProblem | None:
    """A NUL byte, a lone surrogate or an oversized string in `text`, or None."""
    if len(text) > MAX_STRING_CHARS:
        return InputProblem(
            where,
            "string-size",
            f"`{where}` is {len(text):,} characters, over the limit of {MAX_STRING_CHARS:,} "
            f"characters for one string. {SPLIT}, or save the data in a file inside the "
            "workspace and name the file.",
            MAX_STRING_CHARS,
        )
    nul = text.find("\x00")
    if nul >= 0:
        return InputProblem(
            where,
            "nul-byte",
            f"`{where}` contains a NUL byte (U+0000) at character {nul}: no argument, path, "
            "URL or text for the browser can hold one. Remove it (in script, write the escape "
            "\\u0000 inside a string literal instead).",
            character="\x00",
            position=nul,
        )
    lone = _SURROGATE.search(text) if has_lone_surrogate(text) else None
    if lone is not None:
        code = f"\\u{ord(lone.group()):04x}"
        return InputProblem(
            where,
            "lone-surrogate",
            f"`{where}` contains a lone UTF-16 surrogate ({code}) at character {lone.start()}: "
            "that is not Unicode text (invalid UTF-8, or half of a character such as an "
            "emoji). Send well-formed UTF-8 text: the whole character, or in script the "
            f"escape {code} inside a string literal.",
            character=lone.group(),
            position=lone.start(),
        )
    return None


def invalid_utf8_problem(problem: InputProblem) -> InputProblem:
    """`problem` (a lone surrogate the host made of a byte that is not UTF-8, as Python's
    `surrogateescape` does) told as what it was: invalid UTF-8."""
    byte = ord(problem.character or "\udcff") - 0xDC00
    return InputProblem(
        problem.where,
        "invalid-utf8",
        f"`{problem.where}` holds bytes that are not valid UTF-8 (0x{byte:02x} at character "
        f"{problem.position}). Send the text encoded as UTF-8.",
    )


def input_problem(params: object, where: str = "") -> InputProblem | None:
    """The first thing in a call's raw input (`params`, as the host decoded it) that breaks a
    limit above, or None. Walks without recursion, so any depth is safe to check. A call the
    host refused on the wire carries its problem (`REFUSAL_KEY`)."""
    if isinstance(params, Mapping) and isinstance(params.get(REFUSAL_KEY), Mapping):
        return InputProblem.from_wire(params[REFUSAL_KEY])
    total = 0
    stack: list[tuple[str, object, int]] = [(where, params, 0)]
    while stack:
        path, value, depth = stack.pop()
        if isinstance(value, str):
            total += len(value)
            problem = text_problem(value, _shown(path))
        elif isinstance(value, Mapping | list | tuple):
            problem = _container_problem(_shown(path), value, depth)
            if problem is None:
                stack.extend(reversed(_children(path, value, depth)))
        else:
            problem = None
        if problem is None and total > MAX_TOTAL_CHARS:
            problem = InputProblem(
                "input",
                "total-size",
                f"this call carries more than {MAX_TOTAL_CHARS:,} characters of text in all "
                f"(the limit for one call). {SPLIT}.",
                MAX_TOTAL_CHARS,
            )
        if problem is not None:
            return problem
    return None


def _container_problem(where: str, value: Any, depth: int) -> InputProblem | None:
    if depth >= MAX_NESTING:
        return InputProblem(
            where,
            "nesting",
            f"`{where}` nests objects and arrays more than {MAX_NESTING} levels deep (the "
            f"limit): no tool's input is that deep. Send the fields the tool's schema names, "
            "as strings, lists and small objects.",
            MAX_NESTING,
        )
    if len(value) > MAX_ITEMS:
        return InputProblem(
            where,
            "items",
            f"`{where}` holds {len(value):,} items, over the limit of {MAX_ITEMS:,} for one "
            f"list or object. {SPLIT}.",
            MAX_ITEMS,
        )
    return None


def _children(path: str, value: Any, depth: int) -> list[tuple[str, object, int]]:
    """The items of a container with their paths; an object's keys are checked as text."""
    if not isinstance(value, Mapping):
        return [(f"{path}[{index}]", item, depth + 1) for index, item in enumerate(value)]
    out: list[tuple[str, object, int]] = []
    for key, item in value.items():
        name = _key_name(key)
        child = f"{path}.{name}" if path else name
        out.append((f"{child} (a key)", key, depth + 1))
        out.append((child, item, depth + 1))
    return out


def _shown(path: str) -> str:
    """A field path fit for a message: `input` for the whole call, a deep one cut short."""
    if not path:
        return "input"
    return path if len(path) <= 80 else path[:80] + "…"


def _key_name(key: object) -> str:
    text = str(key)
    if _NAME.fullmatch(text):
        return text
    return json.dumps(text[:40] + ("…" if len(text) > 40 else ""))


# -- JSON sent as text ------------------------------------------------------------------


class JsonTextTooDeep(ValueError):
    """JSON text nested deeper than `MAX_JSON_TEXT_NESTING`: refused before it is parsed."""

    def __init__(self, where: str) -> None:
        self.problem = InputProblem(
            where,
            "json-nesting",
            f"{where} nests JSON arrays and objects more than {MAX_JSON_TEXT_NESTING} levels "
            "deep (the limit); send flatter JSON.",
            MAX_JSON_TEXT_NESTING,
        )
        super().__init__(self.problem.message)


def json_text_too_deep(text: str, limit: int = MAX_JSON_TEXT_NESTING) -> bool:
    """Whether the arrays and objects of JSON `text` nest more than `limit` levels (brackets
    inside strings do not count). One pass, stopping at the first level past the limit; a
    text with no more brackets than the limit is not even scanned."""
    if text.count("[") + text.count("{") <= limit:
        return False
    depth = 0
    for match in _JSON_TOKEN.finditer(text):
        token = match.group()
        if token[0] == '"':
            continue
        depth += 1 if token in "[{" else -1
        if depth > limit:
            return True
    return False


def loads_json_text(text: str | bytes, where: str = "the JSON text") -> Any:
    """`json.loads` for JSON a caller sent as text: raises `JsonTextTooDeep` (a `ValueError`,
    like a syntax error) instead of parsing something nested past the limit, so no reader of
    the value ever meets a `RecursionError`."""
    decoded = text.decode("utf-8", "replace") if isinstance(text, bytes) else text
    if json_text_too_deep(decoded):
        raise JsonTextTooDeep(where)
    return json.loads(decoded)


# -- answers ----------------------------------------------------------------------------


def has_lone_surrogate(text: str) -> bool:
    """Whether `text` holds a lone surrogate: the one thing UTF-8 cannot encode (checked by
    encoding, which is much faster than searching)."""
    if text.isascii():
        return False
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


def well_formed_text(text: str) -> str:
    """`text` with each lone surrogate replaced by U+FFFD, so it can be written as UTF-8."""
    return _SURROGATE.sub("\ufffd", text)


def well_formed_data(value: Any) -> Any:
    """JSON-like `value` with each lone surrogate in its strings replaced by U+FFFD (the same
    object when it holds none). Objects JSON cannot hold are kept as their `str`."""
    try:
        dumped = json.dumps(value, ensure_ascii=False, default=str)
    except (TypeError, ValueError):  # not JSON-like at all: nothing to mend here
        return value
    if not has_lone_surrogate(dumped):
        return value
    return json.loads(well_formed_text(dumped))
