"""`agent-browser-tools doctor`: say what will run, then prove it with a live smoke.

Every failed check prints a one-line remedy. When a setting names the browser executable
(`AGENT_BROWSER_EXECUTABLE_PATH`, `[browser] executable_path`, the engine config's
`executablePath`), the browser check reports that executable and the setting, because the engine
launches it; otherwise it asks the engine itself (`doctor --json --offline --quick`) which
browser it would launch, so we report the engine's truth rather than a guess of our own.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
import tempfile
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

from agent_browser_tools.engine.discovery import (
    EngineBinary,
    EngineNotFound,
    EngineTooOld,
    resolve_engine,
)
from agent_browser_tools.engine.envelope import OutputMode, parse_outcome
from agent_browser_tools.engine.environment import (
    build_child_env,
    native_socket_dir,
    socket_dir_for,
)
from agent_browser_tools.engine.runner import run_engine, run_engine_quick
from agent_browser_tools.engine.stream_guard import STREAM_OFF
from agent_browser_tools.engine.target import support_note, supported
from agent_browser_tools.grid_settings import GridConfig, grid_config
from agent_browser_tools.hosts.cli.browser_choice import (
    ChosenBrowser,
    chosen_browser,
    executable_problem,
    fix_for,
)
from agent_browser_tools.hosts.cli.doctor_grid import grid_check, grid_smoke
from agent_browser_tools.hosts.cli.smoke_cleanup import stop_session_daemon
from agent_browser_tools.launch_options import browser_section, operator_launch_env
from agent_browser_tools.planning.file_config import describe_access
from agent_browser_tools.planning.policy import ModelPolicy
from agent_browser_tools.private_fs import dir_mode, ensure_private_dir
from agent_browser_tools.settings import Settings, SettingsError, config_paths, image_responses
from agent_browser_tools.state.writable import STATE_DIR_FIX, state_dir_problem

BROWSER_REMEDY = (
    "install a browser: Debian/Ubuntu `apt-get install chromium` (engine-driven downloads "
    "often fail), or set AGENT_BROWSER_EXECUTABLE_PATH to Chrome/Chromium"
)


@dataclass(frozen=True)
class Check:
    name: str
    ok: bool
    message: str
    remedy: str | None = None
    warn: bool = False


def _engine_check(settings: Settings) -> tuple[Check, EngineBinary | None]:
    try:
        engine = resolve_engine(settings)
    except (EngineNotFound, EngineTooOld) as exc:
        return Check("engine", False, str(exc).split(". ")[0], remedy=str(exc)), None
    message = f"{engine.path} ({engine.source}) version {engine.version_label}"
    if not supported(engine.version):
        remedy = support_note(engine.version)
        return Check("engine", False, f"{message}: not supported", remedy), engine
    return Check("engine", True, f"{message}, supported"), engine


def _browser_choice(settings: Settings, env: dict[str, str]) -> ChosenBrowser | None:
    try:
        operator = operator_launch_env(settings)
    except SettingsError:
        operator = {}  # the policy check reports the bad setting
    return chosen_browser(env, operator)


def _browser_check(
    engine: EngineBinary, env: dict[str, str], chosen: ChosenBrowser | None
) -> Check:
    if chosen is not None:
        problem = executable_problem(chosen.path, env)
        if problem is not None:
            message = f"{chosen.setting} = {chosen.path}: {problem}"
            return Check("browser", False, message, fix_for(chosen))
        return Check("browser", True, f"{chosen.path} (set by {chosen.setting})")
    proc = run_engine_quick(
        [engine.path, "doctor", "--json", "--offline", "--quick"], timeout_s=60, env=env
    )
    try:
        report = json.loads(proc.stdout)
    except json.JSONDecodeError:
        report = None
    if not isinstance(report, dict):
        problem = proc.error or proc.stderr.strip() or "no JSON report"
        return Check("browser", False, f"engine doctor did not answer: {problem}", BROWSER_REMEDY)
    for check in report.get("checks", []):
        if check.get("id") == "chrome.installed":
            ok = check.get("status") == "pass"
            return Check("browser", ok, str(check.get("message")), None if ok else BROWSER_REMEDY)
    return Check("browser", False, "engine doctor reported no browser check", BROWSER_REMEDY)


def _state_check(settings: Settings) -> Check:
    try:
        path = ensure_private_dir(settings.state_dir)
    except OSError as exc:
        return Check("state dir", False, f"{settings.state_dir}: {exc}", STATE_DIR_FIX)
    problem = state_dir_problem(path)
    if problem is not None:
        return Check("state dir", False, problem, STATE_DIR_FIX)
    mode = dir_mode(path)
    ok = mode == 0o700
    return Check(
        "state dir",
        ok,
        f"{path} (mode {oct(mode or 0)})",
        None if ok else f"run `chmod 700 {path}`",
    )


def _config_check(settings: Settings) -> Check:
    in_effect = [f"{layer.scope}: {layer.path}" for layer in settings.layers]
    searched = ", ".join(str(p) for _, p in config_paths(settings.env, Path.cwd()))
    message = "; ".join(in_effect) if in_effect else f"none (searched {searched})"
    return Check("config", True, message)


def _policy_check(settings: Settings) -> Check:
    """What the model may decide: the operator's launch settings and the flags it allowed."""
    try:
        policy = ModelPolicy.from_settings(settings)
        operator_launch_env(settings)
        launch = sorted(browser_section(settings))
        images = image_responses(settings)
    except SettingsError as exc:
        return Check("policy", False, str(exc), "fix the named setting or flag")
    parts = [
        "launch options are the operator's"
        + (f" (set: {', '.join(launch)})" if launch else " (engine defaults)"),
        "model may also pass: " + (", ".join(sorted(policy.allowed_flags)) or "nothing more"),
        f"timeoutMs <= {policy.max_timeout_ms} ms",
        f"screenshot images in results: {images}",
    ]
    return Check("policy", True, "; ".join(parts), warn=bool(policy.allowed_flags))


