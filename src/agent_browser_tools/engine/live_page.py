"""The page a session's browser shows now, read past the session's engine daemon (Linux).

Why not `get url`: after the watchdog stops a call, the daemon still runs the stopped step
until its own action timeout and answers nothing else meanwhile (it serves one command at a
time), and a JavaScript dialog the step opened keeps it there. The browser process itself
still answers its DevTools HTTP endpoint (`/json/list`, dialog or not, measured ~20 ms on
engine 0.39.4): the daemon's browser child names its profile dir, whose `DevToolsActivePort`
names the port, and the session's `<session>.target` run file names its active tab.

Never a CDP connection to the page: nothing here can act on it. A browser the daemon did not
launch (CDP attach, a provider) has no such child, so its page stays unknown, with the reason.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from agent_browser_tools.engine.apps import cdp_targets
from agent_browser_tools.engine.daemons import PROC, live_children, read_daemon_pid, run_dir

READ_TIMEOUT_S = 1.0
"""Bound on the endpoint read: a browser that does not answer this fast is reported unread."""


@dataclass(frozen=True)
class LivePage:
    """The active tab's URL and title, or why they could not be read (`unread`)."""

    url: str | None = None
    title: str | None = None
    unread: str | None = None


async def read(
    directory: Path,
    session: str,
    namespace: str | None,
    timeout_s: float = READ_TIMEOUT_S,
    proc: Path = PROC,
) -> LivePage:
    """The session's active tab as its browser reports it now (bounded by `timeout_s`)."""
    pid = read_daemon_pid(directory, session, namespace)
    if pid is None:
        return LivePage(unread="no engine daemon runs for this session")
    port = next((p for c in live_children(proc, pid) if (p := _debug_port(proc, c))), None)
    if port is None:
        return LivePage(unread="the session's browser is not one the engine launched here")
    targets = await cdp_targets(port, timeout_s)
    if targets is None:
        return LivePage(unread=f"the browser did not answer within {timeout_s:g} s")
    wanted = active_target(run_dir(directory, namespace) / f"{session}.target")
    return pick(targets, wanted)


def pick(targets: list[dict[str, str]], wanted: str | None) -> LivePage:
    """The active tab among the browser's targets: the one the engine bound (`wanted`), or
    the only page when the engine named none; anything else is not guessed (pure)."""
    pages = [t for t in targets if t.get("type") == "page"]
    if wanted is not None:
        found = next((t for t in pages if t.get("id") == wanted), None)
    else:
        found = pages[0] if len(pages) == 1 else None
    if found is None:
        return LivePage(unread="the session's active tab is not among the browser's pages")
    return LivePage(url=found.get("url") or None, title=found.get("title") or None)


def active_target(path: Path) -> str | None:
    """The target id of the session's `.target` run file, or None."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    target = data.get("targetId") if isinstance(data, dict) else None
    return target if isinstance(target, str) and target else None


def _debug_port(proc: Path, pid: int) -> int | None:
    """The DevTools port of a browser process started with a profile dir and a debug port."""
    try:
        argv = (proc / str(pid) / "cmdline").read_bytes().split(b"\0")
    except OSError:
        return None
    if not any(a.startswith(b"--remote-debugging-port") for a in argv):
        return None
    profile = next((a.split(b"=", 1)[1] for a in argv if a.startswith(b"--user-data-dir=")), None)
    if not profile:
        return None
    try:
        first = (Path(profile.decode()) / "DevToolsActivePort").read_text().splitlines()[0]
        return int(first)
    except (OSError, ValueError, IndexError, UnicodeDecodeError):
        return None
