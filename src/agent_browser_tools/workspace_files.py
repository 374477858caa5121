"""Reading the user's workspace safely and boundedly: the one walk the source-lookup tools share.

The model chooses what the tools search the workspace for, and a page it read may have chosen
that for it, so how the files are read is bounded on every axis, whatever is searched:

- Only under the root, never through a symlink at any level: each directory and file is opened
  relative to its parent's descriptor with `O_NOFOLLOW`, so a symlink, or a directory or file
  swapped for one between listing and opening, fails instead of leading outside.
- Regular files only: opens add `O_NONBLOCK | O_NOCTTY` and the open file is checked with
  `fstat`, so a FIFO, socket or device (listed as one, or swapped in mid-walk) never blocks the
  walk and is never read.
- Never the server's own state: the caller passes the places no call may reach (the state dir,
  the engine's socket dirs, config and secrets files: `FileRoots.forbidden`); a directory or
  file inside the workspace that is one of them (same device and inode, so a hard link to one
  of those files too) is skipped, and a root inside one is not searched at all.
- Hidden and generated things are skipped: every dot-dir and dotfile (`.git`, `.env`, ...), the
  dependency and build trees in `SKIP_DIRS` (a match there is a copy, not the code to edit, and
  they dwarf the real sources), minified bundles and source maps, and files with a NUL byte in
  their first `SNIFF_BYTES` (binary).
- Bounded: at most `max_files` files, `max_file_bytes` per file (truncated or skipped, the
  caller says which), `max_total_bytes` in all, `max_entries` directory entries listed and
  `max_depth` levels, so a call on a huge tree ends. Each bound hit becomes a limitation line.

Trust boundary: the workspace root is the operator's. A hard link cannot be told apart from
the file's other names (it *is* the file), so a hard link inside the workspace to a file
elsewhere counts as a workspace file and is read, unless it is one of the excluded files.
Reading is the only effect; what is read is returned to the caller, which redacts excerpts.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Generator, Iterator, Sequence
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path

DEFAULT_MAX_FILES = 2_000
MAX_FILES_CAP = 5_000
"""`maxWorkspaceFiles`: the default and the most a caller may ask for."""
MAX_TOTAL_BYTES = 24 * 1024 * 1024
MAX_ENTRIES = 50_000
MAX_DEPTH = 24
SNIFF_BYTES = 8192
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
SKIP_SUFFIXES = (".min.js", ".min.mjs", ".bundle.js", ".map")
"""Generated files that carry a source suffix: bundles and source maps, never the code to edit."""

_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_NONBLOCK
_FILE_FLAGS = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_NOCTTY


class Oversize(StrEnum):
    """What happens to a file larger than `max_file_bytes`."""

    TRUNCATE = "truncate"
    """Search its first `max_file_bytes` (a definition sits near the top of a big file)."""
    SKIP = "skip"
    """Skip it (a big file is generated, and its literals are copies)."""


class Stop(StrEnum):
    """The budget that ended a walk early."""

    FILES = "files"
    ENTRIES = "entries"
    BYTES = "bytes"


@dataclass(frozen=True)
class WalkRules:
    """What one caller reads: its suffixes and per-file policy; the shared bounds by default."""

    suffixes: tuple[str, ...]
    """Lower-case file name endings to read (`.ts`); anything else is never opened."""
    max_file_bytes: int
    oversize: Oversize
    max_files: int = DEFAULT_MAX_FILES
    max_total_bytes: int = MAX_TOTAL_BYTES
    max_entries: int = MAX_ENTRIES
    max_depth: int = MAX_DEPTH
    excluded: tuple[Path, ...] = ()
    """Places the walk never enters or reads even inside the root (the server's own)."""


@dataclass(frozen=True)
class WorkspaceFile:
    path: str
    """Relative to the root, `/`-separated."""
    text: str
    """UTF-8 (invalid bytes replaced), at most `max_file_bytes` of the file."""


@dataclass
class WalkReport:
    """What a walk read and what it could not look at."""

    files_read: int = 0
    bytes_read: int = 0
    entries: int = 0
    truncated_files: int = 0
    oversized_files: int = 0
    symlinks_skipped: int = 0
    excluded_skipped: int = 0
    too_deep: int = 0
    stopped: Stop | None = None
    root_error: str | None = None


def clamp_max_files(requested: int | None) -> int:
    """The file budget: the default when unset, at least 1, never above the cap."""
    if requested is None:
        return DEFAULT_MAX_FILES
    return max(1, min(requested, MAX_FILES_CAP))


def is_skipped_dir(name: str) -> bool:
    """A directory the walk never enters: hidden (`.git`, `..`) or a dependency/build tree."""
    return name.startswith(".") or name in SKIP_DIRS


def is_wanted_file(name: str, suffixes: Sequence[str]) -> bool:
    """A file name the walk reads: not hidden (`.env`), one of `suffixes`, not generated."""
    lower = name.lower()
    if name.startswith(".") or lower.endswith(SKIP_SUFFIXES):
        return False
    return lower.endswith(tuple(suffixes))


class WorkspaceWalk:
    """One bounded walk of `root` (the operator's execution dir, symlinks resolved or not).

    Iterate `files()` (close it when stopping early: `contextlib.closing`), then read `report`
    and `limitations()`.
    """

    def __init__(self, root: Path, rules: WalkRules) -> None:
        self.root = root
        self.rules = rules
        self.report = WalkReport()
        self._excluded_ids = _identities(rules.excluded)
        self._root_excluded = _inside_any(root, rules.excluded)

    def files(self) -> Generator[WorkspaceFile, None, None]:
        """Each readable text file under the root: a directory's files in name order, then
        its subdirectories in name order."""
        if self._root_excluded:
            return
        try:
            root_fd = os.open(self.root, os.O_RDONLY | os.O_DIRECTORY | os.O_NONBLOCK)
        except OSError as exc:
            self.report.root_error = exc.strerror or type(exc).__name__
            return
        try:
            yield from self._directory(root_fd, "", 0)
        finally:
            os.close(root_fd)

    def limitations(self) -> list[str]:
        """One line per bound the walk hit, for the tool's `limitations`."""
        report, rules = self.report, self.rules
        if self._root_excluded:
            return [
                "the execution directory is inside the server's own state or the engine's "
                "dirs, so the workspace was not searched"
            ]
        if report.root_error is not None:
            return [f"the execution directory could not be read ({report.root_error})"]
        notes = [_stop_note(report.stopped, rules)] if report.stopped else []
        cap = _size(rules.max_file_bytes)
        if report.truncated_files:
            notes.append(
                f"{report.truncated_files} large file(s) were searched only in their first {cap}"
            )
        if report.oversized_files:
            notes.append(f"{report.oversized_files} file(s) over {cap} skipped")
        if report.too_deep:
            notes.append(
                f"{report.too_deep} director(ies) deeper than {rules.max_depth} levels not searched"
            )
        if report.symlinks_skipped:
            notes.append(f"{report.symlinks_skipped} symlink(s) not followed")
        if report.excluded_skipped:
            notes.append(
                f"{report.excluded_skipped} of the server's own dirs/files inside the workspace "
                "skipped (never read)"
            )
        return notes

    def _directory(self, dir_fd: int, prefix: str, depth: int) -> Iterator[WorkspaceFile]:
        entries = self._list(dir_fd)
        subdirs: list[str] = []
        for entry in entries:
            if self.report.stopped:
                return
            kind = _kind(entry)
            if kind == "symlink":
                self.report.symlinks_skipped += 1
            elif kind == "dir" and not is_skipped_dir(entry.name):
                subdirs.append(entry.name)
            elif kind == "file" and self._wanted(entry.name):
                found = self._read(dir_fd, entry.name, prefix)
                if found is not None:
                    yield found
        if subdirs and depth >= self.rules.max_depth:
            self.report.too_deep += len(subdirs)
            return
        for name in subdirs:
            if self.report.stopped:
                return
            yield from self._subdirectory(dir_fd, name, f"{prefix}{name}/", depth + 1)

    def _wanted(self, name: str) -> bool:
        return is_wanted_file(name, self.rules.suffixes)

    def _subdirectory(
        self, parent_fd: int, name: str, prefix: str, depth: int
    ) -> Iterator[WorkspaceFile]:
        child = open_dir(parent_fd, name)
        if child is None:
            return
        try:
            if _identity(os.fstat(child)) in self._excluded_ids:
                self.report.excluded_skipped += 1
                return
            yield from self._directory(child, prefix, depth)
        finally:
            os.close(child)

    def _list(self, dir_fd: int) -> list[os.DirEntry[str]]:
        """The directory's entries in name order; none once the entry budget is spent (a
        directory with millions of entries is not read into memory)."""
        entries: list[os.DirEntry[str]] = []
        try:
            with os.scandir(dir_fd) as listing:
                for entry in listing:
                    self.report.entries += 1
                    if self.report.entries > self.rules.max_entries:
                        self.report.stopped = Stop.ENTRIES
                        return []
                    entries.append(entry)
        except OSError:
            return []
        return sorted(entries, key=lambda e: e.name)

    def _read(self, dir_fd: int, name: str, prefix: str) -> WorkspaceFile | None:
        """A regular text file within the budgets; None to skip it."""
        rules, report = self.rules, self.report
        if report.files_read >= rules.max_files:
            report.stopped = Stop.FILES
            return None
        fd = open_file(dir_fd, name)
        if fd is None:
            return None
        try:
            data = self._read_open(fd)
        except OSError:
            return None
        finally:
            os.close(fd)
        if data is None:
            return None
        report.files_read += 1
        if len(data) > rules.max_file_bytes:
            report.truncated_files += 1
            data = data[: rules.max_file_bytes]
        report.bytes_read += len(data)
        if b"\x00" in data[:SNIFF_BYTES]:
            return None
        return WorkspaceFile(prefix + name, data.decode("utf-8", errors="replace"))

    def _read_open(self, fd: int) -> bytes | None:
        """The bytes of the open file `fd` the budgets allow (one more than the per-file cap,
        to tell a truncation), or None when it must not or cannot be read."""
        rules, report = self.rules, self.report
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            return None
        if _identity(info) in self._excluded_ids:
            report.excluded_skipped += 1
            return None
        cap = rules.max_file_bytes
        if info.st_size > cap and rules.oversize is Oversize.SKIP:
            report.oversized_files += 1
            return None
        if report.bytes_read + min(info.st_size, cap) > rules.max_total_bytes:
            report.stopped = Stop.BYTES
            return None
        data = read_up_to(fd, cap + 1)
        if len(data) > cap and rules.oversize is Oversize.SKIP:
            report.oversized_files += 1  # it grew after the fstat
            return None
        return data


def open_dir(parent_fd: int, name: str) -> int | None:
    """Open a subdirectory without following a symlink (a swapped-in link fails here)."""
    try:
        return os.open(name, _DIR_FLAGS, dir_fd=parent_fd)
    except OSError:
        return None


def open_file(dir_fd: int, name: str) -> int | None:
    """Open a file without following a symlink and without blocking (a FIFO, a device)."""
    try:
        return os.open(name, _FILE_FLAGS, dir_fd=dir_fd)
    except OSError:
        return None


def read_up_to(fd: int, limit: int) -> bytes:
    """At most `limit` bytes from `fd`, reading on after a short read until end of file."""
    chunks: list[bytes] = []
    left = limit
    while left > 0:
        chunk = os.read(fd, left)
        if not chunk:
            break
        chunks.append(chunk)
        left -= len(chunk)
    return b"".join(chunks)


def _stop_note(stopped: Stop, rules: WalkRules) -> str:
    if stopped is Stop.FILES:
        return (
            f"workspace search stopped after maxWorkspaceFiles={rules.max_files} files; raise "
            f"maxWorkspaceFiles (up to {MAX_FILES_CAP}) to search further"
        )
    if stopped is Stop.ENTRIES:
        reason = f"{rules.max_entries} directory entries"
    else:
        reason = f"reading {_size(rules.max_total_bytes)}"
    return f"workspace search stopped after {reason}; later files were not searched"


def _kind(entry: os.DirEntry[str]) -> str:
    """`symlink`, `dir`, `file` or `other` (FIFO, socket, device, vanished), as listed; the
    open that follows checks again, so a change after listing is caught there."""
    try:
        if entry.is_symlink():
            return "symlink"
        if entry.is_dir(follow_symlinks=False):
            return "dir"
        if entry.is_file(follow_symlinks=False):
            return "file"
    except OSError:
        pass
    return "other"


def _size(count: int) -> str:
    """`count` bytes in the largest whole unit: `24 MiB`, `256 KiB`, `1000 bytes`."""
    for unit, scale in (("MiB", 1024 * 1024), ("KiB", 1024)):
        if count >= scale and count % scale == 0:
            return f"{count // scale} {unit}"
    return f"{count} bytes"


def _identity(info: os.stat_result) -> tuple[int, int]:
    return (info.st_dev, info.st_ino)


def _identities(places: Sequence[Path]) -> frozenset[tuple[int, int]]:
    """Device and inode of each place that exists (a symlinked place: of its target)."""
    found = set()
    for place in places:
        try:
            found.add(_identity(os.stat(place)))
        except (OSError, ValueError):
            continue
    return frozenset(found)


def _inside_any(root: Path, places: Sequence[Path]) -> bool:
    """Whether `root` is one of `places` or inside one (both with symlinks resolved)."""
    real = os.path.realpath(root)
    for place in places:
        try:
            home = os.path.realpath(place)
        except (OSError, ValueError):
            continue
        if real == home or real.startswith(home.rstrip(os.sep) + os.sep):
            return True
    return False