def _files_check(settings: Settings) -> Check:
    """Which files tool calls may reach: the roots, or unrestricted (an operator choice)."""
    try:
        mode = describe_access(settings, settings.execution_dir or Path.cwd())
    except SettingsError as exc:
        return Check("file access", False, str(exc), "fix [files] or the FILE_ROOTS env")
    unrestricted = mode.startswith("unrestricted")
    return Check("file access", True, mode, warn=unrestricted)


async def _smoke(engine: EngineBinary, settings: Settings, chosen: ChosenBrowser | None) -> Check:
    """Open a local page, read its title, close: the whole path a real call takes."""
    remedy = fix_for(chosen) if chosen is not None else BROWSER_REMEDY
    socket_dir = socket_dir_for(settings)
    env = build_child_env(settings, socket_dir)
    spill = ensure_private_dir(settings.state_dir / "spill")
    session = f"abt-doctor-{uuid.uuid4().hex[:8]}"
    with tempfile.TemporaryDirectory(prefix="abt-doctor-") as tmp:
        page = Path(tmp) / "doctor.html"
        page.write_text("<title>agent-browser-tools doctor</title><h1>ok</h1>", encoding="utf-8")
        base = [engine.path, "--json", "--session", session]
        try:
            # The daemon's stream server is off before its browser exists (`stream_guard`).
            await run_engine([*base, *STREAM_OFF], env=env, timeout_ms=15_000, spill_dir=spill)
            opened = parse_outcome(
                await run_engine(
                    [*base, "open", page.as_uri()], env=env, timeout_ms=60_000, spill_dir=spill
                ),
                OutputMode.JSON,
            )
            if not opened.success:
                return Check("smoke", False, f"open failed: {opened.error}", remedy)
            title = parse_outcome(
                await run_engine(
                    [*base, "get", "title"], env=env, timeout_ms=35_000, spill_dir=spill
                ),
                OutputMode.JSON,
            )
        finally:
            await run_engine([*base, "close"], env=env, timeout_ms=35_000, spill_dir=spill)
            explicit = env.get("AGENT_BROWSER_SOCKET_DIR")
            where = Path(explicit) if explicit else native_socket_dir(env)
            stop_session_daemon(where, session, engine.path)
    got = title.data.get("title") if isinstance(title.data, dict) else None
    if not title.success or got != "agent-browser-tools doctor":
        return Check("smoke", False, f"title read failed: {title.error or got!r}", remedy)
    return Check("smoke", True, f"opened a local page and read its title {got!r}; closed")


def _grid(settings: Settings) -> GridConfig | None:
    try:
        return grid_config(settings)
    except SettingsError:
        return None  # the policy check reports the bad setting


async def _grid_smoke(engine: EngineBinary, settings: Settings, grid: GridConfig) -> Check:
    """The smoke on a grid browser: the page travels as a data: URL (the node may be another
    machine, which cannot read this one's files)."""
    env = build_child_env(settings, socket_dir_for(settings))
    spill = ensure_private_dir(settings.state_dir / "spill")
    page = "data:text/html,<title>agent-browser-tools doctor</title><h1>ok</h1>"
    return Check("smoke", *await grid_smoke(engine.path, env, grid, spill, page))


def run_doctor(settings: Settings | None = None, out: TextIO | None = None) -> int:
    """Print every check; return 0 when all passed, 1 otherwise."""
    out = out or sys.stdout
    checks: list[Check] = []
    try:
        settings = settings or Settings.load()
    except SettingsError as exc:
        checks.append(Check("config", False, str(exc), "fix the named setting or file"))
        _print(checks, out)
        return 1
    engine_check, engine = _engine_check(settings)
    checks.append(engine_check)
    chosen: ChosenBrowser | None = None
    grid = _grid(settings)
    if engine is not None and grid is not None:
        checks.append(Check("browser", *asyncio.run(grid_check(grid))))
    elif engine is not None:
        env = build_child_env(settings, socket_dir_for(settings))
        chosen = _browser_choice(settings, env)
        checks.append(_browser_check(engine, env, chosen))
    checks.append(_state_check(settings))
    checks.append(_config_check(settings))
    checks.append(_policy_check(settings))
    checks.append(_files_check(settings))
    if os.geteuid() == 0:
        checks.append(
            Check(
                "root",
                True,
                "running as root: the engine launches Chromium without its "
                "sandbox (checked by the smoke test)",
                warn=True,
            )
        )
    if engine is not None and all(c.ok for c in checks):
        smoke = _grid_smoke(engine, settings, grid) if grid else _smoke(engine, settings, chosen)
        checks.append(asyncio.run(smoke))
    _print(checks, out)
    return 0 if all(c.ok for c in checks) else 1


def _print(checks: list[Check], out: TextIO) -> None:
    width = max(len(c.name) for c in checks)
    for check in checks:
        status = "ok  " if check.ok else "FAIL"
        if check.ok and check.warn:
            status = "note"
        out.write(f"{status}  {check.name.ljust(width)}  {check.message}\n")
        if not check.ok and check.remedy:
            out.write(f"      {' ' * width}  fix: {check.remedy}\n")
    failed = [c.name for c in checks if not c.ok]
    out.write(
        "doctor: all checks passed\n" if not failed else f"doctor: failed: {', '.join(failed)}\n"
    )
