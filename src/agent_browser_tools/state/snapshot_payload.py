"""Reading snapshot results from the engine's data: an ordinary tree or a native delta answer.

Why here, below `results/`: recording refs (`state/effects.py`) and rendering a result both need
the tree and ref map of a snapshot answer, whichever shape the engine sent. With `--delta` the
engine answers with a revision object in `data.snapshot` instead of the tree text: `kind:
"full"` (a new baseline with `tree` and `refs`), `kind: "unchanged"` (only `revision` /
`baseRevision`) or `kind: "delta"` (`changes` plus a `treeChange` splice). A full answer is an
ordinary snapshot in other clothes, so `snapshot_payload` gives the same answer for both
shapes. Showing a partial answer is `results/snapshot/delta.py`'s job.

Pure: no I/O.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

#: Flags that select native delta output; stripped for the complete-refs read.
DELTA_FLAGS = frozenset({"--delta", "--full"})


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
