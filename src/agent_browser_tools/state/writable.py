"""Whether the state dir can hold the journal, and the operator's opt-out (ephemeral state).

A host must find out before it serves, not on the first `tools/list`: a read-only or foreign
state dir otherwise surfaces as a JSON-RPC error or a traceback in the middle of a session.
`state_dir_problem` creates the dir, writes a probe file and opens the journal database, and
returns one line saying what is wrong and how to fix it (the same fix `doctor` gives).

`serve --ephemeral-state`, env `AGENT_BROWSER_TOOLS_EPHEMERAL_STATE=1` or config
`[state] ephemeral = true` choose in-memory conversation state instead; the scratch files a
call still needs (spills, locks) then go to a fresh private temp dir removed at exit.
"""

from __future__ import annotations

import os
import shutil
import sqlite3
import tempfile
from dataclasses import replace
from pathlib import Path

from agent_browser_tools.private_fs import ensure_private_dir
from agent_browser_tools.settings import Settings

# Hosts import the state layer only through this module: the fix line, and the error a
# journal that cannot be used raises (what a host catches to answer in one line).
from agent_browser_tools.state.database import STATE_DIR_FIX as STATE_DIR_FIX
from agent_browser_tools.state.database import JournalError as JournalError
from agent_browser_tools.state.database import open_database

EPHEMERAL_ENV = "AGENT_BROWSER_TOOLS_EPHEMERAL_STATE"
_TRUE = ("1", "true", "yes", "on")


def state_dir_problem(state_dir: Path) -> str | None:
    """None when the journal can be written under `state_dir`, else one line with the fix."""
    return _problem(state_dir, journal=True)


def scratch_dir_problem(state_dir: Path) -> str | None:
    """None when `state_dir` can hold scratch files (spills, locks); the journal is not
    touched, so ephemeral state writes no database."""
    return _problem(state_dir, journal=False)


def _problem(state_dir: Path, *, journal: bool) -> str | None:
    try:
        ensure_private_dir(state_dir)
        fd, probe = tempfile.mkstemp(prefix=".probe-", dir=state_dir)
        os.close(fd)
        os.unlink(probe)
        if journal:
            open_database(state_dir).close()
    except JournalError as exc:
        return str(exc)
    except (OSError, sqlite3.Error) as exc:
        return f"state dir {state_dir} is not usable ({_reason(exc)}); {STATE_DIR_FIX}."
    return None


def _reason(exc: BaseException) -> str:
    if isinstance(exc, OSError) and exc.strerror:
        return exc.strerror
    return str(exc) or type(exc).__name__


def ephemeral_requested(settings: Settings) -> bool:
    """The env variable or `[state] ephemeral` asks for in-memory conversation state."""
    raw = settings.env.get(EPHEMERAL_ENV)
    if raw is not None:
        return raw.strip().lower() in _TRUE
    section = settings.merged_config.get("state")
    return isinstance(section, dict) and section.get("ephemeral") is True


def with_scratch_state_dir(settings: Settings) -> Settings:
    """`settings` whose state dir is a new private temp dir (remove it with `drop_scratch`)."""
    scratch = Path(tempfile.mkdtemp(prefix="agent-browser-tools-state-"))
    return replace(settings, state_dir=scratch)


def drop_scratch(settings: Settings) -> None:
    shutil.rmtree(settings.state_dir, ignore_errors=True)
