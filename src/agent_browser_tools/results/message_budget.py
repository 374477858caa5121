"""Every answer fits the client: one size budget for the whole message (pure but for `write`).

Why: the official MCP client drops a message over 1 MiB, and then the model gets nothing and
does not know why. A page of 5,000 rows made `snapshot -i` answer 10 MB (its ref map travels in
details, and then on every later call), a batch of 10,000 rows 9 MB. So every result leaves
`Toolkit.call` (all hosts, the Python API included) within `MESSAGE_BUDGET_BYTES`, measured as
the MCP message would carry it: text blocks, images and details, ASCII-escaped JSON.

What does not fit is moved to private spill files (`write`: a details part as the JSON the
message would have carried, a text as text, an image as itself), in this order, until it fits:

1. `details.refSnapshot`: the session's ref map (replay state the journal also keeps);
2. `details.data`: the engine's raw answer (the text shows it rendered);
3. `details.batchSteps`: each batch row's outcome (the text lists them);
4. the other details keys, largest first, except the decision keys below;
5. images, last first (each is already a file; its path is named instead);
6. the visible text, cut in the middle (its tail, category line and next actions, kept);
7. the decision keys (`DECISION_KEYS`); only the categories stay.

`details.messageBudget` lists every moved part with its size and file, and one text line
names them too (in a caller's `--json` text, its `messageBudget` key: the JSON stays
parseable), so the model and the host know what is missing, why, and where it is.
"""

from __future__ import annotations

import base64
import json
import posixpath
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import pydantic_core

from agent_browser_tools.results.bounds import read_call
from agent_browser_tools.results.tool_result import ContentBlock, ImageBlock, TextBlock, ToolResult
from agent_browser_tools.size_limits import CLIENT_MESSAGE_LIMIT_BYTES, MESSAGE_BUDGET_BYTES

__all__ = [
    "CLIENT_MESSAGE_LIMIT_BYTES",
    "DECISION_KEYS",
    "MESSAGE_BUDGET_BYTES",
    "TRIM_ORDER",
    "Writer",
    "fit_message",
    "message_bytes",
]

Writer = Callable[[str, str, bytes], str]
"""`(stem, suffix, data) -> path`: saves one moved part privately; raises `OSError`."""

TRIM_ORDER = ("refSnapshot", "data", "batchSteps")
"""Details keys moved first, in this order (see the module docstring for why)."""

CATEGORY_KEYS = ("resultCategory", "successCategory", "failureCategory", "success")
DECISION_KEYS = frozenset(
    {
        *CATEGORY_KEYS,
        "error",
        "validationError",
        "summary",
        "warnings",
        "nextActions",
        "command",
        "sessionName",
        "namespace",
        "timedOut",
        "observationPath",
        "fullOutputPath",
        "spillError",
        "largeValues",
    }
)
"""What the caller branches on: moved last, and then only what is not a category."""

BUDGET_KEY = "messageBudget"
ENVELOPE_BYTES = 1024
"""JSON-RPC framing, `isError`, the `_meta` key and per-block fields the measure leaves out."""
NOTE_RESERVE = 16 * 1024
"""Room kept for the text notice and `details.messageBudget` that the moves add."""
SMALL_KEY_BYTES = 4 * 1024
"""Details keys under this move together (stage 4) rather than one file each."""
TEXT_TAIL_CHARS = 2_000
"""How much of a cut text's end is kept: the category line and exact next actions."""


def _json(value: Any) -> str:
    """`value` as ASCII-escaped compact JSON: the longest common encoding, so a bound."""
    return json.dumps(value, ensure_ascii=True, separators=(",", ":"), default=str)


def _encoded(value: Any) -> int:
    return len(_json(value))


_MULTIBYTE = (
    (bytes(range(0xC0, 0xE0)), 6 - 2),  # a 2-byte character becomes \uXXXX
    (bytes(range(0xE0, 0xF0)), 6 - 3),
    (bytes(range(0xF0, 0xF8)), 12 - 4),  # outside the BMP: a surrogate pair
)


def _sized(value: Any) -> int:
    """`len(_json(value))` without building it, for the large details parts that nearly
    always fit (a 1,500-row page's raw answer is 750 KB, and `json` took 15 ms to encode it
    only to count it; pydantic's own core encoder takes 3). Exact but for a float's
    exponent (`1e-7` for `1e-07`) and bytes values, a character or two."""
    try:
        raw = pydantic_core.to_json(value, fallback=str)
    except (TypeError, ValueError, pydantic_core.PydanticSerializationError):
        return _encoded(value)
    size = len(raw) + 5 * raw.count(0x7F)  # DEL is escaped as \u007f
    if raw.isascii():
        return size
    for leads, extra in _MULTIBYTE:
        size += extra * (len(raw) - len(raw.translate(None, leads)))
    return size


def _block_bytes(block: ContentBlock) -> int:
    if isinstance(block, TextBlock):
        return _encoded({"type": "text", "text": block.text}) + 1
    return _encoded({"type": "image", "data": block.data, "mimeType": block.mime_type}) + 1


