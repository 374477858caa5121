"""`agent_browser_source`'s workspace search: component and attribute literals in JS/TS sources.

The model names what to search for, and a page it read may have chosen that name. How the
workspace is read (under the root only, never through a symlink, regular files only, never the
server's own state, dependency/build/hidden trees skipped, every budget) is
`workspace_files`'s; this module owns what is searched: `.ts/.tsx/.js/.jsx` files, the first
`MAX_FILE_BYTES` of each (a definition sits near the top), the needles and their ranking, and
at most `MAX_MATCHES` matches. Excerpts are redacted: source files can hold credentials.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from contextlib import closing
from dataclasses import dataclass, field
from pathlib import Path

from agent_browser_tools.redaction import redact_text
from agent_browser_tools.workspace_files import (
    Oversize,
    Stop,
    WalkReport,
    WalkRules,
    WorkspaceWalk,
    clamp_max_files,
)

SOURCE_SUFFIXES = (".ts", ".tsx", ".js", ".jsx")
MAX_MATCHES = 10
MAX_FILE_BYTES = 256 * 1024
"""Bytes searched in one file; generated files are larger than any hand-written component."""
EXCERPT_CHARS = 160
_RANK = {"high": 0, "medium": 1, "low": 2}


@dataclass(frozen=True)
class Needle:
    """One thing to look for: `kind` says what a hit means (`definition`, `usage`,
    `attribute`), `confidence` how much it says, `component` which component it names."""

    kind: str
    pattern: re.Pattern[str]
    confidence: str
    label: str
    component: str | None = None


@dataclass(frozen=True)
class Match:
    file: str
    """Path relative to the workspace root, `/`-separated."""
    line: int
    column: int
    needle: Needle
    excerpt: str


@dataclass
class Scan:
    """What a search found and what the walk could not look at."""

    root: Path
    matches: list[Match] = field(default_factory=list)
    walk: WalkReport = field(default_factory=WalkReport)
    walk_notes: list[str] = field(default_factory=list)
    more_matches: bool = False

    @property
    def files_read(self) -> int:
        return self.walk.files_read

    @property
    def file_limit_hit(self) -> bool:
        return self.walk.stopped is Stop.FILES

    @property
    def truncated_files(self) -> int:
        return self.walk.truncated_files

    def limitations(self) -> list[str]:
        notes = list(self.walk_notes)
        if self.more_matches:
            notes.append(f"More than {MAX_MATCHES} workspace matches; only the best are listed.")
        return notes


def component_needles(name: str, confidence: str = "high") -> list[Needle]:
    """Where `name` is defined (function/class/const) and where JSX renders it."""
    word = re.escape(name)
    definition = re.compile(
        rf"(?:\bfunction\s*\*?\s+{word}\b|\bclass\s+{word}\b|\b(?:const|let|var)\s+{word}\s*[=:])"
    )
    usage = re.compile(rf"<{word}(?=[\s/>])")
    return [
        Needle("definition", definition, confidence, f"defines {name}", name),
        Needle("usage", usage, "low", f"renders <{name}>", name),
    ]


def attribute_needle(
    attr: str, value: str, *, confidence: str = "medium", component: str | None = None
) -> Needle:
    """A JSX/HTML attribute literal: `id="save"`, `id='save'` or `id={"save"}`."""
    quoted = rf"""["'`]{re.escape(value)}["'`]"""
    pattern = re.compile(rf"(?<![\w-]){re.escape(attr)}\s*=\s*(?:{quoted}|\{{\s*{quoted}\s*\}})")
    return Needle("attribute", pattern, confidence, f'{attr}="{value}"', component)


def class_needle(value: str) -> Needle:
    """A `className`/`class` literal that lists `value` among its classes."""
    pattern = re.compile(
        rf"""\bclass(?:Name)?\s*=\s*\{{?\s*["'`][^"'`]*(?<![\w-]){re.escape(value)}(?![\w-])"""
    )
    return Needle("attribute", pattern, "low", f'class "{value}"')


def scan(
    root: Path,
    needles: Sequence[Needle],
    *,
    max_files: int | None = None,
    excluded: Sequence[Path] = (),
) -> Scan:
    """Search the source files under `root` (already resolved) for `needles`, reading at most
    `max_files` files (`maxWorkspaceFiles`, clamped); `excluded` are the server's own places,
    never read even inside the workspace."""
    result = Scan(root=root)
    if not needles:
        return result
    rules = WalkRules(
        suffixes=SOURCE_SUFFIXES,
        max_file_bytes=MAX_FILE_BYTES,
        oversize=Oversize.TRUNCATE,
        max_files=clamp_max_files(max_files),
        excluded=tuple(excluded),
    )
    walk = WorkspaceWalk(root, rules)
    found: list[Match] = []
    with closing(walk.files()) as files:
        for file in files:
            found += _search(file.text, file.path, needles)
    found.sort(key=_order)
    result.walk, result.walk_notes = walk.report, walk.limitations()
    result.more_matches = len(found) > MAX_MATCHES
    result.matches = found[:MAX_MATCHES]
    return result


def _order(match: Match) -> tuple[int, int, str, int]:
    kind = {"attribute": 0, "definition": 0, "usage": 1}.get(match.needle.kind, 2)
    return (_RANK.get(match.needle.confidence, 3), kind, match.file, match.line)


def _search(text: str, relative: str, needles: Sequence[Needle]) -> list[Match]:
    found = []
    for number, line in enumerate(text.splitlines(), start=1):
        for needle in needles:
            hit = needle.pattern.search(line)
            if hit is not None:
                excerpt = redact_text(line.strip()[:EXCERPT_CHARS])
                found.append(Match(relative, number, hit.start() + 1, needle, excerpt))
    return found
