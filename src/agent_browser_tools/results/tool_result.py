"""`ToolResult`: what every tool returns to every host.

`content` is what the model sees (text and image blocks, in order); `details` is audit and
replay metadata for the host, not for the model; `is_error` mirrors
`details["resultCategory"] == "failure"` so hosts need no rule of their own.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field, replace
from typing import Any, Literal

from agent_browser_tools.input_limits import has_lone_surrogate, well_formed_text


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

    def well_formed(self) -> ToolResult:
        """This result with any lone surrogate in its text replaced by U+FFFD.

        Why: every host writes the text as UTF-8 (the MCP wire, a terminal), and a lone
        surrogate cannot be written; one may still come from outside the engine (a search
        provider's JSON, a page's own text the wrapper quotes). Details travel as JSON, whose
        writers escape it; the MCP host mends them as it converts them (`convert`). The same
        object when there is nothing to mend (a cheap check: texts are bounded)."""
        if not any(isinstance(b, TextBlock) and has_lone_surrogate(b.text) for b in self.content):
            return self
        content = tuple(
            TextBlock(text=well_formed_text(b.text)) if isinstance(b, TextBlock) else b
            for b in self.content
        )
        return replace(self, content=content)

    def details_json(self) -> str:
        return json.dumps(self.details, indent=2, sort_keys=True, default=str)
