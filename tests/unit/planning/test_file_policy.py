"""The file roots applied to whole calls: which argv slots name files (read from the taxonomy),
how a refusal reads, and how relative paths are pinned to the execution dir for the engine."""

from __future__ import annotations

import json
import shlex
from pathlib import Path
from typing import Any

import pytest

from agent_browser_tools.planning.argv_rules import ArgvRejected, check_argv
from agent_browser_tools.planning.file_access import FileRoots
from agent_browser_tools.planning.file_policy import check_output_path, confine
from agent_browser_tools.planning.file_slots import row_slots
from agent_browser_tools.planning.inputs import AgentBrowserInput
from agent_browser_tools.planning.policy import PolicyBlocked
from agent_browser_tools.taxonomy import PathUse, batch_row_words

R, W, D = PathUse.READ_FILE, PathUse.WRITE_FILE, PathUse.WRITE_DIR


@pytest.mark.parametrize(
    ("argv", "slots"),
    [
        (["open", "file:///x"], [("file:///x", None)]),
        (["goto", "file:///x"], [("file:///x", None)]),
        (["tab", "new", "file:///x"], [("file:///x", None)]),
        (["diff", "url", "file:///a", "file:///b"], [("file:///a", None), ("file:///b", None)]),
        (
            ["record", "start", "v.webm", "file:///x"],
            [("v.webm", None), ("file:///x", None), ("v.webm", W)],
        ),
        (["open", "-x", "file:///x"], [("-x", None), ("file:///x", None)]),
        (["record", "restart", "v.webm"], [("v.webm", None), ("v.webm", W)]),
        (["vitals", "file:///x"], [("file:///x", None)]),
        (["a11y", "file:///x"], [("file:///x", None)]),
        (["pushstate", "/next"], [("/next", None)]),
        (["read", "file:///x"], [("file:///x", None)]),
        (["auth", "save", "s", "--url", "file:///x"], [("file:///x", None)]),
        (["auth", "login", "s", "--url", "file:///x"], [("file:///x", None)]),
        (["upload", "#f", "a.txt", "b.txt"], [("a.txt", R), ("b.txt", R)]),
        (["state", "load", "s.json"], [("s.json", R)]),
        (["state", "show", "s.json.enc"], [("s.json.enc", R)]),
        (["state", "save", "s.json"], [("s.json", W), ("s.json.enc", W)]),
        (["cookies", "set", "--curl", "c.txt"], [("c.txt", R)]),
        (["webmcp", "invoke", "t", "--params", "@p.json"], [("@p.json", R)]),
        (["webmcp", "invoke", "t", "--params", '{"a": 1}'], []),
        (["diff", "snapshot", "--baseline", "b.txt"], [("b.txt", R)]),
        (["diff", "screenshot", "-b", "b.png", "-o", "d.png"], [("b.png", R), ("d.png", W)]),
        (["download", "@e1", "f.zip"], [("f.zip", W)]),
        (["wait", "--download", "f.zip"], [("f.zip", W)]),
        (["wait", "--download"], []),
        (["screenshot", "a.png"], [("a.png", W)]),
        (["screenshot", "#hero"], []),
        (["screenshot", "#hero", "a.png"], [("a.png", W)]),
        (["pdf", "a.pdf"], [("a.pdf", W)]),
        (["network", "har", "stop", "a.har"], [("a.har", W)]),
        (["trace", "stop", "t.json"], [("t.json", W)]),
        (["profiler", "stop", "p.json"], [("p.json", W)]),
        (
            ["--state", "s.json", "open", "https://a.test"],
            [("s.json", R), ("https://a.test", None)],
        ),
        (["click", "@e1", "--init-script", "i.js"], [("i.js", R)]),
        (["--download-path", "dl", "get", "url"], [("dl", D)]),
        (["get", "url", "--screenshot-dir", "shots"], [("shots", D)]),
    ],
)
def test_the_taxonomy_names_every_file_slot(argv: list[str], slots: list[Any]) -> None:
    got = [(slot.value, slot.use) for slot in row_slots(argv)]
    assert got == slots


@pytest.fixture
def roots(tmp_path: Path) -> FileRoots:
    ws = tmp_path / "ws"
    (ws / ".state").mkdir(parents=True)
    return FileRoots(cwd=ws, forbidden=(ws / ".state",))


def _confine(roots: FileRoots, args: list[str], stdin: str | None = None, **kw: Any) -> Any:
    inp = AgentBrowserInput(args=args, stdin=stdin, **kw)
    return confine(inp, check_argv(inp.args, inp.stdin), roots)


