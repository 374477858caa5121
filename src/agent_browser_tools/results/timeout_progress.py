"""The visible `Timeout partial progress` block of a batch or QA run the watchdog stopped.

Why visible: many hosts never show `details` to the model, and what finished (and what did
not) decides whether the next call repeats work; the block is the same facts as
`details.timeoutPartialProgress`, one short line each.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


def progress_lines(progress: Mapping[str, Any]) -> list[str]:
    """The block's lines: counts, each step's status, the page reached, the artifact checks."""
    steps = [s for s in progress.get("steps", ()) if isinstance(s, Mapping)]
    lines = [
        f"Timeout partial progress: {progress.get('completedSteps', 0)} of {len(steps)} steps "
        f"done; the watchdog stopped step {progress.get('timedOutStep')}."
    ]
    lines += [f"  {s.get('step')}. {s.get('command')}: {s.get('status')}" for s in steps]
    url = progress.get("pageReached")
    if isinstance(url, str):
        title = progress.get("pageTitle") or "(title not read)"
        lines.append(
            f"  Page reached (reported by step {progress.get('pageReachedAtStep')}): "
            f"{title} - {url}"
        )
    lines += _live_lines(progress)
    for check in progress.get("artifactChecks", ()):
        found = f"on disk ({check.get('sizeBytes')} bytes)" if check.get("exists") else "absent"
        lines.append(
            f"  Artifact of step {check.get('step')} ({check.get('status')}): "
            f"{check.get('path')} {found}"
        )
    return lines


def _live_lines(progress: Mapping[str, Any]) -> list[str]:
    """Where the browser is now (read after the stop), or why that is unknown, and that the
    engine still runs the stopped step (the next command on the session waits for it)."""
    live = progress.get("livePage")
    lines: list[str] = []
    if isinstance(live, Mapping) and isinstance(live.get("url"), str):
        title = live.get("title") or "(no title)"
        lines.append(f"  Page now (read after the stop): {title} - {live['url']}")
    elif isinstance(live, Mapping):
        lines.append(f"  Page now: unknown ({live.get('unknownBecause')}).")
    opened = progress.get("dialogOpenedAtStep")
    if opened is not None:
        lines.append(
            f"  Step {opened} reported a JavaScript dialog opening; unless the engine "
            "dismissed it, it blocks the page (`dialog status` tells, then accept or dismiss)."
        )
    busy = progress.get("engineBusy")
    if isinstance(busy, str):
        lines.append(f"  {busy}")
    return lines
