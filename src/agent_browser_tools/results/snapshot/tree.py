"""Parse the engine's indented snapshot text into lines that know their place in the tree.

Why: compaction, filtering and search all need the same facts about a snapshot line (its
depth, role, accessible name, `@eN` ref and parent) and must agree on them, so they parse it
once, here. The engine prints one node per line as `- role "name" [attr, ref=eN]: text`,
nesting by two-space indentation (`snapshot -i` flattens most landmarks away; a full snapshot
keeps `banner`, `main`, ...). Lines that do not follow that shape are kept as opaque text so
nothing is silently dropped.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping, Sequence
from typing import Any, NamedTuple

_LINE = re.compile(r'^(?P<indent>\s*)- (?P<role>[^\s"\[:]+)(?: "(?P<name>(?:[^"\\]|\\.)*)")?')
_ATTRS = re.compile(r"\[(?P<attrs>[^\[\]]*)\]")
_REF = re.compile(r"(?:^|[\s,])ref=(?P<ref>e\d+)\b")
_LEVEL = re.compile(r"(?:^|[\s,])level=(?P<level>\d+)\b")
_UNESCAPE = re.compile(r"\\(.)")


class SnapshotLine(NamedTuple):
    """One line of a snapshot with its parsed node facts.

    `parent` is the index of the nearest earlier line with a smaller depth (None at the top),
    so ancestor chains can be rebuilt without re-reading indentation. A named tuple: a tree
    can have thousands of lines, and tuples of plain values cost the garbage collector nothing.
    """

    index: int  # type: ignore[assignment]  # shadows tuple.index, never called on a line
    text: str
    depth: int
    role: str
    name: str
    ref: str | None
    level: int | None
    parent: int | None

    @property
    def cost(self) -> int:
        """Characters this line costs in rendered output (with its newline)."""
        return len(self.text) + 1


def _depth(indent: str) -> int:
    return len(indent.expandtabs(2)) // 2 if "\t" in indent else len(indent) // 2


def _parse_one(text: str) -> tuple[int, str, str, str | None, int | None]:
    """Depth, role, name, ref and level of one (right-stripped) line. Dense pages have tens
    of thousands of lines: the attribute patterns run only on lines that can hold them."""
    match = _LINE.match(text)
    if match is None:
        stripped = text.lstrip(" ")
        return _depth(text[: len(text) - len(stripped)]), "", "", None, None
    indent, role, name = match.group(1, 2, 3)
    if name is None:
        name = ""
    elif "\\" in name:
        name = _UNESCAPE.sub(r"\1", name)
    ref: str | None = None
    level: int | None = None
    attrs = _ATTRS.search(text, match.end()) if "[" in text else None
    if attrs is not None:
        block = attrs.group(1)
        if "ref=" in block:
            ref_match = _REF.search(block)
            ref = ref_match.group(1) if ref_match else None
        if "level=" in block:
            level_match = _LEVEL.search(block)
            level = int(level_match.group(1)) if level_match else None
    return _depth(indent), role, name, ref, level


def parse_snapshot(text: str) -> list[SnapshotLine]:
    """Parse every non-empty line; parents come from indentation.

    Compaction, overlay detection and link kinds all read the same answer's tree, which can
    hold thousands of lines: the last few parses are kept (lines are frozen; each caller
    gets its own list)."""
    return list(_parsed(text))


LINE_MEMORY = 100_000
_LINE_FACTS: dict[str, tuple[int, str, str, str | None, int | None]] = {}
"""Each line read before, parsed (a pure reading): a page read again, or changed in a few
rows, repeats nearly all its lines."""


@functools.lru_cache(maxsize=2)
def _parsed(text: str) -> tuple[SnapshotLine, ...]:
    lines: list[SnapshotLine] = []
    stack: list[tuple[int, int]] = []  # (depth, index)
    for raw in text.split("\n"):
        line = raw.rstrip()
        if not line:
            continue
        index = len(lines)
        facts = _LINE_FACTS.get(line)
        if facts is None:
            facts = _parse_one(line)
            if len(_LINE_FACTS) >= LINE_MEMORY:
                _LINE_FACTS.clear()
            _LINE_FACTS[line] = facts
        depth, role, name, ref, level = facts
        while stack and stack[-1][0] >= depth:
            stack.pop()
        parent = stack[-1][1] if stack else None
        lines.append(SnapshotLine(index, line, depth, role, name, ref, level, parent))
        stack.append((depth, index))
    return tuple(lines)


def ancestors(lines: Sequence[SnapshotLine], index: int) -> list[int]:
    """Indexes of the ancestors of `lines[index]`, outermost first."""
    chain: list[int] = []
    parent = lines[index].parent
    while parent is not None:
        chain.append(parent)
        parent = lines[parent].parent
    chain.reverse()
    return chain


def subtree_end(lines: Sequence[SnapshotLine], index: int) -> int:
    """Index one past the last descendant of `lines[index]` (lines are in DOM order)."""
    depth = lines[index].depth
    end = index + 1
    while end < len(lines) and lines[end].depth > depth:
        end += 1
    return end


def ref_role_name(line: SnapshotLine, refs: Mapping[str, Mapping[str, Any]]) -> tuple[str, str]:
    """Role and name for a line, preferring the engine's ref map over the printed text.

    Why: the ref map is what later `@eN` actions resolve against, so when both exist the map
    is the authority; the printed line is the fallback for ref-less lines.
    """
    ref = line.ref
    entry = refs.get(ref) if ref else None
    if entry is None:
        return line.role, line.name
    if type(entry) is dict:  # the engine's map: the common case, without the ABC check
        role, name = entry.get("role"), entry.get("name")
        if type(role) is str and role and type(name) is str:
            return role, name
    elif not isinstance(entry, Mapping):
        return line.role, line.name
    role, name = entry.get("role"), entry.get("name")
    return (
        role if isinstance(role, str) and role else line.role,
        name if isinstance(name, str) else line.name,
    )


Names = Sequence[tuple[str, str]]
"""Role and name of each line (by `SnapshotLine.index`), the ref map's where it has them."""


def ref_names(lines: Sequence[SnapshotLine], refs: Mapping[str, Mapping[str, Any]]) -> Names:
    """`ref_role_name` of every line, read once: the compaction passes ask for a line's role
    and name many times over, and a dense page has thousands of lines."""
    out: list[tuple[str, str]] = []
    for line in lines:
        entry = refs.get(line.ref) if line.ref else None
        if type(entry) is dict:  # the engine's map: the common case, read inline
            role, name = entry.get("role"), entry.get("name")
            if type(role) is str and role and type(name) is str:
                out.append((role, name))
                continue
        out.append(ref_role_name(line, refs))
    return out


def named_lines(
    text: str, refs: Mapping[str, Mapping[str, Any]]
) -> tuple[list[SnapshotLine], Names]:
    """The parsed lines of `text` and their `ref_names`."""
    lines = parse_snapshot(text)
    return lines, ref_names(lines, refs)


def ref_label(ref: str, role: str, name: str, *, max_name: int = 80) -> str:
    """`@eN role "name"`: the one-line form used in key/omitted ref lists."""
    shown = name if len(name) <= max_name else name[: max_name - 1] + "…"
    quoted = shown.replace("\\", "\\\\").replace('"', '\\"')
    return f'@{ref} {role} "{quoted}"' if shown else f"@{ref} {role}"
