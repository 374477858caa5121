"""One list for `snapshot -i --search`: ref matches and rendered-text matches in page order.

Why: the result used to show two lists, the rendered-DOM probe's matches and then the ref
matches with context, so the same link could appear twice, far apart, and a `--filter role=`
did not apply to the first list. Here both are merged into the snapshot's own order. The
probe reports its matches in document order and names a ref when its role and name pick out
exactly one; a probe match whose ref is already a ref match is that line (nothing added); any
other probe match is inserted after the last ref line the probe saw before it, marked
`[rendered text]` so a model can tell it from a direct ref match (with `@eN` when the probe
mapped it to a ref whose name did not match the search, e.g. a field found by its
placeholder).

A role filter (`--filter role=link`) applies to every line: a rendered-only match is kept only
when its role (explicit, or implied by its tag) is that role, so text with no role is left out
under a role filter and counted in `details.snapshotFilter.renderedTextRoleExcluded`.

Pure: no I/O.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

_REF = re.compile(r"\bref=(e\d+)\b")


def role_filtered(
    matches: Sequence[Mapping[str, Any]], role: str | None
) -> tuple[list[Mapping[str, Any]], int]:
    """The probe matches a `--filter role=` keeps, and how many it left out."""
    if role is None:
        return list(matches), 0
    wanted = role.casefold()
    kept = [m for m in matches if str(m.get("role") or "").casefold() == wanted]
    return kept, len(matches) - len(kept)


def _blocks(tree: Sequence[str]) -> dict[str, int]:
    """Ref -> index one past its line and the shown lines nested under it."""
    ends: dict[str, int] = {}
    for index, line in enumerate(tree):
        found = _REF.search(line)
        if found is None:
            continue
        depth = len(line) - len(line.lstrip(" "))
        end = index + 1
        while (
            end < len(tree)
            and tree[end].strip() != "…"
            and len(tree[end]) - len(tree[end].lstrip(" ")) > depth
        ):
            end += 1
        ends.setdefault(found.group(1), end)
    return ends


def _rendered_line(match: Mapping[str, Any]) -> str:
    kind = ", validation" if match.get("kind") == "validation" else ""
    where = " [offscreen]" if match.get("offscreen") else ""
    ref = f" @{match['ref']}" if match.get("ref") else ""
    role = f" {match['role']}" if match.get("role") else ""
    text = str(match.get("text", "")).replace('"', '\\"')
    return f'- [rendered text{kind}]{ref}{role} <{match.get("tagName", "")}>{where}: "{text}"'


def merge(tree: Sequence[str], matches: Sequence[Mapping[str, Any]]) -> tuple[list[str], int]:
    """`tree` (ref matches with ancestors, in snapshot order) with the probe's matches (in
    document order) that are not ref lines of it inserted where the page has them; returns the
    lines and how many were inserted."""
    ends = _blocks(tree)
    inserts: dict[int, list[str]] = {}
    cursor = 0
    for match in matches:
        ref = match.get("ref")
        if isinstance(ref, str) and ref in ends:
            cursor = max(cursor, ends[ref])
            continue
        inserts.setdefault(cursor, []).append(_rendered_line(match))
    out: list[str] = []
    for index in range(len(tree) + 1):
        out.extend(inserts.get(index, ()))
        if index < len(tree):
            out.append(tree[index])
    return out, sum(len(v) for v in inserts.values())


def header(
    what: str,
    direct: int,
    total_refs: int,
    rendered_only: int | None,
    *,
    probe_total: int = 0,
    truncated: bool = False,
    role_excluded: int = 0,
) -> str:
    """The one summary line: direct ref matches and rendered-only matches counted apart."""
    line = f"Snapshot filter ({what}): {direct} ref matches of {total_refs} refs"
    if rendered_only is None:
        return line + ", in page order."
    extra = (
        f"; {rendered_only} more found only in the rendered page, marked [rendered text]"
        if rendered_only
        else "; no other match in the rendered page"
    )
    cut = f" ({probe_total} visible text matches, list cut short)" if truncated else ""
    role = f"; {role_excluded} rendered matches without that role left out" if role_excluded else ""
    return f"{line}{extra}{cut}{role}; in page order, hidden elements excluded."
