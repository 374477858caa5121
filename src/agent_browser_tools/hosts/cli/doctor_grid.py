"""`doctor` with the operator's Selenium Grid (`[browser] grid_url`): the grid answers, has
slots, and one of its browsers runs the same smoke a local browser would.

The smoke's session carries a `doctor/...` owner tag and is deleted however the smoke ends.
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from pathlib import Path

from agent_browser_tools.engine.envelope import OutputMode, parse_outcome
from agent_browser_tools.engine.grid_client import GridClient
from agent_browser_tools.engine.runner import run_engine
from agent_browser_tools.grid_errors import GridUnavailable
from agent_browser_tools.grid_settings import GridConfig

Verdict = tuple[bool, str, str | None]
"""(ok, message, remedy)."""

GRID_REMEDY = (
    "start the grid (or fix [browser] grid_url): a Selenium Grid 4 whose nodes run Chromium "
    "or Chrome, reachable from this machine"
)


async def grid_check(config: GridConfig) -> Verdict:
    """The grid answers `/status` and has room for a browser."""
    try:
        status = await GridClient(config.url, config.shown).status()
    except GridUnavailable as exc:
        return False, str(exc), GRID_REMEDY
    if status.total == 0:
        return False, f"the Selenium Grid at {config.shown} has no browser slot", GRID_REMEDY
    return (
        True,
        f"Selenium Grid at {config.shown}: {status.free} of {status.total} slots free",
        None,
    )


async def grid_smoke(
    engine: str, env: dict[str, str], config: GridConfig, spill: Path, page_url: str
) -> Verdict:
    """Open `page_url` in a new grid browser, read its title, close, end the session."""
    client = GridClient(config.url, config.shown)
    owner = f"doctor/{uuid.uuid4().hex[:8]}"
    try:
        session = await client.create(config.capabilities, owner, config.wait_s)
    except GridUnavailable as exc:
        return False, f"no grid browser: {exc}", GRID_REMEDY
    attached = {**env, "AGENT_BROWSER_CDP": session.cdp_url}
    base = [engine, "--json", "--session", f"abt-doctor-{owner[-8:]}"]
    try:
        opened = await _run(base, ["open", page_url], attached, spill)
        if not opened[0]:
            return False, f"open in the grid browser failed: {opened[1]}", GRID_REMEDY
        title = await _run(base, ["get", "title"], attached, spill)
    finally:
        await run_engine([*base, "close"], env=attached, timeout_ms=35_000, spill_dir=spill)
        await client.delete(session.session_id)
    if not title[0]:
        return False, f"title read in the grid browser failed: {title[1]}", GRID_REMEDY
    return True, f"opened a page in a grid browser and read its title {title[1]!r}; ended it", None


async def _run(
    base: Sequence[str], args: Sequence[str], env: dict[str, str], spill: Path
) -> tuple[bool, str]:
    raw = await run_engine([*base, *args], env=env, timeout_ms=60_000, spill_dir=spill)
    try:
        envelope = parse_outcome(raw, OutputMode.JSON)
    finally:
        raw.discard_stdout()
    if not envelope.success:
        return False, str(envelope.error)
    data = envelope.data if isinstance(envelope.data, dict) else {}
    return True, str(data.get("title", ""))