def _size(blocks: Sequence[ContentBlock], detail_sizes: Mapping[str, int]) -> int:
    details = 2 + sum(_encoded(k) + size + 2 for k, size in detail_sizes.items())
    return ENVELOPE_BYTES + sum(_block_bytes(block) for block in blocks) + details


def message_bytes(result: ToolResult) -> int:
    """The size of `result` as one MCP message (an upper bound of what is sent)."""
    return _size(result.content, {k: _sized(v) for k, v in result.details.items()})


@dataclass
class _Fit:
    """A result being fitted: its parts, their running size and what was moved where."""

    write: Writer
    blocks: list[ContentBlock | None]
    details: dict[str, Any]
    sizes: dict[str, int]
    """Each details key's JSON size, measured once."""
    size: int
    moved: list[dict[str, Any]] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)

    def save(self, part: str, stem: str, suffix: str, data: bytes, size: int) -> None:
        entry: dict[str, Any] = {"part": part, "bytes": size}
        try:
            entry["path"] = self.write(stem, suffix, data)
        except OSError as exc:
            entry["path"] = None
            entry["error"] = f"not saved: {exc}"
            self.errors.append(f"{part}: {exc}")
        self.moved.append(entry)

    def move_keys(self, keys: list[str], part: str, stem: str) -> None:
        """Move `keys` of the details into one JSON file."""
        taken = [k for k in keys if k in self.details]
        if not taken:
            return
        moved = {key: self.details.pop(key) for key in taken}
        size = sum(self.entry_bytes(k) for k in taken)
        self.size -= size
        payload = _json(moved[taken[0]] if len(keys) == 1 else moved)
        self.save(part, stem, ".json", payload.encode("ascii") + b"\n", size)

    def entry_bytes(self, key: str) -> int:
        return _encoded(key) + self.sizes[key] + 2


def _detail_stages(fit: _Fit, room: int) -> None:
    """Stages 1-4: the named bulky keys in order, then the rest largest first."""
    for key in TRIM_ORDER:
        if fit.size <= room:
            return
        fit.move_keys([key], f"details.{key}", f"details-{key}")
    others = sorted(
        ((fit.entry_bytes(k), k) for k in fit.details if k not in DECISION_KEYS), reverse=True
    )
    small: list[str] = []
    for size, key in others:
        if fit.size <= room:
            return
        if size >= SMALL_KEY_BYTES:
            fit.move_keys([key], f"details.{key}", f"details-{key}")
        else:
            small.append(key)
    if fit.size > room and small:
        fit.move_keys(small, "details (other keys)", "details-other")


def _image_stage(fit: _Fit, room: int) -> None:
    """Stage 5: images, last first; one already on disk is named, not written again."""
    for index in range(len(fit.blocks) - 1, -1, -1):
        block = fit.blocks[index]
        if fit.size <= room:
            return
        if not isinstance(block, ImageBlock):
            continue
        fit.blocks[index] = None
        size = _block_bytes(block)
        fit.size -= size
        part = f"image {index + 1}"
        if block.path:
            fit.moved.append({"part": part, "bytes": size, "path": block.path})
        else:
            suffix = "." + block.mime_type.rsplit("/", 1)[-1]
            fit.save(part, "image", suffix, base64.b64decode(block.data), size)


