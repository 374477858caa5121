"""Video recordings in the direct tool: the reservation of a take, and what ends it.

Why a reservation: a take's file exists only after `record stop`, so until then the wrapper is
the only one that knows the destination is in use and that the session has an unfinished
take. It is kept per (namespace, session) in the journal (`RecordingOpened` /
`RecordingClosed` effects), so it survives a restart of the server, and:

- destinations: no artifact or `outputPath` of any call may alias a reserved video or contact
  sheet while its take runs (the contact sheet shares the video's reservation);
- restart: only a native `restarted: true` (or a terminal `previousRecording` receipt) retires
  the prior take; its video is checked on disk, its contact sheet is labelled unverified
  (native restart gives no terminal evidence for it); otherwise the prior take, its
  reservation and its exact stop action stay;
- stop: a stop that answers `No recording in progress` checks the reserved file once and
  retires the reservation, never turning an existing file into a missing one;
- close: a successful close retires the take as `close-abandoned` (file unverified; only a
  confirmed absent file is `missing`);
- a batch may not start a recording after a close row (the engine can report a recording
  that did not start);
- while a take is pending, every failed call on the session carries the exact
  `stop-pending-recording`, or `close-pending-recording` when the browser that recorded is gone
  (`managedSessionCleanupOnlyReason`); with in-memory state the reservation is not durable and
  `recordingPersistenceWarning` says so.
"""

from __future__ import annotations

import contextlib
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Literal

from agent_browser_tools.engine.envelope import Envelope
from agent_browser_tools.planning.plan import ExecutionPlan
from agent_browser_tools.results import artifacts as art
from agent_browser_tools.results import next_actions as na
from agent_browser_tools.results.categories import FailureCategory, SuccessCategory
from agent_browser_tools.results.media import media_type
from agent_browser_tools.results.observation import Observation
from agent_browser_tools.results.output_file import resolve_output_path
from agent_browser_tools.state.journal import MemoryJournal
from agent_browser_tools.state.models import (
    ConversationState,
    Effect,
    RecordingClosed,
    RecordingOpened,
    RecordingReservation,
)
from agent_browser_tools.taxonomy import ArtifactKind, CommandMatch, PageEffect, RecordingStep
from agent_browser_tools.tools.agent_browser.call import DirectCall, Spawned
from agent_browser_tools.tools.agent_browser.files.planned_files import planned_requests

NOT_IN_PROGRESS = "no recording in progress"
CLEANUP_ONLY_REASON = "recording-browser-gone"
PERSISTENCE_WARNING = (
    "Conversation state is in memory only: if the server restarts, the pending recording's "
    "reservation and its stop action are lost. Stop the recording before ending the session."
)
_STARTS = (RecordingStep.OPENS, RecordingStep.REOPENS)


def refusal(
    plan: ExecutionPlan, state: ConversationState, cwd: Path, output_path: str | None
) -> str | None:
    """Why this call must not be dispatched (a `validation-error`), else None."""
    return batch_order_refusal(plan) or reservation_refusal(plan, state, cwd, output_path)


def batch_order_refusal(plan: ExecutionPlan) -> str | None:
    """A batch that starts a recording after a close row (refused before dispatch)."""
    closed_at: int | None = None
    for index, match in enumerate(plan.row_matches or (), start=1):
        if match is None:
            continue
        if match.spec.page_effect is PageEffect.CLOSE:
            closed_at = index
        elif closed_at is not None and match.spec.recording in _STARTS:
            return (
                f"step {index} `{match.spec.name}` follows the close in step {closed_at}; the "
                "engine can report a recording that never started there. Run the close and "
                "the recording as separate calls."
            )
    return None


