"""Which local TCP ports belong to a browser or an engine daemon on this machine (Linux).

Engine 0.39.4 launches Chromium with `--remote-debugging-port=0`, and each daemon serves a
stream WebSocket on another ephemeral port. Chromium accepts a DevTools WebSocket from a page
whose origin is the DevTools server itself, so a browser that is *on*
`http://127.0.0.1:<that port>/` can be driven by any script there, including another
conversation's browser. The wrapper therefore needs to know these ports to keep every browser
away from them, and, for the script guard, which listening ports belong to anything else (an
ordinary server, such as a dev server the model tests). They are read from `/proc/net/tcp{,6}`
(listening sockets) and the browser processes' open sockets; without `/proc` (macOS) nothing
is known and the guard cannot apply.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from agent_browser_tools.engine.listening_sockets import listening_inodes

LISTEN = "0A"
PROC = Path("/proc")
BROWSER_MARKERS = ("chrom", "agent-browser", "headless_shell", "msedge", "brave")
"""Command-line fragments of the processes whose listening ports are guarded."""
DEBUG_PORT_FLAG = b"--remote-debugging-port"
CHILD_FLAG = b"--type="
"""Chromium's child processes (renderer, GPU, utility, zygote) carry `--type=`; they open no
listening socket, and skipping their many descriptors keeps the scan cheap."""


def browser_ports(proc: Path = PROC) -> frozenset[int]:
    """Listening TCP ports held by Chromium-family browsers and engine daemons."""
    browsers = [int(entry.name) for entry in _pids(proc) if _is_browser(entry)]
    return frozenset(listening_ports(browsers, proc))


def browser_held(ports: Iterable[int], proc: Path = PROC) -> frozenset[int]:
    """Which of `ports` a browser or engine daemon listens on. The answer for each listening
    socket is remembered by its inode: the process that opened a socket keeps it, so a
    socket found to be an ordinary server's stays one (a browser's new debug port is a new
    socket, scanned when first seen), and a page read from a local dev server costs two
    small reads instead of a walk over every process (7 ms, each call)."""
    wanted = frozenset(ports)
    listening = _listening_inodes(proc) if wanted else {}
    asked = {inode: port for inode, port in listening.items() if port in wanted}
    if any(inode not in _HELD_BY_BROWSER for inode in asked):
        browsers = [int(entry.name) for entry in _pids(proc) if _is_browser(entry)]
        held = {inode for pid in browsers for inode in _socket_inodes(proc / str(pid))}
        if len(_HELD_BY_BROWSER) > SOCKET_MEMORY:
            _HELD_BY_BROWSER.clear()
        _HELD_BY_BROWSER.update({inode: inode in held for inode in listening})
    return frozenset(port for inode, port in asked.items() if _HELD_BY_BROWSER.get(inode))


SOCKET_MEMORY = 4096
_HELD_BY_BROWSER: dict[str, bool] = {}
"""Listening socket inode -> whether a browser or engine daemon holds it."""


@dataclass(frozen=True)
class Listeners:
    """The machine's listening TCP ports at one moment, and which of them are browsers'."""

    ports: frozenset[int]
    browsers: frozenset[int]

    @property
    def others(self) -> frozenset[int]:
        """Ports held by anything but a browser or engine daemon (a dev server, say)."""
        return self.ports - self.browsers


def listeners(proc: Path = PROC) -> Listeners | None:
    """Every listening TCP port now, browsers' marked; None without `/proc/net/tcp` (the
    listeners cannot be known there, so a rule built on them cannot apply)."""
    if not (proc / "net" / "tcp").is_file():
        return None
    listening = _listening_inodes(proc)
    browsers = [int(entry.name) for entry in _pids(proc) if _is_browser(entry)]
    held = listening_ports(browsers, proc, listening)
    return Listeners(frozenset(listening.values()), frozenset(held))


def listening_ports(
    pids: Iterable[int], proc: Path = PROC, listening: dict[str, int] | None = None
) -> dict[int, int]:
    """Listening TCP port -> the pid (of `pids`) that holds it."""
    listening = _listening_inodes(proc) if listening is None else listening
    if not listening:
        return {}
    ports: dict[int, int] = {}
    for pid in pids:
        for inode in _socket_inodes(proc / str(pid)):
            port = listening.get(inode)
            if port is not None:
                ports.setdefault(port, pid)
    return ports


def _listening_inodes(proc: Path) -> dict[str, int]:
    """Socket inode -> port for every listening TCP socket: asked over netlink for this
    machine's own `/proc` (a text table read costs ~8 ms, see `listening_sockets`), read from
    the text tables otherwise or where netlink is refused."""
    if proc == PROC:
        with contextlib.suppress(OSError):
            return listening_inodes()
    found: dict[str, int] = {}
    for table in ("tcp", "tcp6"):
        try:
            lines = (proc / "net" / table).read_text().splitlines()[1:]
        except OSError:
            continue
        for line in lines:
            fields = line.split()
            if len(fields) > 9 and fields[3] == LISTEN:
                found[fields[9]] = int(fields[1].rsplit(":", 1)[1], 16)
    return found


def _pids(proc: Path) -> list[Path]:
    try:
        return [entry for entry in proc.iterdir() if entry.name.isdigit()]
    except OSError:
        return []


def _is_browser(entry: Path) -> bool:
    try:
        raw = (entry / "cmdline").read_bytes()
    except OSError:
        return False
    if CHILD_FLAG in raw:
        return False  # a renderer, GPU or utility child: the browser process holds the sockets
    argv = raw.split(b"\0")
    name = os.path.basename(argv[0].decode(errors="replace")).lower()
    if any(marker in name for marker in BROWSER_MARKERS):
        return True
    # A Chromium-based app started with a debug port (an Electron app that
    # `agent_browser_electron` launched) serves the same DevTools endpoint under its own name.
    return any(arg.startswith(DEBUG_PORT_FLAG) for arg in argv[1:])


def _socket_inodes(entry: Path) -> list[str]:
    inodes: list[str] = []
    try:
        fds = list((entry / "fd").iterdir())
    except OSError:
        return inodes
    for fd in fds:
        try:
            target = os.readlink(fd)
        except OSError:
            continue
        if target.startswith("socket:["):
            inodes.append(target[8:-1])
    return inodes
