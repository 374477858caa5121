"""`launch`: start a verified Electron app in a private profile and attach the engine to it.

Order, and why:

1. Everything that can refuse runs before anything exists (operator capability, fields,
   `appArgs`, the path's file roots, Electron evidence, allow/deny), so a refused or
   cancelled-before-spawn launch opens nothing.
2. The record is journaled before the spawn, naming the private launch dir (under the state
   dir: no tool call can reach the app's cookies there), so a server that dies mid-launch
   still knows what to clean.
3. The app starts with `--user-data-dir=<that profile>` and `--remote-debugging-port=0`: the
   OS picks a free port, which the app writes to `DevToolsActivePort` in the profile. No port
   is guessed, so another program's port is never attached to.
4. Readiness: the port answers and a CDP target of `targetType` exists, within the budget.
5. The engine attaches with `connect <port>` through the ordinary executor, in a session the
   launch owns (`el-…`); that one argv passes the operator-only `connect` rule by a
   `WrapperGrant`, never a model argv. A `get url` then verifies the active target.
6. Handoff: `snapshot -i` (default), `tab list`, or nothing (`connect`).

Any failure or cancellation after step 2 tears the launch down (session, app tree, profile).
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from pathlib import Path
from typing import Any

from agent_browser_tools.engine import apps
from agent_browser_tools.planning.policy import WrapperGrant
from agent_browser_tools.redaction import redact_argv, redact_text, redact_url
from agent_browser_tools.results.categories import FailureCategory
from agent_browser_tools.results.tool_result import ToolResult
from agent_browser_tools.runtime import Runtime
from agent_browser_tools.settings import ENV_PREFIX
from agent_browser_tools.state.models import AppLaunch
from agent_browser_tools.tools import agent_browser
from agent_browser_tools.tools.agent_browser import Hooks
from agent_browser_tools.tools.electron import present, records, resolve, rules, teardown
from agent_browser_tools.tools.electron.evidence import App
from agent_browser_tools.tools.electron.schema import NAME, ElectronInput

DROPPED_ENV = ("ELECTRON_RUN_AS_NODE", "NODE_OPTIONS", "EXA_API_KEY", "BRAVE_API_KEY")
"""`ELECTRON_RUN_AS_NODE` would turn the app into a plain Node.js runtime and `NODE_OPTIONS`
can preload code; the wrapper's own settings and credentials are not the app's business."""
POLL_S = 0.1


class LaunchFailed(Exception):
    def __init__(self, message: str, category: FailureCategory, diagnostics: dict[str, Any]):
        super().__init__(message)
        self.category = category
        self.diagnostics = diagnostics


def app_env(rt: Runtime) -> dict[str, str]:
    return {
        key: value
        for key, value in rt.settings.env.items()
        if not key.startswith((ENV_PREFIX, "AGENT_BROWSER_")) and key not in DROPPED_ENV
    }


def app_argv(app: App, launch: AppLaunch, app_args: list[str]) -> list[str]:
    return [
        str(app.executable),
        f"--user-data-dir={launch.profile_dir}",
        "--remote-debugging-port=0",
        *app_args,
    ]


def compiled(app: App, launch: AppLaunch, inp: ElectronInput, budget_ms: int) -> dict[str, Any]:
    session = launch.session.session
    handoff = inp.handoff or "snapshot"
    steps = {"snapshot": ["snapshot", "-i"], "tabs": ["tab", "list"], "connect": []}[handoff]
    return {
        "action": "launch",
        "argv": redact_argv(app_argv(app, launch, list(inp.appArgs or []))),
        "connect": ["--session", session, "connect", "<DevToolsActivePort>"],
        "verify": ["--session", session, "get", "url"],
        "handoff": ["--session", session, *steps] if steps else None,
        "targetType": launch.target_type,
        "readinessTimeoutMs": budget_ms,
    }


async def run_launch(rt: Runtime, inp: ElectronInput) -> ToolResult:
    """Resolve, check, then launch (`resolve` raises the refusals; see the module docstring)."""
    rules.check_app_args(inp.appArgs or [], rt.policy.electron_app_switches)
    resolve.check_path_args(rt, list(inp.appArgs or []))
    app = await resolve.app_for(rt, inp)
    refusal = rules.policy_refusal(inp.allow, inp.deny, app.subjects())
    if refusal is not None:
        raise resolve.Refusal(f"{app.name} is not launched: {refusal}.")
    budget = rules.launch_budget_ms(inp.timeoutMs)
    launch = records.new_launch(rt, app.name, str(app.executable), inp.targetType or "page")
    plan = compiled(app, launch, inp, budget)
    try:
        launch = records.save(rt, launch)
        launch, targets = await _start(rt, app, launch, inp, budget)
        attached = await _attach(rt, launch)
        handoff = await _handoff(rt, launch, inp.handoff or "snapshot")
        await _still_attached(launch)
    except LaunchFailed as exc:
        return await _failed(rt, launch, plan, exc)
    except BaseException:
        await asyncio.shield(_abandon(rt, launch))
        raise
    return _launched(launch, plan, app, targets, attached, handoff, inp.timeoutMs)


async def _start(
    rt: Runtime, app: App, launch: AppLaunch, inp: ElectronInput, budget_ms: int
) -> tuple[AppLaunch, list[dict[str, str]]]:
    argv = app_argv(app, launch, list(inp.appArgs or []))
    log_dir = records.launch_dir(rt, launch.launch_id)
    try:
        started = await apps.start_app(argv, env=app_env(rt), cwd=rt.cwd, log_dir=log_dir)
    except OSError as exc:
        raise LaunchFailed(
            f"{app.executable} could not be started: {exc}", FailureCategory.UPSTREAM_ERROR, {}
        ) from None
    launch = records.save(rt, launch, pid=started.pid, pid_start=started.start)
    port, targets = await _ready(launch, budget_ms, log_dir)
    return records.save(rt, launch, state="running", port=port), targets


async def _ready(
    launch: AppLaunch, budget_ms: int, log_dir: Path
) -> tuple[int, list[dict[str, str]]]:
    deadline = time.monotonic() + budget_ms / 1000
    port: int | None = None
    targets: list[dict[str, str]] | None = None
    assert launch.pid is not None
    while True:
        if not await asyncio.to_thread(apps.is_alive, launch.pid, launch.pid_start):
            raise _startup_failure("the app exited during startup", log_dir, port, targets)
        port = apps.read_port(Path(launch.profile_dir))
        if port is not None and await apps.port_open(port):
            targets = await apps.cdp_targets(port)
            if records.matching_targets(targets, launch.target_type):
                return port, targets or []
        if time.monotonic() > deadline:
            reason = f"the app was not ready within {budget_ms} ms"
            raise _startup_failure(reason, log_dir, port, targets, FailureCategory.TIMEOUT)
        await asyncio.sleep(POLL_S)


def _startup_failure(
    reason: str,
    log_dir: Path,
    port: int | None,
    targets: list[dict[str, str]] | None,
    category: FailureCategory = FailureCategory.UPSTREAM_ERROR,
) -> LaunchFailed:
    tails = {k: redact_text(v) for k, v in apps.output_tails(log_dir).items()}
    detail = "no DevToolsActivePort yet" if port is None else f"debug port {port}"
    diagnostics = {"port": port, "targets": present.targets_view(targets), "outputTails": tails}
    return LaunchFailed(f"{reason} ({detail}).", category, diagnostics)


async def _attach(rt: Runtime, launch: AppLaunch) -> dict[str, Any]:
    port = str(launch.port)
    params = {"args": ["--session", launch.session.session, "connect", port]}
    hooks = Hooks(tool=NAME, grant=WrapperGrant("connect", (port,)))
    result = await agent_browser.run(rt, params, hooks=hooks)
    if result.is_error:
        raise LaunchFailed(
            f"the engine could not attach to debug port {port}: {result.text}",
            FailureCategory.UPSTREAM_ERROR,
            {"connect": result.details.get("error")},
        )
    # After `connect` the engine's active target is unverified: read it, so the handoff and
    # the model's first calls act on a page the wrapper has seen.
    params = {"args": ["--session", launch.session.session, "get", "url"]}
    verified = await agent_browser.run(rt, params, hooks=Hooks(tool=NAME))
    url = verified.details.get("data", {}) if not verified.is_error else {}
    return {
        "sessionName": launch.session.session,
        "port": launch.port,
        "url": redact_url(str(url.get("url", ""))) if isinstance(url, dict) else None,
        "verified": not verified.is_error,
    }


async def _handoff(rt: Runtime, launch: AppLaunch, handoff: str) -> ToolResult | None:
    steps = {"snapshot": ["snapshot", "-i"], "tabs": ["tab", "list"]}.get(handoff)
    if steps is None:
        return None
    params = {"args": ["--session", launch.session.session, *steps]}
    result: ToolResult = await agent_browser.run(rt, params, hooks=Hooks(tool=NAME))
    return result


async def _still_attached(launch: AppLaunch) -> None:
    """Post-command check: the app and its endpoint must have survived attach and handoff."""
    problems = (await records.inspect(launch, targets=False)).problems(launch)
    if problems:
        reason = f"the app was lost right after attaching: {'; '.join(problems)}"
        raise LaunchFailed(reason, FailureCategory.TAB_DRIFT, {"problems": problems})


async def _abandon(rt: Runtime, launch: AppLaunch) -> None:
    """Cancellation (or a crash) after the record existed: tear everything down."""
    current = rt.log.state.app_launches.get(launch.launch_id, launch)
    with contextlib.suppress(Exception):
        if current.pid is None:
            teardown.remove_unstarted(rt, current)
        else:
            await teardown.teardown(rt, current, rt.settings.session_close_timeout_ms)


async def _failed(
    rt: Runtime, launch: AppLaunch, plan: dict[str, Any], exc: LaunchFailed
) -> ToolResult:
    current = rt.log.state.app_launches.get(launch.launch_id, launch)
    cleaned = await teardown.teardown(rt, current, rt.settings.session_close_timeout_ms)
    obs = present.failed(exc.category, f"launch of {launch.app_name} failed: {exc}")
    if not cleaned.complete:
        obs.next_actions += present.recovery(current)
    electron = {
        "launch": records.record_view(rt.log.state.app_launches[launch.launch_id]),
        "failure": exc.diagnostics,
        "cleanup": cleaned.to_dict(),
    }
    return present.finish(obs, electron, plan)


def _launched(
    launch: AppLaunch,
    plan: dict[str, Any],
    app: App,
    targets: list[dict[str, str]],
    attached: dict[str, Any],
    handoff: ToolResult | None,
    timeout_ms: int | None,
) -> ToolResult:
    obs = present.ok(
        summary=f"Launched {app.name} as {launch.launch_id}; session "
        f"{launch.session.session} is attached."
    )
    obs.next_actions += present.live_actions(launch)
    if timeout_ms is not None and timeout_ms > rules.LAUNCH_CAP_MS:
        obs.warnings.append(f"timeoutMs was capped at {rules.LAUNCH_CAP_MS} ms for launch.")
    lines = [
        f"Launched {app.name} (pid {launch.pid}, debug port {launch.port}) in a temporary "
        f"profile; launchId {launch.launch_id}, sessionName {launch.session.session}.",
        f"Use agent_browser with --session {launch.session.session}; clean up with "
        f'agent_browser_electron {{"action": "cleanup", "launchId": "{launch.launch_id}"}}.',
    ]
    electron: dict[str, Any] = {
        "launch": records.record_view(launch),
        "app": app.to_dict(),
        "targets": present.targets_view(records.matching_targets(targets, "any")),
        "attach": attached,
    }
    if handoff is not None:
        electron["handoff"] = {
            k: handoff.details.get(k)
            for k in ("success", "failureCategory", "error", "refSnapshot", "data")
        }
        lines += ["", "Handoff:", handoff.text]
        if handoff.is_error:
            obs.warnings.append("The handoff read failed; the app is attached: probe or retry.")
    return present.finish(obs, electron, plan, lines)
