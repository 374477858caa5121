"""A tiny tmpfs for tests that need a real full disk under the state dir.

Mounting needs root (and a kernel that lets this process mount); where it cannot be done the
test skips and says why. The mount is always undone, even when the test fails.
"""

from __future__ import annotations

import contextlib
import errno
import os
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

SIZE = "512k"
"""Room for a journal (database, WAL, 32 KiB shared-memory index) and a few calls' rows."""


@contextlib.contextmanager
def mounted_tmpfs(point: Path, size: str = SIZE) -> Iterator[Path]:
    """Mount a private tmpfs of `size` on `point` (created) for the block; skip if impossible."""
    if os.geteuid() != 0:
        pytest.skip("a tiny tmpfs needs root to mount")
    point.mkdir(parents=True, exist_ok=True)
    made = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", f"size={size},mode=0700", "tmpfs", str(point)],
        capture_output=True,
        text=True,
        check=False,
    )
    if made.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {made.stderr.strip()}")
    try:
        yield point
    finally:
        subprocess.run(["umount", "--lazy", str(point)], capture_output=True, check=False)


def fill(point: Path) -> Path:
    """Write zeros under `point` until the filesystem refuses; returns the filler to unlink."""
    filler = point / "filler"
    with filler.open("wb", buffering=0) as handle:
        try:
            while True:
                handle.write(b"\0" * 4096)
        except OSError as exc:
            assert exc.errno == errno.ENOSPC, exc
    return filler
