"""`agent_browser_electron` input: the schema the tool list shows, kept light to import."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

NAME = "agent_browser_electron"
Action = Literal["list", "launch", "status", "probe", "cleanup"]
TARGETS = ("appPath", "appName", "bundleId", "executablePath")
ALLOWED = (
    "action plus, per action: list {query, maxResults}; launch {exactly one of appPath, appName, "
    "bundleId, executablePath; appArgs, handoff, targetType, timeoutMs, allow, deny}; status "
    "and cleanup {launchId or all, timeoutMs}; probe {launchId, timeoutMs}; outputPath"
)


class ElectronInput(BaseModel):
    """Flat input: one lifecycle action on a wrapper-launched desktop app."""

    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)

    action: Action = Field(description="list, launch, status, probe or cleanup.")
    query: str | None = Field(default=None, description="list: name/path substring filter.")
    maxResults: int | None = Field(
        default=None, gt=0, description="list: at most this many apps (default 50, cap 200)."
    )
    appPath: str | None = Field(default=None, min_length=1, description="launch: app folder.")
    appName: str | None = Field(
        default=None, min_length=1, description="launch: app name as `list` shows it."
    )
    bundleId: str | None = Field(
        default=None, min_length=1, description="launch: bundle id (macOS) or desktop-file id."
    )
    executablePath: str | None = Field(
        default=None, min_length=1, description="launch: the app's own executable."
    )
    appArgs: list[str] | None = Field(default=None, description="launch: extra app arguments.")
    handoff: Literal["snapshot", "tabs", "connect"] | None = Field(
        default=None, description="launch: what to read after attach (default snapshot)."
    )
    targetType: Literal["page", "webview", "any"] | None = Field(
        default=None, description="launch: which CDP targets count (default page)."
    )
    allow: list[str] | None = Field(
        default=None, description="launch: the app must match one of these substrings."
    )
    deny: list[str] | None = Field(
        default=None, description="launch: refuse apps matching any substring (deny wins)."
    )
    launchId: str | None = Field(
        default=None, min_length=1, description="status/probe/cleanup: the launch."
    )
    all: bool | None = Field(default=None, description="status/cleanup: every launch.")
    timeoutMs: int | None = Field(default=None, gt=0, description="Per-action budget in ms.")
    outputPath: str | None = Field(default=None, description="Save the result data to a file.")
