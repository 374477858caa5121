"""`agent_browser` through `BrowserTools`: refs, the stale-ref guard and session allocation.

Most tests drive the real engine and Chromium against the fixture site; each gets its own
`BrowserTools` (one conversation, one managed browser) and a private socket dir, and always
`aclose()`s it. Proving that a blocked call dispatched *nothing* needs the engine's own call
log, so those halves run against the fake engine with scripted envelopes.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import tempfile
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from agent_browser_tools import BrowserTools
from agent_browser_tools.planning.sessions import managed_base_name
from agent_browser_tools.results.tool_result import ToolResult
from agent_browser_tools.settings import Settings
from tests.support.fake import FakeEngine
from tests.support.fake_engine import command_path
from tests.support.fixture_server import FixtureServer
from tests.support.real_engine import EngineEnv, close_all_in, track_socket_dir

real_engine = pytest.mark.real_engine

REFRESH_REFS_ARGS = ["snapshot", "-i"]
CLOSE_WAIT_S = 10.0


# ----- harness ------------------------------------------------------------------------------


class Conversation:
    """One `BrowserTools` plus the socket dir its engine daemons live in."""

    def __init__(self, tools: BrowserTools, socket_dir: Path) -> None:
        self.tools = tools
        self.socket_dir = socket_dir

    async def call(self, args: list[str], **extra: Any) -> ToolResult:
        return await self.tools.call("agent_browser", {"args": args, **extra})

    async def ok(self, args: list[str], **extra: Any) -> ToolResult:
        result = await self.call(args, **extra)
        assert not result.is_error, f"{args} failed: {result.text}\n{result.details}"
        return result

    @property
    def managed_name(self) -> str:
        return managed_base_name(self.tools.runtime.root_id)

    def sockets(self) -> set[str]:
        """Daemon sockets under the socket dir, the conversation's own dir included."""
        return {p.name for p in self.socket_dir.rglob("*.sock")}


def _wait_for_no_sockets(socket_dir: Path, timeout: float) -> set[str]:
    deadline = time.monotonic() + timeout
    left = {p.name for p in socket_dir.rglob("*.sock")}
    while left and time.monotonic() < deadline:
        time.sleep(0.1)
        left = {p.name for p in socket_dir.rglob("*.sock")}
    return left


@contextlib.asynccontextmanager
async def open_conversation(
    engine_env: EngineEnv, tmp_path: Path, extra_env: dict[str, str] | None = None
) -> AsyncIterator[Conversation]:
    """A conversation on the real engine; its managed browser must be gone after `aclose()`.

    `AGENT_BROWSER_DOWNLOAD_PATH` from the harness env is dropped unless asked for: no test
    here downloads, and with it set engine 0.39.4 relaunches a browser that was started with
    launch flags (see `test_fresh_launch_flags_survive_a_launch_option_in_the_env`).
    """
    socket_dir = Path(tempfile.mkdtemp(prefix="abt-d", dir="/tmp"))
    socket_dir.chmod(0o700)
    track_socket_dir(socket_dir)
    env = {k: v for k, v in engine_env.env.items() if k != "AGENT_BROWSER_DOWNLOAD_PATH"}
    env.update(
        {
            "AGENT_BROWSER_SOCKET_DIR": str(socket_dir),
            "AGENT_BROWSER_TOOLS_STATE_DIR": str(tmp_path / "state"),
            **(extra_env or {}),
        }
    )
    tools = BrowserTools(settings=Settings.load(env=env, cwd=tmp_path), cwd=tmp_path)
    leftovers: set[str] = set()
    try:
        yield Conversation(tools, socket_dir)
    finally:
        try:
            await tools.aclose()
            leftovers = _wait_for_no_sockets(socket_dir, CLOSE_WAIT_S)
        finally:
            if leftovers:  # safety net, then report: aclose() must have closed them
                close_all_in(engine_env.binary, engine_env.env, socket_dir, CLOSE_WAIT_S)
                _wait_for_no_sockets(socket_dir, CLOSE_WAIT_S)
            shutil.rmtree(socket_dir, ignore_errors=True)
    assert not leftovers, f"aclose() left engine daemons running: {sorted(leftovers)}"


