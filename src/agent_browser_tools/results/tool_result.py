"""`ToolResult`: what every tool returns to every host.

`content` is what the model sees (text and image blocks, in order); `details` is audit and
replay metadata for the host, not for the model; `is_error` mirrors
`details["resultCategory"] == "failure"` so hosts need no rule of their own.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Literal


@dataclass(frozen=True)
class TextBlock:
    text: str
    type: Literal["text"] = "text"


@dataclass(frozen=True)
class ImageBlock:
    data: str  # base64
    mime_type: str
    path: str | None = None
    type: Literal["image"] = "image"


ContentBlock = TextBlock | ImageBlock


@dataclass(frozen=True)
class ToolResult:
    """A tool's answer: model-visible `content`, host-only `details`, and the error flag."""

    content: tuple[ContentBlock, ...]
    details: dict[str, Any] = field(default_factory=dict)
    is_error: bool = False

    @property
    def text(self) -> str:
        """All text blocks joined: the model-visible prose (or JSON)."""
        return "\n".join(block.text for block in self.content if isinstance(block, TextBlock))

    @property
    def images(self) -> tuple[ImageBlock, ...]:
        return tuple(block for block in self.content if isinstance(block, ImageBlock))

    def details_json(self) -> str:
        return json.dumps(self.details, indent=2, sort_keys=True, default=str)
