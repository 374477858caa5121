"""Conversations of the MCP host: one `BrowserTools` each, their calls in flight, their end.

Contract:

- `Conversation.call` runs one tool call in its own asyncio task. While it runs, `on_tick` is
  awaited every `TICK_S` seconds with the elapsed time (the host turns that into progress
  notifications). If the awaiting handler is cancelled (MCP `notifications/cancelled`, the
  client going away, shutdown), the call task is cancelled exactly once, which makes the engine
  runner kill its child process group, and the handler waits (shielded, at most
  `CANCEL_GRACE_S`) for that to finish before the cancellation propagates. Running the call in
  its own task keeps anyio's repeated cancellation of the handler away from the runner's
  cleanup.
- `Conversation.aclose` cancels the calls in flight the same way, then closes the managed
  browsers the conversation launched (`BrowserTools.aclose`), bounded by the settings'
  session-close timeout. Caller-owned sessions are never closed, except over HTTP, where what
  is left in the conversation's own socket dir is closed too (nobody can reach it afterwards).
- `ConversationRegistry` creates conversations lazily by key (one key for stdio, the MCP
  session id over HTTP), closes one when its session ends, reaps conversations idle for longer
  than `idle_timeout_s` with nothing in flight, and on shutdown closes all of them and refuses
  new ones.
- A host may give the registry a `preview`: what a conversation of a key lists before it is
  open (stdio, for a new conversation: `catalog.listed_at_start`). `listed_tools(key)` then
  answers `tools/list` without opening the conversation, which keeps its journal and modules
  (API, runtime, engine) off the path to a client's first answer; it opens on its first
  call, and a conversation that cannot start says so in that call's result.
- A conversation that cannot start raises `ConversationUnavailable` (one line naming the fix)
  and is not kept, so the session's next request tries again: the journal cannot be opened
  (the state dir filled up or broke after the server started, a damaged journal, an unreadable
  row of a resumed conversation) or a setting its tools refuse (the execution dir was
  removed). The server and its other conversations are unaffected.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Awaitable, Callable, Mapping
from typing import TYPE_CHECKING, Any

import anyio

from agent_browser_tools.results import response
from agent_browser_tools.results.categories import FailureCategory
from agent_browser_tools.results.tool_result import ToolResult
from agent_browser_tools.state.writable import JournalError

if TYPE_CHECKING:  # imported by the host's factory when a conversation opens
    from agent_browser_tools.api import BrowserTools
    from agent_browser_tools.tools.registry import ToolSpec

logger = logging.getLogger(__name__)

TICK_S = 2.0
"""How often a running call reports that it is still running."""

CANCEL_GRACE_S = 10.0
"""Longest wait for a cancelled call to kill its engine child (the runner needs <= ~4 s)."""

CLOSE_SLACK_S = 2.0
"""Added to the session-close timeout when bounding a whole conversation's shutdown."""

Tick = Callable[[float], Awaitable[None]]


class ServerClosing(RuntimeError):
    """The host is shutting down and opens no new conversations."""


EPHEMERAL_HINT = (
    "The operator can also restart the server with --ephemeral-state to keep conversations "
    "in memory only."
)


class ConversationUnavailable(RuntimeError):
    """A conversation could not start; the message is one line that names the fix.

    A tool call answers it as a failed result rather than a JSON-RPC error, because the model
    reads results and can tell the user (a protocol error often only reaches a client log).
    The category is `aborted`, the one a journal write failure mid-conversation gets: nothing
    ran, and the same call can succeed once the cause is fixed."""

    @classmethod
    def of(cls, exc: Exception) -> ConversationUnavailable:
        if isinstance(exc, (JournalError, OSError)):
            return cls(f"this conversation cannot start: {exc} {EPHEMERAL_HINT}")
        return cls(f"this conversation cannot start: {exc}")

    def result(self, tool: str) -> ToolResult:
        message = f"{tool} did not run: {self}"
        details = {"error": message, "conversationUnavailable": True}
        return response.text(f"Error: {message}", FailureCategory.ABORTED, details)


def _interrupted(name: str) -> ToolResult:
    message = f"{name} was interrupted because the server is shutting down."
    return response.text(f"Error: {message}", FailureCategory.ABORTED, {"error": message})


async def _cancel_and_wait(*tasks: asyncio.Task[ToolResult]) -> None:
    """Cancel each task once and wait for them, shielded from further cancellation, bounded."""
    for task in tasks:
        task.cancel()
    if tasks:
        with anyio.CancelScope(shield=True):
            await asyncio.wait(tasks, timeout=CANCEL_GRACE_S)