@pytest.fixture
async def conv(engine_env: EngineEnv, tmp_path: Path) -> AsyncIterator[Conversation]:
    async with open_conversation(engine_env, tmp_path) as conversation:
        yield conversation


def ref_for(result: ToolResult, role: str, name: str) -> str:
    """`@eN` of the unique ref with this role and accessible name in `details.refSnapshot`."""
    refs: dict[str, dict[str, str]] = result.details["refSnapshot"]["refs"]
    found = [r for r, info in refs.items() if (info.get("role"), info.get("name")) == (role, name)]
    assert len(found) == 1, f"{role} {name!r}: {found} in {refs}"
    return "@" + found[0]


def assert_stale_ref(result: ToolResult, prefix: tuple[str, ...] = ()) -> None:
    details = result.details
    assert result.is_error
    assert details["resultCategory"] == "failure"
    assert details["failureCategory"] == "stale-ref", details
    refresh = [a for a in details["nextActions"] if a["id"] == "refresh-interactive-refs"]
    assert len(refresh) == 1, details["nextActions"]
    assert refresh[0]["tool"] == "agent_browser"
    assert refresh[0]["params"] == {"args": [*prefix, *REFRESH_REFS_ARGS]}


# ----- refs, forms and the guard (real engine) -------------------------------------------


@real_engine
async def test_fill_a_textbox_by_ref_then_submit(
    conv: Conversation, fixture_site: FixtureServer
) -> None:
    opened = await conv.ok(["open", fixture_site.url("form.html")])
    assert opened.details["effectiveArgs"][:3] == ["--json", "--session", conv.managed_name]
    snap = await conv.ok(["snapshot", "-i"])
    assert snap.details["refSnapshot"]["target"]["url"] == fixture_site.url("form.html")
    name_ref = ref_for(snap, "textbox", "Full name")

    await conv.ok(["fill", name_ref, "Ada Lovelace"])
    await conv.ok(["click", ref_for(snap, "button", "Submit")])
    text = await conv.ok(["get", "text", "#result"])

    assert "Full name: Ada Lovelace" in text.text


@real_engine
async def test_an_old_ref_after_navigation_fails_as_stale_ref(
    conv: Conversation, fixture_site: FixtureServer
) -> None:
    await conv.ok(["open", fixture_site.url("form.html")])
    submit = ref_for(await conv.ok(["snapshot", "-i"]), "button", "Submit")
    await conv.ok(["open", fixture_site.url("page-a.html")])

    blocked = await conv.call(["click", submit])

    assert_stale_ref(blocked)
    assert blocked.details["staleRef"] == {
        "refs": [submit],
        "step": None,
        "reason": "refs-invalidated",
    }
    assert blocked.details["refSnapshotInvalidation"]["reason"] == "page-transition"
    assert blocked.details["sessionTabTarget"]["url"] == fixture_site.url("page-a.html")
    url = await conv.ok(["get", "url"])
    assert url.details["data"]["url"] == fixture_site.url("page-a.html")


@real_engine
async def test_a_batch_of_fills_then_a_submit_click_runs(
    conv: Conversation, fixture_site: FixtureServer
) -> None:
    await conv.ok(["open", fixture_site.url("form.html")])
    snap = await conv.ok(["snapshot", "-i"])
    rows = [
        ["fill", ref_for(snap, "textbox", "Full name"), "Grace Hopper"],
        ["fill", ref_for(snap, "textbox", "Email"), "grace@example.test"],
        ["click", ref_for(snap, "checkbox", "Subscribe")],
        ["click", ref_for(snap, "button", "Submit")],
    ]

    batch = await conv.ok(["batch", "--bail"], stdin=json.dumps(rows))

    steps = batch.details["batchSteps"]
    assert [s["success"] for s in steps] == [True, True, True, True]
    assert batch.details["successCategory"] == "completed"
    result = (await conv.ok(["get", "text", "#result"])).text
    assert "Full name: Grace Hopper" in result
    assert "Email: grace@example.test" in result
    assert "Subscribe: yes" in result


