"""`agent_browser_network_source`: failed requests traced to candidate sources.

The flat input compiles to one read-only native `batch` (`compile`), run by the ordinary
`agent_browser` executor, so sessions, policy, journal and redaction apply unchanged. A post
hook reads the (already redacted) rows, picks the failed ones, and searches the execution
directory for their URL literals (`workspace`, off the event loop). The batch reads the request
buffer only: a request's URL is evidence, never the page, so the session's page target stays
where the agent left it.
"""

from __future__ import annotations

import asyncio

from agent_browser_tools.planning.plan import ExecutionPlan
from agent_browser_tools.results import next_actions as na
from agent_browser_tools.results import response
from agent_browser_tools.results.diagnostics import safe_request_id
from agent_browser_tools.results.observation import Observation
from agent_browser_tools.results.tool_result import ToolResult
from agent_browser_tools.runtime import Runtime
from agent_browser_tools.tools import agent_browser
from agent_browser_tools.tools.agent_browser import Hooks, PostHook
from agent_browser_tools.tools.network_source import analyze, lookup, workspace
from agent_browser_tools.tools.network_source.compile import NetworkSourceRejected, compile_lookup
from agent_browser_tools.tools.network_source.schema import ALLOWED, NAME, NetworkSourceInput


async def run(rt: Runtime, inp: NetworkSourceInput) -> ToolResult:
    """Compile and run one (validated) lookup; returns its `ToolResult`."""
    try:
        compiled = compile_lookup(inp)
    except NetworkSourceRejected as exc:
        return response.rejected(f"{NAME} input rejected: {exc}. {NAME} accepts {ALLOWED}.")
    call = agent_browser.compiled_call(
        compiled.args,
        compiled.stdin,
        session_mode=inp.sessionMode,
        timeout_ms=inp.timeoutMs,
        output_path=inp.outputPath,
    )
    hooks = Hooks(tool=NAME, post=_post(inp.maxWorkspaceFiles), details=compiled.details())
    result: ToolResult = await agent_browser.run(rt, call, hooks=hooks)
    return result


def _post(max_files: int) -> PostHook:
    async def post(rt: Runtime, plan: ExecutionPlan, obs: Observation) -> None:
        steps = obs.extra.get("batchSteps")
        if not isinstance(steps, list) or not steps:
            return  # nothing ran (refused, timed out before output): keep the executor's answer
        rows = analyze.rows_from_steps(steps)
        failed = analyze.failed_requests(rows.rows)
        needles = analyze.needles_for(failed)
        search = workspace.SearchOutcome()
        if needles:
            search = await asyncio.to_thread(
                workspace.search,
                rt.execution_dir,
                needles,
                max_files=max_files,
                excluded=rt.file_roots.walk_excluded,
            )
        found = lookup.build(rows, failed, search, searched=bool(needles))
        obs.extra["networkSourceLookup"] = found
        head = f"Network source lookup ({found['status']}): {found['summary']}"
        obs.summary = "\n".join([head, *lookup.candidate_lines(found)])
        obs.next_actions += _follow_ups(plan, failed)

    return post


def _follow_ups(plan: ExecutionPlan, failed: list[analyze.FailedRequest]) -> list[na.NextAction]:
    """Full native detail of the first failed request (or a clean repro), then HAR capture."""
    prefix = na.session_prefix(plan.session.key, not plan.session.used_implicit_session)
    ident = next((i for f in failed if (i := safe_request_id(f.row)) is not None), None)
    return na.network_request_actions(prefix, ident)
