"""Grid browsers a conversation holds (`[browser] grid_url`): journaled, so they are never lost.

Each is one WebDriver session of the operator's Selenium Grid. It is journaled when the grid
hands it out and again when it ends, so a resumed conversation re-attaches to the sessions it
still holds and a restarted server knows which ones to end.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict

GridBrowserState = Literal["open", "ended", "lost"]


class GridBrowser(BaseModel):
    """One grid session: which engine session uses it and its DevTools endpoint."""

    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    session_id: str
    cdp_url: str
    directory: str
    """The engine socket dir of the session using it."""
    namespace: str | None = None
    session: str
    state: GridBrowserState = "open"


class GridSessionEvent(BaseModel):
    """A grid session as it is now (replaces the previous record of the same id)."""

    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    kind: Literal["grid-session"] = "grid-session"
    seq: int
    browser: GridBrowser