def _blocked(roots: FileRoots, args: list[str], stdin: str | None = None, **kw: Any) -> Any:
    with pytest.raises(PolicyBlocked) as caught:
        _confine(roots, args, stdin, **kw)
    assert caught.value.rule == "file-root"
    return caught.value


def test_a_refusal_names_the_resolved_path_what_to_do_and_the_operator_setting(
    roots: FileRoots,
) -> None:
    refused = _blocked(roots, ["screenshot", "../x.png"])
    outside = roots.cwd.parent / "x.png"
    assert refused.subject == str(outside)
    assert refused.allow_with == f"--file-root {roots.cwd.parent}"
    text = str(refused)
    assert f"resolves to {outside}" in text and "outside the workspace roots" in text
    assert "`screenshot ./x.png`" in text and "serve --file-root" in text


def test_the_encrypted_state_file_beside_the_named_one_is_judged_too(roots: FileRoots) -> None:
    """The engine writes `state save s.json` to `s.json.enc` and `state load s.json` falls
    back to it: a link planted there must not take the write or the read elsewhere."""
    (roots.cwd / "s.json.enc").symlink_to(roots.cwd / ".state" / "journal.sqlite")
    for args in (["state", "save", "s.json"], ["state", "load", "s.json"]):
        refused = _blocked(roots, args)
        assert refused.subject.endswith("journal.sqlite"), refused.subject
    (roots.cwd / "s.json.enc").unlink()
    pinned = _confine(roots, ["state", "save", "s.json"])
    assert pinned.args == ["state", "save", str(roots.cwd / "s.json")]


def test_the_state_dir_refusal_offers_no_operator_setting(roots: FileRoots) -> None:
    refused = _blocked(roots, ["upload", "#f", ".state/journal.sqlite"])
    assert refused.allow_with is None
    assert "never reachable" in str(refused) and "not even with unrestricted" in str(refused)


def test_file_urls_in_any_spelling(roots: FileRoots) -> None:
    for url in ("file:///etc/passwd", "FILE:/etc/passwd", "view-source:file:///etc/passwd"):
        refused = _blocked(roots, ["open", url])
        assert refused.subject == "/etc/passwd", url
        assert "Open a page inside the workspace" in str(refused)
    page = roots.cwd / "notes.txt"
    assert _confine(roots, ["open", page.as_uri()]).args == ["open", page.as_uri()]
    assert _blocked(roots, ["open", "file://host/x"]).subject == "file://host/x"
    assert "javascript" in str(_blocked(roots, ["record", "start", "v.webm", "javascript:1"]))
    recording = _confine(roots, ["record", "start", "v.webm", "https://a.test"])
    assert recording.args == ["record", "start", str(roots.cwd / "v.webm"), "https://a.test"]


def test_relative_paths_are_pinned_to_the_execution_dir(roots: FileRoots) -> None:
    ws = roots.cwd
    fixed = _confine(roots, ["--screenshot-dir", "shots", "screenshot", "#hero", "a.png"])
    assert fixed.args == [
        "--screenshot-dir",
        str(ws / "shots"),
        "screenshot",
        "#hero",
        str(ws / "a.png"),
    ]
    unchanged = AgentBrowserInput(args=["screenshot", str(ws / "a.png")])
    assert confine(unchanged, check_argv(unchanged.args, None), roots) is unchanged


def test_the_path_token_is_found_even_when_another_token_has_its_text(roots: FileRoots) -> None:
    (roots.cwd / "shot.png").write_text("x")
    fixed = _confine(roots, ["upload", "shot.png", "shot.png"])
    assert fixed.args == ["upload", "shot.png", str(roots.cwd / "shot.png")]
    at_file = _confine(roots, ["webmcp", "invoke", "t", "--params", "@p.json"])
    assert at_file.args[-1] == "@p.json"  # missing read source: left as written
    (roots.cwd / "p.json").write_text("{}")
    at_file = _confine(roots, ["webmcp", "invoke", "t", "--params", "@p.json"])
    assert at_file.args[-1] == f"@{roots.cwd / 'p.json'}"


