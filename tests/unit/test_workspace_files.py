"""The shared bounded workspace walk: every way out of the workspace it refuses, every file it
must not read or block on, and every budget it stops at (pure filesystem, no engine).

Each case is an attack surface: a page can make the model search for anything, so what the
walk opens is the only thing between a search and the rest of the disk.
"""

from __future__ import annotations

import contextlib
import os
import socket
import stat
import threading
import time
from collections.abc import Iterator
from contextlib import closing
from pathlib import Path
from typing import Any

import pytest

from agent_browser_tools.workspace_files import (
    MAX_FILES_CAP,
    SKIP_DIRS,
    Oversize,
    Stop,
    WalkRules,
    WorkspaceFile,
    WorkspaceWalk,
    clamp_max_files,
    is_skipped_dir,
    is_wanted_file,
    open_dir,
    open_file,
    read_up_to,
)

SUFFIXES = (".ts", ".js")


def write(root: Path, relative: str, text: str = "x\n") -> Path:
    path = root / relative
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def rules(**overrides: Any) -> WalkRules:
    base: dict[str, Any] = {
        "suffixes": SUFFIXES,
        "max_file_bytes": 1024,
        "oversize": Oversize.TRUNCATE,
    }
    return WalkRules(**{**base, **overrides})


def walk(root: Path, **overrides: Any) -> tuple[list[str], WorkspaceWalk]:
    """The relative paths a walk of `root` yields, and the walk (its report and notes)."""
    walker = WorkspaceWalk(root, rules(**overrides))
    with closing(walker.files()) as files:
        return [f.path for f in files], walker


def in_thread(target: Any, timeout: float = 5.0) -> tuple[bool, list[Any]]:
    """Run `target()` in a daemon thread; (finished within `timeout`, [its result])."""
    out: list[Any] = []
    thread = threading.Thread(target=lambda: out.append(target()), daemon=True)
    thread.start()
    thread.join(timeout)
    return not thread.is_alive(), out


@pytest.fixture
def dir_fd(tmp_path: Path) -> Iterator[int]:
    fd = os.open(tmp_path, os.O_RDONLY | os.O_DIRECTORY)
    yield fd
    os.close(fd)


# What is read: suffixes, hidden names, generated files, dependency and build trees.


def test_files_come_in_name_order_files_before_subdirs(tmp_path: Path) -> None:
    for rel in ("b.ts", "a.js", "src/z.ts", "src/deep/a.ts", "lib/c.ts", "Upper.TS"):
        write(tmp_path, rel)
    got, walker = walk(tmp_path)
    assert got == ["Upper.TS", "a.js", "b.ts", "lib/c.ts", "src/z.ts", "src/deep/a.ts"]
    assert walker.report.files_read == 6 and walker.limitations() == []


def test_only_the_callers_suffixes_are_opened(tmp_path: Path) -> None:
    for name in ("a.ts", "b.tsx", "c.py", "d.md", "e.json", "ts"):
        write(tmp_path, name)
    assert walk(tmp_path)[0] == ["a.ts"]
    assert walk(tmp_path, suffixes=(".py", ".json"))[0] == ["c.py", "e.json"]


@pytest.mark.parametrize("name", [".env", ".env.js", ".secret.ts", ".eslintrc.js", ".npmrc.ts"])
def test_dotfiles_are_never_read_even_with_a_wanted_suffix(tmp_path: Path, name: str) -> None:
    """`.env` and friends hold credentials; the caller here even asks for `.env` files."""
    write(tmp_path, name, "API_KEY=sk-live-secret\n")
    write(tmp_path, f"src/{name}", "API_KEY=sk-live-secret\n")
    got, walker = walk(tmp_path, suffixes=(*SUFFIXES, ".env"))
    assert got == [] and walker.report.files_read == 0


@pytest.mark.parametrize("name", ["app.min.js", "APP.MIN.JS", "vendor.bundle.js", "app.js.map"])
def test_minified_bundles_and_source_maps_are_skipped(tmp_path: Path, name: str) -> None:
    write(tmp_path, name)
    assert walk(tmp_path, suffixes=(".js", ".map"))[0] == []


@pytest.mark.parametrize(
    "skipped", [*sorted(SKIP_DIRS), ".git", ".next", ".venv", ".cache", ".svelte-kit", ".x"]
)
def test_dependency_build_and_hidden_dirs_are_skipped(tmp_path: Path, skipped: str) -> None:
    write(tmp_path, f"{skipped}/pkg/a.ts")
    write(tmp_path, f"src/{skipped}/deep.ts")
    write(tmp_path, "src/keep.ts")
    assert walk(tmp_path)[0] == ["src/keep.ts"]


