"""`agent_browser_electron`: wrapper-owned desktop (Electron) app lifecycle.

Actions: `list` (bounded discovery), `launch` (verified Electron app, private profile, OS-chosen
debug port, attached through the engine's `connect`), `status`, `probe`, `cleanup`. Every
engine command runs through the `agent_browser` executor, so sessions, journal, redaction
and policy apply as for any call.

Operator capability: discovering and launching host programs goes past the browser the
operator configured, so `list` and `launch` run only when the operator turned on `[policy]
allow_electron = true` (or `AGENT_BROWSER_TOOLS_ALLOW_ELECTRON=1`); it is off by default, like
every other operator-only launch option (DESIGN "Security model"). Enabling the tool itself
still works (the model learns it exists and what to ask for), and `status`, `probe` and
`cleanup` always work: they only touch what this conversation already launched, and cleanup
must stay possible after the operator turns the capability off.
"""

from __future__ import annotations

import asyncio
import dataclasses
import sys
from typing import Any

from agent_browser_tools.planning.file_access import PathRefused, judge_path
from agent_browser_tools.planning.file_config import FILE_ROOTS_ENV, ROOTS_KEY
from agent_browser_tools.planning.policy import (
    ALLOW_ELECTRON_ENV,
    ALLOW_ELECTRON_KEY,
    PolicyBlocked,
)
from agent_browser_tools.results import response
from agent_browser_tools.results.categories import FailureCategory, SuccessCategory
from agent_browser_tools.results.output_file import OutputTarget, resolve_output_path
from agent_browser_tools.results.output_file import save as save_output
from agent_browser_tools.results.tool_result import TextBlock, ToolResult
from agent_browser_tools.runtime import Runtime
from agent_browser_tools.taxonomy import PathUse
from agent_browser_tools.tools.electron import discovery, lifecycle, present, resolve, rules
from agent_browser_tools.tools.electron.evidence import NotElectron
from agent_browser_tools.tools.electron.launch import run_launch
from agent_browser_tools.tools.electron.schema import ALLOWED, NAME, ElectronInput


def capability_blocked(action: str) -> PolicyBlocked:
    return PolicyBlocked(
        f"{action} of desktop apps is off on this server: launching host programs is an "
        f"operator-allowed capability. The operator turns it on with {ALLOW_ELECTRON_KEY} = "
        f"true (or {ALLOW_ELECTRON_ENV}=1); status, probe and cleanup of existing launches "
        "always work.",
        rule="operator-capability",
        subject=f"electron {action}",
        allow_with=f"{ALLOW_ELECTRON_KEY} = true / {ALLOW_ELECTRON_ENV}=1",
    )


async def run(rt: Runtime, inp: ElectronInput) -> ToolResult:
    """Check the fields, then run one action; refusals become results, never exceptions."""
    params = inp.model_dump(exclude_none=True)
    try:
        rules.check_fields(inp)
        if inp.action in ("list", "launch") and not rt.policy.allow_electron:
            raise capability_blocked(inp.action)
        target = _output_target(rt, inp.outputPath)
        result = await _dispatch(rt, inp)
        return result if target is None else _saved(rt, result, target)
    except (rules.ElectronRejected, resolve.Refusal, NotElectron) as exc:
        return response.rejected(f"{NAME} input rejected: {exc} ({NAME} accepts {ALLOWED}).")
    except PolicyBlocked as exc:
        return response.policy_blocked(str(exc), params, exc.as_details())


def _output_target(rt: Runtime, raw: str | None) -> OutputTarget | None:
    """The `outputPath` destination, judged like any model-supplied write before anything
    runs (raises `PolicyBlocked` outside the file roots)."""
    if raw is None:
        return None
    try:
        target = resolve_output_path(raw, rt.cwd)
        judge_path(str(target.absolute), PathUse.WRITE_FILE, rt.file_roots)
    except ValueError as exc:
        raise rules.ElectronRejected(str(exc)) from None
    except PathRefused as exc:
        raise PolicyBlocked(
            f"outputPath {raw} is outside the file roots ({exc.reason}); use a path in "
            f"{rt.file_roots.describe()}.",
            rule="file-root",
            subject=raw,
            allow_with=f"{ROOTS_KEY} / {FILE_ROOTS_ENV}",
        ) from None
    return target


def _saved(rt: Runtime, result: ToolResult, target: OutputTarget) -> ToolResult:
    """`details.electron` (already redacted) written to `outputPath`; `details.outputFile`."""
    info = save_output(target, result.details.get("electron"), result.text, [], rt.cwd)
    line = (
        f"Saved the result data to {target.display}."
        if info["status"] == "saved"
        else (f"Warning: {info['error']}")
    )
    text = f"{result.text}\n{line}"
    return dataclasses.replace(
        result,
        content=(TextBlock(text=text), *result.content[1:]),
        details={**result.details, "outputFile": info},
    )


async def _dispatch(rt: Runtime, inp: ElectronInput) -> ToolResult:
    if inp.action == "list":
        return await list_apps(rt, inp)
    if inp.action == "launch":
        return await run_launch(rt, inp)
    if inp.action == "status":
        return await lifecycle.status(rt, inp)
    if inp.action == "probe":
        return await lifecycle.probe(rt, inp)
    return await lifecycle.cleanup(rt, inp)


async def list_apps(rt: Runtime, inp: ElectronInput) -> ToolResult:
    limit = rules.list_limit(inp.maxResults)
    compiled: dict[str, Any] = {
        "action": "list",
        "query": inp.query,
        "maxResults": limit,
        "platform": sys.platform,
    }
    if not discovery.supported():
        obs = present.failed(
            FailureCategory.VALIDATION_ERROR,
            "app discovery is unsupported on Windows; launch with a verifiable executablePath.",
        )
        return present.finish(obs, {"apps": [], "supported": False}, compiled)
    roots = discovery.host_roots(resolve.home(rt))
    compiled["roots"] = [str(p) for p in (*roots.folders, *roots.desktop_dirs, *roots.bundles)]
    found = await asyncio.to_thread(discovery.discover, roots, inp.query, limit)
    apps = []
    for app in found.apps:
        row = app.to_dict()
        if (note := discovery.sensitivity(app)) is not None:
            row["sensitivity"] = note
        apps.append(row)
    lines = [f"- {a['name']}: {a['executablePath']} {a.get('sensitivity', '')}" for a in apps]
    more = " (more exist: raise maxResults or add a query)" if found.truncated else ""
    head = f"{len(apps)} Electron app(s) found{more}"
    obs = present.ok(SuccessCategory.INSPECTION, head + ".")
    if not apps:
        lines.append("No Electron apps found in the scanned install roots.")
    electron = {"apps": apps, "truncated": found.truncated, "scannedDirs": found.scanned_dirs}
    return present.finish(obs, electron, compiled, [f"{head}:" if apps else "", *lines])


__all__ = ["NAME", "ElectronInput", "run"]