def reservation_refusal(
    plan: ExecutionPlan, state: ConversationState, cwd: Path, output_path: str | None
) -> str | None:
    """A destination of this call that is a file a pending take will write."""
    reserved: list[tuple[str, str]] = []
    for label, entry in state.sessions.items():
        take = entry.recording
        if take is not None:
            reserved.append((f"the pending recording of session {label}", take.absolute_path))
            if take.contact_sheet_absolute:
                sheet = f"the pending contact sheet of session {label}"
                reserved.append((sheet, take.contact_sheet_absolute))
    if not reserved:
        return None
    wanted = [(r.command, r.requested) for r in planned_requests(plan) if r.requested]
    if output_path:
        with contextlib.suppress(ValueError):  # an empty path is refused elsewhere
            wanted.append(("outputPath", str(resolve_output_path(output_path, cwd).absolute)))
    for label, path in wanted:
        keys = art.file_keys(path, cwd)
        for owner, taken in reserved:
            if keys & art.file_keys(taken, cwd):
                return (
                    f"{label} ({path}) is the destination of {owner}; it is reserved until "
                    "`record stop`. Choose another path, or stop the recording first."
                )
    return None


def _steps(plan: ExecutionPlan, envelope: Envelope) -> list[tuple[CommandMatch, bool, Any, str]]:
    """(match, success, data, error) of each dispatched command, in order."""
    if not plan.is_batch:
        if plan.match is None:
            return []
        return [(plan.match, envelope.success, envelope.data, envelope.error or "")]
    rows = envelope.rows or ()
    return [
        (match, row.success, row.result, row.error or "")
        for match, row in zip(plan.row_matches or (), rows, strict=False)
        if match is not None
    ]


def _reservation(match: CommandMatch, data: Any, cwd: Path) -> RecordingReservation | None:
    requested = next(
        (r.requested for r in art.requests_for(match) if r.kind is ArtifactKind.VIDEO), None
    )
    reported = data.get("path") if isinstance(data, Mapping) else None
    path = reported if isinstance(reported, str) and reported else requested
    if not path:
        return None
    sheet = data.get("contactSheetPath") if isinstance(data, Mapping) else None
    sheet = sheet if isinstance(sheet, str) and sheet else None
    return RecordingReservation(
        path=path,
        absolute_path=str(art.resolve(path, cwd)),
        cwd=str(cwd),
        contact_sheet=sheet,
        contact_sheet_absolute=str(art.resolve(sheet, cwd)) if sheet else None,
    )


def _restart_retired_prior(data: Any) -> bool:
    """Only the engine's own word ends the prior take."""
    if not isinstance(data, Mapping):
        return False
    return data.get("restarted") is True or isinstance(data.get("previousRecording"), Mapping)


def _previous_path(data: Any, take: RecordingReservation) -> str:
    """The prior take's file: the terminal receipt's, else native `previousPath`, else ours."""
    receipt = data.get("previousRecording") if isinstance(data, Mapping) else None
    for source, field in ((receipt, "path"), (data, "previousPath")):
        value = source.get(field) if isinstance(source, Mapping) else None
        if isinstance(value, str) and value:
            return value
    return take.path


def _disk_entry(
    kind: ArtifactKind, path: str, cwd: Path, command: str, subcommand: str
) -> dict[str, Any]:
    """A file checked once on disk: present -> unverified, confirmed absent -> missing."""
    target = art.resolve(path, cwd)
    entry: dict[str, Any] = {
        "kind": kind.value,
        "path": path,
        "absolutePath": str(target),
        "command": command,
        "subcommand": subcommand,
    }
    try:
        info = target.stat()
    except FileNotFoundError:
        return {**entry, "state": "missing", "status": "missing", "exists": False}
    except OSError:
        return {**entry, "state": "unverified", "status": "inaccessible"}
    if media := media_type(target):
        entry["mediaType"] = media
    return {
        **entry,
        "state": "unverified",
        "status": "unverified",
        "exists": True,
        "sizeBytes": info.st_size,
        "updatedAtMs": int(info.st_mtime * 1000),
    }


def _finalized_by_restart(
    take: RecordingReservation, data: Any, window: tuple[float, float]
) -> list[dict[str, Any]]:
    cwd = Path(take.cwd)
    request = art.ArtifactRequest(
        ArtifactKind.VIDEO, _previous_path(data, take), (), False, "record restart"
    )
    video = art.verify_entry(request, None, cwd=cwd, window=window) or {}
    video["subcommand"] = "restart-finalized"
    entries = [video]
    if take.contact_sheet:
        sheet = _disk_entry(
            ArtifactKind.CONTACT_SHEET, take.contact_sheet, cwd, "record restart", "restart-kept"
        )
        if sheet["state"] != "missing":
            sheet["limitation"] = (
                "The prior take's contact sheet: native restart gives no terminal evidence for "
                "it. Use `record stop` then a new `record start` when both must be verified."
            )
        entries.append(sheet)
    return entries


