"""The path judge of the file roots: every escape a model (or a page steering it) could try.

Each case builds a real directory layout under `tmp_path` (a workspace root holding the
server's state dir, a private place outside it) and asks the judge about one spelling.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import pytest

from agent_browser_tools.planning.file_access import FileRoots, PathRefused, judge_path
from agent_browser_tools.taxonomy import PathUse

READ, WRITE, DIR = PathUse.READ_FILE, PathUse.WRITE_FILE, PathUse.WRITE_DIR


@pytest.fixture
def layout(tmp_path: Path) -> dict[str, Path]:
    ws, outside, state = tmp_path / "ws", tmp_path / "outside", tmp_path / "ws" / ".state"
    for directory in (ws / "pages", outside / "sub", state):
        directory.mkdir(parents=True)
    (ws / "pages" / "page.html").write_text("<h1>ok</h1>")
    (outside / "secret.txt").write_text("secret")
    (state / "journal.sqlite").write_text("journal")
    return {"ws": ws, "outside": outside, "state": state, "tmp": tmp_path}


def _roots(layout: dict[str, Path], **kw: object) -> FileRoots:
    return FileRoots(cwd=layout["ws"], forbidden=(layout["state"],), **kw)  # type: ignore[arg-type]


def _refused(raw: str, use: PathUse, roots: FileRoots, **kw: bool) -> PathRefused:
    with pytest.raises(PathRefused) as caught:
        judge_path(raw, use, roots, **kw)
    return caught.value


def test_paths_inside_the_execution_dir_resolve_against_it(layout: dict[str, Path]) -> None:
    roots = _roots(layout)
    ws = layout["ws"]
    assert judge_path("pages/page.html", READ, roots) == ws / "pages" / "page.html"
    assert judge_path("./shots/a.png", WRITE, roots) == ws / "shots" / "a.png"
    assert judge_path(str(ws / "x.pdf"), WRITE, roots) == ws / "x.pdf"
    assert judge_path("new/../fine.png", WRITE, roots) == ws / "new/../fine.png"
    assert judge_path("downloads", DIR, roots) == ws / "downloads"


@pytest.mark.parametrize(
    "raw",
    [
        "../outside/secret.txt",
        "pages/../../outside/secret.txt",
        "shots/../../../x.png",
        "/etc/passwd",
        "//etc/passwd",
        "/./etc/../etc/passwd",
        "~/x.png",
    ],
)
def test_dot_dot_double_slash_and_absolute_escapes_are_outside(
    raw: str, layout: dict[str, Path]
) -> None:
    refused = _refused(raw, WRITE, _roots(layout))
    assert refused.reason == "outside"
    assert not str(refused.path).startswith(str(layout["ws"]) + "/")


def test_a_symlink_inside_a_root_pointing_out_is_caught(layout: dict[str, Path]) -> None:
    ws, outside = layout["ws"], layout["outside"]
    (ws / "link.txt").symlink_to(outside / "secret.txt")
    (ws / "linkdir").symlink_to(outside)
    roots = _roots(layout)
    assert _refused("link.txt", READ, roots).path == outside / "secret.txt"
    assert _refused("linkdir/secret.txt", READ, roots).reason == "outside"
    assert _refused("linkdir/new.png", WRITE, roots).path == outside / "new.png"


def test_symlink_chains_and_dangling_links_are_followed_to_their_end(
    layout: dict[str, Path],
) -> None:
    ws, outside = layout["ws"], layout["outside"]
    (ws / "b").symlink_to(outside / "sub")
    (ws / "a").symlink_to(ws / "b")  # a -> b -> outside/sub
    (ws / "dangling.png").symlink_to(outside / "not-yet" / "x.png")
    (ws / "dangling-dir").symlink_to(outside / "missing-dir")
    roots = _roots(layout)
    assert _refused("a/x.png", WRITE, roots).path == outside / "sub" / "x.png"
    assert _refused("dangling.png", WRITE, roots).path == outside / "not-yet" / "x.png"
    assert _refused("dangling-dir/y.png", WRITE, roots).reason == "outside"


def test_a_symlinked_parent_dir_and_symlinks_that_stay_inside(layout: dict[str, Path]) -> None:
    ws = layout["ws"]
    (ws / "alias").symlink_to(ws / "pages")
    roots = _roots(layout)
    assert judge_path("alias/page.html", READ, roots) == ws / "alias" / "page.html"
    (ws / "up").symlink_to(layout["tmp"])  # the parent of the root
    assert _refused("up/outside/secret.txt", READ, roots).reason == "outside"


def test_dot_dot_after_a_symlink_is_judged_both_ways(layout: dict[str, Path]) -> None:
    """`link/../x`: the OS resolves `..` from the link's target, a URL removes it first."""
    ws, outside = layout["ws"], layout["outside"]
    (ws / "deep").symlink_to(outside / "sub")
    (ws / "x.txt").write_text("inside")
    # Lexically ws/x.txt (inside), physically outside/x.txt: one outside reading refuses.
    assert _refused("deep/../x.txt", READ, _roots(layout)).path == outside / "x.txt"


