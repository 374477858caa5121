"""`snapshot --diff`: what changed in the ref map since the session's previous snapshot.

Why: after an action an agent often needs only "which controls appeared, went away or were
renamed", not a re-read of the whole tree. The comparison is of ref ids plus role/name
metadata against the previous wrapper-tracked ref map for the session; it is a quick ref-map
delta, not a visual or text diff. Pure: no I/O.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from agent_browser_tools.results.snapshot.tree import ref_label

RefMeta = tuple[str, str]


def _meta(value: Any) -> RefMeta:
    if isinstance(value, Mapping):
        role, name = value.get("role"), value.get("name")
        return (role if isinstance(role, str) else "", name if isinstance(name, str) else "")
    if isinstance(value, Sequence) and not isinstance(value, str) and len(value) == 2:
        return (str(value[0]), str(value[1]))
    return ("", "")


def _ref_key(ref: str) -> tuple[int, str]:
    return (int(ref[1:]), ref) if ref[1:].isdigit() else (1 << 60, ref)


def diff_refs(previous: Mapping[str, Any] | None, current: Mapping[str, Any]) -> dict[str, Any]:
    """`details.snapshotDiff`: ref ids added, removed, changed (role or name) and unchanged.

    Values may be `(role, name)` pairs or the engine's `{role, name}` maps. With no previous
    wrapper-tracked map every current ref counts as added, and the summary says so.
    """
    now = {ref: _meta(value) for ref, value in current.items()}
    before = {ref: _meta(value) for ref, value in (previous or {}).items()}
    added = sorted((r for r in now if r not in before), key=_ref_key)
    removed = sorted((r for r in before if r not in now), key=_ref_key)
    common = [r for r in now if r in before]
    changed = sorted((r for r in common if now[r] != before[r]), key=_ref_key)
    unchanged = sorted((r for r in common if now[r] == before[r]), key=_ref_key)
    if previous is None:
        summary = f"No previous snapshot refs for this session; {len(added)} refs recorded."
    else:
        summary = (
            f"{len(added)} added, {len(removed)} removed, {len(changed)} changed, "
            f"{len(unchanged)} unchanged refs since the previous snapshot."
        )
    return {
        "addedRefs": added,
        "removedRefs": removed,
        "changedRefs": changed,
        "unchangedRefs": unchanged,
        "summary": summary,
    }


def render_diff(
    diff: Mapping[str, Any],
    previous: Mapping[str, Any] | None,
    current: Mapping[str, Any],
    *,
    limit: int = 20,
) -> list[str]:
    """Visible diff lines: the summary, then up to `limit` `+`/`-`/`~` ref lines."""
    out = [f"Snapshot diff: {diff['summary']}"]
    rows: list[str] = []
    for sign, key, source in (("+", "addedRefs", current), ("-", "removedRefs", previous or {})):
        for ref in diff[key]:
            rows.append(f"{sign} {ref_label(ref, *_meta(source.get(ref)))}")
    for ref in diff["changedRefs"]:
        old = _meta((previous or {}).get(ref))
        rows.append(f'~ {ref_label(ref, *_meta(current.get(ref)))} (was {old[0]} "{old[1]}")')
    out.extend(rows[:limit])
    if len(rows) > limit:
        out.append(f"… {len(rows) - limit} more ref changes (see details.snapshotDiff)")
    return out