def _abandoned(take: RecordingReservation, command: str) -> list[dict[str, Any]]:
    cwd = Path(take.cwd)
    entries = [_disk_entry(ArtifactKind.VIDEO, take.path, cwd, command, "close-abandoned")]
    if take.contact_sheet:
        sheet = _disk_entry(
            ArtifactKind.CONTACT_SHEET, take.contact_sheet, cwd, command, "close-abandoned"
        )
        entries.append(sheet)
    for entry in entries:
        entry.setdefault(
            "limitation", "The session closed before `record stop`: the take was abandoned."
        )
    return entries


def _not_in_progress(take: RecordingReservation, command: str) -> list[dict[str, Any]]:
    entry = _disk_entry(ArtifactKind.VIDEO, take.path, Path(take.cwd), command, "not-in-progress")
    entry["limitation"] = (
        "The engine had no recording in progress, so this stop finalized nothing; the file (if "
        "any) is from the earlier take and unverified."
    )
    return [entry]


def _stopped(
    take: RecordingReservation, data: Any, window: tuple[float, float]
) -> list[dict[str, Any]]:
    """The reserved files a stop answer did not name itself (coalesced into its result)."""
    reported = data if isinstance(data, Mapping) else {}
    entries: list[dict[str, Any]] = []
    for kind, field, path in (
        (ArtifactKind.VIDEO, "path", take.path),
        (ArtifactKind.CONTACT_SHEET, "contactSheetPath", take.contact_sheet),
    ):
        if path and not reported.get(field):
            request = art.ArtifactRequest(kind, path, (), False, "record stop")
            entry = art.verify_entry(request, None, cwd=Path(take.cwd), window=window)
            if entry is not None:
                entries.append(entry)
    return entries


def after_answer(call: DirectCall, obs: Observation, spawned: Spawned) -> list[Effect]:
    """Walk the call's dispatched commands: reservation effects, and the terminal rows of the
    takes they ended added to the call's artifacts."""
    key = call.key
    if key is None:
        return []
    walk = _Walk(call.rt.log.state.session(key).recording, call.rt.cwd, spawned)
    for match, ok, data, error in _steps(call.plan, spawned.envelope):
        walk.step(match, ok, data, error)
    _merge_rows(obs, walk.rows)
    return walk.effects


class _Walk:
    """The session's take as each dispatched command changes it."""

    def __init__(self, take: RecordingReservation | None, cwd: Path, spawned: Spawned) -> None:
        self.take, self.cwd = take, cwd
        self.window = (spawned.raw.started_at, spawned.raw.ended_at)
        self.effects: list[Effect] = []
        self.rows: list[dict[str, Any]] = []

    def step(self, match: CommandMatch, ok: bool, data: Any, error: str) -> None:
        step, take = match.spec.recording, self.take
        if match.spec.page_effect is PageEffect.CLOSE and ok and take is not None:
            self.rows += _abandoned(take, match.spec.name)
            self.take = None
        elif step in _STARTS and ok and (take is None or step is RecordingStep.OPENS):
            self._open(match, data)
        elif step is RecordingStep.REOPENS and ok and take and _restart_retired_prior(data):
            self.rows += _finalized_by_restart(take, data, self.window)
            self._open(match, data)
        elif step is RecordingStep.FINALIZES and take is not None and ok:
            self.rows += _stopped(take, data, self.window)
            self._close("stopped")
        elif step is RecordingStep.FINALIZES and take and NOT_IN_PROGRESS in error.lower():
            self.rows += _not_in_progress(take, match.spec.name)
            self._close("not-in-progress")

    def _open(self, match: CommandMatch, data: Any) -> None:
        self.take = _reservation(match, data, self.cwd)
        if self.take is not None:
            self.effects.append(RecordingOpened(reservation=self.take))

    def _close(self, outcome: Literal["stopped", "not-in-progress"]) -> None:
        self.take = None
        self.effects.append(RecordingClosed(outcome=outcome))


