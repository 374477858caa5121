"""Native `snapshot --delta` results (engine 0.38+): showing partial ones.

Why: with `--delta` the engine answers with a revision object in `data.snapshot` instead of
the tree text (`full`, `unchanged` or `delta`). Reading it is `state/snapshot_payload.py`'s job
(re-exported here): every reader of snapshot results (compaction, ref recording, overlay
evidence) asks `snapshot_payload` for the tree and refs and gets the same answer for an
ordinary and a native-full answer. A partial answer carries no complete ref map, so the caller
shows the native revision data (`render_partial`) and reads complete refs with one ordinary
snapshot, which does not move the engine's delta baseline.

Pure: no I/O. The native object stays untouched in `details.data.snapshot`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from agent_browser_tools.state.snapshot_payload import (
    DELTA_FLAGS,
    NativeSnapshot,
    SnapshotPayload,
    native_snapshot,
    snapshot_payload,
    without_delta_flags,
)

__all__ = [
    "DELTA_FLAGS",
    "SHOWN_CHANGES",
    "SHOWN_TREE_LINES",
    "NativeSnapshot",
    "SnapshotPayload",
    "native_snapshot",
    "render_partial",
    "snapshot_payload",
    "without_delta_flags",
]

#: Changed tree lines shown for a partial answer; the rest stay in details.data.
SHOWN_TREE_LINES = 60
#: Change rows shown for a partial answer.
SHOWN_CHANGES = 40


def _change_line(change: Mapping[str, Any]) -> str:
    """`- add @e24 button "New"`: the op, the ref and, when the engine sent it, the node."""
    node = change.get("node")
    role = name = ""
    if isinstance(node, Mapping):
        role = str(node.get("role") or "")
        name = str(node.get("name") or "")
    label = f'{role} "{name}"' if name else role
    return f"- {change.get('op', '?')} {change.get('ref', '')} {label}".rstrip()


def render_partial(native: NativeSnapshot) -> list[str]:
    """Visible lines for an `unchanged` or `delta` answer: revisions, changes, tree splice."""
    revisions = f"revision {native.revision}" if native.revision is not None else "revision ?"
    if native.base_revision is not None:
        revisions += f" against base revision {native.base_revision}"
    if native.kind == "unchanged":
        return [f"Snapshot delta: unchanged ({revisions})."]
    kind = "changed" if native.kind == "delta" else native.kind
    lines = [f"Snapshot delta: {kind} ({revisions}), {len(native.changes)} ref change(s)."]
    lines += [_change_line(c) for c in native.changes[:SHOWN_CHANGES]]
    if len(native.changes) > SHOWN_CHANGES:
        lines.append(f"- … {len(native.changes) - SHOWN_CHANGES} more in details.data.snapshot")
    change = native.tree_change
    if change is not None:
        raw = change.get("lines")
        spliced = [str(line) for line in raw] if isinstance(raw, list) else []
        lines.append(
            f"Tree change at line {change.get('startLine')}: {change.get('deleteCount')} "
            f"line(s) replaced by {len(spliced)}:"
        )
        lines += spliced[:SHOWN_TREE_LINES]
        if len(spliced) > SHOWN_TREE_LINES:
            lines.append(f"… {len(spliced) - SHOWN_TREE_LINES} more lines in details.data.snapshot")
    return lines
