"""`agent_browser_network_source` input: the schema the tool list shows, kept light to import."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from agent_browser_tools.workspace_files import DEFAULT_MAX_FILES, MAX_FILES_CAP

NAME = "agent_browser_network_source"
ALLOWED = (
    "requestId, filter or url (at least one), session, namespace, maxWorkspaceFiles, "
    "outputPath, timeoutMs and sessionMode"
)
DEFAULT_WORKSPACE_FILES = DEFAULT_MAX_FILES
MAX_WORKSPACE_FILES = MAX_FILES_CAP


class NetworkSourceInput(BaseModel):
    """Flat input: which captured requests to look at, and how far to search the workspace."""

    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)

    requestId: str | None = Field(
        default=None, description="A request id from `network requests` (native detail)."
    )
    filter: str | None = Field(
        default=None, description="URL substring for `network requests --filter` (wins over url)."
    )
    url: str | None = Field(
        default=None, description="A request URL or path; its host+path becomes the filter."
    )
    session: str | None = Field(default=None, min_length=1, description="Explicit native session.")
    namespace: str | None = Field(
        default=None, description='Native namespace; "" overrides an ambient one.'
    )
    maxWorkspaceFiles: int = Field(
        default=DEFAULT_WORKSPACE_FILES,
        ge=1,
        le=MAX_WORKSPACE_FILES,
        description="Source files the workspace URL-literal search may read (cap 5000).",
    )
    outputPath: str | None = Field(default=None, description="Save the result data to this file.")
    timeoutMs: int | None = Field(default=None, gt=0, description="Wrapper watchdog in ms.")
    sessionMode: Literal["auto", "fresh"] = Field(
        default="auto",
        description='"auto" (the current browser); "fresh" is refused: its buffer is empty.',
    )
