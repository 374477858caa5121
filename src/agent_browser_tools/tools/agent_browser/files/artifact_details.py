"""Direct tool: the contract's per-file fields around verified artifacts.

`savedFilePath` / `savedFile` name the file of a `download`, `pdf` or `wait --download` (metadata
only until `artifactVerification` verifies it); `imagePath` / `imagePaths` name the plain
screenshots that are attached inline (never a diff image or a contact sheet); each batch step
carries its own `artifacts`, `artifactVerification` and those fields; and next actions in the
`artifactPath` form point at a saved file to use, or at one that needs checking.

Why: an agent should take a saved file's path from a field, not scrape it from prose, and a
batch step's evidence belongs to the step that produced it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from agent_browser_tools.results import artifacts as art
from agent_browser_tools.results import next_actions as na
from agent_browser_tools.results.observation import Observation
from agent_browser_tools.taxonomy import ArtifactKind

SAVED_FILE_KINDS = frozenset({ArtifactKind.DOWNLOAD.value, ArtifactKind.PDF.value})
"""Artifacts that are the saved file of a direct saved-file workflow."""
INLINE_KIND = ArtifactKind.IMAGE.value
"""Only a plain screenshot is a live capture the model may see inline."""


def saved_file(entries: Sequence[Mapping[str, Any]], data: Any) -> dict[str, Any] | None:
    """`savedFile` for the first download/pdf entry: command, kind, path, the engine's other
    fields as `metadata`, and the gating flag as `subcommand` (`wait --download`)."""
    entry = next((e for e in entries if e.get("kind") in SAVED_FILE_KINDS), None)
    if entry is None:
        return None
    info: dict[str, Any] = {
        "command": entry["command"],
        "kind": entry["kind"],
        "path": entry["path"],
    }
    if isinstance(data, Mapping):
        metadata = {k: v for k, v in data.items() if k != "path"}
        if metadata:
            info["metadata"] = metadata
    if entry.get("subcommand"):
        info["subcommand"] = entry["subcommand"]
    return info


def image_paths(entries: Sequence[Mapping[str, Any]]) -> list[str]:
    """Absolute paths of the verified plain screenshots among `entries`."""
    return [
        str(e["absolutePath"])
        for e in entries
        if e.get("kind") == INLINE_KIND and e.get("state") == "verified"
    ]


def file_fields(entries: Sequence[Mapping[str, Any]], data: Any) -> dict[str, Any]:
    """`savedFilePath`, `savedFile`, `imagePath` and `imagePaths` for one call or step."""
    fields: dict[str, Any] = {}
    saved = saved_file(entries, data)
    if saved is not None:
        fields["savedFilePath"] = saved["path"]
        fields["savedFile"] = saved
    images = image_paths(entries)
    if images:
        fields["imagePath"] = images[0]
    if len(images) > 1:
        fields["imagePaths"] = images
    return fields


def apply(obs: Observation, entries: list[dict[str, Any]]) -> None:
    """Set the file fields on the result and, for a batch, on each step that made files."""
    steps = obs.extra.get("batchSteps")
    if isinstance(steps, list):
        for step in steps:
            own = [e for e in entries if e.get("step") == step.get("step")]
            if own:
                step["artifacts"] = own
                step["artifactVerification"] = art.summarize(own)
                step.update(file_fields(own, step.get("result")))
        data = None
    else:
        data = obs.data
    fields = file_fields(entries, data)
    if "savedFilePath" in fields:
        obs.extra["savedFilePath"] = fields["savedFilePath"]
        obs.extra["savedFile"] = fields["savedFile"]
    if "imagePath" in fields:
        obs.extra["imagePath"] = fields["imagePath"]
    if "imagePaths" in fields:
        obs.extra["imagePaths"] = fields["imagePaths"]
    obs.next_actions += artifact_actions(entries, fields.get("savedFilePath"))


def artifact_actions(
    entries: Sequence[Mapping[str, Any]], saved_path: str | None
) -> list[na.NextAction]:
    """`use-saved-artifact` for a saved file on disk; `verify-artifact-path` for each file
    that is missing or unverified (a pending recording has its own stop action).

    Each one's visible line carries its path (`file PATH - reason`), and many hosts show a
    model only that line: a reason must never send it to a structured field it cannot see."""
    actions: list[na.NextAction] = []
    saved = next((e for e in entries if e.get("path") == saved_path), None)
    if saved is not None and saved.get("state") == "verified":
        actions.append(
            na.NextAction(
                id="use-saved-artifact",
                reason="Saved and verified on disk at this path.",
                safety="It is verified on disk now; check it again before relying on it later.",
                params={},
                artifact_path=str(saved["path"]),
            )
        )
    for entry in entries:
        if entry.get("state") in ("missing", "unverified"):
            actions.append(
                na.NextAction(
                    id="verify-artifact-path",
                    reason=f"This {entry['kind']} was not verified on disk "
                    f"({entry.get('status')}): check the path before treating it as evidence.",
                    safety="See details.artifactVerification; regenerate the file if needed.",
                    params={},
                    artifact_path=str(entry["path"]),
                )
            )
    return actions
