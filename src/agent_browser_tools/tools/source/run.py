"""`agent_browser_source`: candidate source locations for a UI element, from local evidence.

The flat query compiles to one native `batch` (`compile`) that runs through the ordinary
`agent_browser` executor, so sessions, guards, journal and redaction apply. A post hook, inside
the same identity lock, reads what the batch found, inspects the React fibers that can explain
it (one read-only helper batch of `react inspect` rows), searches the workspace (`workspace`)
and assembles `details.sourceLookup` (`lookup`). React needs the browser launched with
`--enable react-devtools`; when it was not, the result says so and offers the exact fresh
launch instead of failing a lookup that still found DOM or workspace candidates.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Mapping, Sequence
from typing import Any

from agent_browser_tools.planning.plan import ExecutionPlan
from agent_browser_tools.redaction import redact_url
from agent_browser_tools.results import response
from agent_browser_tools.results.categories import FailureCategory, SuccessCategory
from agent_browser_tools.results.next_actions import NextAction
from agent_browser_tools.results.observation import Observation
from agent_browser_tools.results.tool_result import ToolResult
from agent_browser_tools.runtime import Runtime
from agent_browser_tools.tools import agent_browser
from agent_browser_tools.tools.agent_browser import Hooks, PostHook
from agent_browser_tools.tools.source import lookup, react, workspace
from agent_browser_tools.tools.source.compile import (
    ALLOWED,
    BATCH_ARGS,
    NAME,
    CompiledSource,
    SourceInput,
    SourceRejected,
    compile_source,
)
from agent_browser_tools.tools.source.lookup import Evidence

REQUIRED_ROLES = frozenset({"visible", "html", "inspect"})
"""Steps the caller asked for: their failure fails the lookup. `react tree` is the wrapper's
own discovery step, so its failure is a limitation while other evidence still answers."""
MAX_NEEDLES = 8


async def run(rt: Runtime, inp: SourceInput) -> ToolResult:
    """Compile and run one (validated) source lookup."""
    try:
        compiled = compile_source(inp)
    except SourceRejected as exc:
        return response.rejected(f"{NAME} input rejected: {exc}. {NAME} accepts {ALLOWED}.")
    call = agent_browser.compiled_call(
        list(BATCH_ARGS),
        compiled.stdin,
        session_mode=inp.sessionMode,
        timeout_ms=inp.timeoutMs,
        output_path=inp.outputPath,
    )
    hooks = Hooks(tool=NAME, post=_post(compiled, inp), details=compiled.details())
    result: ToolResult = await agent_browser.run(rt, call, hooks=hooks)
    return result


def _post(compiled: CompiledSource, inp: SourceInput) -> PostHook:
    async def post(rt: Runtime, plan: ExecutionPlan, obs: Observation) -> None:
        rows = obs.extra.get("batchSteps")
        if not isinstance(rows, list) or not rows:
            return  # nothing ran (timeout, missing engine): the executor's verdict stands
        by_role = _rows_by_role(compiled, rows)
        ev = Evidence(root=rt.execution_dir.resolve(), selector=compiled.selector)
        fibers = _read_batch(ev, compiled, by_role)
        await _inspect(rt, plan, compiled, ev, fibers)
        needles = _needles(compiled, ev)
        ev.scan = await asyncio.to_thread(
            workspace.scan,
            ev.root,
            needles,
            max_files=inp.maxWorkspaceFiles,
            excluded=rt.file_roots.walk_excluded,
        )
        found = lookup.build(ev)
        obs.extra["sourceLookup"] = found
        _verdict(obs, compiled, by_role, found)
        if ev.react == react.HOOK_MISSING:
            obs.next_actions += await _relaunch_actions(rt, plan, compiled)

    return post


def _rows_by_role(compiled: CompiledSource, rows: Sequence[Any]) -> dict[str, dict[str, Any]]:
    out: dict[str, dict[str, Any]] = {}
    for step, row in zip(compiled.steps, rows, strict=False):
        if isinstance(row, dict):
            out[step.role] = row
    return out


def _read_batch(
    ev: Evidence, compiled: CompiledSource, rows: Mapping[str, Mapping[str, Any]]
) -> list[react.Fiber]:
    """DOM facts, the React tree (or why there is none) and the requested fiber."""
    visible = rows.get("visible")
    if visible is not None and visible.get("success"):
        ev.visible = bool(_result(visible).get("visible"))
    html = rows.get("html")
    if html is not None and html.get("success") and isinstance(_result(html).get("html"), str):
        ev.html = _result(html)["html"]
    tree = rows.get("tree")
    fibers: list[react.Fiber] = []
    if tree is not None and tree.get("success"):
        fibers = react.parse_tree(str(_result(tree).get("tree", "")))
    elif tree is not None:
        ev.react_error = str(tree.get("error") or "")
        ev.react = react.react_failure(ev.react_error) or "failed"
    inspect = rows.get("inspect")
    if inspect is not None and inspect.get("success") and compiled.fiber_id is not None:
        ev.fiber = react.parse_inspect(compiled.fiber_id, _result(inspect))
    return fibers


def _result(row: Mapping[str, Any]) -> Mapping[str, Any]:
    result = row.get("result")
    return result if isinstance(result, Mapping) else {}


async def _inspect(
    rt: Runtime,
    plan: ExecutionPlan,
    compiled: CompiledSource,
    ev: Evidence,
    fibers: Sequence[react.Fiber],
) -> None:
    """Inspect the host fibers that may be the selector's element and the named component."""
    if not fibers:
        return
    parts = react.selector_parts(compiled.selector) if compiled.selector else None
    hosts = react.host_fibers_for(fibers, parts) if parts is not None else []
    named = react.components_named(fibers, compiled.component) if compiled.component else []
    ids = [f.id for f in [*hosts, *named]]
    found = await _inspect_many(rt, plan, ids)
    ev.hosts_inspected = len(hosts)
    text = ev.html if ev.html is not None and "<" not in ev.html else None
    for host in hosts:
        inspection = found.get(host.id)
        why = react.element_match(inspection, parts, text) if inspection and parts else None
        if inspection is not None and why is not None:
            ev.element, ev.element_match = inspection, why
            break
    ev.components = [found[f.id] for f in named if f.id in found]


