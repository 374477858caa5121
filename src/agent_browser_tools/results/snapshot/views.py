"""Wrapper-side snapshot views: `--search`, `--search-exact`, `--filter role=`, `--viewport`
and `--diff`.

Why: on a dense page an agent looking for one control should not have to read, or open the
spill file of, a 60,000-character tree. These flags are the wrapper's, not the engine's: they
are stripped before the engine is spawned (`split_snapshot_flags`), the engine returns its
ordinary full tree and ref map, and the view is computed here from that (`filter_snapshot`,
`diff_refs`) plus, for `--search` and `--viewport`, one read-only probe each (see
`snapshot_probes`, re-exported below). Native `--delta` output is a partial tree, so it cannot
feed these views: when a wrapper flag is present `--delta`/`--full` are stripped too and the
result says so.

`--search TEXT` matches any ref whose name or line contains TEXT (any case) and, when there
are more matches than fit, shows those named exactly TEXT first; `--search-exact NAME` matches
whole names only, so a link named "in" is found alone on a page where hundreds of names
contain "in" (it skips the rendered-text probe, which matches substrings).

Pure: no I/O.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from agent_browser_tools.results.snapshot import search_list
from agent_browser_tools.results.snapshot.diff import diff_refs, render_diff
from agent_browser_tools.results.snapshot.probes import (
    SEARCH_PROBE_JS,
    VIEWPORT_PROBE_JS,
    parse_search_probe,
    parse_viewport_probe,
    search_probe_counts,
    search_probe_js,
)
from agent_browser_tools.results.snapshot.tree import (
    SnapshotLine,
    ancestors,
    parse_snapshot,
    ref_role_name,
)

__all__ = [
    "SEARCH_PROBE_JS",
    "VIEWPORT_PROBE_JS",
    "FilteredSnapshot",
    "SnapshotFlags",
    "diff_refs",
    "filter_snapshot",
    "is_interactive",
    "parse_search_probe",
    "parse_viewport_probe",
    "render_diff",
    "render_search",
    "search_probe_counts",
    "search_probe_js",
    "snapshot_filter_details",
    "split_snapshot_flags",
]

#: Engine snapshot options that take a value (the value is never read as a flag).
_VALUE_FLAGS = frozenset({"-d", "--depth", "-s", "--selector"})
#: Short boolean options the engine accepts, for bundles like `-ic`.
_SHORT_BOOLEANS = frozenset("iuc")
_DELTA_FLAGS = frozenset({"--delta", "--full"})
_ROLE = re.compile(r"^[A-Za-z][A-Za-z0-9_-]*$")
_ATTR_GROUP = re.compile(r"\s*\[[^\[\]]*\]")
#: The `- role "name"` head of a line: searched as the name, never as the role word (else
#: `--search in` would match every `link` line).
_LINE_HEAD = re.compile(r'^\s*- [^\s"\[:]+(?: "(?:[^"\\]|\\.)*")?')
FILTER_BUDGET = 15_000
_SEARCH_FIX = "snapshot -i --search <text>"
_EXACT_FIX = "snapshot -i --search-exact <name>"
_FILTER_FIX = "snapshot -i --filter role=<role>"


@dataclass(frozen=True)
class SnapshotFlags:
    """Wrapper-only snapshot flags found in the caller's args."""

    search: str | None = None
    exact: bool = False  # `--search-exact`: `search` is a whole accessible name
    role: str | None = None
    viewport: bool = False
    diff: bool = False
    stripped_delta: tuple[str, ...] = ()
    notes: tuple[str, ...] = field(default=())

    @property
    def any(self) -> bool:
        return self.search is not None or self.role is not None or self.viewport or self.diff


def is_interactive(token: str) -> bool:
    """Whether `token` is `-i`/`--interactive` or a short-flag bundle holding it (`-ic`)."""
    if token in ("-i", "--interactive"):
        return True
    letters = token[1:]
    return (
        token.startswith("-")
        and not token.startswith("--")
        and "i" in letters
        and set(letters) <= _SHORT_BOOLEANS
    )


def _option_value(tokens: Sequence[str], pos: int, flag: str, fix: str) -> tuple[str, int]:
    """The value of `flag` at `tokens[pos]` (`--flag v` or `--flag=v`) and the next position."""
    token = tokens[pos]
    if token.startswith(flag + "="):
        value, nxt = token[len(flag) + 1 :], pos + 1
    elif pos + 1 < len(tokens):
        value, nxt = tokens[pos + 1], pos + 2
    else:
        raise ValueError(f"{flag} needs a value: {fix}")
    if not value.strip():
        raise ValueError(f"{flag} needs a non-empty value: {fix}")
    return value, nxt