def test_batch_rows_from_stdin_are_judged_and_pinned(roots: FileRoots) -> None:
    rows = [["open", "https://a.test"], ["screenshot", "shots/a.png"], ["pdf", "/tmp/x.pdf"]]
    refused = _blocked(roots, ["batch", "--bail"], json.dumps(rows))
    assert str(refused).startswith("batch row 3: `pdf` pdf path '/tmp/x.pdf'")
    fixed = _confine(roots, ["batch"], json.dumps(rows[:2]))
    assert json.loads(fixed.stdin)[1] == ["screenshot", str(roots.cwd / "shots/a.png")]
    assert fixed.args == ["batch"]


def test_batch_rows_from_args_are_judged_and_pinned(roots: FileRoots) -> None:
    refused = _blocked(roots, ["batch", "get url", "upload #f '/etc/shadow'"])
    assert str(refused).startswith("batch row 2: ")
    fixed = _confine(roots, ["batch", "get 'url'", "screenshot 'my shot.png'"])
    assert fixed.args[1] == "get 'url'"  # untouched rows keep the caller's quoting
    assert shlex.split(fixed.args[2]) == ["screenshot", str(roots.cwd / "my shot.png")]


def test_stdin_rows_beside_argument_rows_are_still_judged(roots: FileRoots) -> None:
    refused = _blocked(roots, ["batch", "get url"], json.dumps([["open", "file:///etc/passwd"]]))
    assert str(refused).startswith("batch stdin row 1: ")


def test_global_flags_inside_batch_rows_are_judged(roots: FileRoots) -> None:
    rows = [["--state", "/etc/passwd", "get", "url"]]
    assert _blocked(roots, ["batch"], json.dumps(rows)).subject == "/etc/passwd"


def test_output_path(roots: FileRoots) -> None:
    assert check_output_path("@logs/out.json", roots) == roots.cwd / "logs/out.json"
    refused = _blocked(roots, ["get", "url"], outputPath="/tmp/out.json")
    assert refused.subject == "/tmp/out.json" and "outputPath" in str(refused)
    escaped = _blocked(roots, ["get", "url"], outputPath="@../x.json")
    assert escaped.subject == str(roots.cwd.parent / "x.json")
    for name in ("agent-browser.json", "sub/.agent-browser-tools.toml"):
        assert "reconfigures" in str(_blocked(roots, ["get", "url"], outputPath=name))


def test_help_and_version_keep_their_exact_argv_but_are_judged(roots: FileRoots) -> None:
    assert _confine(roots, ["--version"]).args == ["--version"]
    assert _confine(roots, ["screenshot", "a.png", "--help"]).args == [
        "screenshot",
        "a.png",
        "--help",
    ]
    assert _blocked(roots, ["open", "file:///etc/passwd", "--help"]).subject == "/etc/passwd"


@pytest.mark.parametrize(
    ("row", "words"),
    [
        ("get url", ("get", "url")),
        ("get\turl", ("get\turl",)),
        ('get "ur\\l"', ("get", "url")),
        ("get 'url'''", ("get", "url")),
        ("download @e1 '' x", ("download", "@e1", "x")),
        ("a' 'b  c", ("a b", "c")),
        ("trailing\\", ("trailing",)),
    ],
)
def test_argument_rows_are_split_as_the_engine_splits_them(
    row: str, words: tuple[str, ...]
) -> None:
    """Checked against engine 0.39.4: a tab is no separator, `"ur\\l"` is `url`."""
    assert batch_row_words(row) == words


def test_rows_the_engine_splits_differently_cannot_smuggle_a_path(roots: FileRoots) -> None:
    """`shlex` would see an inside path where the engine sees an outside one."""
    empty_word = _blocked(roots, ["batch", "download @e1 '' /tmp/evil"])
    assert empty_word.subject == "/tmp/evil"
    tab = _blocked(roots, ["batch", "download @e1 x.zip\t/../../../../../../tmp/evil"])
    assert tab.subject.endswith("/tmp/evil")
    # Rows are read as the engine splits them, so a row with an empty word is pinned too.
    pinned = _confine(roots, ["batch", "pdf 'a b.pdf' ''"])
    assert pinned.args == ["batch", f"pdf '{roots.cwd / 'a b.pdf'}'"]


@pytest.mark.parametrize(
    ("argv", "paths"),
    [
        # The engine takes positions; a flag-like token is a position too.
        (["upload", "@e1", "-x", "/etc/passwd"], ["-x", "/etc/passwd"]),
        (["download", "@e1", "-/x.zip"], ["-/x.zip"]),
        (["pdf", "--nope"], ["--nope"]),
        # screenshot: the second positional is the path; later ones are judged as well.
        (["screenshot", "#a", "/tmp/evil.png", "ok.png"], ["/tmp/evil.png", "ok.png"]),
        (["screenshot", "--full", "x.png"], ["x.png"]),
        (["diff", "screenshot", "-b", "b.png", "-o", "/tmp/d.png"], ["b.png", "/tmp/d.png"]),
    ],
)
def test_slots_sit_where_the_engine_reads_them(argv: list[str], paths: list[str]) -> None:
    assert [slot.value for slot in row_slots(argv)] == paths


