"""`agent_browser_action` input: the schema the tool list shows, kept light to import."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

NAME = "agent_browser_action"
Locator = Literal["role", "text", "label", "placeholder", "alt", "title", "testid"]


class ActionInput(BaseModel):
    """Flat input: one action on a direct selector or a semantic locator."""

    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)

    action: Literal["click", "check", "fill", "select"] = Field(description="What to do.")
    selector: str | None = Field(
        default=None, min_length=1, description="Direct CSS selector or current @ref."
    )
    locator: Locator | None = Field(
        default=None, description="Semantic locator kind; select supports only role/label."
    )
    value: str | None = Field(
        default=None,
        description="Locator value (label text, role, ...) or one select option; for label "
        "select, the label.",
    )
    values: list[str] | None = Field(
        default=None, min_length=1, description="Select options; required for label select."
    )
    text: str | None = Field(default=None, description="Fill text; required for fill.")
    role: str | None = Field(
        default=None, min_length=1, description="Accessible role (replaces a role locator value)."
    )
    name: str | None = Field(default=None, min_length=1, description="Accessible name filter.")
    session: str | None = Field(default=None, min_length=1, description="Explicit native session.")
    outputPath: str | None = Field(default=None, description="Save the result data to this file.")
    timeoutMs: int | None = Field(default=None, gt=0, description="Wrapper watchdog in ms.")
