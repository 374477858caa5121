"""Artifacts in the direct tool: preflight aliases, verify after the run, attach images.

Categories follow the contract: any missing non-pending artifact fails closed
(`artifact-missing`); otherwise a pending recording gives `artifact-pending`, unverified rows
`artifact-unverified`, and verified files `artifact-saved`.
"""

from __future__ import annotations

import base64
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agent_browser_tools.engine.envelope import Envelope
from agent_browser_tools.engine.runner import RawOutcome
from agent_browser_tools.planning.plan import ExecutionPlan
from agent_browser_tools.results import artifacts as art
from agent_browser_tools.results import next_actions as na
from agent_browser_tools.results.categories import FailureCategory, SuccessCategory
from agent_browser_tools.results.media import image_dimensions
from agent_browser_tools.results.observation import Observation
from agent_browser_tools.results.output_file import resolve_output_path
from agent_browser_tools.results.tool_result import ImageBlock
from agent_browser_tools.settings import inline_image_limit
from agent_browser_tools.taxonomy import ArtifactKind
from agent_browser_tools.tools.agent_browser.call import DirectCall, Spawned
from agent_browser_tools.tools.agent_browser.confirm.confirm_gate import confirmation_gated
from agent_browser_tools.tools.agent_browser.files import artifact_details, geometry
from agent_browser_tools.tools.agent_browser.files.planned_files import planned_requests

CAPTURE_BY_FLAG = (("--full", "full-page"), ("-f", "full-page"))


def preflight(plan: ExecutionPlan, cwd: Path, output_path: str | None) -> str | None:
    """Reject duplicate/aliased destinations before dispatch; None when fine."""
    labelled = [
        (f"step {r.step} `{r.command}`" if r.step else f"`{r.command}`", r.requested)
        for r in planned_requests(plan)
        if r.requested
    ]
    paths = [(label, path) for label, path in labelled if path is not None]
    if output_path:
        try:
            target = resolve_output_path(output_path, cwd)
        except ValueError as exc:
            return str(exc)
        paths.append(("outputPath", str(target.absolute)))
    return art.find_alias(paths, cwd)


def prepare_dirs(call: DirectCall) -> Observation | None:
    """Create the parent dirs of every requested artifact path before the engine runs.

    The engine does not create them (`screenshot evidence/run1/shot.png` would fail after the
    browser did the work); a dir that cannot be made fails the call before dispatch instead.
    The destinations were already judged by the file policy at planning."""
    for request in planned_requests(call.plan):
        if not request.requested:
            continue
        parent = art.resolve(request.requested, call.rt.cwd).parent
        try:
            parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            return _dir_refusal(call, parent, exc)
    return None


def _dir_refusal(call: DirectCall, parent: Path, exc: OSError) -> Observation:
    obs = Observation(
        success=False,
        failure_category=FailureCategory.VALIDATION_ERROR,
        error=(
            f"Could not create {parent} for the artifact ({exc.strerror or exc}); nothing was "
            "sent to the browser. Create that directory or choose a writable path, then retry."
        ),
    )
    obs.extra["agentBrowserStarted"] = False
    params: dict[str, Any] = {"args": list(call.request.inp.args)}
    if call.request.inp.stdin is not None:
        params["stdin"] = call.request.inp.stdin
    obs.next_actions.append(
        na.NextAction(
            id="verify-artifact-path",
            reason="Retry once the artifact's directory exists and is writable.",
            safety="Only after fixing the path: the same call fails the same way otherwise.",
            params=params,
        )
    )
    return obs


def verify(
    plan: ExecutionPlan, envelope: Envelope, raw: RawOutcome, cwd: Path
) -> list[dict[str, Any]]:
    """Entries for every artifact the finished command reported or was asked for."""
    window = (raw.started_at, raw.ended_at)
    key = plan.session.key
    identity = {"session": key.session} if key is not None else {}
    if key is not None and key.namespace is not None:
        identity["namespace"] = key.namespace
    entries: list[dict[str, Any]] = []
    rows = envelope.rows or ()
    for request in planned_requests(plan):
        if plan.row_matches is None:
            data, ran = envelope.data, envelope.success
        else:
            index = (request.step or 0) - 1
            ran = index < len(rows) and rows[index].success
            data = rows[index].result if ran else None
        entry = (
            art.verify_entry(request, data, cwd=cwd, window=window, identity=identity)
            if ran
            else None
        )
        if entry is not None:
            entries.append(entry)
    return entries


def _capture(plan: ExecutionPlan) -> str:
    tokens = plan.checked.command_tokens
    for flag, capture in CAPTURE_BY_FLAG:
        if flag in tokens:
            return capture
    match = plan.match
    if match is not None and len(match.operands) >= 2:
        return "element"
    return "viewport"