def _merge_rows(obs: Observation, rows: Sequence[dict[str, Any]]) -> None:
    """Add terminal rows to the call's artifacts; a finalized take the engine did not write
    fails a successful restart or stop closed (`artifact-missing`); an abandoned one does not."""
    if not rows:
        return
    entries = [*obs.extra.get("artifacts", []), *rows]
    obs.extra["artifacts"] = entries
    obs.extra["artifactVerification"] = art.summarize(entries)
    missing = [
        r["path"]
        for r in rows
        if r.get("state") == "missing" and r.get("subcommand") != "close-abandoned"
    ]
    if missing and obs.success:
        obs.success, obs.success_category = False, None
        obs.failure_category = FailureCategory.ARTIFACT_MISSING
        obs.error = "The finished recording is not on disk: " + ", ".join(missing)
    elif obs.success and obs.success_category in (None, SuccessCategory.ARTIFACT_SAVED):
        unverified = any(r.get("state") == "unverified" for r in rows)
        if unverified:
            obs.success_category = SuccessCategory.ARTIFACT_UNVERIFIED


def pending_followups(call: DirectCall, obs: Observation) -> None:
    """After the journal completion: the pending take's warnings and exact cleanup action."""
    key = call.key
    if key is None:
        return
    entry = call.rt.log.state.session(key)
    take = entry.recording
    if take is None:
        return
    if isinstance(call.rt.log.journal, MemoryJournal):
        obs.extra["recordingPersistenceWarning"] = PERSISTENCE_WARNING
        obs.warnings.append(PERSISTENCE_WARNING)
    if obs.success or any(a.id.endswith("-pending-recording") for a in obs.next_actions):
        return
    prefix = na.session_prefix(key, not call.plan.session.used_implicit_session)
    if entry.closed:
        obs.extra["managedSessionCleanupOnlyReason"] = CLEANUP_ONLY_REASON
        obs.warnings.append(
            f"The recording to {take.path} cannot be stopped: the browser that recorded it is "
            "gone. Close the session to retire it; its file stays unverified."
        )
        obs.next_actions.append(
            na.NextAction(
                id="close-pending-recording",
                reason="Retire the unfinishable recording (abandoned, file unverified).",
                safety="Closes the session's browser.",
                params={"args": [*prefix, "close"]},
            )
        )
        return
    obs.warnings.append(
        f"A recording to {take.path} is still pending on this session; stop it to finalize "
        "and verify its file."
    )
    obs.next_actions.append(
        na.NextAction(
            id="stop-pending-recording",
            reason="The recording file exists only after `record stop`; stop and verify it.",
            params={"args": [*prefix, "record", "stop"]},
        )
    )


def exports_receipt(plan: ExecutionPlan) -> bool:
    """Recording results export their receipt even when failed, pending or timed out."""
    matches = plan.row_matches if plan.row_matches is not None else (plan.match,)
    return any(m is not None and m.spec.recording is not None for m in matches)


def receipt(plan: ExecutionPlan, obs: Observation) -> dict[str, Any]:
    """The `recording-receipt` envelope: saving it never proves the video succeeded."""
    key = plan.session.key
    process = obs.process or {}
    return {
        "source": "recording-receipt",
        "success": obs.success,
        "error": obs.error,
        "command": plan.path[0] if plan.path else None,
        "subcommand": plan.path[1] if len(plan.path) > 1 else None,
        "sessionName": key.session if key is not None else None,
        "namespace": key.namespace if key is not None else None,
        "attempt": {
            "success": obs.success,
            "failureCategory": obs.failure_category.value if obs.failure_category else None,
            "successCategory": obs.success_category.value if obs.success_category else None,
            "error": obs.error,
            "timedOut": bool(process.get("timedOut")),
        },
        "data": obs.data,
        "artifacts": obs.extra.get("artifacts", []),
        "artifactVerification": obs.extra.get("artifactVerification"),
    }
