"""Results of `agent_browser_electron`: one shape for every action.

`details.electron` carries the action's lifecycle data (apps, launch, statuses, targets,
probe, cleanup, failure diagnostics) and `details.compiledElectron` the redacted action plan,
next to the canonical observation fields every tool has. Recovery next actions name this tool
with flat params for status/probe/cleanup and `agent_browser` for native tab/URL/ref work.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from agent_browser_tools.redaction import redact_text, redact_url
from agent_browser_tools.results import response
from agent_browser_tools.results.categories import FailureCategory, SuccessCategory
from agent_browser_tools.results.next_actions import NextAction
from agent_browser_tools.results.observation import Observation
from agent_browser_tools.results.present import render_prose
from agent_browser_tools.results.tool_result import ToolResult
from agent_browser_tools.state.models import AppLaunch
from agent_browser_tools.tools.electron.schema import NAME


def finish(
    obs: Observation,
    electron: Mapping[str, Any],
    compiled: Mapping[str, Any],
    lines: Sequence[str] = (),
) -> ToolResult:
    """The tool result: `lines` (what happened), then the observation's never-cut tail."""
    body = list(lines)
    if not obs.success and obs.error:
        body.insert(0, f"Error: {obs.error}")
    _body, tail = render_prose(obs, ())
    text = "\n".join(part for part in (*body, tail) if part)
    details = {**obs.to_dict(), "electron": dict(electron), "compiledElectron": dict(compiled)}
    return response.from_observation(obs, text=text, details=details)


def ok(category: SuccessCategory = SuccessCategory.COMPLETED, summary: str = "") -> Observation:
    return Observation(success=True, success_category=category, summary=summary or None)


def failed(category: FailureCategory, error: str) -> Observation:
    return Observation(success=False, failure_category=category, error=redact_text(error))


def action(action_id: str, reason: str, params: dict[str, Any], safety: str = "") -> NextAction:
    """A next action on this tool (flat params)."""
    return NextAction(id=action_id, reason=reason, params=params, safety=safety or None, tool=NAME)


def browser(action_id: str, reason: str, launch: AppLaunch, *argv: str) -> NextAction:
    """A native next action on the launch's own session."""
    params = {"args": ["--session", launch.session.session, *argv]}
    return NextAction(id=action_id, reason=reason, params=params)


def recovery(launch: AppLaunch) -> list[NextAction]:
    """What to do when the app or its target is gone: inspect, clean up, relaunch."""
    return [
        action(
            "electron-status",
            "Inspect the launch's process, port, profile and targets.",
            {"action": "status", "launchId": launch.launch_id},
        ),
        action(
            "electron-cleanup",
            "Close the session, stop what is left of the app and remove its profile.",
            {"action": "cleanup", "launchId": launch.launch_id},
        ),
        action(
            "electron-relaunch",
            "Start the app again in a new isolated profile (after cleanup).",
            {"action": "launch", "executablePath": launch.executable},
            safety="A new launch has a new launchId and sessionName; old refs do not carry over.",
        ),
        browser(
            "list-app-tabs",
            "List the session's targets if the app is still up.",
            launch,
            "tab",
            "list",
        ),
    ]


def live_actions(launch: AppLaunch) -> list[NextAction]:
    """Follow-ups on a healthy launch."""
    return [
        browser("snapshot-app", "Read the app's interactive refs.", launch, "snapshot", "-i"),
        action(
            "electron-probe",
            "Verify the URL and read title, tabs and refs of the app.",
            {"action": "probe", "launchId": launch.launch_id},
        ),
        action(
            "electron-cleanup",
            "Close the session, stop the app and remove its profile when done.",
            {"action": "cleanup", "launchId": launch.launch_id},
        ),
    ]


def targets_view(targets: Sequence[Mapping[str, str]] | None) -> list[dict[str, str]]:
    """CDP targets with redacted URLs."""
    return [
        {
            "id": t.get("id", ""),
            "type": t.get("type", ""),
            "title": redact_text(t.get("title", "")),
            "url": redact_url(t.get("url", "")),
        }
        for t in targets or []
    ]
