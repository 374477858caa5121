"""The host's `before_execute` callback: awaited before each ordinary engine dispatch.

Why: an embedding host (an SDK agent loop) may need to save its own state, or veto a browser
call, right before the browser changes. `BrowserTools(before_execute=...)` registers it; the
callback gets the outer tool call id and a `DispatchContext` and is awaited after the call was
validated, planned and passed the wrapper's guards, just before the engine runs. It runs for
every ordinary dispatch, including each `browser()` call inside `agent_browser_code` (which
keeps the outer call id) and the compiled calls of the advanced tools; the wrapper's own helper
probes, follow-up reads and cleanup never call it, and a native `batch` is one dispatch.

An exception raised by the callback blocks that dispatch: the call fails as `policy-blocked`
(`details.policy.rule: "host-before-execute"`) and nothing reaches the engine. Cancelling the
tool call while the callback waits cancels the callback (plain asyncio cancellation, the
Python form of the contract's abort signal). A synchronous callback (what `SyncBrowserTools`
hosts pass) is called inline. The callback must not call back into the same `BrowserTools`:
the browser identity's lock is held while it runs.
"""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass

from agent_browser_tools.planning.policy import PolicyBlocked
from agent_browser_tools.redaction import redact_argv
from agent_browser_tools.tools.agent_browser.call import DirectCall, Refused

RULE = "host-before-execute"


@dataclass(frozen=True)
class DispatchContext:
    """What is about to run. `args` and `effective_args` are redacted like `details.args`."""

    tool: str
    """The tool whose dispatch this is (`agent_browser`, `agent_browser_qa`, ...)."""
    outer_tool: str
    """The tool the host called (`agent_browser_code` for a cell's `browser()` calls)."""
    args: tuple[str, ...]
    effective_args: tuple[str, ...]
    session: str | None
    namespace: str | None


BeforeExecute = Callable[[str, DispatchContext], Awaitable[None] | None]
"""`before_execute(tool_call_id, ctx)`; may be sync or async; raising blocks the dispatch."""


@dataclass(frozen=True)
class _HostCall:
    tool_call_id: str
    tool: str
    callback: BeforeExecute | None
    internal: bool = False


_CURRENT: ContextVar[_HostCall | None] = ContextVar("agent_browser_host_call", default=None)


@contextmanager
def host_call(tool_call_id: str, tool: str, callback: BeforeExecute | None) -> Iterator[None]:
    """Scope of one host tool call (tasks it starts, e.g. a code cell's, inherit it)."""
    token = _CURRENT.set(_HostCall(tool_call_id, tool, callback))
    try:
        yield
    finally:
        _CURRENT.reset(token)


@contextmanager
def internal() -> Iterator[None]:
    """Dispatches inside this scope are the wrapper's own follow-ups: no callback."""
    current = _CURRENT.get()
    if current is None:
        yield
        return
    token = _CURRENT.set(_HostCall(current.tool_call_id, current.tool, None, internal=True))
    try:
        yield
    finally:
        _CURRENT.reset(token)


async def before_dispatch(call: DirectCall) -> None:
    """Await the host's callback for this dispatch; raises `Refused` (policy-blocked) when it
    raised."""
    current = _CURRENT.get()
    if current is None or current.callback is None:
        return
    scrub = call.rt.secrets.scrub_argv
    key = call.plan.session.key
    ctx = DispatchContext(
        tool=call.hooks.tool,
        outer_tool=current.tool,
        args=tuple(scrub(redact_argv(call.plan.args))),
        effective_args=tuple(scrub(redact_argv(call.plan.effective_args))),
        session=key.session if key is not None else None,
        namespace=key.namespace if key is not None else None,
    )
    try:
        outcome = current.callback(current.tool_call_id, ctx)
        if inspect.isawaitable(outcome):
            await outcome
    except Exception as exc:
        reason = str(exc) or type(exc).__name__
        message = (
            f"the host's before_execute callback refused this {ctx.tool} dispatch, so nothing "
            f"ran: {reason}"
        )
        blocked = PolicyBlocked(message, rule=RULE, subject=ctx.tool, allow_with=None)
        raise Refused(message, blocked) from None
