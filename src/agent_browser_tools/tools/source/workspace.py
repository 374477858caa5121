"""Bounded search of the execution dir's JS/TS sources for component and attribute literals.

The model names what to search for, and a page it read may have chosen that name, so the walk
is bounded on every axis: it stays under the workspace root and never follows a symlink (a
link could lead anywhere on the disk), skips build output and dependency trees (matches there
are copies, not the code to edit, and they are large), reads at most `max_files` files and a
bounded number of bytes from each, and keeps at most `MAX_MATCHES` matches. Excerpts are
redacted: source files can hold credentials.
"""

from __future__ import annotations

import os
import re
import stat
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from agent_browser_tools.redaction import redact_text

SOURCE_SUFFIXES = (".ts", ".tsx", ".js", ".jsx")
SKIPPED_DIRS = frozenset(
    {
        "node_modules",
        "dist",
        "build",
        ".next",
        ".nuxt",
        ".svelte-kit",
        ".turbo",
        ".cache",
        "coverage",
        ".git",
        ".hg",
        ".svn",
        ".venv",
        "venv",
        "__pycache__",
        "out",
        "target",
    }
)
DEFAULT_MAX_FILES = 2_000
MAX_FILES_CAP = 5_000
MAX_MATCHES = 10
MAX_FILE_BYTES = 256 * 1024
"""Bytes read from one file; generated files are larger than any hand-written component."""
EXCERPT_CHARS = 160
_RANK = {"high": 0, "medium": 1, "low": 2}
_OPEN_FLAGS = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
"""No final symlink (a file swapped for a link after the listing) and no blocking on a FIFO."""


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
    """What a search found and what it could not look at."""

    root: Path
    matches: list[Match] = field(default_factory=list)
    files_read: int = 0
    file_limit_hit: bool = False
    truncated_files: int = 0
    symlinks_skipped: int = 0
    more_matches: bool = False

    def limitations(self) -> list[str]:
        notes = []
        if self.file_limit_hit:
            notes.append(
                f"Workspace search stopped after {self.files_read} files (maxWorkspaceFiles); "
                "raise maxWorkspaceFiles (up to 5000) to search further."
            )
        if self.truncated_files:
            notes.append(
                f"{self.truncated_files} large file(s) were searched only in their first "
                f"{MAX_FILE_BYTES // 1024} KiB."
            )
        if self.symlinks_skipped:
            notes.append(f"{self.symlinks_skipped} symlink(s) were not followed.")
        if self.more_matches:
            notes.append(f"More than {MAX_MATCHES} workspace matches; only the best are listed.")
        return notes


def clamp_max_files(requested: int | None) -> int:
    """The file budget: the default when unset, never above the cap."""
    if requested is None:
        return DEFAULT_MAX_FILES
    return max(1, min(requested, MAX_FILES_CAP))


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
    max_files: int = DEFAULT_MAX_FILES,
) -> Scan:
    """Search the source files under `root` (already resolved) for `needles`."""
    result = Scan(root=root)
    if not needles:
        return result
    found: list[Match] = []
    for path in _walk(root, result):
        if result.files_read >= clamp_max_files(max_files):
            result.file_limit_hit = True
            break
        text = _read(path, result)
        if text is None:
            continue
        result.files_read += 1
        found += _search(text, path.relative_to(root).as_posix(), needles)
    found.sort(key=_order)
    result.more_matches = len(found) > MAX_MATCHES
    result.matches = found[:MAX_MATCHES]
    return result


def _order(match: Match) -> tuple[int, int, str, int]:
    kind = {"attribute": 0, "definition": 0, "usage": 1}.get(match.needle.kind, 2)
    return (_RANK.get(match.needle.confidence, 3), kind, match.file, match.line)


def _walk(root: Path, result: Scan) -> Iterator[Path]:
    """Source files under `root`, depth first in name order; never through a symlink."""
    stack = [root]
    while stack:
        directory = stack.pop()
        try:
            with os.scandir(directory) as listing:
                entries = sorted(listing, key=lambda e: e.name)
        except OSError:
            continue
        subdirs = []
        for entry in entries:
            if entry.is_symlink():
                result.symlinks_skipped += 1
            elif entry.is_dir(follow_symlinks=False):
                if entry.name not in SKIPPED_DIRS:
                    subdirs.append(Path(entry.path))
            elif entry.name.endswith(SOURCE_SUFFIXES) and entry.is_file(follow_symlinks=False):
                yield Path(entry.path)
        stack += reversed(subdirs)


def _read(path: Path, result: Scan) -> str | None:
    """At most `MAX_FILE_BYTES` of a regular file, opened without following a final symlink."""
    try:
        fd = os.open(path, _OPEN_FLAGS)
    except OSError:
        return None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return None
        data = os.read(fd, MAX_FILE_BYTES + 1)
    except OSError:
        return None
    finally:
        os.close(fd)
    if len(data) > MAX_FILE_BYTES:
        result.truncated_files += 1
        data = data[:MAX_FILE_BYTES]
    return data.decode("utf-8", errors="replace")


def _search(text: str, relative: str, needles: Sequence[Needle]) -> list[Match]:
    found = []
    for number, line in enumerate(text.splitlines(), start=1):
        for needle in needles:
            hit = needle.pattern.search(line)
            if hit is not None:
                excerpt = redact_text(line.strip()[:EXCERPT_CHARS])
                found.append(Match(relative, number, hit.start() + 1, needle, excerpt))
    return found
