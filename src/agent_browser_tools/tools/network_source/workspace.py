"""A bounded, read-only literal search of the execution directory for request URL needles.

Rules, and why:

- Only the execution directory, never above it, and never through a symlink: directories and
  files are opened relative to their parent's descriptor with `O_NOFOLLOW`, so neither a
  symlink nor a directory swapped for one mid-walk can lead the search (and the lines it
  returns) outside the workspace the agent was given.
- Dependency, build and hidden directories are skipped (`node_modules`, `.git`, `dist`,
  `build`, `.venv`, ...): a URL literal there is a bundle or a vendored copy, not the code
  to fix, and they dwarf the real sources.
- Bounded: at most `max_files` source files, `MAX_FILE_BYTES` per file, `MAX_TOTAL_BYTES` in
  all, `MAX_ENTRIES` directory entries and `MAX_DEPTH` levels, so a call on a huge tree ends.
- Text sources only (by suffix, no NUL bytes); dotfiles such as `.env` are never read.
- Returned lines are trimmed and redacted: a literal often sits next to a credential.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from agent_browser_tools.redaction import redact_text

SKIP_DIRS = frozenset(
    {
        "node_modules",
        "bower_components",
        "jspm_packages",
        "dist",
        "build",
        "out",
        "coverage",
        "target",
        "vendor",
        "venv",
        "__pycache__",
        "storybook-static",
    }
)
"""Skipped by name; every directory whose name starts with "." is skipped too (`.git`,
`.venv`, `.next`, `.nuxt`, `.svelte-kit`, `.turbo`, `.cache`, ...)."""
TEXT_SUFFIXES = frozenset(
    {
        ".ts", ".tsx", ".mts", ".cts", ".js", ".jsx", ".mjs", ".cjs", ".vue", ".svelte",
        ".astro", ".html", ".htm", ".py", ".rb", ".go", ".rs", ".java", ".kt", ".swift",
        ".php", ".cs", ".dart", ".json", ".graphql", ".gql", ".yaml", ".yml", ".toml",
    }
)  # fmt: skip
SKIP_SUFFIXES = (".min.js", ".min.mjs", ".bundle.js", ".map")
MAX_FILE_BYTES = 512 * 1024
MAX_TOTAL_BYTES = 24 * 1024 * 1024
MAX_ENTRIES = 50_000
MAX_DEPTH = 24
MAX_RAW_HITS = 200
MAX_MATCHES = 10
LINE_CHARS = 160
_SNIFF_BYTES = 8192


@dataclass(frozen=True)
class Needle:
    """A search string; `rank` 0 is the most specific; `request` indexes the failed request."""

    text: str
    rank: int
    request: int


@dataclass(frozen=True)
class Match:
    file: str
    """Relative to the search root, `/`-separated."""
    line: int
    column: int
    text: str
    """The matching line, trimmed to `LINE_CHARS` around the hit and redacted."""
    needle: Needle


@dataclass
class SearchOutcome:
    matches: list[Match] = field(default_factory=list)
    files_scanned: int = 0
    limitations: list[str] = field(default_factory=list)


@dataclass
class _Budget:
    max_files: int
    files: int = 0
    entries: int = 0
    bytes_read: int = 0
    large_files: int = 0
    symlinks: int = 0
    stopped: str | None = None


def search(root: Path, needles: Sequence[Needle], *, max_files: int) -> SearchOutcome:
    """The best `MAX_MATCHES` literal hits of `needles` under `root` (most specific first)."""
    outcome = SearchOutcome()
    if not needles:
        return outcome
    try:
        root_fd = os.open(root, os.O_RDONLY | os.O_DIRECTORY)
    except OSError as exc:
        outcome.limitations.append(f"the execution directory could not be read ({exc.strerror})")
        return outcome
    budget = _Budget(max_files=max_files)
    ordered = sorted(needles, key=lambda n: n.rank)
    hits: list[Match] = []
    try:
        for rel, text in _sources(root_fd, "", 0, budget):
            hits += _scan(rel, text, ordered)
            if len(hits) >= MAX_RAW_HITS:
                budget.stopped = f"stopped after {MAX_RAW_HITS} literal hits"
                break
    finally:
        os.close(root_fd)
    hits.sort(key=lambda m: (m.needle.rank, m.file, m.line))
    outcome.matches = hits[:MAX_MATCHES]
    outcome.files_scanned = budget.files
    outcome.limitations += _limits(budget, len(hits))
    return outcome


def _limits(budget: _Budget, hits: int) -> list[str]:
    notes: list[str] = []
    if budget.stopped:
        notes.append(f"workspace search {budget.stopped}; later files were not searched")
    if budget.large_files:
        notes.append(f"{budget.large_files} file(s) over {MAX_FILE_BYTES // 1024} KiB skipped")
    if budget.symlinks:
        notes.append(f"{budget.symlinks} symlink(s) not followed")
    if hits > MAX_MATCHES:
        notes.append(f"{hits} literal hits; the {MAX_MATCHES} most specific are listed")
    return notes


def _sources(dir_fd: int, prefix: str, depth: int, budget: _Budget) -> Iterator[tuple[str, str]]:
    """(relative path, text) of each searchable file under `dir_fd`, in name order."""
    with os.scandir(dir_fd) as listing:
        entries = sorted(listing, key=lambda e: e.name)
    subdirs: list[str] = []
    for entry in entries:
        if budget.stopped:
            return
        budget.entries += 1
        if budget.entries > MAX_ENTRIES:
            budget.stopped = f"stopped after {MAX_ENTRIES} directory entries"
            return
        if entry.is_symlink():
            budget.symlinks += 1
        elif entry.is_dir(follow_symlinks=False):
            if not entry.name.startswith(".") and entry.name not in SKIP_DIRS:
                subdirs.append(entry.name)
        elif entry.is_file(follow_symlinks=False) and _searchable(entry.name):
            text = _read(dir_fd, entry.name, budget)
            if text is not None:
                yield prefix + entry.name, text
    if depth >= MAX_DEPTH:
        return
    for name in subdirs:
        child = _open_dir(dir_fd, name)
        if child is None:
            continue
        try:
            yield from _sources(child, f"{prefix}{name}/", depth + 1, budget)
        finally:
            os.close(child)


def _searchable(name: str) -> bool:
    lower = name.lower()
    if name.startswith(".") or lower.endswith(SKIP_SUFFIXES):
        return False
    return os.path.splitext(lower)[1] in TEXT_SUFFIXES


def _open_dir(parent_fd: int, name: str) -> int | None:
    """Open a subdirectory without following a symlink (a swapped-in link fails here)."""
    try:
        return os.open(name, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW, dir_fd=parent_fd)
    except OSError:
        return None


def _read(dir_fd: int, name: str, budget: _Budget) -> str | None:
    """A regular text file's content within the budgets; None to skip it."""
    if budget.files >= budget.max_files:
        budget.stopped = f"stopped after maxWorkspaceFiles={budget.max_files} files"
        return None
    try:
        fd = os.open(name, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK, dir_fd=dir_fd)
    except OSError:
        return None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            return None
        if info.st_size > MAX_FILE_BYTES:
            budget.large_files += 1
            return None
        if budget.bytes_read + info.st_size > MAX_TOTAL_BYTES:
            budget.stopped = f"stopped after reading {MAX_TOTAL_BYTES // (1024 * 1024)} MiB"
            return None
        budget.files += 1
        data = os.read(fd, MAX_FILE_BYTES + 1)[:MAX_FILE_BYTES]
    except OSError:
        return None
    finally:
        os.close(fd)
    budget.bytes_read += len(data)
    if b"\x00" in data[:_SNIFF_BYTES]:
        return None
    return data.decode("utf-8", errors="replace")


def _scan(rel: str, text: str, needles: Sequence[Needle]) -> list[Match]:
    """One hit per matching line, for the most specific needle found on it."""
    present = [n for n in needles if n.text in text]
    if not present:
        return []
    hits: list[Match] = []
    for number, line in enumerate(text.split("\n"), start=1):
        for needle in present:
            at = line.find(needle.text)
            if at >= 0:
                shown = _trim(line, at, len(needle.text))
                hits.append(Match(rel, number, at + 1, shown, needle))
                break
    return hits


def _trim(line: str, at: int, width: int) -> str:
    """The line around the hit, at most `LINE_CHARS` characters, redacted."""
    line = line.rstrip("\r")
    if len(line.strip()) <= LINE_CHARS:
        return redact_text(line.strip())
    start = max(0, min(at - (LINE_CHARS - width) // 2, len(line) - LINE_CHARS))
    window = line[start : start + LINE_CHARS].strip()
    head = "…" if start > 0 else ""
    tail = "…" if start + LINE_CHARS < len(line) else ""
    return redact_text(head + window + tail)