@real_engine
async def test_a_batch_with_a_navigating_click_then_an_old_ref_is_blocked(
    conv: Conversation, fixture_site: FixtureServer
) -> None:
    """Step 1 navigates; step 2's ref is re-read on the new page and refused there."""
    await conv.ok(["open", fixture_site.url("links.html")])
    snap = await conv.ok(["snapshot", "-i"])
    rows = [
        ["click", ref_for(snap, "link", "Go to Page A")],
        ["click", ref_for(snap, "link", "Go to Page B")],
    ]

    blocked = await conv.call(["batch", "--bail"], stdin=json.dumps(rows))

    assert_stale_ref(blocked)
    assert blocked.details["staleRef"]["step"] == 2
    assert blocked.details["staleRef"]["reason"] == "element-gone"
    assert [s["success"] for s in blocked.details["batchSteps"]] == [True, False]
    # Step 1 ran, step 2 did not: the browser is on page A, not page B.
    url = await conv.ok(["get", "url"])
    assert url.details["data"]["url"] == fixture_site.url("page-a.html")


@real_engine
async def test_a_ref_a_newer_snapshot_no_longer_lists_is_not_clicked_after_a_rerender(
    conv: Conversation, fixture_site: FixtureServer
) -> None:
    """The engine would re-resolve the old ref by role/name and click the *new* Alpha."""
    await conv.ok(["open", fixture_site.url("rerender.html")])
    before = await conv.ok(["snapshot", "-i"])
    old_alpha = ref_for(before, "button", "Alpha")
    await conv.ok(["click", ref_for(before, "button", "Rerender")])
    after = await conv.ok(["snapshot", "-i"])
    new_alpha = ref_for(after, "button", "Alpha")
    assert new_alpha != old_alpha  # the engine renumbered the rebuilt button

    blocked = await conv.call(["click", old_alpha])

    assert_stale_ref(blocked)
    # Refused for what became of its element (issue 28), not for being from an older snapshot.
    assert blocked.details["staleRef"]["reason"] == "element-gone"
    assert "it is no longer on the page" in blocked.details["error"]
    assert "Clicks: 0" in (await conv.ok(["get", "text", "#clicks"])).text
    await conv.ok(["click", new_alpha])
    clicked = (await conv.ok(["get", "text", "#last-clicked"])).text
    assert "Alpha (generation 1)" in clicked


@real_engine
async def test_after_navigation_and_back_old_refs_act_only_on_the_same_document(
    conv: Conversation, fixture_site: FixtureServer
) -> None:
    """Back to the form after another page: when Chromium restores the very document (its
    back-forward cache), the form's old ref is the same element and acts (the wrapper takes
    the snapshot first); when it loads the form anew, the old ref stays refused until a
    snapshot, as a direct call and in a batch. A window marker tells which happened."""
    form = fixture_site.url("form.html")
    await conv.ok(["open", form])
    old_submit = ref_for(await conv.ok(["snapshot", "-i"]), "button", "Submit")
    await conv.ok(["eval", "window.abtSameDocument = true"])
    await conv.ok(["open", fixture_site.url("page-a.html")])

    back = await conv.ok(["back"])
    assert back.details["navigationSummary"]["url"] == form
    assert "sessionTabTargetUnknown" not in back.details
    kept = await conv.ok(["eval", "window.abtSameDocument === true"])

    if kept.details["data"]["result"] is True:
        await conv.ok(["click", old_submit])
    else:
        assert_stale_ref(await conv.call(["click", old_submit]))
        batched = await conv.call(["batch", "--bail"], stdin=json.dumps([["click", old_submit]]))
        assert_stale_ref(batched)
        fresh = await conv.ok(["snapshot", "-i"])
        await conv.ok(["click", ref_for(fresh, "button", "Submit")])
    title = await conv.ok(["get", "title"])
    assert title.details["data"]["title"] == "Form submitted"


@real_engine
async def test_get_url_after_an_unobserved_back_clears_the_unknown_target(
    conv: Conversation, fixture_site: FixtureServer
) -> None:
    await conv.ok(["open", fixture_site.url("page-a.html")])
    await conv.ok(["open", fixture_site.url("page-b.html")])

    # Native text proves nothing about the page, so the target becomes unknown.
    back = await conv.ok(["--json", "false", "back"])
    assert back.details["sessionTabTargetUnknown"] is True
    blocked = await conv.call(["snapshot", "-i"])
    assert blocked.details["failureCategory"] == "tab-drift"
    assert blocked.details["sessionTabTargetUnknown"] is True
    assert [a["id"] for a in blocked.details["nextActions"]] == ["verify-page-target"]

    url = await conv.ok(["get", "url"])

    assert "sessionTabTargetUnknown" not in url.details
    assert url.details["sessionTabTarget"]["url"] == fixture_site.url("page-a.html")
    await conv.ok(["snapshot", "-i"])


