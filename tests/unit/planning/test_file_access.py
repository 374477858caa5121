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