def test_name_predicates_match_the_walk() -> None:
    assert is_skipped_dir(".git") and is_skipped_dir("..") and is_skipped_dir("node_modules")
    assert not is_skipped_dir("src")
    assert is_wanted_file("App.TSX", (".tsx",)) and not is_wanted_file(".App.tsx", (".tsx",))
    assert not is_wanted_file("app.min.js", (".js",))


def test_binary_files_are_read_but_never_returned(tmp_path: Path) -> None:
    (tmp_path / "bin.ts").write_bytes(b"\x00\x01/api/v1/orders")
    write(tmp_path, "text.ts", "/api/v1/orders\n")
    got, walker = walk(tmp_path)
    assert got == ["text.ts"] and walker.report.files_read == 2


def test_invalid_utf8_is_replaced_not_fatal(tmp_path: Path) -> None:
    (tmp_path / "a.ts").write_bytes(b"const a = '\xff';\n")
    walker = WorkspaceWalk(tmp_path, rules())
    with closing(walker.files()) as files:
        assert list(files) == [WorkspaceFile("a.ts", "const a = '\ufffd';\n")]


# Never outside the workspace: symlinks at every level, swapped entries.


def test_symlinked_dir_and_file_out_of_the_workspace_are_not_followed(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    write(outside, "secret/leak.ts", "secret outside\n")
    root = tmp_path / "ws"
    write(root, "src/app.ts")
    os.symlink(outside / "secret", root / "src" / "linked")
    os.symlink(outside / "secret" / "leak.ts", root / "leak.ts")
    os.symlink(root / "src" / "app.ts", root / "inside-link.ts")  # even one that stays inside
    got, walker = walk(root)
    assert got == ["src/app.ts"]
    assert walker.report.symlinks_skipped == 3
    assert "3 symlink(s) not followed" in walker.limitations()


def test_a_file_swapped_for_a_symlink_after_listing_is_not_opened(
    tmp_path: Path, dir_fd: int
) -> None:
    """The final open refuses symlinks (O_NOFOLLOW), so a race cannot read outside."""
    outside = write(tmp_path, "outside.ts", "secret\n")
    os.symlink(outside, tmp_path / "a.ts")
    assert open_file(dir_fd, "a.ts") is None
    walker = WorkspaceWalk(tmp_path, rules())
    assert walker._read(dir_fd, "a.ts", "") is None and walker.report.files_read == 0


def test_a_directory_swapped_for_a_symlink_is_not_opened(tmp_path: Path, dir_fd: int) -> None:
    """Each directory is opened relative to its parent with O_NOFOLLOW, so a directory
    replaced by a symlink between listing and opening is refused, not followed."""
    (tmp_path / "outside").mkdir()
    os.symlink(tmp_path / "outside", tmp_path / "swapped")
    assert open_dir(dir_fd, "swapped") is None
    opened = open_dir(dir_fd, "outside")
    assert opened is not None
    os.close(opened)


def test_a_hard_link_inside_the_workspace_counts_as_a_workspace_file(tmp_path: Path) -> None:
    """A hard link is the file itself, indistinguishable from its other names: the workspace
    root is the operator's trust boundary, so a file linked into it is read (documented)."""
    outside = write(tmp_path, "outside/shared.ts", "shared\n")
    root = tmp_path / "ws"
    root.mkdir()
    os.link(outside, root / "linked.ts")
    assert walk(root)[0] == ["linked.ts"]


# Never the server's own state, even inside the workspace.


def test_the_state_dir_inside_the_workspace_is_never_read(tmp_path: Path) -> None:
    state = tmp_path / "abt-state"
    write(state, "spill/conv/page.ts", "page content\n")
    write(tmp_path, "run/sockets/s.ts")
    write(tmp_path, "src/app.ts")
    got, walker = walk(tmp_path, excluded=(state, tmp_path / "run" / "sockets"))
    assert got == ["src/app.ts"]
    assert walker.report.excluded_skipped == 2
    assert any("server's own" in note for note in walker.limitations())


def test_an_excluded_place_named_through_a_symlink_is_still_skipped(tmp_path: Path) -> None:
    """Identity is device and inode, so another spelling of the path changes nothing."""
    write(tmp_path, "ws/state/journal.ts")
    write(tmp_path, "ws/src/app.ts")
    os.symlink(tmp_path / "ws" / "state", tmp_path / "alias")
    assert walk(tmp_path / "ws", excluded=(tmp_path / "alias",))[0] == ["src/app.ts"]


def test_an_excluded_file_and_a_hard_link_to_it_are_never_read(tmp_path: Path) -> None:
    """A secrets or config file the server names is skipped under any name in the workspace."""
    secret = write(tmp_path, "ws/config/secrets.ts", "token = 'sk-live'\n")
    os.link(secret, tmp_path / "ws" / "copy.ts")
    got, walker = walk(tmp_path / "ws", excluded=(secret,))
    assert got == [] and walker.report.excluded_skipped == 2


@pytest.mark.parametrize("relative", ["", "spill/conv"])
def test_a_root_inside_an_excluded_place_is_not_searched(tmp_path: Path, relative: str) -> None:
    state = tmp_path / "state"
    root = state / relative if relative else state
    write(root, "a.ts")
    got, walker = walk(root, excluded=(state,))
    assert got == [] and walker.report.files_read == 0
    assert walker.limitations() == [
        "the execution directory is inside the server's own state or the engine's dirs, so "
        "the workspace was not searched"
    ]


def test_missing_excluded_places_are_ignored(tmp_path: Path) -> None:
    write(tmp_path, "a.ts")
    assert walk(tmp_path, excluded=(tmp_path / "gone", Path("relative-missing")))[0] == ["a.ts"]


# Special files: nothing blocks, nothing but regular files is read.


def test_a_fifo_in_the_workspace_does_not_block_the_walk(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "pipe.ts")
    write(tmp_path, "z.ts")
    finished, out = in_thread(lambda: walk(tmp_path)[0])
    try:
        assert finished and out == [["z.ts"]]
    finally:
        _release_reader(tmp_path / "pipe.ts")


def test_a_fifo_swapped_in_after_listing_is_opened_without_blocking(
    tmp_path: Path, dir_fd: int
) -> None:
    """The listing said "file"; by the open it is a FIFO. O_NONBLOCK returns at once and the
    fstat check refuses it (a blocking open would wait forever for a writer)."""
    os.mkfifo(tmp_path / "pipe.ts")
    walker = WorkspaceWalk(tmp_path, rules())
    finished, out = in_thread(lambda: walker._read(dir_fd, "pipe.ts", ""))
    try:
        assert finished and out == [None]
        assert walker.report.files_read == 0
    finally:
        _release_reader(tmp_path / "pipe.ts")


def _release_reader(fifo: Path) -> None:
    """Unblock a reader stuck in open (only if the code under test regressed)."""
    with contextlib.suppress(OSError):  # no reader waiting: the expected case
        os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))