def _parse_role(value: str) -> str:
    key, _, role = value.partition("=")
    if key != "role" or not _ROLE.match(role):
        raise ValueError(
            f"--filter accepts only role=<role> (got {value!r}); e.g. "
            "snapshot -i --filter role=button"
        )
    return role


def split_snapshot_flags(tokens: Sequence[str]) -> tuple[list[str], SnapshotFlags]:
    """Strip wrapper flags from snapshot args; return the engine args and what was found.

    `tokens` are the snapshot command's own args (with or without the leading `snapshot`).
    Raises ValueError with the exact fix when `--filter` is not `role=<role>`, a value is
    missing, or `--search`/`--filter` is used without `-i`/`--interactive`.
    """
    clean: list[str] = []
    found: dict[str, Any] = {"search": None, "role": None, "viewport": False, "diff": False}
    searches: list[str] = []
    delta: list[str] = []
    pos = 0
    while pos < len(tokens):
        token = tokens[pos]
        if token in _VALUE_FLAGS:
            clean.extend(tokens[pos : pos + 2])
            pos += 2
        elif token == "--search" or token.startswith("--search="):
            found["search"], pos = _option_value(tokens, pos, "--search", _SEARCH_FIX)
            searches.append("--search")
        elif token == "--search-exact" or token.startswith("--search-exact="):
            found["search"], pos = _option_value(tokens, pos, "--search-exact", _EXACT_FIX)
            found["exact"] = True
            searches.append("--search-exact")
        elif token == "--filter" or token.startswith("--filter="):
            value, pos = _option_value(tokens, pos, "--filter", _FILTER_FIX)
            found["role"] = _parse_role(value)
        elif token in ("--viewport", "--diff"):
            found[token[2:]] = True
            pos += 1
        else:
            (delta if token in _DELTA_FLAGS else clean).append(token)
            pos += 1
    if len(set(searches)) > 1:
        raise ValueError(f"use one of --search / --search-exact: {_SEARCH_FIX} or {_EXACT_FIX}")
    flags = SnapshotFlags(**found)
    if (flags.search is not None or flags.role is not None) and not any(
        is_interactive(t) for t in clean
    ):
        raise ValueError(
            "--search/--filter work on the interactive ref map: add -i, e.g. "
            f"{_SEARCH_FIX} or {_FILTER_FIX}"
        )
    return _settle_delta(clean, delta, flags)


def _settle_delta(
    clean: list[str], delta: list[str], flags: SnapshotFlags
) -> tuple[list[str], SnapshotFlags]:
    """Keep `--delta`/`--full` for the engine unless a wrapper view needs the full tree."""
    if not delta:
        return clean, flags
    if not flags.any:
        return clean + delta, flags
    note = (
        f"Ignored {' '.join(dict.fromkeys(delta))}: wrapper --search/--filter/--viewport/--diff "
        "views use a full snapshot tree, not native delta output (the delta baseline is "
        "unchanged)."
    )
    return clean, replace(flags, stripped_delta=tuple(delta), notes=(note,))


@dataclass(frozen=True)
class FilteredSnapshot:
    """Matching ref lines with context, and the `snapshotFilter` counts."""

    text: str
    matched_ref_ids: tuple[str, ...]
    total_refs: int
    visible_lines: int
    total_lines: int
    search: str | None
    role: str | None
    truncated: bool = False
    exact: bool = False

    @property
    def matched_refs(self) -> int:
        return len(self.matched_ref_ids)


def _normal(text: str) -> str:
    return " ".join(text.split()).casefold()


def _match_rank(
    line: SnapshotLine,
    refs: Mapping[str, Mapping[str, Any]],
    needle: str | None,
    role: str | None,
    exact: bool,
) -> int | None:
    """None when the line does not match; else 0 for a whole-name match, 1 for any other.

    Why the rank: `--search in` matches hundreds of names on a documentation page; showing
    the refs named exactly "in" first keeps them in the view when the rest is cut."""
    if line.ref is None:
        return None
    line_role, name = ref_role_name(line, refs)
    if role is not None and line_role.casefold() != role.casefold():
        return None
    if needle is None:
        return 1
    if _normal(name) == " ".join(needle.split()):
        return 0
    if exact:
        return None
    rest = _ATTR_GROUP.sub("", _LINE_HEAD.sub("", line.text, count=1))
    haystack = f"{name}\n{rest}".casefold()
    return 1 if needle in haystack else None


def _with_context(lines: Sequence[SnapshotLine], index: int) -> list[int]:
    """The match and its ancestors (the cell a button sits in, the dialog a field is in).

    Neighbouring lines are not shown: in a flat `-i` tree the line before or after a match is
    another control (a code sample's `generic ">>>" clickable`, the next row's cell), which
    read as unrelated matches."""
    return [*ancestors(lines, index), index]