def test_hard_links_are_refused_as_read_sources_and_existing_destinations(
    layout: dict[str, Path],
) -> None:
    ws, state = layout["ws"], layout["state"]
    os.link(state / "journal.sqlite", ws / "copy.sqlite")
    roots = _roots(layout)
    refused = _refused("copy.sqlite", READ, roots)
    assert (refused.reason, refused.detail) == ("hard-link", "2")
    assert _refused("copy.sqlite", WRITE, roots).reason == "hard-link"
    assert judge_path("fresh.png", WRITE, roots) == ws / "fresh.png"  # a new file is fine
    assert judge_path("pages", READ, roots, listing=True) == ws / "pages"  # dirs have links


def test_the_state_dir_is_never_reachable_even_inside_a_root(layout: dict[str, Path]) -> None:
    state = layout["state"]
    roots = _roots(layout)
    for raw, use in [
        (".state/journal.sqlite", READ),
        (str(state / "journal.sqlite"), READ),
        ("pages/../.state/new.png", WRITE),
        (".state", DIR),
        (".state/spill", DIR),
    ]:
        refused = _refused(raw, use, roots)
        assert refused.reason == "forbidden", raw
        assert refused.detail == str(state)


def test_unrestricted_mode_opens_the_filesystem_but_not_the_state_dir(
    layout: dict[str, Path],
) -> None:
    roots = _roots(layout, unrestricted=True)
    secret = layout["outside"] / "secret.txt"
    assert judge_path(str(secret), READ, roots) == secret
    assert judge_path("/etc/hostname", READ, roots) == Path("/etc/hostname")
    assert _refused(".state/journal.sqlite", READ, roots).reason == "forbidden"
    (layout["outside"] / "to-state").symlink_to(layout["state"])
    assert _refused(str(layout["outside"] / "to-state" / "x"), READ, roots).reason == "forbidden"


def test_a_folder_holding_the_state_dir_may_be_listed_but_not_uploaded(
    layout: dict[str, Path],
) -> None:
    roots = _roots(layout)
    assert judge_path(".", READ, roots, listing=True) == layout["ws"] / "."
    assert _refused(".", READ, roots).reason == "forbidden"


def test_files_that_reconfigure_the_tools_are_never_written(layout: dict[str, Path]) -> None:
    ws = layout["ws"]
    roots = _roots(layout, unrestricted=True)
    for raw in (
        "agent-browser.json",
        "sub/.agent-browser-tools.toml",
        str(ws / "agent-browser.json"),
    ):
        assert _refused(raw, WRITE, roots).reason == "reconfigures", raw
    (ws / "innocent.json").symlink_to(ws / "agent-browser.json")
    assert _refused("innocent.json", WRITE, roots).reason == "reconfigures"
    assert judge_path("agent-browser.json", READ, roots, listing=True)  # reading is fine