def wants_geometry(plan: ExecutionPlan) -> bool:
    """A plain viewport or full-page screenshot: its geometry can be measured (`geometry`)."""
    if plan.is_batch or plan.match is None:
        return False
    kinds = {r.kind for r in art.requests_for(plan.match)}
    return ArtifactKind.IMAGE in kinds and _capture(plan) in geometry.MEASURED_CAPTURES


@dataclass
class GeometrySamples:
    """Page geometry read just before and after a plain screenshot (`geometry`)."""

    samples: list[dict[str, Any] | None] = field(default_factory=list)


async def sample_before(call: DirectCall) -> None:
    """The first geometry sample, just before a screenshot is dispatched (on a browser that
    runs: sampling a session that has none would launch one just to measure a blank page;
    not under a confirmation policy, where a page `eval` could raise its own pending
    confirmation next to the model's)."""
    key = call.key
    if key is None or not wants_geometry(call.plan):
        return
    entry = call.rt.log.state.session(key)
    if entry.active and not entry.closed and not confirmation_gated(call):
        call.part(GeometrySamples).samples.append(await geometry.sample(call))


async def collect(call: DirectCall, obs: Observation, spawned: Spawned) -> list[ImageBlock]:
    """Verify the call's artifacts on disk, set their categories, return inline images."""
    entries = verify(call.plan, spawned.envelope, spawned.raw, call.rt.cwd)
    if call.plan.row_matches is None:
        for request in planned_requests(call.plan):
            obs.data = art.unclaimed(request, obs.data)
    samples = call.part(GeometrySamples).samples
    if samples and obs.success:
        samples.append(await geometry.sample(call))
    # -1: nothing inline (a call the model does not see, or the operator omits images).
    inline_max = inline_image_limit(call.rt.settings) if call.hooks.model_visible else -1
    return attach(call.plan, obs, entries, inline_max, samples=tuple(samples))


def attach(
    plan: ExecutionPlan,
    obs: Observation,
    entries: list[dict[str, Any]],
    inline_max: int,
    samples: tuple[dict[str, Any] | None, ...] = (),
) -> list[ImageBlock]:
    """Set artifact fields and categories on `obs`; return inline image blocks."""
    if not entries:
        return []
    summary = art.summarize(entries)
    obs.extra["artifacts"] = entries
    obs.extra["artifactVerification"] = summary
    artifact_details.apply(obs, entries)
    if summary["missingCount"]:
        missing = [e["path"] for e in entries if e["state"] == "missing"]
        obs.success = False
        obs.success_category = None
        obs.failure_category = FailureCategory.ARTIFACT_MISSING
        obs.error = "agent-browser reported success but the artifact is not on disk: " + ", ".join(
            missing
        )
        return []
    if not obs.success:
        return []
    if summary["pendingCount"]:
        obs.success_category = SuccessCategory.ARTIFACT_PENDING
        prefix = na.session_prefix(plan.session.key, not plan.session.used_implicit_session)
        obs.next_actions.append(
            na.NextAction(
                id="stop-pending-recording",
                reason="The recording file exists only after `record stop`; stop and verify it.",
                params={"args": [*prefix, "record", "stop"]},
            )
        )
    elif summary["unverifiedCount"]:
        obs.success_category = SuccessCategory.ARTIFACT_UNVERIFIED
    else:
        obs.success_category = SuccessCategory.ARTIFACT_SAVED
    return _images(plan, obs, entries, inline_max, samples)


def _images(
    plan: ExecutionPlan,
    obs: Observation,
    entries: list[dict[str, Any]],
    inline_max: int,
    samples: tuple[dict[str, Any] | None, ...],
) -> list[ImageBlock]:
    blocks: list[ImageBlock] = []
    observations: list[dict[str, Any]] = []
    for entry in entries:
        if entry["state"] != "verified" or entry["kind"] not in {k.value for k in art.IMAGE_KINDS}:
            continue
        path = Path(entry["absolutePath"])
        info = image_dimensions(path)
        if info is None:
            continue
        mime, width, height = info
        # Only a plain screenshot captures the page; diff images and contact sheets are
        # derived pictures with no viewport/full-page/element meaning.
        plain_shot = not plan.is_batch and entry["kind"] == ArtifactKind.IMAGE.value
        capture = _capture(plan) if plain_shot else "unknown"
        before, after = (*samples, None, None)[:2]
        observations.append(
            {
                "path": entry["path"],
                "mimeType": mime,
                "pixels": {"width": width, "height": height},
                "capture": capture,
                "geometry": geometry.measure(capture, width, height, before, after),
            }
        )
        # Only a plain screenshot is sent inline (the contract): a diff image or a contact
        # sheet is evidence on disk, not a view of the page the model should read as one.
        plain = entry["kind"] == ArtifactKind.IMAGE.value
        if plain and entry.get("sizeBytes", 0) <= inline_max:
            data = base64.b64encode(path.read_bytes()).decode("ascii")
            blocks.append(ImageBlock(data=data, mime_type=mime, path=entry["path"]))
    if observations:
        obs.extra["imageObservations"] = observations
    return blocks