def _render_lines(lines: Sequence[SnapshotLine], chosen: Sequence[int]) -> list[str]:
    out: list[str] = []
    previous = -1
    for index in chosen:
        if previous >= 0 and index != previous + 1:
            out.append("  …")
        out.append(lines[index].text)
        previous = index
    return out


def filter_snapshot(
    text: str,
    refs: Mapping[str, Mapping[str, Any]],
    *,
    search: str | None,
    role: str | None,
    budget: int = FILTER_BUDGET,
    exact: bool = False,
) -> FilteredSnapshot:
    """Ref lines matching `search` (case-insensitive, name and line text; with `exact`, the
    whole name) and/or `role`, rendered in DOM order with context; cut at `budget` characters
    with a note saying how many matches were not rendered (the counts still cover all of
    them). Whole-name matches are picked first, so they survive the cut."""
    lines = parse_snapshot(text)
    needle = search.casefold() if search is not None else None
    ranked: list[tuple[int, int]] = []
    for line in lines:
        rank = _match_rank(line, refs, needle, role, exact)
        if rank is not None:
            ranked.append((rank, line.index))
    matches = [index for _, index in ranked]
    chosen: set[int] = set()
    used = shown = 0
    for _, index in sorted(ranked):
        new = [i for i in dict.fromkeys(_with_context(lines, index)) if i not in chosen]
        # Upper bound: the new lines plus at most two gap markers ("  …\n").
        cost = sum(lines[i].cost for i in new) + 8
        if used + cost > budget - 120 and shown:
            break
        chosen.update(new)
        used, shown = used + cost, shown + 1
    rendered = _render_lines(lines, sorted(chosen))
    if shown < len(matches):
        rendered.append(f"… {len(matches) - shown} more matches not shown; narrow the search")
    ref_ids = tuple(dict.fromkeys(ref for i in matches if (ref := lines[i].ref)))
    total_refs = len(refs) if refs else len({line.ref for line in lines if line.ref})
    return FilteredSnapshot(
        text="\n".join(rendered),
        matched_ref_ids=ref_ids,
        total_refs=total_refs,
        visible_lines=len(chosen),
        total_lines=len(lines),
        search=search,
        role=role,
        truncated=shown < len(matches),
        exact=exact,
    )


def snapshot_filter_details(
    filtered: FilteredSnapshot,
    clean_args: Sequence[str],
    *,
    probe_result: Any = None,
    refs: Mapping[str, Mapping[str, Any]] | None = None,
) -> dict[str, Any]:
    """`details.snapshotFilter`; the rendered-DOM fields appear only when search probed, and
    hold only the matches a `--filter role=` keeps (`search_list.role_filtered`)."""
    details: dict[str, Any] = {"cleanArgs": list(clean_args)}
    if filtered.search is not None:
        details["search"] = filtered.search
        if filtered.exact:
            details["searchExact"] = True
    if filtered.role is not None:
        details["role"] = filtered.role
    details.update(
        matchedRefs=filtered.matched_refs,
        totalRefs=filtered.total_refs,
        visibleLines=filtered.visible_lines,
        totalLines=filtered.total_lines,
    )
    if probe_result is not None:
        total, truncated = search_probe_counts(probe_result)
        parsed = parse_search_probe(probe_result, refs or {})
        kept, excluded = search_list.role_filtered(parsed, filtered.role)
        details["renderedTextMatches"] = kept
        details["renderedTextTotalMatches"] = total
        details["renderedTextTruncated"] = truncated
        if filtered.role is not None:
            details["renderedTextRoleExcluded"] = excluded
    return details


def render_search(filtered: FilteredSnapshot, details: Mapping[str, Any]) -> list[str]:
    """The visible answer: one summary line, then one list in page order (`search_list`)."""
    what = " and ".join(
        part
        for part in (
            f'{"search-exact" if filtered.exact else "search"} "{filtered.search}"'
            if filtered.search is not None
            else "",
            f"role={filtered.role}" if filtered.role is not None else "",
        )
        if part
    )
    tree = filtered.text.split("\n") if filtered.text else []
    tail = [tree.pop()] if tree and tree[-1].startswith("… ") else []
    matches = details.get("renderedTextMatches")
    if not isinstance(matches, list):
        head = search_list.header(what, filtered.matched_refs, filtered.total_refs, None)
        return [head, *tree, *tail]
    merged, added = search_list.merge(tree, matches)
    head = search_list.header(
        what,
        filtered.matched_refs,
        filtered.total_refs,
        added,
        probe_total=int(details.get("renderedTextTotalMatches") or 0),
        truncated=bool(details.get("renderedTextTruncated")),
        role_excluded=int(details.get("renderedTextRoleExcluded") or 0),
    )
    return [head, *merged, *tail]
