"""Direct tool, after the artifacts are verified: scrub recorded HAR, trace and profile files.

Why: `network har stop` writes every request as sent (URL tokens, basic-auth userinfo, bearer
headers, cookies, login posts) and traces and profiles carry URLs and page strings; the file
is the model's to read next. Each verified file of this call (direct or a batch row) is
rewritten in place by `credentials.files`; one that cannot be scrubbed gets a warning naming it.
`details.scrubbedFiles` lists what happened to each.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from agent_browser_tools.credentials.files import scrub_file
from agent_browser_tools.credentials.store import SecretStore
from agent_browser_tools.results.observation import Observation
from agent_browser_tools.taxonomy import ArtifactKind

RECORDED = frozenset({ArtifactKind.HAR.value, ArtifactKind.TRACE.value, ArtifactKind.PROFILE.value})


def scrub(obs: Observation, store: SecretStore) -> None:
    """Scrub every freshly written recorded file of this call; warn for each that failed."""
    outcomes: list[dict[str, Any]] = []
    for entry in obs.extra.get("artifacts", []):
        if entry.get("kind") not in RECORDED or entry.get("state") != "verified":
            continue
        path = Path(str(entry["absolutePath"]))
        outcome = scrub_file(path, str(entry["path"]), str(entry["kind"]), store.scrub)
        outcomes.append(outcome.as_dict())
        warning = outcome.warning()
        if warning is not None:
            obs.warnings.append(warning)
        if outcome.status == "scrubbed":
            try:
                info = path.stat()
            except OSError:
                continue
            entry.update(sizeBytes=info.st_size, updatedAtMs=int(info.st_mtime * 1000))
    if outcomes:
        obs.extra["scrubbedFiles"] = outcomes