def _prefix_within(text: str, limit: int) -> int:
    """The longest prefix length of `text` whose JSON string fits in `limit` bytes."""
    count = min(len(text), max(limit, 0))
    while count > 0:
        size = _encoded(text[:count])
        if size <= limit:
            return count
        count = min(count - 1, count * limit // size)
    return 0


def _text_stage(fit: _Fit, room: int) -> None:
    """Stage 6: the largest text blocks cut to what fits, their whole text saved."""
    texts = [(i, b) for i, b in enumerate(fit.blocks) if isinstance(b, TextBlock)]
    for index, block in sorted(texts, key=lambda item: -len(item[1].text)):
        over = fit.size - room
        if over <= 0:
            return
        before = _block_bytes(block)
        part = "text" if index == 0 else f"text {index + 1}"
        fit.save(part, "text", ".txt", block.text.encode("utf-8"), before)
        text = _cut_text(block.text, before - over, fit.moved[-1].get("path"))
        fit.blocks[index] = TextBlock(text=text)
        fit.size += _block_bytes(TextBlock(text=text)) - before


def _cut_text(text: str, limit: int, path: str | None) -> str:
    """`text` as head, a marker naming `path`, and tail, within `limit` bytes as a block."""
    room = limit - _encoded({"type": "text", "text": ""}) - 1
    tail = text[len(text) - min(TEXT_TAIL_CHARS, len(text) // 4) :]
    name = posixpath.basename(path) if path else None
    where = f"{name}, read it with {read_call(name)}" if name else "not saved"
    marker = f"\n[... characters cut here; the whole text: {where}]\n"
    if _encoded(marker) + _encoded(tail) > room:
        tail = ""
    head_room = room - _encoded(marker) - _encoded(tail) - 16  # 16: the count added below
    head = text[: _prefix_within(text, head_room)]
    cut = len(text) - len(head) - len(tail)
    marker = marker.replace("[... characters", f"[... {cut:,} characters", 1)
    return f"{head}{marker}{tail}"


def _decision_stage(fit: _Fit, room: int) -> None:
    """Stage 7: every decision key but the categories, together."""
    if fit.size > room:
        keys = [k for k in fit.details if k not in CATEGORY_KEYS]
        fit.move_keys(keys, "details (decision keys)", "details-decision")


def _human(size: int) -> str:
    if size >= 1024 * 1024:
        return f"{size / (1024 * 1024):.1f} MiB"
    return f"{max(size // 1024, 1)} KiB"


def _notice(fit: _Fit, budget: int) -> str:
    """One line naming every moved part and its file (the shared dir said once)."""
    paths = [str(m["path"]) for m in fit.moved if m.get("path")]
    folders = {posixpath.dirname(p) for p in paths}
    folder = folders.pop() if len(folders) == 1 else None

    def where(moved: dict[str, Any]) -> str:
        path = moved.get("path")
        if not path:
            return str(moved.get("error"))
        return posixpath.basename(path) if folder else str(path)

    parts = "; ".join(f"{m['part']} ({_human(m['bytes'])}) -> {where(m)}" for m in fit.moved)
    place = f"moved to files in {folder}/" if folder else "moved to files"
    line = (
        f"[This answer was over the {_human(budget)} message budget; {place}: {parts}. "
        "See details.messageBudget.]"
    )
    readable = [posixpath.basename(p) for p in paths if p.endswith((".txt", ".json"))]
    if readable:  # the state dir is not the model's to open: the tool reads them back
        line += f" Read a saved part with {read_call(readable[0])} (any name above)."
    if fit.errors:
        line += " Some parts could not be saved; narrow the command to see them."
    return line


def _with_notice(text: str, notice: str, note: dict[str, Any]) -> str:
    """`text` with the notice: as the `messageBudget` key of a JSON object text (a caller's
    `--json` answer stays parseable), else as its last line."""
    if text.lstrip().startswith("{"):
        try:
            value = json.loads(text)
        except ValueError:
            value = None
        if isinstance(value, dict):
            value[BUDGET_KEY] = {"notice": notice, **note}
            return json.dumps(value, ensure_ascii=False, default=str)
    return f"{text}\n{notice}" if text else notice


def _assemble(fit: _Fit, budget: int, original: int, result: ToolResult) -> ToolResult:
    note = {
        "limitBytes": budget,
        "clientLimitBytes": CLIENT_MESSAGE_LIMIT_BYTES,
        "originalBytes": original,
        "moved": fit.moved,
    }
    notice = _notice(fit, budget)
    blocks: list[ContentBlock] = [b for b in fit.blocks if b is not None]
    last = max((i for i, b in enumerate(blocks) if isinstance(b, TextBlock)), default=None)
    if last is None:
        blocks.insert(0, TextBlock(text=notice))
    else:
        previous = blocks[last]
        assert isinstance(previous, TextBlock)
        blocks[last] = TextBlock(text=_with_notice(previous.text, notice, note))
    details = {**fit.details, BUDGET_KEY: note}
    return replace(result, content=tuple(blocks), details=details)


def _last_resort(result: ToolResult, fit: _Fit, budget: int, original: int) -> ToolResult:
    """Only for a budget too small for the notes: categories, and a short text."""
    details = {k: v for k, v in result.details.items() if k in CATEGORY_KEYS}
    details[BUDGET_KEY] = {"limitBytes": budget, "originalBytes": original, "moved": len(fit.moved)}
    room = budget - message_bytes(replace(result, content=(), details=details)) - 64
    paths = ", ".join(str(m["path"]) for m in fit.moved)
    line = f"[Answer over the message budget; its parts are in: {paths}]"
    text = line[: _prefix_within(line, room)]
    return replace(result, content=(TextBlock(text=text),), details=details)


def fit_message(
    result: ToolResult, write: Writer, *, budget: int = MESSAGE_BUDGET_BYTES
) -> ToolResult:
    """`result` unchanged when it fits `budget`, else with parts moved out (module docstring).

    The answer always fits: when even the notes would not, only the categories and a short
    line naming the files stay (a budget that small is not one we use)."""
    sizes = {k: _sized(v) for k, v in result.details.items()}
    original = _size(result.content, sizes)
    if original <= budget:
        return result
    room = budget - NOTE_RESERVE
    fit = _Fit(write, list(result.content), dict(result.details), sizes, original)
    for stage in (_detail_stages, _image_stage, _text_stage, _decision_stage):
        if fit.size > room:
            stage(fit, room)
    fitted = _assemble(fit, budget, original, result)
    if message_bytes(fitted) <= budget:
        return fitted
    return _last_resort(result, fit, budget, original)
