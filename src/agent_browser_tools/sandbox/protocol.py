"""Types shared by the bridge and its host: limits, the host protocol, the cell outcome."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

from agent_browser_tools.sandbox.prelude import WRAPPER_LINE_OFFSET

MIB = 1024 * 1024
PRELUDE_LINE_BASE = 100_000

Status = Literal["done", "error", "timeout", "violation", "crashed", "internal"]


@dataclass(frozen=True)
class Limits:
    heap_bytes: int = 64 * MIB
    stack_bytes: int = 1 * MIB
    message_bytes: int = 1 * MIB
    total_bytes: int = 8 * MIB
    emit_bytes: int = 64 * 1024
    max_images: int = 8


class CellHost(Protocol):
    """What the bridge needs from the tool: run calls and vet image selections."""

    async def call(self, call_id: int, request: Any, encode_error: str | None) -> dict[str, Any]:
        """Run one `browser()` request; always returns an observation, never raises."""
        ...

    def oversized(self, call_id: int, size: int, limit: int) -> dict[str, Any]:
        """The failed observation that replaces one too large for the bridge."""
        ...

    def select_image(self, image_id: str, path: str) -> str | None:
        """Record an `emitImage` selection; a message when it is not a valid handle."""
        ...

    def undispatched(self, call_id: int, request: Any) -> None:
        """A call that was still queued when the cell ended (it never ran)."""
        ...


@dataclass(frozen=True)
class JsError:
    name: str
    message: str
    line: int | None
    stack: str


@dataclass
class BridgeOutcome:
    status: Status = "crashed"
    emits: list[Any] = field(default_factory=list)
    has_value: bool = False
    value: Any = None
    error: JsError | None = None
    violation: str | None = None
    crash: str | None = None
    bytes_in: int = 0
    bytes_out: int = 0
    undispatched: int = 0


_FRAME = re.compile(r"<input>:(\d+)")


def user_line(stack: str) -> int | None:
    """The first stack frame in user code, as a line of the user's code (1-based)."""
    for match in _FRAME.finditer(stack):
        line = int(match.group(1))
        if line < PRELUDE_LINE_BASE:
            return max(line - WRAPPER_LINE_OFFSET, 1)
    return None
