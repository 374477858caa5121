"""One conversation's browsers on the operator's Selenium Grid (`[browser] grid_url`).

Every engine session (socket dir, namespace, session) gets its own WebDriver session the first
time a call needs its browser; the engine attaches to that session's `se:cdp` endpoint, so the
session's cookies, storage, tabs and downloads are its own browser's, as with a local launch.
The session is journaled when the grid hands it out and when it ends: `close` (one session or
`close --all`), the conversation's end and the server's shutdown end it; a resumed
conversation re-attaches to the ones it still holds.

Every session is tagged with its owner (this state dir's scope and the conversation id) and
the owner holds an `flock` while it lives. Before asking for a new browser, a conversation ends
the sessions of this state dir whose owner is gone (a server that was killed): their lock is
free. So a crashed server's browsers go back to the grid the next time any conversation of a
server on the same state dir needs one.
"""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import hashlib
import logging
import os
import socket
from collections.abc import Sequence
from pathlib import Path

from agent_browser_tools.engine.grid_client import GridClient
from agent_browser_tools.grid_errors import GridLimit, GridUnavailable
from agent_browser_tools.grid_settings import GridConfig
from agent_browser_tools.planning.grid_endpoints import GridEndpoints
from agent_browser_tools.private_fs import ensure_private_dir
from agent_browser_tools.state.grid_sessions import GridBrowser
from agent_browser_tools.state.journal import ConversationLog
from agent_browser_tools.state.models import SessionKey
from agent_browser_tools.taxonomy import CommandMatch, PageEffect
from agent_browser_tools.taxonomy.lookup import resolve_command, split_global_flags

logger = logging.getLogger(__name__)

CALLER_ATTACH = frozenset({"--cdp", "--auto-connect", "--provider"})
"""A call that attaches on its own (an operator-allowed model flag, or `connect`, as the
desktop-app tool's) needs no grid browser."""


def closes(match: CommandMatch | None) -> bool:
    """Whether the command ends the session's browser (`close` and its aliases)."""
    return match is not None and match.spec.page_effect is PageEffect.CLOSE


def state_scope(state_dir: Path) -> str:
    """The owner prefix of one state dir's sessions on this machine: servers on other state
    dirs or other machines (behind one load balancer, sharing the grid) never judge each
    other's sessions."""
    try:
        machine = Path("/etc/machine-id").read_text(encoding="ascii").strip()
    except OSError:
        machine = ""
    where = "\0".join((socket.gethostname(), machine, str(state_dir.resolve())))
    return hashlib.sha256(where.encode()).hexdigest()[:16]


