"""The tabs a conversation opened in the operator's remote browser (`[browser] cdp_url`).

Over CDP the engine attaches to a browser it did not start and shares its one browser context:
left alone, every session binds to the remote's first page, so two conversations would drive
(and read) the same tab. So every session is pinned (`AGENT_BROWSER_PIN_TAB`, set with the
endpoint by `launch_options`): the engine then attaches by opening a page of its own and binds
the session to it, and never falls back onto a tab of someone else. On a session's first
spawn the wrapper attaches with `tab list` and remembers that page (the active one, newest and
still blank: anything else is not taken for ours). Every tab the session opens (`tab new`,
`--new-tab`) is remembered too, and
before a `close` (one session or `close --all`) exactly those tabs are closed: the engine's
`close` only detaches, and the remote browser itself is never ours to stop.

Kept in memory: a conversation resumed by another server process does not know the tabs its
previous run opened (they stay until the remote browser closes them).
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from agent_browser_tools.taxonomy.lookup import split_global_flags

Ident = tuple[str, str | None, str]
"""(socket dir, namespace, session): one engine session of this conversation."""

Run = Callable[[Sequence[str], str | None, str], Awaitable[str]]
"""Run engine args on (namespace, session) in the same dir and environment; returns stdout."""

CALLER_ATTACH = frozenset({"--cdp", "--auto-connect", "--provider"})
"""A call that attaches on its own (a caller-allowed flag) keeps the caller's choice of tab."""


def _words(args: Sequence[str]) -> tuple[dict[str, str | None], list[str]]:
    found, rest = split_global_flags(args)
    return dict(found), rest


def _data(stdout: str) -> dict[str, Any]:
    try:
        envelope = json.loads(stdout)
    except ValueError:
        return {}
    if not isinstance(envelope, dict) or envelope.get("success") is not True:
        return {}
    data = envelope.get("data")
    return data if isinstance(data, dict) else {}


def _target_id(stdout: str) -> str | None:
    target = _data(stdout).get("targetId")
    return target if isinstance(target, str) and target else None


def _bound_blank_tab(stdout: str) -> str | None:
    """The page the pinned attach opened: the active tab, last in the list, still blank."""
    tabs = _data(stdout).get("tabs")
    if not isinstance(tabs, list) or not tabs or not isinstance(tabs[-1], dict):
        return None
    last = tabs[-1]
    target = last.get("targetId")
    fresh = last.get("active") is True and last.get("url") == "about:blank"
    return target if fresh and isinstance(target, str) and target else None


def _opens_tab(rest: Sequence[str]) -> bool:
    return list(rest[:2]) == ["tab", "new"] or "--new-tab" in rest


@dataclass
class RemoteTabs:
    """Per-conversation record of the tabs opened in the remote browser."""

    opened: dict[Ident, list[str]] = field(default_factory=dict)

    async def before(self, args: Sequence[str], directory: str, run: Run) -> None:
        """Open this session's own tab on its first spawn; close its tabs before a `close`."""
        flags, rest = _words(args)
        namespace, session = flags.get("--namespace"), flags.get("--session")
        if rest[:1] == ["close"]:
            if "--all" in rest:
                idents = [i for i in self.opened if i[0] == directory and i[1] == namespace]
            else:
                idents = [] if session is None else [(directory, namespace, session)]
            for ident in idents:
                await self._close_tabs(ident, run)
            return
        if session is None or set(flags) & CALLER_ATTACH:
            return
        ident = (directory, namespace, session)
        if ident in self.opened:
            return
        self.opened[ident] = []
        target = _bound_blank_tab(await run(["--json", "tab", "list"], namespace, session))
        if target is not None:
            self.opened[ident].append(target)

    def after(self, args: Sequence[str], directory: str, stdout: str) -> None:
        """Remember a tab the call opened."""
        flags, rest = _words(args)
        session = flags.get("--session")
        ident = (directory, flags.get("--namespace"), session or "")
        if session is None or ident not in self.opened or not _opens_tab(rest):
            return
        target = _target_id(stdout)
        if target is not None and target not in self.opened[ident]:
            self.opened[ident].append(target)

    async def _close_tabs(self, ident: Ident, run: Run) -> None:
        for target in self.opened.pop(ident, []):
            await run(["--json", "tab", "close", target], ident[1], ident[2])
