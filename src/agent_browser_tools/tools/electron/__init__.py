"""`agent_browser_electron`: wrapper-owned desktop (Electron) app lifecycle (see `run`).

Other code imports only the names below; they load on first use, so listing tools (which
imports `spec`) loads no launch machinery.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from agent_browser_tools.tools.electron.lifecycle import cleanup_owned

__all__ = ["cleanup_owned"]


def __getattr__(name: str) -> Any:
    if name != "cleanup_owned":
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from agent_browser_tools.tools.electron.lifecycle import cleanup_owned

    return cleanup_owned
