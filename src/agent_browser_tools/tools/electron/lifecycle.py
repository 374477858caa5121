"""`status`, `probe` and `cleanup` of recorded launches.

`status` only reads (process table, profile, one-second CDP probes) and succeeds as an
inspection even for a lost app, so it stays usable for diagnosis. `probe` acts through the
engine, so it first proves the attachment is still the recorded one (pid, start time,
profile, advertised port, open endpoint) and checks again after its reads: a lost process or
target fails as `tab-drift` with recovery actions, never as a read of some other browser.
`cleanup` fails as `cleanup-failed` with the exact retry call when anything is left.
"""

from __future__ import annotations

from typing import Any

from agent_browser_tools.results.categories import FailureCategory, SuccessCategory
from agent_browser_tools.results.tool_result import ToolResult
from agent_browser_tools.runtime import Runtime
from agent_browser_tools.state.models import AppLaunch
from agent_browser_tools.tools import agent_browser
from agent_browser_tools.tools.agent_browser import Hooks
from agent_browser_tools.tools.electron import present, records, teardown
from agent_browser_tools.tools.electron.resolve import Refusal
from agent_browser_tools.tools.electron.schema import NAME, ElectronInput

PROBE_READS = (("get", "url"), ("get", "title"), ("tab", "list"), ("snapshot", "-i"))


def _known(rt: Runtime, launch_id: str) -> AppLaunch:
    launches = rt.log.state.app_launches
    if launch_id not in launches:
        known = ", ".join(sorted(launches)) or "none"
        raise Refusal(f"unknown launchId {launch_id!r}; launches of this conversation: {known}.")
    return launches[launch_id]


def _one_active(rt: Runtime, inp: ElectronInput, verb: str) -> list[AppLaunch]:
    if inp.launchId is not None:
        return [_known(rt, inp.launchId)]
    active = records.active(rt)
    if inp.all:
        return active
    if len(active) > 1:
        ids = ", ".join(r.launch_id for r in active)
        raise Refusal(f"several launches are active ({ids}); {verb} one by launchId or all.")
    return active


async def status(rt: Runtime, inp: ElectronInput) -> ToolResult:
    if inp.launchId is not None:
        chosen = [_known(rt, inp.launchId)]
    elif inp.all:  # cleaned ones too: history stays inspectable
        chosen = sorted(rt.log.state.app_launches.values(), key=lambda r: r.created_at)
    else:
        chosen = records.active(rt)
    rows, lines = [], []
    obs = present.ok(SuccessCategory.INSPECTION)
    for launch in chosen:
        row = records.record_view(launch)
        if launch.state == "cleaned":
            row["userDataDirState"] = records.profile_state(launch.profile_dir)
            lines.append(f"{launch.launch_id} ({launch.app_name}): cleaned (historical record).")
        else:
            live = await records.inspect(launch)
            problems = live.problems(launch)
            row |= {**live.to_dict(), "reusable": live.reusable(launch), "problems": problems}
            if "targets" in row:
                row["targets"] = present.targets_view(row["targets"])
            health = "; ".join(problems) if problems else "running, attachable"
            lines.append(
                f"{launch.launch_id} ({launch.app_name}, pid {launch.pid}, port "
                f"{launch.port}): {launch.state}; {health}."
            )
            obs.next_actions += present.recovery(launch) if problems else []
        rows.append(row)
    if not rows:
        lines.append("No app launches are recorded in this conversation.")
    obs.summary = f"{len(rows)} launch record(s)."
    compiled = {
        "action": "status",
        "launchIds": [r["launchId"] for r in rows],
        "reads": ["process", "profile", "DevToolsActivePort", "CDP /json/list"],
    }
    return present.finish(obs, {"statuses": rows}, compiled, lines)


def _drift(launch: AppLaunch, problems: list[str], compiled: dict[str, Any]) -> ToolResult:
    obs = present.failed(
        FailureCategory.TAB_DRIFT,
        f"{launch.launch_id} ({launch.app_name}) lost its app or target: "
        f"{'; '.join(problems)}. Nothing was read from another browser.",
    )
    obs.next_actions += present.recovery(launch)
    electron = {"launch": records.record_view(launch), "problems": problems}
    return present.finish(obs, electron, compiled)


