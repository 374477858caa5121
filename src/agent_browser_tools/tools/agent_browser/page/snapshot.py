"""Snapshots in the direct tool: compaction, wrapper-side views and their probes.

Every successful snapshot is checked against the visible budget: small ones are shown
verbatim; oversized ones are compacted main-content-first with an `Omitted high-value
controls` section, and the full redacted tree is spilled (`details.fullOutputPath`). Wrapper
flags (`--search`, `--search-exact`, `--filter role=`, `--viewport`, `--diff`) were stripped
before spawn; their views are computed here, with at most one read-only `eval --stdin` probe
each (`--search-exact` needs none: it matches whole names in the ref map). Probes never
change page state and a failed probe only adds a warning.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from agent_browser_tools.engine.envelope import Envelope
from agent_browser_tools.planning.plan import ExecutionPlan
from agent_browser_tools.private_fs import ensure_private_dir, write_private_file
from agent_browser_tools.redaction import redact_data
from agent_browser_tools.results.bounds import VISIBLE_LIMIT, read_call
from agent_browser_tools.results.observation import Observation
from agent_browser_tools.results.snapshot import views
from agent_browser_tools.results.snapshot.compaction import compact_snapshot
from agent_browser_tools.results.snapshot.delta import render_partial
from agent_browser_tools.runtime import Runtime
from agent_browser_tools.state.effects import refs_from_snapshot
from agent_browser_tools.state.models import Effect, RefInfo, RefsInvalidated, RefsRecorded
from agent_browser_tools.state.snapshot_payload import (
    NativeSnapshot,
    native_snapshot,
    snapshot_payload,
    without_delta_flags,
)
from agent_browser_tools.taxonomy import CommandMatch, PageEffect, split_global_flags
from agent_browser_tools.tools.agent_browser.helpers import helper_data
from agent_browser_tools.tools.agent_browser.refs import refmap

HEADER_RESERVE = 600
SnapshotFlags = views.SnapshotFlags


def split_flags(args: list[str]) -> tuple[list[str], SnapshotFlags | None]:
    """Strip wrapper snapshot flags; raises ValueError with the fix for misuse."""
    if _command_words(args)[:1] != ["snapshot"]:
        return args, None
    clean, flags = views.split_snapshot_flags(args)
    return (clean, flags) if flags.any else (args, None)


def _command_words(args: list[str]) -> list[str]:
    """The command's words, after the engine's global flags (which may take values)."""
    return [t for t in split_global_flags(args)[1] if not t.startswith("-")]


def _refs(refs: Any) -> dict[str, dict[str, Any]]:
    """A snapshot's ref map as plain dicts (entries that are not objects are skipped)."""
    if not isinstance(refs, Mapping):
        return {}
    return {str(k): dict(v) for k, v in refs.items() if isinstance(v, Mapping)}


async def _probe(rt: Runtime, plan: ExecutionPlan, script: str) -> Any:
    """One read-only `eval --stdin` in the same session; None when it fails."""
    data = await helper_data(rt, plan, ["eval", "--stdin"], stdin=script)
    return redact_data(data.get("result")) if isinstance(data, Mapping) else None


def _spill_snapshot(rt: Runtime, text: str) -> str | None:
    try:
        directory = ensure_private_dir(rt.spill_dir)
        path = directory / f"snapshot-{uuid.uuid4().hex[:12]}.txt"
        write_private_file(path, text.encode("utf-8"))
    except OSError:
        return None
    return str(path)


def interactive(plan: ExecutionPlan) -> bool:
    """Whether the snapshot call asked for the interactive (`-i`) tree."""
    return any(views.is_interactive(t) for t in split_global_flags(plan.args)[1])


def compact(rt: Runtime, obs: Observation, *, interactive: bool = False) -> None:
    """Fit the snapshot text in the visible budget (spilling the full tree if needed).

    A native `--delta` full answer is shown like an ordinary snapshot (its tree, not the
    revision object, which stays in details.data). An `interactive` tree loses its
    non-interactive table runs before anything else is cut (`structure.py`)."""
    data = obs.data
    payload = snapshot_payload(data)
    if payload is None or not isinstance(data, Mapping):
        return
    native = not isinstance(data.get("snapshot"), str)
    refs = payload.refs if isinstance(payload.refs, Mapping) else {}  # read, not copied
    result = compact_snapshot(
        payload.text, refs, budget=VISIBLE_LIMIT - HEADER_RESERVE, interactive=interactive
    )
    if not result.compacted:
        if native:
            obs.context["snapshot_text"] = payload.text
        return
    path = _spill_snapshot(rt, payload.text)
    where = "Full snapshot could not be saved."
    if path:
        name, size = Path(path).name, len(payload.text)
        where = f"Full snapshot ({size:,} characters): read it with {read_call(name)}"
    obs.context["snapshot_text"] = f"{result.text}\n{where}"
    obs.extra["snapshotCompaction"] = result.details()
    if path:
        obs.extra["fullOutputPath"] = path
    obs.data = {**data, "highValueControlRefIds": list(result.high_value_ref_ids)}


