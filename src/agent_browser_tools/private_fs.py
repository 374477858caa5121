"""Private directories and files: 0700 dirs and 0600 files owned by the current user.

State, spills and sockets can hold page content and session handles, so nothing we write is
readable by other local users, and we refuse directories someone else could have planted.
"""

from __future__ import annotations

import contextlib
import os
import stat
import tempfile
from collections.abc import Callable
from pathlib import Path

KEY_FILE_READ_LIMIT = 4096
"""Bytes read from a key file: every key we keep is far shorter, and a planted huge file is
not read whole."""


class PrivateDirError(OSError):
    """A directory we must keep private is a symlink, foreign-owned, or too open."""


def ensure_private_dir(path: Path) -> Path:
    """Create `path` (and parents) as needed and check it is a private directory.

    Raises `PrivateDirError` with a remedy when the directory is a symlink, owned by another
    user, or group/other accessible and cannot be tightened.
    """
    path = path.expanduser()
    if not path.is_absolute():
        path = Path.cwd() / path
    missing = []
    cursor = path
    while not cursor.exists():
        missing.append(cursor)
        cursor = cursor.parent
    for directory in reversed(missing):
        # Each level is created 0700 itself: `mkdir(parents=True)` would ignore the mode for
        # intermediate directories and leave them world-readable.
        directory.mkdir(mode=0o700, exist_ok=True)
    info = os.lstat(path)
    if stat.S_ISLNK(info.st_mode) or not stat.S_ISDIR(info.st_mode):
        raise PrivateDirError(f"{path} must be a real directory, not a symlink; remove it.")
    if info.st_uid != os.getuid():
        raise PrivateDirError(
            f"{path} is owned by uid {info.st_uid}, not you ({os.getuid()}); choose another dir."
        )
    if stat.S_IMODE(info.st_mode) & 0o077:
        os.chmod(path, 0o700)
    return path


def write_private_file(path: Path, data: bytes) -> None:
    """Write `data` to `path` atomically with mode 0600 (temp file in the same dir + rename).

    Readers never see a half-written file, and a failed write leaves no partial file behind.
    """
    fd, tmp = tempfile.mkstemp(prefix=".tmp-", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        os.chmod(tmp, 0o600)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def read_or_create_key(
    path: Path, new: Callable[[], bytes], *, follow_symlinks: bool = False
) -> bytes:
    """The bytes of the key file `path`, created first with `new()` (0600) when missing.

    Why this way: several servers may start at the same moment, and each must end up with the
    same key. The key is written whole under a temp name and linked into place (a link fails
    when the name exists), so a racer reads the one that won, never a half-written file. A
    symlink at `path` is refused unless `follow_symlinks` (a file the user keeps, not ours).
    The caller checks the bytes; the parent dir must exist.
    """
    if not os.path.lexists(path):
        fd, tmp = tempfile.mkstemp(prefix=".tmp-key-", dir=path.parent)
        try:
            with os.fdopen(fd, "wb") as handle:
                handle.write(new())
            os.chmod(tmp, 0o600)
            with contextlib.suppress(FileExistsError):  # another process made it first
                os.link(tmp, path)
        finally:
            Path(tmp).unlink(missing_ok=True)
    fd = os.open(path, os.O_RDONLY | (0 if follow_symlinks else os.O_NOFOLLOW))
    with os.fdopen(fd, "rb") as handle:
        return handle.read(KEY_FILE_READ_LIMIT)


def dir_mode(path: Path) -> int | None:
    """Permission bits of `path`, or None when it does not exist."""
    try:
        return stat.S_IMODE(os.stat(path).st_mode)
    except FileNotFoundError:
        return None
