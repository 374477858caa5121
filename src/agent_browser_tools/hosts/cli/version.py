"""`agent-browser-tools --version`: our version and the engine's.

Why both: a bug report needs the pair, and the engine can come from three places
(`AGENT_BROWSER_TOOLS_BIN`, the bundled `agent-browser-cli` wheel, PATH). The engine's version
is the one `discovery` would use, read with `<engine> --version` (a quick run of the binary,
no browser). A missing or unusable engine is reported, not an error: ours is still known, so
the command exits 0; `doctor` is the place for the fix.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from typing import Any

from agent_browser_tools import __version__

PROG = "agent-browser-tools"


def version_text() -> str:
    """Two lines: ours, then the engine's (or why it is not known)."""
    from agent_browser_tools.engine.discovery import (
        EngineNotFound,
        EngineTooOld,
        locate_engine,
        read_engine_version,
    )
    from agent_browser_tools.engine.target import support_note
    from agent_browser_tools.settings import Settings, SettingsError

    try:
        engine = read_engine_version(locate_engine(Settings.load()))
    except (EngineNotFound, EngineTooOld, SettingsError) as exc:
        return f"{PROG} {__version__}\nengine: not usable: {exc}"
    return (
        f"{PROG} {__version__}\n"
        f"engine: agent-browser {engine.version_label} ({engine.source}: {engine.path}), "
        f"{support_note(engine.version)}"
    )


class VersionAction(argparse.Action):
    """`--version`: print `version_text()` and exit 0. Unlike argparse's own version action
    the text is computed only when asked for, since it runs the engine binary."""

    def __init__(self, option_strings: Sequence[str], dest: str, **kwargs: Any) -> None:
        super().__init__(
            option_strings,
            dest=argparse.SUPPRESS,
            default=argparse.SUPPRESS,
            nargs=0,
            help="print this package's version and the engine's, then exit",
        )

    def __call__(
        self,
        parser: argparse.ArgumentParser,
        namespace: argparse.Namespace,
        values: Any,
        option_string: str | None = None,
    ) -> None:
        print(version_text())
        parser.exit(0)