async def apply_views(
    rt: Runtime,
    plan: ExecutionPlan,
    obs: Observation,
    flags: SnapshotFlags,
    previous: Mapping[str, RefInfo] | None,
) -> None:
    """Render search/filter, viewport and diff views for a successful snapshot."""
    data = obs.data if isinstance(obs.data, Mapping) else {}
    refs = _refs(data.get("refs"))
    raw_text = data.get("snapshot")
    text: str = raw_text if isinstance(raw_text, str) else ""
    lines: list[str] = [*flags.notes]
    clean = [t for t in plan.args if t not in ("--viewport", "--diff")]
    if flags.search is not None or flags.role is not None:
        filtered = views.filter_snapshot(
            text, refs, search=flags.search, role=flags.role, exact=flags.exact
        )
        substring = flags.search if flags.search and not flags.exact else None
        probe = await _probe(rt, plan, views.search_probe_js(substring)) if substring else None
        details = views.snapshot_filter_details(filtered, clean, probe_result=probe, refs=refs)
        obs.extra["snapshotFilter"] = details
        lines += views.render_search(filtered, details)
        if substring and probe is None:
            obs.warnings.append("The rendered-text search probe failed; ref matches only.")
    if flags.viewport:
        viewport = views.parse_viewport_probe(await _probe(rt, plan, views.VIEWPORT_PROBE_JS))
        if viewport is None:
            obs.warnings.append("The viewport probe failed; no scroll position is reported.")
        else:
            obs.extra["snapshotViewport"] = viewport
            lines.append("Viewport: " + json.dumps(viewport, ensure_ascii=False)[:600])
    if flags.diff:
        before = {k: {"role": v.role, "name": v.name} for k, v in (previous or {}).items()}
        diff = views.diff_refs(before if previous is not None else None, refs)
        obs.extra["snapshotDiff"] = diff
        lines += views.render_diff(diff, before if previous is not None else None, refs)
    if flags.search is None and flags.role is None:
        compacted = obs.context.get("snapshot_text")
        lines.append(compacted if isinstance(compacted, str) else text)
    obs.context["snapshot_text"] = "\n".join(line for line in lines if line)


REFS_UNREAD = (
    "`snapshot --delta` returned a partial answer and the complete-refs read failed; refs "
    "were dropped rather than recorded as an empty page. Run `snapshot -i`."
)


async def complete_delta(
    rt: Runtime,
    plan: ExecutionPlan,
    obs: Observation,
    envelope: Envelope,
    shown: refmap.Shown | None = None,
) -> list[Effect]:
    """Show a native partial `--delta` answer and read complete refs for it.

    Why: the revision object lists only what changed, so follow-up ref checks and a resumed
    conversation need the complete map; one ordinary snapshot with the same scope flags
    supplies it without moving the engine's delta baseline. If that read fails the refs are
    dropped (a stale-ref failure then says why) instead of recorded as an empty page. In a
    batch this applies when the last successful snapshot step was a partial answer and no
    later step could change the page (see `_last_partial`); the read runs after the batch.
    """
    found = _last_partial(plan, obs, envelope)
    if found is None:
        return []
    native, read = found
    if not plan.is_batch:
        obs.context["snapshot_text"] = "\n".join(render_partial(native))
    data = await helper_data(rt, plan, read)
    if shown is not None:
        data = refmap.data_to_model(data, shown)
    payload = snapshot_payload(data)
    if payload is None or payload.refs is None or not isinstance(data, Mapping):
        obs.extra["snapshotDeltaRefs"] = {"status": "failed", "args": read}
        obs.warnings.append(REFS_UNREAD)
        return [RefsInvalidated(reason="refs-unread", summary=REFS_UNREAD)]
    refs = refs_from_snapshot({"refs": payload.refs}, payload.text)
    obs.extra["snapshotDeltaRefs"] = {"status": "read", "refs": len(refs), "args": read}
    note = (
        f"Complete refs: {len(refs)} read with one ordinary `{' '.join(read)}` "
        "(details.refSnapshot); the delta baseline is unchanged."
    )
    if plan.is_batch:
        obs.warnings.append(note)
    else:
        obs.context["snapshot_text"] += "\n" + note
    url = data.get("origin") or data.get("url")
    target = url if isinstance(url, str) else None
    return [RefsRecorded(refs=refs, target_url=target, read_args=tuple(read))]


def _last_partial(
    plan: ExecutionPlan, obs: Observation, envelope: Envelope
) -> tuple[NativeSnapshot, list[str]] | None:
    """The partial native answer to complete and the ordinary-read tokens for it.

    In a batch, only when no later step could have changed the page: the read runs after the
    batch, and its refs must describe the page the delta described, or a later step's ref
    invalidation would be overwritten by refs of a page the model never saw.
    """
    if not plan.is_batch:
        native = native_snapshot(obs.data) if plan.path == ("snapshot",) else None
        if native is None or not native.partial:
            return None
        return native, without_delta_flags(plan.checked.command_tokens)
    rows = list(envelope.rows or ())
    matches = list(plan.row_matches or ())
    for index in range(len(rows) - 1, -1, -1):
        match = matches[index] if index < len(matches) else None
        if match is None:
            return None
        if match.spec.path == ("snapshot",) and rows[index].success:
            native = native_snapshot(rows[index].result)
            if native is None or not native.partial:
                return None
            return native, _planned_read(match)
        if not match.spec.read_only or match.spec.page_effect is not PageEffect.NONE:
            return None
    return None


def _planned_read(match: CommandMatch) -> list[str]:
    """The planned snapshot step as argv, without its delta flags (not the engine's echo)."""
    tokens = list(match.tokens)
    for name, value in match.flags:
        tokens += [name] if value is None else [name, value]
    return without_delta_flags(tokens)
