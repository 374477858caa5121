"""The few WebDriver calls grid mode needs: new session, delete session, is it alive, status.

A Selenium Grid 4 (standalone, or hub and nodes) hands out one browser per WebDriver session
and names its Chrome DevTools endpoint in the `se:cdp` capability; the engine attaches there
and does all the browsing. So the tools speak WebDriver only to get, check and end sessions.

A full grid queues `POST /session` (up to its `--session-request-timeout`, 300 s by default).
A queued request the client gave up on can still be served later, with nobody to end it, so a
new session is only asked for once `/status` shows a free slot, for at most the configured
wait. Every session carries an `abt:owner` capability, which `/status` lists, so the tools can
find (and end) a session whose answer they never got.

Plain stdlib HTTP in a worker thread: a handful of small JSON requests per browser does not
earn an HTTP client dependency.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import json
import secrets
import time
import urllib.error
import urllib.request
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote, urlsplit, urlunsplit

from agent_browser_tools.grid_errors import GridFull, GridUnavailable

OWNER_CAPABILITY = "abt:owner"
REQUEST_CAPABILITY = "abt:request"
"""A nonce per new-session request: a request given up on can be found, and only it."""
ABANDONED_WAIT_S = 20.0
"""How long a cancelled call waits for the browser it asked for, to end it."""
REQUEST_TIMEOUT_S = 10.0
"""Bound on one status, liveness or delete request."""
START_ALLOWANCE_S = 60.0
"""Added to the slot wait for the browser itself to start once a slot was free."""
__all__ = ["GridClient", "GridFull", "GridSession", "GridStatus", "GridUnavailable"]

POLL_S = 0.5
LOST_SIGNS = ("invalid session id", "HTTP 404", "disconnected", "not reachable")
"""How a grid and chromedriver say a session's browser is gone."""


@dataclass(frozen=True)
class GridSession:
    session_id: str
    cdp_url: str


@dataclass(frozen=True)
class SlotSession:
    """A session `/status` lists: its id and its `abt:*` tags (none when not ours)."""

    session_id: str
    tags: Mapping[str, str]

    @property
    def owner(self) -> str:
        return self.tags.get(OWNER_CAPABILITY, "")


@dataclass(frozen=True)
class GridStatus:
    free: int
    total: int
    sessions: tuple[SlotSession, ...]


class GridClient:
    """WebDriver requests to one grid URL (credentials in the URL become Basic auth)."""

    def __init__(self, url: str, shown: str) -> None:
        parts = urlsplit(url)
        host = parts.hostname or ""
        netloc = host if parts.port is None else f"{host}:{parts.port}"
        if ":" in host:
            netloc = f"[{host}]" if parts.port is None else f"[{host}]:{parts.port}"
        self._base = urlunsplit((parts.scheme, netloc, parts.path.rstrip("/"), "", ""))
        self._auth: str | None = None
        if parts.username is not None:
            token = f"{parts.username}:{parts.password or ''}".encode()
            self._auth = "Basic " + base64.b64encode(token).decode()
        self.shown = shown
        """The URL for messages, credentials masked."""

    async def status(self) -> GridStatus:
        answer = await self._request("GET", "/status", None, REQUEST_TIMEOUT_S)
        return _status(answer)

    async def create(
        self, capabilities: Mapping[str, Any], owner: str, wait_s: float
    ) -> GridSession:
        """A new session tagged `owner`, once a slot is free (raises `GridFull` after
        `wait_s`, `GridUnavailable` when the grid refuses or cannot be reached)."""
        deadline = time.monotonic() + wait_s
        status = await self.status()
        while status.free <= 0:
            if time.monotonic() >= deadline:
                raise GridFull(_full_message(self.shown, status, wait_s))
            await asyncio.sleep(POLL_S)
            status = await self.status()
        request = secrets.token_hex(8)
        tags = {OWNER_CAPABILITY: owner, REQUEST_CAPABILITY: request}
        body = {"capabilities": {"alwaysMatch": {**capabilities, **tags}}}
        budget = max(deadline - time.monotonic(), 0.0) + START_ALLOWANCE_S
        posted = asyncio.ensure_future(self._request("POST", "/session", body, budget))
        try:
            answer = await asyncio.shield(posted)
        except asyncio.CancelledError:
            await self._end_abandoned(posted)
            raise
        except GridUnavailable as exc:
            if "timed out" in str(exc) or "queue" in str(exc).lower():
                # Queued and given up on: only this request's session, should it appear.
                await self.delete_tagged(REQUEST_CAPABILITY, request)
                raise GridFull(_full_message(self.shown, status, wait_s)) from None
            raise
        return _new_session(answer, self.shown)

    async def _end_abandoned(self, posted: asyncio.Future[dict[str, Any]]) -> None:
        """The caller was cancelled while the grid started its browser: wait (bounded) for
        the answer and end the session nobody will journal."""
        with contextlib.suppress(Exception, asyncio.CancelledError):
            answer = await asyncio.wait_for(asyncio.shield(posted), ABANDONED_WAIT_S)
            await self.delete(_new_session(answer, self.shown).session_id)

    async def delete(self, session_id: str) -> None:
        """End the session; one the grid no longer knows is ended already."""
        try:
            await self._request("DELETE", f"/session/{quote(session_id)}", None, REQUEST_TIMEOUT_S)
        except GridUnavailable as exc:
            if not _gone(exc):
                raise

    async def alive(self, session_id: str) -> bool:
        """Whether the grid still serves the session with a live browser (the window list
        needs the browser itself; it never waits for a page load)."""
        path = f"/session/{quote(session_id)}/window/handles"
        try:
            await self._request("GET", path, None, REQUEST_TIMEOUT_S)
        except GridUnavailable as exc:
            if _gone(exc):
                return False
            raise
        return True

    async def delete_owned(self, owner: str) -> int:
        """End every session tagged `owner`; how many."""
        return await self.delete_tagged(OWNER_CAPABILITY, owner)

    async def delete_tagged(self, capability: str, value: str) -> int:
        """End every session whose `capability` tag is `value`; how many."""
        try:
            status = await self.status()
        except GridUnavailable:
            return 0
        ended = 0
        for session in status.sessions:
            if session.tags.get(capability) == value:
                await self.delete(session.session_id)
                ended += 1
        return ended

    async def _request(
        self, method: str, path: str, body: object, timeout_s: float
    ) -> dict[str, Any]:
        return await asyncio.to_thread(self._blocking, method, path, body, timeout_s)

    def _blocking(self, method: str, path: str, body: object, timeout_s: float) -> dict[str, Any]:
        data = None if body is None else json.dumps(body).encode("utf-8")
        request = urllib.request.Request(self._base + path, data=data, method=method)
        request.add_header("Content-Type", "application/json; charset=utf-8")
        if self._auth is not None:
            request.add_header("Authorization", self._auth)
        try:
            with urllib.request.urlopen(request, timeout=timeout_s) as response:
                return _json(response.read())
        except urllib.error.HTTPError as exc:
            answer = _json(exc.read())
            raise GridUnavailable(
                f"the Selenium Grid at {self.shown} answered {method} {path} with HTTP "
                f"{exc.code}: {_error_text(answer)}"
            ) from None
        except (urllib.error.URLError, OSError, TimeoutError) as exc:
            reason = getattr(exc, "reason", exc)
            if isinstance(reason, TimeoutError) or "timed out" in str(reason):
                reason = f"timed out after {timeout_s:.0f} s"
            raise GridUnavailable(
                f"the Selenium Grid at {self.shown} could not be reached ({reason}); check that "
                "it runs and that this server can reach it"
            ) from None