def test_a_device_is_never_read(tmp_path: Path) -> None:
    """A device file (here /dev/null, as if swapped in after listing) is refused by fstat."""
    dev = os.open("/dev", os.O_RDONLY | os.O_DIRECTORY)
    try:
        walker = WorkspaceWalk(tmp_path, rules())
        assert walker._read(dev, "null", "") is None
        assert walker.report.files_read == 0
    finally:
        os.close(dev)


def test_a_device_node_in_the_workspace_is_skipped(tmp_path: Path) -> None:
    try:
        os.mknod(tmp_path / "zero.ts", stat.S_IFCHR | 0o600, os.makedev(1, 5))
    except OSError as exc:
        pytest.skip(f"cannot create a device node here: {exc}")
    write(tmp_path, "z.ts")
    finished, out = in_thread(lambda: walk(tmp_path)[0])
    assert finished and out == [["z.ts"]]


def test_a_unix_socket_in_the_workspace_is_skipped(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)  # a short relative path: socket paths are length-limited
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        server.bind("sock.ts")
        write(tmp_path, "z.ts")
        finished, out = in_thread(lambda: walk(tmp_path)[0])
        assert finished and out == [["z.ts"]]
    finally:
        server.close()


# Budgets: files, bytes per file and in all, entries, depth.


def test_max_files_default_and_cap() -> None:
    assert clamp_max_files(None) == 2_000
    assert clamp_max_files(4_000) == 4_000
    assert clamp_max_files(50_000) == MAX_FILES_CAP == 5_000
    assert clamp_max_files(0) == 1