async def _inspect_many(
    rt: Runtime, plan: ExecutionPlan, ids: Sequence[int]
) -> dict[int, react.Inspection]:
    """`react inspect` for each id, in one read-only helper batch on the call's session."""
    if not ids:
        return {}
    rows = json.dumps([["react", "inspect", str(i)] for i in ids])
    envelope = await agent_browser.helper_call(rt, plan, ["batch"], stdin=rows)
    if envelope is None or envelope.rows is None:
        return {}
    out = {}
    for fiber_id, row in zip(ids, envelope.rows, strict=False):
        inspection = react.parse_inspect(fiber_id, row.result) if row.success else None
        if inspection is not None:
            out[fiber_id] = inspection
    return out


def _needles(compiled: CompiledSource, ev: Evidence) -> list[workspace.Needle]:
    """What to search the workspace for: named components, the element's owner, its literals."""
    names: list[str] = []
    if compiled.component:
        names.append(compiled.component)
    for inspection in (ev.element, ev.fiber):
        if inspection is None:
            continue
        if inspection.name[:1].isupper():
            names.append(inspection.name)
        owner = react.owner_component(inspection)
        if owner is not None:
            names.append(owner)
    needles = [n for name in dict.fromkeys(names) for n in workspace.component_needles(name)]
    if compiled.selector is not None:
        parts = react.selector_parts(compiled.selector)
        needles += [workspace.attribute_needle("id", v) for v in parts.ids]
        needles += [workspace.attribute_needle(a, v) for a, v in parts.attrs]
        needles += [workspace.class_needle(v) for v in parts.classes]
    return needles[:MAX_NEEDLES]


def _verdict(
    obs: Observation,
    compiled: CompiledSource,
    rows: Mapping[str, Mapping[str, Any]],
    found: Mapping[str, Any],
) -> None:
    """Fail on a failed step the caller asked for, or when nothing could answer; else pass."""
    obs.summary = "\n".join([str(found["summary"]), *lookup.candidate_lines(found)])
    failed = [rows[s.role] for s in compiled.steps if s.role in REQUIRED_ROLES and s.role in rows]
    failed = [row for row in failed if not row.get("success")]
    if failed:
        row = failed[0]
        obs.success = False
        obs.success_category = None
        obs.failure_category = FailureCategory(row.get("failureCategory", "upstream-error"))
        obs.error = f"step {row.get('step')} ({' '.join(row.get('command', []))}) failed: " + str(
            row.get("error")
        )
        obs.extra["batchFailure"] = {"failedStep": dict(row)}
        return
    if found["status"] == "unsupported":
        tree = rows.get("tree", {})
        obs.success = False
        obs.success_category = None
        obs.failure_category = FailureCategory(tree.get("failureCategory", "upstream-error"))
        obs.error = f"{found['summary']} {' '.join(found['limitations'][:1])}".strip()
        return
    obs.success = True
    obs.success_category = SuccessCategory.COMPLETED
    obs.failure_category = None
    obs.error = None
    obs.extra.pop("batchFailure", None)
    obs.warnings += [str(note) for note in found["limitations"]]


async def _relaunch_actions(
    rt: Runtime, plan: ExecutionPlan, compiled: CompiledSource
) -> list[NextAction]:
    """The exact fresh launch with React DevTools on the current page, then the same lookup."""
    if plan.session.ownership != "managed":
        return []
    url = await agent_browser.current_page_url(rt, plan)
    if url is None or url in ("about:blank", "") or redact_url(url) != url:
        return []  # only echo a URL that carries nothing redaction would hide
    return [
        NextAction(
            id="relaunch-with-react-devtools",
            reason="React inspection needs `--enable react-devtools` at launch: open the same "
            "page in a fresh browser with it.",
            safety="Starts a new browser; page state (form input, sign-in) is not carried over.",
            params={"args": ["--enable", "react-devtools", "open", url], "sessionMode": "fresh"},
        ),
        NextAction(
            id="rerun-source-lookup",
            tool=NAME,
            reason="Repeat this lookup once the page is open with React DevTools.",
            params=dict(compiled.query),
        ),
    ]
