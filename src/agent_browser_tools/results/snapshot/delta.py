"""Native `snapshot --delta` results (engine 0.38+): reading them and showing partial ones.

Why: with `--delta` the engine answers with a revision object in `data.snapshot` instead of
the tree text: `kind: "full"` (a new baseline with `tree` and `refs`), `kind: "unchanged"`
(only `revision`/`baseRevision`) or `kind: "delta"` (`changes` plus a `treeChange` splice).
A full answer is an ordinary snapshot in other clothes, so every reader of snapshot results
(compaction, ref recording, overlay evidence) asks `snapshot_payload` for the tree and refs
and gets the same answer for both shapes. A partial answer carries no complete ref map, so
the caller shows the native revision data (`render_partial`) and reads complete refs with one
ordinary snapshot, which does not move the engine's delta baseline.

Pure: no I/O. The native object stays untouched in `details.data.snapshot`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

#: Flags that select native delta output; stripped for the complete-refs read.
DELTA_FLAGS = frozenset({"--delta", "--full"})
#: Changed tree lines shown for a partial answer; the rest stay in details.data.
SHOWN_TREE_LINES = 60
#: Change rows shown for a partial answer.
SHOWN_CHANGES = 40


@dataclass(frozen=True)
class NativeSnapshot:
    """The revision facts of a native delta answer (`tree`/`refs` only for `full`)."""

    kind: str
    revision: int | None
    base_revision: int | None
    tree: str | None
    refs: Mapping[str, Any] | None
    changes: tuple[Mapping[str, Any], ...]
    tree_change: Mapping[str, Any] | None

    @property
    def partial(self) -> bool:
        """True when the answer has no complete tree and ref map (`unchanged` or `delta`)."""
        return self.kind != "full" or self.tree is None or self.refs is None


def _int(value: Any) -> int | None:
    """An integer revision (JSON booleans are not revisions)."""
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def native_snapshot(data: Any) -> NativeSnapshot | None:
    """The native delta object in a snapshot result's data, or None for ordinary results."""
    if not isinstance(data, Mapping):
        return None
    native = data.get("snapshot")
    if not isinstance(native, Mapping) or not isinstance(native.get("kind"), str):
        return None
    tree = native.get("tree")
    refs = native.get("refs")
    changes = native.get("changes")
    tree_change = native.get("treeChange")
    return NativeSnapshot(
        kind=native["kind"],
        revision=_int(native.get("revision")),
        base_revision=_int(native.get("baseRevision")),
        tree=tree if isinstance(tree, str) else None,
        refs=refs if isinstance(refs, Mapping) else None,
        changes=tuple(c for c in changes if isinstance(c, Mapping))
        if isinstance(changes, list)
        else (),
        tree_change=tree_change if isinstance(tree_change, Mapping) else None,
    )


@dataclass(frozen=True)
class SnapshotPayload:
    """The tree text of a snapshot result and its ref map (None when the engine sent none)."""

    text: str
    refs: Mapping[str, Any] | None


def snapshot_payload(data: Any) -> SnapshotPayload | None:
    """Tree and refs of an ordinary or native-full snapshot result; None for anything else
    (a native partial answer, or data that is not a snapshot)."""
    if not isinstance(data, Mapping):
        return None
    text = data.get("snapshot")
    if isinstance(text, str):
        refs = data.get("refs")
        return SnapshotPayload(text, refs if isinstance(refs, Mapping) else None)
    native = native_snapshot(data)
    if native is None or native.kind != "full" or native.tree is None:
        return None
    return SnapshotPayload(native.tree, native.refs)


def without_delta_flags(tokens: Sequence[str]) -> list[str]:
    """The snapshot command tokens for an ordinary read (same scope flags, no delta)."""
    return [t for t in tokens if t not in DELTA_FLAGS]


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