class Conversation:
    """One conversation's `BrowserTools` plus the calls running on it."""

    def __init__(self, tools: BrowserTools) -> None:
        self.tools = tools
        self.last_used = time.monotonic()
        self._calls: set[asyncio.Task[ToolResult]] = set()
        self.roots_synced = False
        """The client's roots were asked for since they last changed (see `roots`)."""

    @property
    def busy(self) -> bool:
        return bool(self._calls)

    async def call(self, name: str, params: Mapping[str, Any], on_tick: Tick | None) -> ToolResult:
        """Run one tool call; see the module docstring for ticks and cancellation."""
        self.last_used = time.monotonic()
        task = asyncio.get_running_loop().create_task(self.tools.call(name, params))
        self._calls.add(task)
        task.add_done_callback(self._settled)
        started = time.monotonic()
        try:
            while not task.done():
                await asyncio.wait({task}, timeout=TICK_S)
                if not task.done() and on_tick is not None:
                    await on_tick(time.monotonic() - started)
        except BaseException:
            await _cancel_and_wait(task)
            raise
        finally:
            self.last_used = time.monotonic()
        if task.cancelled():  # cancelled by `aclose`, not by this handler
            return _interrupted(name)
        return task.result()

    def _settled(self, task: asyncio.Task[ToolResult]) -> None:
        self._calls.discard(task)
        if not task.cancelled() and task.exception() is not None:  # retrieved: no GC warning
            logger.debug("tool call raised %r", task.exception())

    async def aclose(self) -> None:
        """Stop the calls in flight, then close the browsers this conversation launched."""
        await _cancel_and_wait(*self._calls)
        budget_s = self.tools.settings.session_close_timeout_ms / 1000.0 + CLOSE_SLACK_S
        with anyio.CancelScope(shield=True), anyio.move_on_after(budget_s) as scope:
            await self.tools.aclose()
        if scope.cancelled_caught:
            logger.warning(
                "closing the browsers of conversation %s took longer than %.0f s",
                self.tools.conversation_id,
                budget_s,
            )


class ConversationRegistry:
    """Conversations by key, created on first use and closed when their session ends."""

    def __init__(
        self,
        factory: Callable[[str], BrowserTools],
        *,
        idle_timeout_s: float | None = None,
        preview: Callable[[str], list[ToolSpec]] | None = None,
    ) -> None:
        self._factory = factory
        self._preview = preview
        self._idle_timeout_s = idle_timeout_s
        self._conversations: dict[str, Conversation] = {}
        self._closing: set[asyncio.Task[None]] = set()
        self._closed = False

    def __len__(self) -> int:
        return len(self._conversations)

    def get(self, key: str) -> Conversation:
        """The conversation of `key`, created on first use (raises `ServerClosing`, or
        `ConversationUnavailable` when it cannot start)."""
        if self._closed:
            raise ServerClosing("the server is shutting down")
        conversation = self._conversations.get(key)
        if conversation is None:
            try:
                tools = self._factory(key)
            except (JournalError, OSError, ValueError) as exc:
                unavailable = ConversationUnavailable.of(exc)
                logger.warning("%s", unavailable)
                raise unavailable from None
            conversation = Conversation(tools)
            self._conversations[key] = conversation
            logger.info("conversation %s opened", conversation.tools.conversation_id)
        return conversation

    def listed_tools(self, key: str) -> list[ToolSpec]:
        """The tools the conversation of `key` lists: its own once open, before that the
        host's `preview` if it gave one, else those of the conversation opened now."""
        if self._closed:
            raise ServerClosing("the server is shutting down")
        if key not in self._conversations and self._preview is not None:
            return self._preview(key)
        return self.get(key).tools.listed_tools()

    async def close(self, key: str) -> None:
        """Close the conversation of `key` (its session ended); unknown keys are ignored."""
        conversation = self._conversations.pop(key, None)
        if conversation is not None:
            await conversation.aclose()
            logger.info("conversation %s closed", conversation.tools.conversation_id)

    def close_soon(self, key: str) -> None:
        """Schedule `close(key)` without waiting; `close_all` waits for it."""
        task = asyncio.get_running_loop().create_task(self.close(key))
        self._closing.add(task)
        task.add_done_callback(self._closing.discard)

    async def reap_idle(self) -> None:
        """Close conversations idle for longer than the idle timeout with nothing in flight."""
        if self._idle_timeout_s is None:
            return
        now = time.monotonic()
        stale = [
            key
            for key, conv in self._conversations.items()
            if not conv.busy and now - conv.last_used > self._idle_timeout_s
        ]
        for key in stale:
            await self.close(key)

    async def close_all(self) -> None:
        """Refuse new conversations, then close every open one concurrently."""
        self._closed = True
        keys = list(self._conversations)
        with anyio.CancelScope(shield=True):
            await asyncio.gather(*(self.close(key) for key in keys), return_exceptions=True)
            if self._closing:
                await asyncio.gather(*self._closing, return_exceptions=True)

    async def reap_forever(self, interval_s: float = 60.0) -> None:
        """Run `reap_idle` periodically until cancelled."""
        while True:
            await asyncio.sleep(interval_s)
            with contextlib.suppress(Exception):
                await self.reap_idle()