class GridBrowsers:
    """The grid sessions of one conversation, journaled in its log."""

    def __init__(
        self, config: GridConfig, log: ConversationLog, state_dir: Path, conversation_id: str
    ) -> None:
        self.config = config
        self.client = GridClient(config.url, config.shown)
        self._log = log
        self._scope = state_scope(state_dir)
        self.owner = f"{self._scope}/{conversation_id}"
        self._locks = ensure_private_dir(state_dir / "grid-owners")
        self._held: int | None = None
        self._creating = asyncio.Lock()
        """One new grid session at a time per conversation: it never races itself for the
        last free slot."""
        if self.open_browsers():
            self._hold_owner_lock()  # a resumed conversation's sessions are live again

    def open_browsers(self) -> list[GridBrowser]:
        return [b for b in self._log.state.grid_browsers.values() if b.state == "open"]

    def browser(self, directory: str, key: SessionKey) -> GridBrowser | None:
        """The open grid session of `key` in `directory`, if any."""
        return next(
            (
                b
                for b in self.open_browsers()
                if (b.directory, b.namespace, b.session) == (directory, key.namespace, key.session)
            ),
            None,
        )

    def endpoints(self) -> GridEndpoints:
        """The grid's origins: its URL's, and those of every DevTools endpoint it handed out
        (a hub and nodes may answer on several)."""
        browsers = self._log.state.grid_browsers.values()
        return GridEndpoints.of([self.config.url, *(b.cdp_url for b in browsers)])

    def endpoint(self, directory: str, key: SessionKey | None) -> str | None:
        browser = None if key is None else self.browser(directory, key)
        return None if browser is None else browser.cdp_url

    async def before(self, args: Sequence[str], directory: str, key: SessionKey) -> None:
        """Make sure `key` has a grid browser before a call that may need one (not `close`
        or its aliases: it ends the browser). Raises `GridUnavailable` (`GridFull`) with the
        reason."""
        flags, rest = split_global_flags(args)
        match = resolve_command(rest)
        attaches = match is not None and match.spec.attaches_browser
        if closes(match) or attaches or {name for name, _ in flags} & CALLER_ATTACH:
            return
        self._hold_owner_lock()
        async with self._creating:
            if self.browser(directory, key) is not None:
                return
            held = len(self.open_browsers())
            if held >= self.config.max_per_conversation:
                raise GridLimit(
                    f"this conversation holds {held} grid browsers, as many as the operator "
                    "lets one conversation hold ([browser] grid_max_per_conversation)"
                )
            await self._end_orphans()
            session = await self.client.create(
                self.config.capabilities, self.owner, self.config.wait_s
            )
            try:
                self._log.record_grid_browser(
                    GridBrowser(
                        session_id=session.session_id,
                        cdp_url=session.cdp_url,
                        directory=directory,
                        namespace=key.namespace,
                        session=key.session,
                    )
                )
            except BaseException:
                # Not journaled (a full disk): nobody would ever end it.
                with contextlib.suppress(GridUnavailable):
                    await self.client.delete(session.session_id)
                raise

    async def after(self, args: Sequence[str], directory: str) -> None:
        """End the grid browsers a `close` (one session, or `close --all`) just closed."""
        flags, rest = split_global_flags(args)
        if not closes(resolve_command(rest)):
            return
        found = dict(flags)
        namespace, session = found.get("--namespace"), found.get("--session")
        for browser in self.open_browsers():
            same_dir = (browser.directory, browser.namespace) == (directory, namespace)
            if same_dir and ("--all" in rest or browser.session == session):
                await self.end(browser)

    async def ended_by_engine(self, directory: str, key: SessionKey) -> None:
        """`key`'s engine session ended inside a call (a `close` row of a batch or a code
        cell): the engine only detached from the grid browser, so it is ended here rather
        than handed, cookies and all, to the session's next "fresh" launch."""
        browser = self.browser(directory, key)
        if browser is not None:
            await self.end(browser)

    async def alive(self, directory: str, key: SessionKey) -> bool | None:
        """Whether `key`'s grid browser is still there (None: it has none, or the grid could
        not be asked; the call then reports what the engine finds)."""
        browser = self.browser(directory, key)
        if browser is None:
            return None
        try:
            return await self.client.alive(browser.session_id)
        except GridUnavailable as exc:
            logger.warning("could not check grid session %s: %s", browser.session_id, exc)
            return None

    async def lose(self, directory: str, key: SessionKey) -> GridBrowser | None:
        """Journal `key`'s grid browser as lost and end what the grid still keeps of it (a
        session whose browser died holds its slot until deleted); the next call that needs
        a browser gets a new one."""
        browser = self.browser(directory, key)
        if browser is None:
            return None
        with contextlib.suppress(GridUnavailable):
            await self.client.delete(browser.session_id)
        self._log.record_grid_browser(browser.model_copy(update={"state": "lost"}))
        return browser

    async def end(self, browser: GridBrowser) -> None:
        """Delete the WebDriver session and journal it ended (a failed delete is logged and
        left journaled as open, so the next end tries again)."""
        try:
            await self.client.delete(browser.session_id)
        except GridUnavailable as exc:
            logger.warning("could not end grid session %s: %s", browser.session_id, exc)
            return
        self._log.record_grid_browser(browser.model_copy(update={"state": "ended"}))

    async def end_all(self) -> None:
        """End every grid browser of the conversation (at once: the host bounds its close),
        then let go of its owner lock."""
        await asyncio.gather(*(self.end(browser) for browser in self.open_browsers()))
        # And any the journal never got: a create cut off by cancellation or a failed write.
        with contextlib.suppress(GridUnavailable):
            await self.client.delete_owned(self.owner)
        if self._held is not None:
            os.close(self._held)
            self._held = None

    def _lock_path(self, owner: str) -> Path:
        return self._locks / (hashlib.sha256(owner.encode()).hexdigest()[:32] + ".lock")

    def _hold_owner_lock(self) -> None:
        if self._held is not None:
            return
        fd = os.open(self._lock_path(self.owner), os.O_RDWR | os.O_CREAT, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            # Another process runs this conversation (a client resumed it twice): it keeps the
            # lock, and this one's sessions stay safe as long as that one lives.
            os.close(fd)
            return
        self._held = fd

    async def _end_orphans(self) -> None:
        """End this state dir's grid sessions whose owner no longer runs."""
        try:
            status = await self.client.status()
        except GridUnavailable:
            return  # `create` reports it
        prefix = self._scope + "/"
        for slot in status.sessions:
            if not slot.owner.startswith(prefix) or slot.owner == self.owner:
                continue
            if self._owner_gone(slot.owner):
                logger.info("ending grid session %s of a server that is gone", slot.session_id)
                with contextlib.suppress(GridUnavailable):
                    await self.client.delete(slot.session_id)

    def _owner_gone(self, owner: str) -> bool:
        """The owner ran here (its lock file exists) and holds its lock no more."""
        try:
            fd = os.open(self._lock_path(owner), os.O_RDWR)
        except OSError:
            return False
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            return False
        finally:
            os.close(fd)
        return True