def test_a_batch_row_keeps_its_global_looking_tokens_in_place() -> None:
    """In a row the engine strips no global flag: `upload @e1 --session /etc/passwd` uploads
    a file named `--session` and /etc/passwd."""
    row = ["upload", "@e1", "--session", "/etc/passwd"]
    assert [slot.value for slot in row_slots(row)] == []  # top level: --session is a flag
    assert [slot.value for slot in row_slots(row, batch_row=True)] == ["--session", "/etc/passwd"]
    assert [s.value for s in row_slots(["pdf", "--state", "s.json"], batch_row=True)] == [
        "s.json",
        "--state",
    ]


def test_flag_like_positions_and_global_looking_row_tokens_are_judged(roots: FileRoots) -> None:
    assert _blocked(roots, ["upload", "@e1", "-x", "/etc/passwd"]).subject == "/etc/passwd"
    rows = [["upload", "@e1", "--session", "/etc/passwd"]]
    assert _blocked(roots, ["batch"], json.dumps(rows)).subject == "/etc/passwd"
    shot = _blocked(roots, ["screenshot", "#a", "/tmp/evil.png", "ok.png"])
    assert shot.subject == "/tmp/evil.png"


@pytest.mark.parametrize("batch", [False, True])
def test_a_hidden_dir_screenshot_path_is_made_absolute_before_launch(
    roots: FileRoots, batch: bool
) -> None:
    """The engine reads a lone `.dogfood/run/foo.png` as a selector and saves to its temp dir;
    absolute, it is read as the path it is."""
    wanted = str(roots.cwd / ".dogfood/run/foo.png")
    if batch:
        fixed = _confine(roots, ["batch"], json.dumps([["screenshot", ".dogfood/run/foo.png"]]))
        assert json.loads(fixed.stdin) == [["screenshot", wanted]]
    else:
        assert _confine(roots, ["screenshot", ".dogfood/run/foo.png"]).args == [
            "screenshot",
            wanted,
        ]
    assert _confine(roots, ["screenshot", ".hero"]).args == ["screenshot", ".hero"]


@pytest.fixture
def shared_roots(tmp_path: Path) -> FileRoots:
    """Conversation A's roots on a shared server whose other workspace is `bbbb`."""
    spaces = tmp_path / "server" / "agent-browser-workspaces"
    for name in ("aaaa", "bbbb"):
        (spaces / name).mkdir(parents=True)
    (spaces / "bbbb" / "state.json").write_text("{}")
    return FileRoots(cwd=spaces / "aaaa", roots=(tmp_path / "server",), workspaces=spaces)


@pytest.mark.parametrize(
    "args",
    [
        ["state", "load", "../bbbb/state.json"],
        ["upload", "#f", "{other}/state.json"],
        ["open", "file://{other}/state.json"],
        ["open", "file://{own}/%2e%2e/bbbb/state.json"],
        ["state", "save", "{other}/state.json"],
        ["screenshot", "../bbbb/shot.png"],
        ["--download-path", "{other}", "get", "url"],
        ["batch", "get url", "state load ../bbbb/state.json"],
    ],
)
def test_another_workspace_is_refused_with_its_own_rule_and_the_fix(
    shared_roots: FileRoots, args: list[str]
) -> None:
    other = shared_roots.cwd.parent / "bbbb"
    argv = [a.format(other=other, own=shared_roots.cwd) for a in args]
    inp = AgentBrowserInput(args=argv)
    with pytest.raises(PolicyBlocked) as caught:
        confine(inp, check_argv(inp.args, inp.stdin), shared_roots)
    refused = caught.value
    assert refused.rule == "other-workspace" and refused.allow_with is None
    assert refused.subject.startswith(str(other))
    text = str(refused)
    assert "another conversation's workspace" in text and "no setting opens" in text
    assert "./" in text, text  # the fix: a relative path, which lands in its own workspace


def test_an_output_path_in_another_workspace_is_refused(shared_roots: FileRoots) -> None:
    with pytest.raises(PolicyBlocked) as caught:
        check_output_path("../bbbb/state.json", shared_roots)
    assert caught.value.rule == "other-workspace"
    assert "`outputPath ./state.json`" in str(caught.value)
    assert check_output_path("out.json", shared_roots) == shared_roots.cwd / "out.json"