def test_a_root_itself_is_no_download_dir(layout: dict[str, Path]) -> None:
    extra = layout["tmp"] / "extra"
    extra.mkdir()
    roots = _roots(layout, roots=(extra,))
    for raw in (".", str(layout["ws"]), "pages/..", str(extra)):
        assert _refused(raw, DIR, roots).reason == "root-dir", raw
    assert judge_path(str(extra / "dl"), DIR, roots) == extra / "dl"


def test_process_relative_paths_are_refused_even_unrestricted(layout: dict[str, Path]) -> None:
    roots = _roots(layout, unrestricted=True)
    for raw in ("/proc/self/root/etc/passwd", "/proc/1/environ", "/dev/fd/3", "/dev/stdin"):
        refused = _refused(raw, READ, roots)
        assert (refused.reason, refused.detail) == ("forbidden", "a process-relative path"), raw


def test_the_engines_browser_profiles_are_refused_even_unrestricted(
    layout: dict[str, Path],
) -> None:
    roots = _roots(layout, unrestricted=True)
    profile = Path(tempfile.gettempdir()) / "agent-browser-chrome-0000" / "Default" / "Cookies"
    assert _refused(str(profile), READ, roots).detail == "the engine's browser profile"


def test_extra_roots_and_a_symlinked_root(layout: dict[str, Path]) -> None:
    outside = layout["outside"]
    (layout["tmp"] / "root-link").symlink_to(outside)
    roots = _roots(layout, roots=(layout["tmp"] / "root-link",))
    assert judge_path(str(outside / "secret.txt"), READ, roots) == outside / "secret.txt"
    via_link = layout["tmp"] / "root-link" / "secret.txt"
    assert judge_path(str(via_link), READ, roots) == via_link


def test_a_nul_byte_is_not_a_path(layout: dict[str, Path]) -> None:
    assert _refused("a\x00.png", WRITE, _roots(layout)).reason == "invalid"