def _gone(exc: GridUnavailable) -> bool:
    """The grid's answer says the session (or its browser) no longer exists."""
    return any(sign in str(exc) for sign in LOST_SIGNS)


def _json(raw: bytes) -> dict[str, Any]:
    try:
        answer = json.loads(raw.decode("utf-8", errors="replace") or "{}")
    except ValueError:
        return {}
    return answer if isinstance(answer, dict) else {}


def _error_text(answer: Mapping[str, Any]) -> str:
    value = answer.get("value")
    if isinstance(value, Mapping):
        error, message = value.get("error"), value.get("message")
        text = f"{error}: {message}" if error and message else str(message or error or "")
        return text.splitlines()[0][:300] if text else "no error text"
    return "no error text"


def _new_session(answer: Mapping[str, Any], shown: str) -> GridSession:
    value = answer.get("value")
    value = value if isinstance(value, Mapping) else {}
    capabilities = value.get("capabilities")
    capabilities = capabilities if isinstance(capabilities, Mapping) else {}
    session_id, cdp = value.get("sessionId"), capabilities.get("se:cdp")
    if not isinstance(session_id, str) or not session_id:
        raise GridUnavailable(f"the Selenium Grid at {shown} answered a new session without id")
    if not isinstance(cdp, str) or not cdp.startswith(("ws://", "wss://")):
        raise GridUnavailable(
            f"the Selenium Grid at {shown} gave session {session_id} no DevTools endpoint "
            "(se:cdp): the tools need Selenium Grid 4 with a Chromium-based browser"
        )
    return GridSession(session_id=session_id, cdp_url=cdp)


def _status(answer: Mapping[str, Any]) -> GridStatus:
    value = answer.get("value")
    nodes = value.get("nodes") if isinstance(value, Mapping) else None
    free = total = 0
    sessions: list[SlotSession] = []
    for node in nodes if isinstance(nodes, list) else []:
        if not isinstance(node, Mapping) or not isinstance(node.get("slots"), list):
            continue
        slots = [slot for slot in node["slots"] if isinstance(slot, Mapping)]
        held = [slot["session"] for slot in slots if isinstance(slot.get("session"), Mapping)]
        sessions += [_slot_session(session) for session in held]
        # A node offers a slot per browser it can start but runs at most `maxSessions`.
        limit = node.get("maxSessions")
        room = len(slots) if not isinstance(limit, int) else min(limit, len(slots))
        total += room
        if node.get("availability", "UP") == "UP":
            free += max(min(room - len(held), len(slots) - len(held)), 0)
    return GridStatus(free=free, total=total, sessions=tuple(sessions))


def _slot_session(session: Mapping[str, Any]) -> SlotSession:
    capabilities = session.get("capabilities")
    capabilities = capabilities if isinstance(capabilities, Mapping) else {}
    tags = {
        key: value
        for key, value in capabilities.items()
        if key in (OWNER_CAPABILITY, REQUEST_CAPABILITY) and isinstance(value, str)
    }
    return SlotSession(session_id=str(session.get("sessionId") or ""), tags=tags)


def _full_message(shown: str, status: GridStatus, wait_s: float) -> str:
    return (
        f"no browser slot of the Selenium Grid at {shown} came free within {wait_s:.0f} s "
        f"(all {status.total} slots busy)"
    )
