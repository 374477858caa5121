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
    for check in progress.get("artifactChecks", ()):
        found = f"on disk ({check.get('sizeBytes')} bytes)" if check.get("exists") else "absent"
        lines.append(
            f"  Artifact of step {check.get('step')} ({check.get('status')}): "
            f"{check.get('path')} {found}"
        )
    return lines