def test_tilde_is_judged_both_expanded_and_literal(
    layout: dict[str, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HOME", str(layout["ws"] / "home"))
    roots = _roots(layout)
    assert judge_path("~/x.png", WRITE, roots) == layout["ws"] / "~" / "x.png"
    monkeypatch.setenv("HOME", str(layout["outside"]))
    assert _refused("~/x.png", WRITE, roots).path == layout["outside"] / "x.png"


# --- a server shared by several conversations: each one's workspace is its own ----------


@pytest.fixture
def shared(tmp_path: Path) -> dict[str, Path]:
    """A server dir holding the workspaces of conversations A (the judge's) and B."""
    server = tmp_path / "server"
    spaces = server / "agent-browser-workspaces"
    mine, theirs = spaces / "aaaa", spaces / "bbbb"
    for directory in (mine / "shots", theirs / "shots", server / "fixtures"):
        directory.mkdir(parents=True)
    (theirs / "state.json").write_text('{"cookies": "theirs"}')
    (theirs / "shots" / "a.png").write_bytes(b"\x89PNG")
    (server / "fixtures" / "photo.png").write_bytes(b"\x89PNG")
    return {"server": server, "spaces": spaces, "mine": mine, "theirs": theirs, "tmp": tmp_path}


def _shared_roots(shared: dict[str, Path], *roots: Path, **kw: object) -> FileRoots:
    return FileRoots(
        cwd=shared["mine"],
        roots=(shared["server"], *roots),
        workspaces=shared["spaces"],
        **kw,  # type: ignore[arg-type]
    )


def test_relative_paths_land_in_the_own_workspace(shared: dict[str, Path]) -> None:
    roots = _shared_roots(shared)
    mine = shared["mine"]
    assert judge_path("state.json", WRITE, roots) == mine / "state.json"
    assert judge_path("shots/b.png", WRITE, roots) == mine / "shots" / "b.png"
    assert judge_path("downloads", DIR, roots) == mine / "downloads"
    photo = shared["server"] / "fixtures" / "photo.png"
    assert judge_path(str(photo), READ, roots) == photo  # the server's dir stays a root


@pytest.mark.parametrize("use", [READ, WRITE, DIR])
@pytest.mark.parametrize(
    "spelling",
    [
        "../bbbb/state.json",
        "./shots/../../bbbb/state.json",
        "{theirs}/state.json",
        "{theirs}/shots/a.png",
        "{theirs}/new.png",
        "{theirs}",
        "{spaces}",
        "..",
        "../",
        "{spaces}/./bbbb//state.json",
        "{mine}/../bbbb/state.json",
        "{server}/agent-browser-workspaces/bbbb/state.json",
    ],
)
def test_another_workspace_is_refused_in_every_spelling(
    shared: dict[str, Path], spelling: str, use: PathUse
) -> None:
    raw = spelling.format(**{k: str(v) for k, v in shared.items()})
    refused = _refused(raw, use, _shared_roots(shared))
    assert refused.reason == "other-workspace", refused
    assert not str(refused.path).startswith(str(shared["mine"]))


def test_symlinks_to_another_workspace_are_followed_and_refused(shared: dict[str, Path]) -> None:
    mine, theirs, server = shared["mine"], shared["theirs"], shared["server"]
    (mine / "peek.json").symlink_to(theirs / "state.json")
    (mine / "door").symlink_to(theirs)
    (server / "shortcut").symlink_to(theirs)
    (mine / "dangling.png").symlink_to(theirs / "later.png")
    roots = _shared_roots(shared)
    for raw, use in (
        ("peek.json", READ),
        ("peek.json", WRITE),
        ("door/state.json", READ),
        ("door/over.png", WRITE),
        (str(server / "shortcut" / "state.json"), READ),
        ("dangling.png", WRITE),
        ("door/../door/state.json", READ),
    ):
        assert _refused(raw, use, roots).reason == "other-workspace", raw


@pytest.mark.parametrize("extra", ["/", "{tmp}", "{server}", "{spaces}", "{theirs}"])
def test_no_root_opens_another_workspace(shared: dict[str, Path], extra: str) -> None:
    """A client declaring `file:///` or the other workspace itself as a root, or an operator
    root that holds the workspaces: the other workspace stays closed."""
    root = Path(extra.format(**{k: str(v) for k, v in shared.items()}))
    roots = _shared_roots(shared, root)
    theirs = shared["theirs"]
    for use in (READ, WRITE):
        assert _refused(str(theirs / "state.json"), use, roots).reason == "other-workspace"
    assert judge_path("mine.png", WRITE, roots) == shared["mine"] / "mine.png"


def test_unrestricted_access_still_keeps_another_workspace_closed(
    shared: dict[str, Path],
) -> None:
    roots = _shared_roots(shared, unrestricted=True)
    theirs = shared["theirs"]
    assert _refused(str(theirs / "state.json"), READ, roots).reason == "other-workspace"
    assert _refused(str(theirs / "x.png"), WRITE, roots).reason == "other-workspace"
    assert judge_path("/etc/hostname", READ, roots) == Path("/etc/hostname")


def test_a_folder_holding_the_workspaces_may_be_listed_but_not_uploaded(
    shared: dict[str, Path],
) -> None:
    roots = _shared_roots(shared)
    server = shared["server"]
    assert judge_path(str(server), READ, roots, listing=True) == server
    assert _refused(str(server), READ, roots).reason == "other-workspace"
    assert _refused(str(shared["spaces"]), READ, roots, listing=True).reason == "other-workspace"
    assert judge_path(str(shared["mine"]), READ, roots) == shared["mine"]  # its own: fine


def test_without_workspaces_the_folder_is_an_ordinary_dir(shared: dict[str, Path]) -> None:
    """Single-user (stdio, the API): nothing is special about a folder of that name."""
    roots = FileRoots(cwd=shared["server"])
    theirs = shared["theirs"] / "state.json"
    assert judge_path(str(theirs), READ, roots) == theirs
