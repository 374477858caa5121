"""Serializing calls per browser identity, in-process and across cooperating processes.

Two interleaved commands on one page would make every observation ambiguous, so one browser
identity (socket dir, namespace, session) runs one complete call at a time. Within a process an
`asyncio.Lock` orders callers; across processes (several MCP servers, CLI calls) an `flock` on a
file in the state dir does. A namespace-wide `close --all` takes the namespace lock exclusively
and so waits for every call in that namespace, while ordinary calls share it.

Different identities never wait for each other. This is coordination, not a transaction.
"""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import hashlib
import os
from collections.abc import AsyncIterator
from pathlib import Path

from agent_browser_tools.private_fs import ensure_private_dir

POLL_S = 0.02


def _lock_path(directory: Path, *parts: str | None) -> Path:
    digest = hashlib.sha256("\0".join(p or "" for p in parts).encode()).hexdigest()[:24]
    return directory / f"{digest}.lock"


async def _flock(path: Path, mode: int) -> int:
    """Acquire an flock without blocking the event loop (cancellable while waiting)."""
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        while True:
            try:
                fcntl.flock(fd, mode | fcntl.LOCK_NB)
                return fd
            except BlockingIOError:
                await asyncio.sleep(POLL_S)
    except BaseException:
        os.close(fd)
        raise


def _release(fd: int) -> None:
    with contextlib.suppress(OSError):
        fcntl.flock(fd, fcntl.LOCK_UN)
    os.close(fd)


class IdentityLocks:
    """Locks for browser identities under one state dir."""

    def __init__(self, state_dir: Path, socket_dir: str | None) -> None:
        self._dir = state_dir / "locks"
        self._socket = socket_dir or ""
        self._local: dict[tuple[str | None, str | None], asyncio.Lock] = {}
        self._namespaces: dict[str | None, asyncio.Lock] = {}

    def _local_lock(self, namespace: str | None, session: str | None) -> asyncio.Lock:
        key = (namespace, session)
        lock = self._local.get(key)
        if lock is None:
            lock = self._local[key] = asyncio.Lock()
        return lock

    @contextlib.asynccontextmanager
    async def hold(
        self, namespace: str | None, session: str | None, *, whole_namespace: bool = False
    ) -> AsyncIterator[None]:
        """Hold the identity (or, for `close --all`, the whole namespace)."""
        directory = ensure_private_dir(self._dir)
        ns_local = self._namespaces.setdefault(namespace, asyncio.Lock())
        ns_path = _lock_path(directory, self._socket, namespace, "*namespace*")
        if whole_namespace:
            async with ns_local:
                fd = await _flock(ns_path, fcntl.LOCK_EX)
                try:
                    yield
                finally:
                    _release(fd)
            return
        async with self._local_lock(namespace, session):
            while ns_local.locked():
                await asyncio.sleep(POLL_S)
            ns_fd = await _flock(ns_path, fcntl.LOCK_SH)
            try:
                fd = await _flock(
                    _lock_path(directory, self._socket, namespace, session), fcntl.LOCK_EX
                )
                try:
                    yield
                finally:
                    _release(fd)
            finally:
                _release(ns_fd)
