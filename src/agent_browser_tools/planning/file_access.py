"""Which local files the model may make the browser or the wrapper read and write (pure judge).

The model reads untrusted pages, so a page can make it ask for any path it may ask for: a
`file://` URL, an upload source, a screenshot or download destination, a state file. Those
are confined to the file roots: the execution dir, the MCP client's roots and the operator's
configured roots (`--allow-unrestricted-file-access` widens that to the whole filesystem).
Some places are never reachable, even inside a root and even unrestricted: the server's
state dir (journal, spills), the engine's socket dirs and per-user dir (`~/.agent-browser`:
sessions, auth vault, saved states), the config files of both, the engine's temporary
browser profiles, and process-relative paths (`/proc`, `/dev/fd`) whose meaning depends on
who opens them. On a server shared by several conversations, the dir holding their workspaces
is unreachable except the conversation's own workspace: what one conversation saved is never
another's to read or overwrite, whatever roots a client declares or the operator configured.

A path is judged the ways a reader may resolve it (symlinks followed, `..` taken lexically as
URLs do and physically as the OS does, `~` expanded or not) and must pass every way, so a
symlink or dangling link inside a root that points out, a symlinked parent dir, or `..` cannot
leave the roots. A regular file with more than one hard link is refused as a read source and
as an existing write destination: its other name may be anywhere, including the state dir.
Writes never create or replace a file that reconfigures the tools at their next start.
Reading the filesystem is the only effect (stat, realpath).
"""

from __future__ import annotations

import os
import stat
import sys
import tempfile
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from agent_browser_tools.taxonomy import PathUse

RECONFIGURING_NAMES = frozenset({".agent-browser-tools.toml", "agent-browser.json"})
"""Basenames the tools or the engine load as configuration from a project dir: a file with
this name written by a page (a download, a saved artifact) would be trusted at the next start."""

PROCESS_RELATIVE = (Path("/proc"), Path("/dev/fd"), Path("/dev/stdin"), Path("/dev/stdout"),
                    Path("/dev/stderr"))  # fmt: skip
"""Paths whose target depends on the process that opens them (the engine, not this judge)."""

ENGINE_PROFILE_PREFIX = "agent-browser-chrome-"
"""The engine's temporary Chromium profiles (cookies of every session) live in the temp dir
under this prefix."""

_CASE_FOLDING = sys.platform in ("darwin", "win32")


class PathRefused(Exception):
    """A path the file roots do not allow. `reason` is one of `outside`, `forbidden`,
    `other-workspace`, `hard-link`, `reconfigures`, `root-dir`, `invalid`; `path` is the
    resolved path."""

    def __init__(self, reason: str, path: Path, detail: str = "") -> None:
        super().__init__(f"{reason}: {path}")
        self.reason = reason
        self.path = path
        self.detail = detail


@dataclass(frozen=True)
class FileRoots:
    """The roots of one conversation and the places no call may reach."""

    cwd: Path
    """The execution dir: relative paths resolve here, and it is always a root."""
    roots: tuple[Path, ...] = ()
    """Further roots (MCP client roots, configured roots), absolute."""
    forbidden: tuple[Path, ...] = ()
    """Never reachable, whatever the roots (dirs or files), absolute."""
    unrestricted: bool = False
    """The operator allowed the whole filesystem (still not `forbidden`)."""
    file_pages: bool = False
    """The operator allowed `file://` pages that can show other files (markup, listings)."""
    workspaces: Path | None = None
    """On a shared server, the dir holding every conversation's workspace (`cwd` is this
    conversation's, inside it): nothing else in it is reachable, even through a root that
    contains it and even unrestricted. Cross-conversation isolation is a boundary of its
    own, not part of the operator's choice of roots."""

    @property
    def all_roots(self) -> tuple[Path, ...]:
        return tuple(_unique((self.cwd, *self.roots)))

    @property
    def walk_excluded(self) -> tuple[Path, ...]:
        """What a search of the project skips: the forbidden places and every conversation's
        workspace (what a page made one save is not the project's code)."""
        return (*self.forbidden, *(() if self.workspaces is None else (self.workspaces,)))

    def describe(self) -> str:
        """`unrestricted` or the roots, for messages and `doctor`."""
        if self.unrestricted:
            return "the whole filesystem (unrestricted)"
        return ", ".join(str(root) for root in self.all_roots)

    def absolute(self, raw: str) -> Path:
        """`raw` made absolute against the execution dir, without resolving anything."""
        path = Path(raw)
        return path if path.is_absolute() else self.cwd / path


def judge_path(raw: str, use: PathUse, roots: FileRoots, *, listing: bool = False) -> Path:
    """The absolute path to give the reader or writer of `raw`; raises `PathRefused`.

    `listing`: a `file:` URL read, where a directory shows only its entries' names, so a
    directory that merely contains a forbidden place may be shown.
    """
    if "\x00" in raw:
        raise PathRefused("invalid", Path(raw.replace("\x00", "\\0")), "a NUL byte")
    absolute = roots.absolute(raw)
    candidates = [absolute]
    if raw.startswith("~"):
        # Some readers expand `~` and some do not: both readings must be allowed.
        candidates.append(Path(os.path.expanduser(raw)))
    for candidate in candidates:
        _judge_one(candidate, use, roots, listing=listing)
    return absolute