# ----- sessions (real engine) --------------------------------------------------------------


@real_engine
async def test_a_launch_flag_needs_a_fresh_session_once_the_implicit_one_runs(
    conv: Conversation, fixture_site: FixtureServer
) -> None:
    agent = "AbtDirectToolTest/1.0"
    page = fixture_site.url("page-a.html")
    await conv.ok(["open", page])
    first = conv.managed_name
    assert f"{first}.sock" in conv.sockets()

    rejected = await conv.call(["--user-agent", agent, "open", page])

    assert rejected.is_error
    assert rejected.details["failureCategory"] == "validation-error"
    assert 'sessionMode: "fresh"' in rejected.details["validationError"]

    fresh = await conv.ok(["--user-agent", agent, "open", page], sessionMode="fresh")
    outcome = fresh.details["managedSessionOutcome"]
    assert outcome["outcome"] == "replaced"
    assert outcome["previousSession"] == first
    assert outcome["previousClosed"] is True
    assert fresh.details["sessionName"] != first
    seen = await conv.ok(["eval", "--stdin"], stdin="navigator.userAgent")
    assert agent in json.dumps(seen.details["data"])
    assert seen.details["sessionName"] == fresh.details["sessionName"]
    assert f"{first}.sock" not in _settled_sockets(conv, first)

    other = await conv.call(["--user-agent", "SomethingElse/2.0", "get", "url"])
    assert other.details["failureCategory"] == "validation-error"


@real_engine
async def test_fresh_launch_flags_survive_a_launch_option_in_the_env(
    engine_env: EngineEnv, tmp_path: Path, fixture_site: FixtureServer
) -> None:
    agent = "AbtDirectToolTest/1.0"
    page = fixture_site.url("page-a.html")
    extra = {"AGENT_BROWSER_DOWNLOAD_PATH": str(tmp_path / "downloads")}
    async with open_conversation(engine_env, tmp_path, extra) as conv:
        await conv.ok(["--user-agent", agent, "open", page], sessionMode="fresh")
        seen = await conv.ok(["eval", "--stdin"], stdin="navigator.userAgent")
    assert seen.details["data"] == {"origin": page, "result": agent}


def _settled_sockets(conv: Conversation, gone: str) -> set[str]:
    deadline = time.monotonic() + CLOSE_WAIT_S
    while f"{gone}.sock" in conv.sockets() and time.monotonic() < deadline:
        time.sleep(0.1)
    return conv.sockets()


@real_engine
async def test_version_session_list_and_skills_list_never_allocate_a_session(
    conv: Conversation,
) -> None:
    version = await conv.ok(["--version"])
    assert version.details["effectiveArgs"] == ["--version"]
    assert version.text.strip() == f"agent-browser {conv.tools.runtime.engine.version_label}"

    for args in (["session", "list"], ["skills", "list"]):
        result = await conv.call(args)
        # The PyPI engine wheel ships no skills dir, so `skills list` may fail upstream; it
        # must still run without a session either way.
        assert not result.is_error or "Skills directory not found" in result.details["error"]
        assert "--session" not in result.details["effectiveArgs"], result.details
        assert result.details["usedImplicitSession"] is False
        assert "sessionName" not in result.details

    listed = await conv.ok(["session", "list"])
    assert conv.managed_name not in listed.text
    assert conv.sockets() == set()
    assert conv.tools.runtime.owned_sessions == set()
    assert conv.tools.runtime.log.state.managed_session is None


# ----- nothing is dispatched (fake engine) ----------------------------------------------------

FAKE_FORM = "http://fixture.test/form.html"
FAKE_LINKS = "http://fixture.test/links.html"
FAKE_PAGE_A = "http://fixture.test/page-a.html"


