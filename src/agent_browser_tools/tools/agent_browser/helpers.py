"""The wrapper's own helper calls (probes, filters, reads) on a call's browser session.

Helpers address exactly the session the call used and repeat its launch flags and daemon
settings (`--confirm-actions`, `--debug`, `--no-auto-dialog`): those the call itself gave and
those the wrapper repeats for it (see `planning.sessions._relaunch_guard`). A helper that
omitted them would make the engine replace the daemon: a blank browser under the agent's feet
and its pending confirmations gone.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from agent_browser_tools.engine.envelope import BatchRow, Envelope, OutputMode, parse_outcome
from agent_browser_tools.planning.plan import ExecutionPlan
from agent_browser_tools.planning.session_scope import acts_on_whole_dir
from agent_browser_tools.planning.sessions import flag_tokens
from agent_browser_tools.runtime import Runtime
from agent_browser_tools.state.models import SessionKey
from agent_browser_tools.tools.agent_browser.batches import eval_merge
from agent_browser_tools.tools.agent_browser.page import webmcp


def session_args(key: SessionKey, launch: tuple[str, ...] = ()) -> list[str]:
    """`--json [--namespace NS] --session NAME [launch flags...]`."""
    args = ["--json"]
    if key.namespace is not None:
        args += ["--namespace", key.namespace]
    return [*args, "--session", key.session, *launch]


def helper_args(plan: ExecutionPlan) -> list[str] | None:
    """Prefix for a helper call on the plan's session, or None for sessionless calls."""
    key = plan.session.key
    if key is None:
        return None
    inject = plan.session.inject
    repeated = tuple(inject[2:]) if inject[:1] == ("--session",) else tuple(inject)
    own = [token for flag in plan.session.launch_flags for token in flag_tokens(flag)]
    return session_args(key, (*repeated, *own))


async def helper_call(
    rt: Runtime, plan: ExecutionPlan, args: Sequence[str], *, stdin: str | None = None
) -> Envelope | None:
    """Run one helper command (JSON mode) on the plan's session; None for sessionless calls."""
    prefix = helper_args(plan)
    if prefix is None:
        return None
    raw = await rt.spawn(
        [*prefix, *args],
        timeout_ms=rt.settings.process_timeout_ms,
        stdin=stdin,
        session=plan.session.key,
        whole_dir=acts_on_whole_dir(plan),
    )
    try:
        envelope = parse_outcome(raw, OutputMode.JSON)
    finally:
        raw.discard_stdout()  # raw, unredacted engine output: never kept
    webmcp.note_helper(envelope)  # a page-tool catalog update seen by a helper is the call's
    return envelope


async def helper_batch(
    rt: Runtime, plan: ExecutionPlan, rows: Sequence[Sequence[str]], *, bail: bool = False
) -> Envelope | None:
    """One helper `batch` (fail-fast with `bail`) of the wrapper's own rows; its consecutive
    page scripts run as one `eval` (`eval_merge`) and answer one row each, as sent."""
    sent, groups = eval_merge.merge(rows, bail=bail)
    args = ["batch", "--bail"] if bail else ["batch"]
    envelope = await helper_call(rt, plan, args, stdin=json.dumps(sent))
    if envelope is None or envelope.rows is None:
        return envelope
    return replace(envelope, rows=eval_merge.expand(rows, groups, envelope.rows, bail=bail))


async def helper_rows(
    rt: Runtime, plan: ExecutionPlan, rows: Sequence[Sequence[str]]
) -> Sequence[BatchRow]:
    """The answered rows of one plain helper `batch` (not fail-fast); none when it could not
    run (a sessionless call, an engine failure)."""
    envelope = await helper_call(rt, plan, ["batch"], stdin=json.dumps(rows))
    return (envelope.rows or ()) if envelope is not None else ()


async def helper_data(
    rt: Runtime, plan: ExecutionPlan, args: Sequence[str], *, stdin: str | None = None
) -> Any:
    """The `data` of a successful helper call, else None (a failed helper never raises)."""
    envelope = await helper_call(rt, plan, args, stdin=stdin)
    return envelope.data if envelope is not None and envelope.success else None


async def current_page_url(rt: Runtime, plan: ExecutionPlan) -> str | None:
    """The session's current page URL from one `get url` (never assumed from memory)."""
    data = await helper_data(rt, plan, ["get", "url"])
    url = data.get("url") if isinstance(data, Mapping) else None
    return url if isinstance(url, str) and url else None