def test_the_file_budget_stops_the_walk_and_says_so(tmp_path: Path) -> None:
    for index in range(5):
        write(tmp_path, f"f{index}.ts")
    got, walker = walk(tmp_path, max_files=3)
    assert got == ["f0.ts", "f1.ts", "f2.ts"] and walker.report.stopped is Stop.FILES
    assert walker.limitations() == [
        "workspace search stopped after maxWorkspaceFiles=3 files; raise maxWorkspaceFiles "
        "(up to 5000) to search further"
    ]


def test_exactly_max_files_is_not_a_stop(tmp_path: Path) -> None:
    for index in range(3):
        write(tmp_path, f"f{index}.ts")
    got, walker = walk(tmp_path, max_files=3)
    assert len(got) == 3 and walker.report.stopped is None


def test_a_large_file_is_truncated_when_the_caller_says_so(tmp_path: Path) -> None:
    write(tmp_path, "big.ts", "a" * 1024 + "b" * 100)
    walker = WorkspaceWalk(tmp_path, rules(max_file_bytes=1024))
    with closing(walker.files()) as files:
        (only,) = list(files)
    assert only.text == "a" * 1024 and walker.report.truncated_files == 1
    assert "1 large file(s) were searched only in their first 1 KiB" in walker.limitations()


def test_a_large_file_is_skipped_when_the_caller_says_so(tmp_path: Path) -> None:
    write(tmp_path, "big.ts", "x" * 2049)
    write(tmp_path, "small.ts", "x" * 2048)
    got, walker = walk(tmp_path, max_file_bytes=2048, oversize=Oversize.SKIP)
    assert got == ["small.ts"] and walker.report.oversized_files == 1
    assert "1 file(s) over 2 KiB skipped" in walker.limitations()


def test_the_total_byte_budget_stops_the_walk(tmp_path: Path) -> None:
    for index in range(4):
        write(tmp_path, f"f{index}.ts", "x" * 600)
    got, walker = walk(tmp_path, max_total_bytes=1500)
    assert got == ["f0.ts", "f1.ts"] and walker.report.bytes_read == 1200
    assert walker.report.stopped is Stop.BYTES
    assert (
        "workspace search stopped after reading 1500 bytes; later files were not searched"
        in walker.limitations()
    )


def test_the_entry_budget_stops_listing(tmp_path: Path) -> None:
    """A directory past the budget is not even read into memory, let alone searched."""
    write(tmp_path, "a.ts")
    for index in range(10):
        write(tmp_path, f"big/f{index}.ts")
    got, walker = walk(tmp_path, max_entries=5)
    assert got == ["a.ts"] and walker.report.stopped is Stop.ENTRIES
    assert walker.report.entries == 6
    assert (
        "workspace search stopped after 5 directory entries; later files were not searched"
        in walker.limitations()
    )


def test_the_depth_bound_stops_descent_and_says_so(tmp_path: Path) -> None:
    write(tmp_path, "top.ts")
    write(tmp_path, "a/ok.ts")
    write(tmp_path, "a/b/deep.ts")
    got, walker = walk(tmp_path, max_depth=1)
    assert got == ["top.ts", "a/ok.ts"] and walker.report.too_deep == 1
    assert "1 director(ies) deeper than 1 levels not searched" in walker.limitations()


def test_the_root_itself_must_be_a_readable_directory(tmp_path: Path) -> None:
    got, walker = walk(tmp_path / "gone")
    assert got == [] and walker.limitations()[0].startswith(
        "the execution directory could not be read ("
    )


def test_stopping_early_closes_every_descriptor(tmp_path: Path) -> None:
    write(tmp_path, "a/b/c/d.ts")
    write(tmp_path, "a/b/c/e.ts")
    before = set(os.listdir("/proc/self/fd")) if Path("/proc/self/fd").is_dir() else None
    walker = WorkspaceWalk(tmp_path, rules())
    with closing(walker.files()) as files:
        assert next(files).path == "a/b/c/d.ts"
    if before is None:
        pytest.skip("no /proc/self/fd to count descriptors")
    assert set(os.listdir("/proc/self/fd")) == before


def test_read_up_to_reads_on_after_short_reads() -> None:
    """A read may return less than asked before the end (pipes, network filesystems)."""
    read_end, write_end = os.pipe()

    def rest() -> None:
        time.sleep(0.1)
        os.write(write_end, b"56789")
        os.close(write_end)

    os.write(write_end, b"01234")
    writer = threading.Thread(target=rest)
    writer.start()
    try:
        assert read_up_to(read_end, 8) == b"01234567"
        assert read_up_to(read_end, 100) == b"89"
    finally:
        writer.join()
        os.close(read_end)