def _judge_one(candidate: Path, use: PathUse, roots: FileRoots, *, listing: bool) -> None:
    lexical = _normalize(candidate)
    for place in PROCESS_RELATIVE:
        if _under(lexical, place):
            raise PathRefused("forbidden", lexical, "a process-relative path")
    physical = _physical_readings(candidate)
    forbidden = _resolved(roots.forbidden)
    fence = _Fence.of(roots)
    for path in physical:
        if fence is not None:
            fence.check(path, use, listing=listing)
        _check_forbidden(path, forbidden, use, listing=listing)
        if not roots.unrestricted and not any(_under(path, r) for r in _resolved(roots.all_roots)):
            raise PathRefused("outside", path)
    if use is PathUse.WRITE_FILE:
        names = {candidate.name, *(path.name for path in physical)}
        if any(_folded(name) in RECONFIGURING_NAMES for name in names):
            raise PathRefused("reconfigures", lexical)
    if use is PathUse.WRITE_DIR:
        own = _resolved((roots.cwd, *roots.roots))
        if any(_key(path) == _key(root) for path in physical for root in own):
            raise PathRefused("root-dir", lexical)
    if use in (PathUse.READ_FILE, PathUse.WRITE_FILE):
        for path in physical:
            _check_links(path)


def _check_forbidden(path: Path, forbidden: Iterable[Path], use: PathUse, *, listing: bool) -> None:
    for place in forbidden:
        if _under(path, place):
            raise PathRefused("forbidden", path, str(place))
        if use is PathUse.READ_FILE and not listing and _under(place, path):
            # Reading a directory (an upload of a folder) would take the forbidden place too.
            raise PathRefused("forbidden", path, str(place))
    temp = _key(Path(os.path.realpath(tempfile.gettempdir())))
    for place in (path, *path.parents):
        if _key(place.parent) == temp and place.name.startswith(ENGINE_PROFILE_PREFIX):
            raise PathRefused("forbidden", path, "the engine's browser profile")


@dataclass(frozen=True)
class _Fence:
    """The workspaces dir of a shared server and the conversation's own workspace in it,
    each in every reading (resolved once per judged path, not once per reading)."""

    places: list[Path]
    own: list[Path]

    @classmethod
    def of(cls, roots: FileRoots) -> _Fence | None:
        if roots.workspaces is None:
            return None
        return cls(places=_resolved((roots.workspaces,)), own=_resolved((roots.cwd,)))

    def check(self, path: Path, use: PathUse, *, listing: bool) -> None:
        """Refuse anything under the workspaces dir but the own workspace, and a directory
        read (an upload of a folder) that would take the workspaces dir along."""
        for place in self.places:
            inside = _under(path, place) and not any(_under(path, mine) for mine in self.own)
            taken = use is PathUse.READ_FILE and not listing and _under(place, path)
            if inside or taken:
                raise PathRefused("other-workspace", path, str(place))


def _check_links(path: Path) -> None:
    try:
        info = os.stat(path)
    except OSError:
        return
    if stat.S_ISREG(info.st_mode) and info.st_nlink > 1:
        raise PathRefused("hard-link", path, str(info.st_nlink))


def _physical_readings(candidate: Path) -> list[Path]:
    """The file the OS opens (symlinks and `..` resolved in order) and the one a URL names
    (`..` removed lexically first, then symlinks resolved)."""
    readings = [
        _normalize(Path(os.path.realpath(candidate))),
        _normalize(Path(os.path.realpath(_normalize(candidate)))),
    ]
    return _unique(readings)


def _normalize(path: Path) -> Path:
    text = os.path.normpath(str(path))
    if text.startswith("//"):
        text = "/" + text.lstrip("/")  # POSIX keeps a leading `//`; it is `/` on Linux
    return Path(text)


def _resolved(paths: Iterable[Path]) -> list[Path]:
    out: list[Path] = []
    for path in paths:
        out.extend(_physical_readings(path))
        out.append(_normalize(path))
    return _unique(out)


def _key(path: Path) -> str:
    return _folded(str(path))


def _folded(text: str) -> str:
    text = unicodedata.normalize("NFC", text)
    return text.casefold() if _CASE_FOLDING else text


def _under(path: Path, root: Path) -> bool:
    """`path` is `root` or inside it (after Unicode and, where the filesystem does, case
    folding)."""
    key, base = _key(path), _key(root)
    return key == base or key.startswith(base.rstrip("/") + "/")


def _unique(paths: Iterable[Path]) -> list[Path]:
    seen: dict[str, Path] = {}
    for path in paths:
        seen.setdefault(str(path), path)
    return list(seen.values())
