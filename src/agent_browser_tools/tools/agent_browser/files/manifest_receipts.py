"""Direct tool, while assembling details: record the call's files in the conversation's
artifact manifest and attach the call's receipts (`details.artifactManifest`).

The files are the call's verified artifacts (`details.artifacts`) and the spill files written
for it (`fullOutputPath`, `observationPath`, each of `largeValues`); spill rows also join
`artifactVerification` as `kind: spill` entries, so an agent sees the same state for every
file the call names.
"""

from __future__ import annotations

from typing import Any

from agent_browser_tools.results import artifact_manifest as manifest
from agent_browser_tools.results.artifacts import summarize
from agent_browser_tools.runtime import Runtime
from agent_browser_tools.state.writable import ephemeral_requested

SPILL_KEYS = ("fullOutputPath", "observationPath")


def attach(rt: Runtime, details: dict[str, Any]) -> None:
    """Add `artifactManifest` (and spill verification rows) to `details` when the call
    changed or referenced any file."""
    artifacts = details.get("artifacts")
    rows = manifest.file_rows(artifacts if isinstance(artifacts, list) else [])
    ephemeral = ephemeral_requested(rt.settings)
    paths = [path for key in SPILL_KEYS if isinstance(path := details.get(key), str)]
    large = details.get("largeValues")
    for row in large if isinstance(large, list) else []:
        path = row.get("path") if isinstance(row, dict) else None
        if isinstance(path, str) and path not in paths:
            paths.append(path)
    rows += [manifest.spill_row(path, ephemeral=ephemeral) for path in paths]
    if not rows:
        return
    details["artifactManifest"] = rt.artifact_manifest.record(rows)
    spills = manifest.verification_rows(rows)
    if spills:
        verification = details.get("artifactVerification")
        known = verification.get("artifacts", []) if isinstance(verification, dict) else []
        details["artifactVerification"] = summarize([*known, *spills])