@pytest.mark.parametrize(
    ("args", "fix"),
    [
        (["upload", "#f", "file:///etc/hostname"], "give the path /etc/hostname, not file:///"),
        (["upload", "@e1", "ok.txt", "FILE:/tmp/x"], "give the path /tmp/x, not FILE:/tmp/x"),
        (["upload", "#f", "file:/a%20b"], "give the path /a b, not file:/a%20b"),
        (["upload", "#f", "file://localhost/x"], "give the path /x,"),
        (["upload", "#f", "view-source:file:///x"], "give the path /x,"),
        (["upload", "#f", "https://a.test/x.txt"], "save the file into the workspace first"),
        (["upload", "#f", "file://server/x"], "save the file into the workspace first"),
        (["state", "load", "file:///ws/s.json"], "give the path /ws/s.json"),
        (["--state", "File:///ws/s.json", "open", "https://a.test"], "give the path /ws/s.json"),
        (["cookies", "set", "--curl", "file:///c.txt"], "give the path /c.txt"),
        (["webmcp", "invoke", "t", "--params", "@file:///p.json"], "give the path @/p.json"),
        (["diff", "screenshot", "--baseline", "s3://b/x.png"], "save the file into"),
        (["screenshot", "file:///tmp/a.png"], "give the path /tmp/a.png"),
        (
            ["download", "@e1", "http://a.test/f.zip"],
            "inside the workspace, e.g. `download ./name`",
        ),
        (["--download-path", "file:///tmp/dl", "open", "https://a.test"], "give the path /tmp/dl"),
    ],
)
def test_a_url_where_a_file_path_belongs_is_refused_with_the_path(
    roots: FileRoots, args: list[str], fix: str
) -> None:
    """The engine would take it as a relative path (`./file:/x`) and answer success."""
    with pytest.raises(ArgvRejected) as caught:
        _confine(roots, args)
    text = str(caught.value)
    assert "is a URL, but this takes a local file path" in text and fix in text, text


def test_urls_as_paths_are_refused_in_batch_rows_and_output_path(roots: FileRoots) -> None:
    rows = [["get", "url"], ["upload", "#f", "file:///x.txt"]]
    with pytest.raises(ArgvRejected, match=r"^batch row 2: `upload` file"):
        _confine(roots, ["batch"], json.dumps(rows))
    with pytest.raises(ArgvRejected, match=r"^batch row 1: "):
        _confine(roots, ["batch", "upload #f FILE:///x.txt"])
    with pytest.raises(ArgvRejected, match=r"give the path /ws/out\.json"):
        check_output_path("file:///ws/out.json", roots)
    # What only looks like a scheme is still a path: a drive letter, a colon in a name.
    for name in ("C:/x.png", "shot:1.png", "data:x.png"):
        assert _confine(roots, ["screenshot", name]).args[-1] == str(roots.cwd / name)


def test_a_deep_stdin_beside_argument_rows_is_not_parsed(roots: FileRoots) -> None:
    deep = "[" * 100_000 + "]" * 100_000
    assert _confine(roots, ["batch", "get url"], deep).args == ["batch", "get url"]


def test_an_upload_of_a_missing_file_is_refused_unless_a_batch_row_may_make_it(
    roots: FileRoots,
) -> None:
    """The engine answers `uploaded: 1` for a file that is not there."""
    with pytest.raises(ArgvRejected, match="does not exist") as caught:
        _confine(roots, ["upload", "#f", "missing.txt"])
    assert f"resolves to {roots.cwd / 'missing.txt'}" in str(caught.value)
    (roots.cwd / "here.txt").write_text("x")
    with pytest.raises(ArgvRejected, match="does not exist"):
        _confine(roots, ["upload", "#f", "here.txt", str(roots.cwd / "gone.txt")])
    assert _confine(roots, ["upload", "#f", "here.txt"]).args[-1] == str(roots.cwd / "here.txt")
    rows = [["screenshot", "shot.png"], ["upload", "#f", "shot.png"]]
    sent = _confine(roots, ["batch"], json.dumps(rows)).stdin  # not refused
    assert json.loads(sent)[1][:2] == ["upload", "#f"]
    assert _blocked(roots, ["upload", "#f", "missing.txt", "/etc/passwd"]).subject == "/etc/passwd"