@pytest.fixture
async def fake_conv(fake_engine: FakeEngine, tmp_path: Path) -> AsyncIterator[Conversation]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("AGENT_BROWSER")}
    socket_dir = tmp_path / "sock"
    env.update(
        {
            "AGENT_BROWSER_TOOLS_BIN": str(fake_engine.path),
            "AGENT_BROWSER_TOOLS_STATE_DIR": str(tmp_path / "state"),
            "AGENT_BROWSER_SOCKET_DIR": str(socket_dir),
        }
    )
    socket_dir.mkdir(mode=0o700)
    tools = BrowserTools(settings=Settings.load(env=env, cwd=tmp_path), cwd=tmp_path)
    try:
        yield Conversation(tools, socket_dir)
    finally:
        await tools.aclose()


def script_page(fake: FakeEngine, url: str, title: str, refs: dict[str, dict[str, str]]) -> None:
    fake.on({"command": ["open", url]}, envelope={"data": {"url": url, "title": title}})
    fake.on(
        {"command": ["snapshot"]},
        times=1,
        envelope={"data": {"origin": url, "refs": refs, "snapshot": "(scripted)"}},
    )


def dispatched_commands(fake: FakeEngine) -> list[list[str]]:
    return [command_path(argv) for argv in fake.argvs()]


async def test_a_stale_ref_after_navigation_is_never_dispatched(
    fake_conv: Conversation, fake_engine: FakeEngine
) -> None:
    script_page(fake_engine, FAKE_FORM, "Profile Form", {"e3": {"role": "button", "name": "Go"}})
    fake_engine.on({"command": ["open", FAKE_PAGE_A]}, envelope={"data": {"url": FAKE_PAGE_A}})
    fake_engine.on({"command": ["click"]}, envelope={"data": {"clicked": "@e3"}})

    await fake_conv.ok(["open", FAKE_FORM])
    await fake_conv.ok(["snapshot", "-i"])
    await fake_conv.ok(["open", FAKE_PAGE_A])
    for spelling in ("@e3", "e3", "ref=e3"):
        assert_stale_ref(await fake_conv.call(["click", spelling]))
    # Control: a caller session the wrapper knows nothing about is not blocked, and the fake
    # logs that click, so an empty click log below really means "never dispatched".
    await fake_conv.ok(["--session", "mine", "click", "@e3"])
    await fake_conv.ok(["--session", "mine", "open", FAKE_PAGE_A])
    explicit = await fake_conv.call(["--session", "mine", "click", "@e3"])

    assert_stale_ref(explicit, prefix=("--session", "mine"))
    commands = dispatched_commands(fake_engine)
    assert ["snapshot", "-i"] in commands  # the fake really answered the scripted calls
    clicks = [c for c in commands if c[:1] == ["click"]]
    assert clicks == [["click", "@e3"]]  # only the control call


async def test_a_batch_with_a_navigating_click_then_an_old_ref_is_never_dispatched(
    fake_conv: Conversation, fake_engine: FakeEngine
) -> None:
    """Only step 1 reaches the engine: the re-read before step 2 sees another page."""
    refs = {
        "e1": {"role": "link", "name": "Go to Page A"},
        "e2": {"role": "link", "name": "Go to Page B"},
    }
    script_page(fake_engine, FAKE_LINKS, "Links", refs)
    snapshot = {"origin": FAKE_LINKS, "refs": refs, "snapshot": "(scripted)"}
    fake_engine.on({"command": ["snapshot"]}, times=1, envelope={"data": snapshot})
    page_a = {"origin": FAKE_PAGE_A, "refs": {"e7": {"role": "link", "name": "Back"}}}
    fake_engine.on({"command": ["snapshot"]}, envelope={"data": {**page_a, "snapshot": "(a)"}})
    fake_engine.on({"command": ["batch"]}, json=[])

    await fake_conv.ok(["open", FAKE_LINKS])
    await fake_conv.ok(["snapshot", "-i"])
    blocked = await fake_conv.call(
        ["batch", "--bail"], stdin=json.dumps([["click", "@e1"], ["click", "e2"]])
    )

    assert_stale_ref(blocked)
    assert blocked.details["staleRef"] == {"refs": ["@e2"], "step": 2, "reason": "element-gone"}
    sent = [json.loads(str(call["stdin"])) for call in fake_engine.calls() if call.get("stdin")]
    clicks = [row for rows in sent for row in rows if row[:1] == ["click"]]
    assert clicks == [["click", "@e1"]]  # step 2 never reached the engine