async def probe(rt: Runtime, inp: ElectronInput) -> ToolResult:
    if inp.launchId is not None:
        launch = _known(rt, inp.launchId)
    else:
        running = [r for r in records.active(rt) if r.state == "running"]
        if not running:
            raise Refusal("no running launch to probe; launch one first (or give launchId).")
        launch = running[-1]
    session = launch.session.session
    compiled = {
        "action": "probe",
        "launchId": launch.launch_id,
        "commands": [["--session", session, *read] for read in PROBE_READS],
    }
    live = await records.inspect(launch, targets=False)
    if launch.state != "running" or not live.reusable(launch):
        return _drift(launch, live.problems(launch) or [f"the launch is {launch.state}"], compiled)
    results = []
    timeout = inp.timeoutMs or rt.settings.process_timeout_ms
    for read in PROBE_READS:
        params = {"args": ["--session", session, *read], "timeoutMs": timeout}
        result = await agent_browser.run(rt, params, hooks=Hooks(tool=NAME))
        results.append(result)
        if result.is_error:
            break
    after = await records.inspect(launch)
    wanted = records.matching_targets(after.targets, launch.target_type)
    if not after.reusable(launch) or not wanted:
        return _drift(launch, after.problems(launch) or ["no matching target is left"], compiled)
    return _probed(launch, results, after.targets or [], compiled)


def _probed(
    launch: AppLaunch,
    results: list[ToolResult],
    targets: list[dict[str, str]],
    compiled: dict[str, Any],
) -> ToolResult:
    data = [r.details.get("data") for r in results]
    failed = next((r for r in results if r.is_error), None)
    url = data[0].get("url") if isinstance(data[0], dict) else None
    title = data[1].get("title") if len(data) > 1 and isinstance(data[1], dict) else None
    tabs = data[2].get("tabs") if len(data) > 2 and isinstance(data[2], dict) else None
    focused = next((t for t in tabs or [] if isinstance(t, dict) and t.get("active")), None)
    probe = {
        "url": url,
        "title": title,
        "tabs": tabs,
        "focusedTab": focused,
        "targets": present.targets_view(targets),
    }
    if len(results) > 3:
        probe["refSnapshot"] = results[3].details.get("refSnapshot")
    if failed is not None:
        obs = present.failed(FailureCategory.UPSTREAM_ERROR, f"probe read failed: {failed.text}")
        obs.next_actions += present.recovery(launch)
        return present.finish(
            obs, {"launch": records.record_view(launch), "probe": probe}, compiled
        )
    obs = present.ok(SuccessCategory.INSPECTION, f"{launch.app_name} is attached at {url}.")
    obs.next_actions += present.live_actions(launch)[::2]
    lines = [
        f"{launch.launch_id} ({launch.app_name}): {title or '(untitled)'} - {url}",
        "",
        results[-1].text,
    ]
    electron = {"launch": records.record_view(launch), "probe": probe}
    return present.finish(obs, electron, compiled, lines)


async def cleanup(rt: Runtime, inp: ElectronInput) -> ToolResult:
    chosen = _one_active(rt, inp, "clean up")
    budget = inp.timeoutMs or rt.settings.session_close_timeout_ms
    compiled = {
        "action": "cleanup",
        "launchIds": [r.launch_id for r in chosen],
        "steps": [
            "close session",
            "stop owned app tree",
            "verify port closed",
            "remove temporary profile",
        ],
        "closeTimeoutMs": budget,
    }
    outcomes, lines = [], []
    for launch in chosen:
        if launch.state == "cleaned":
            lines.append(f"{launch.launch_id}: already cleaned (historical record).")
            continue
        outcome = await teardown.teardown(rt, launch, budget)
        outcomes.append(outcome)
        verdict = "cleaned" if outcome.complete else f"INCOMPLETE: {outcome.remaining()}"
        lines.append(f"{launch.launch_id} ({launch.app_name}): {verdict}.")
    if not chosen:
        lines.append("No active launches to clean up.")
    electron = {"cleanup": [o.to_dict() for o in outcomes]}
    left = [o for o in outcomes if not o.complete]
    if not left:
        obs = present.ok(summary=f"Cleaned {len(outcomes)} launch(es).")
        return present.finish(obs, electron, compiled, lines)
    ids = ", ".join(o.launch_id for o in left)
    obs = present.failed(
        FailureCategory.CLEANUP_FAILED,
        f"cleanup of {ids} is incomplete; the records are kept (state cleanup-failed) and a live "
        "profile is not removed. Retry the same cleanup call; if it fails again, stop the listed "
        "processes by hand and remove the profile directory shown in status.",
    )
    for outcome in left:
        obs.next_actions.append(
            present.action(
                f"retry-cleanup-{outcome.launch_id}",
                f"Retry: {outcome.remaining()}.",
                {"action": "cleanup", "launchId": outcome.launch_id},
            )
        )
    return present.finish(obs, electron, compiled, lines)


async def cleanup_owned(rt: Runtime) -> dict[str, bool]:
    """Conversation end: clean every active launch; launch id -> complete."""
    done: dict[str, bool] = {}
    for launch in records.active(rt):
        try:
            outcome = await teardown.teardown(rt, launch, rt.settings.session_close_timeout_ms)
        except Exception:
            done[launch.launch_id] = False
            continue
        done[launch.launch_id] = outcome.complete
    return done
