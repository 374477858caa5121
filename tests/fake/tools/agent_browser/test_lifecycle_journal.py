"""Ownership from the spawn and journaled closes (fake engine: exact argv and journal rows).

A managed browser is closed at conversation end even when every call failed, and each close
the wrapper performs is journaled, so a resumed conversation refuses old refs with the reason
and names the exact reopen call instead of acting on a blank browser.
"""

from __future__ import annotations

from pathlib import Path

from agent_browser_tools.api import BrowserTools
from agent_browser_tools.planning.sessions import fresh_name, managed_base_name
from agent_browser_tools.state.models import BrowserClosed, CompletionEvent, SessionKey
from agent_browser_tools.state.sqlite_journal import SqliteJournal
from tests.fake.tools.agent_browser.test_argv import PAGE, _call, _open_rule, _tools
from tests.support.fake import FakeEngine

REFS = {"e1": {"role": "button", "name": "Go"}}


def _closes(tools: BrowserTools) -> list[CompletionEvent]:
    """The journaled closes, read back from disk (`aclose` closed the tools' own handle)."""
    journal = SqliteJournal(tools.settings.state_dir, tools.conversation_id)
    try:
        return [
            event
            for event in journal.events()
            if isinstance(event, CompletionEvent)
            and any(isinstance(effect, BrowserClosed) for effect in event.effects)
        ]
    finally:
        journal.close()


async def test_a_failed_first_call_still_closes_the_managed_browser_and_journals_it(
    fake_engine: FakeEngine, tmp_path: Path
) -> None:
    tools = _tools(fake_engine, tmp_path, "lc-failed")
    fake_engine.on(
        {"command": ["open"]},
        envelope={"error": "net::ERR_CONNECTION_REFUSED at http://127.0.0.1:1/"},
    )
    failed = await _call(tools, {"args": ["open", "http://127.0.0.1:1/"]})
    assert failed.is_error, failed.text
    managed = fake_engine.argvs()[0][fake_engine.argvs()[0].index("--session") + 1]
    fake_engine.reset()
    await tools.aclose()
    assert fake_engine.argvs() == [["--json", "--session", managed, "close"]]
    (event,) = _closes(tools)
    assert event.key.session == managed


async def test_a_resumed_conversation_refuses_old_refs_and_names_the_reopen_call(
    fake_engine: FakeEngine, tmp_path: Path
) -> None:
    tools = _tools(fake_engine, tmp_path, "lc-resume")
    _open_rule(fake_engine)
    fake_engine.on(
        {"command": ["snapshot"]},
        envelope={"data": {"origin": PAGE, "snapshot": '- button "Go" [ref=e1]', "refs": REFS}},
    )
    assert not (await _call(tools, {"args": ["open", PAGE]})).is_error
    assert not (await _call(tools, {"args": ["snapshot", "-i"]})).is_error
    await tools.aclose()
    assert len(_closes(tools)) == 1

    resumed = _tools(fake_engine, tmp_path, "lc-resume")
    entry = next(iter(resumed.runtime.log.state.sessions.values()))
    assert entry.closed and entry.target is not None and entry.target.url == PAGE
    assert resumed.runtime.owned_sessions == set(), "a closed browser is nobody's to close"
    click = await _call(resumed, {"args": ["click", "@e1"]})
    assert click.details["failureCategory"] == "stale-ref", click.text
    assert click.details["staleRef"]["reason"] == "browser-closed"
    assert "The browser is closed" in click.text and f"`open {PAGE}`" in click.text
    (action,) = click.details["nextActions"]
    assert action["id"] == "reopen-recorded-url" and action["params"] == {"args": ["open", PAGE]}
    read = await _call(resumed, {"args": ["get", "url"]})
    assert read.details["failureCategory"] == "tab-gone", read.text
    assert fake_engine.calls() == [], "nothing reaches a browser that is gone"

    _open_rule(fake_engine)
    reopened = await _call(resumed, {"args": action["params"]["args"]})
    assert not reopened.is_error, reopened.text
    entry = next(iter(resumed.runtime.log.state.sessions.values()))
    assert not entry.closed and not entry.target_unknown
    await resumed.aclose()


async def test_a_shared_server_journals_every_session_its_dir_close_ended(
    fake_engine: FakeEngine, tmp_path: Path
) -> None:
    tools = _tools(fake_engine, tmp_path, "lc-shared")
    tools.shared_server = True
    _open_rule(fake_engine)
    assert not (await _call(tools, {"args": ["--session", "mine", "open", PAGE]})).is_error
    (tools.runtime.sockets.own / "mine.sock").write_text("")  # a live daemon's socket
    await tools.aclose()
    assert [event.key.session for event in _closes(tools)] == ["mine"]


async def test_a_replaced_fresh_session_is_journaled_closed(
    fake_engine: FakeEngine, tmp_path: Path
) -> None:
    tools = _tools(fake_engine, tmp_path, "lc-fresh")
    _open_rule(fake_engine)
    assert not (await _call(tools, {"args": ["open", PAGE]})).is_error
    first = tools.runtime.log.state.managed_session
    fresh = await _call(tools, {"args": ["open", PAGE], "sessionMode": "fresh"})
    assert fresh.details["managedSessionOutcome"]["outcome"] == "replaced", fresh.text
    assert [event.key.session for event in _closes(tools)] == [first]
    await tools.aclose()


async def test_a_first_call_cut_off_mid_launch_is_owned_by_the_resumed_conversation(
    fake_engine: FakeEngine, tmp_path: Path
) -> None:
    """The server died between the intent and the completion of a first `open` (SIGKILL): the
    resumed conversation must still close that browser, which the call may have launched."""
    tools = _tools(fake_engine, tmp_path, "lc-cut")
    key = SessionKey(session=managed_base_name(tools.runtime.root_id))
    tools.runtime.log.intent("c1", "agent_browser", key, ("--session", key.session, "open", PAGE))
    assert tools.journal is not None
    tools.journal.close()  # the process died here: no completion, no close

    resumed = _tools(fake_engine, tmp_path, "lc-cut")
    assert resumed.runtime.owned_sessions == {key}
    assert resumed.runtime.log.state.session(key).target_unknown
    await resumed.aclose()
    assert fake_engine.argvs() == [["--json", "--session", key.session, "close"]]
    assert [event.key for event in _closes(resumed)] == [key]


async def test_a_cut_off_call_on_a_caller_session_is_not_owned(
    fake_engine: FakeEngine, tmp_path: Path
) -> None:
    tools = _tools(fake_engine, tmp_path, "lc-cut-caller")
    key = SessionKey(session="mine")
    tools.runtime.log.intent("c1", "agent_browser", key, ("--session", "mine", "open", PAGE))
    assert tools.journal is not None
    tools.journal.close()  # the process died here: no completion, no close

    resumed = _tools(fake_engine, tmp_path, "lc-cut-caller")
    assert resumed.runtime.owned_sessions == set()
    await resumed.aclose()
    assert fake_engine.argvs() == []


RELAUNCHED = {"launched": True, "relaunchedBrowser": False, "reused": False}


async def test_an_answer_from_a_relaunched_browser_is_not_passed_off_as_the_page(
    fake_engine: FakeEngine, tmp_path: Path
) -> None:
    """The engine's lifecycle says it launched a browser for a session that had one (a crash
    during the call, or no `/proc` to look first): a read there fails as `tab-gone` instead
    of reporting `about:blank` as the page, refs retire as `browser-lost`, and the reopen
    call is offered."""
    tools = _tools(fake_engine, tmp_path, "lc-relaunch")
    _open_rule(fake_engine)
    fake_engine.on(
        {"command": ["snapshot"]},
        envelope={"data": {"origin": PAGE, "snapshot": '- button "Go" [ref=e1]', "refs": REFS}},
    )
    assert not (await _call(tools, {"args": ["open", PAGE]})).is_error
    assert not (await _call(tools, {"args": ["snapshot", "-i"]})).is_error
    fake_engine.on(
        {"command": ["get", "url"]},
        envelope={"data": {"url": "about:blank", "lifecycle": RELAUNCHED}},
    )
    read = await _call(tools, {"args": ["get", "url"]})
    assert read.details["failureCategory"] == "tab-gone", read.text
    assert read.details["browserLost"]["cause"] == "relaunched"
    assert "ran on the new blank page" in read.text and f"`open {PAGE}`" in read.text
    (action,) = read.details["nextActions"]
    assert action["params"] == {"args": ["open", PAGE]}
    entry = next(iter(tools.runtime.log.state.sessions.values()))
    assert entry.target_unknown and entry.ref_snapshot is None
    assert entry.ref_invalidation is not None and entry.ref_invalidation.reason == "browser-lost"

    fake_engine.reset().on(
        {"command": ["open"]},
        envelope={"data": {"url": PAGE, "title": "Page A", "lifecycle": RELAUNCHED}},
    )
    reopened = await _call(tools, {"args": action["params"]["args"]})
    assert not reopened.is_error, "a navigation got the page it asked for"
    assert any("launched a new browser" in w for w in reopened.details["warnings"])
    await tools.aclose()


async def test_a_fresh_launch_cut_off_mid_call_is_owned_by_the_resumed_conversation(
    fake_engine: FakeEngine, tmp_path: Path
) -> None:
    tools = _tools(fake_engine, tmp_path, "lc-cut-fresh")
    key = SessionKey(session=fresh_name(tools.runtime.root_id, "7"))
    tools.runtime.log.intent("c1", "agent_browser", key, ("--session", key.session, "open", PAGE))
    assert tools.journal is not None
    tools.journal.close()

    resumed = _tools(fake_engine, tmp_path, "lc-cut-fresh")
    assert resumed.runtime.owned_sessions == {key}
    await resumed.aclose()
    assert fake_engine.argvs() == [["--json", "--session", key.session, "close"]]


async def test_the_artifact_manifest_is_not_journaled(
    fake_engine: FakeEngine, tmp_path: Path
) -> None:
    """README "What survives a restart": the manifest lives in memory, so a resumed
    conversation starts with an empty one (the files stay on disk)."""
    tools = _tools(fake_engine, tmp_path, "lc-manifest")
    _open_rule(fake_engine)
    target = tmp_path / "doc.pdf"
    fake_engine.on(
        {"command": ["pdf"]}, envelope={"data": {"path": str(target)}}, touch_file=str(target)
    )
    assert not (await _call(tools, {"args": ["open", PAGE]})).is_error
    saved = await _call(tools, {"args": ["pdf", "doc.pdf"]})
    assert not saved.is_error, saved.text
    assert saved.details["artifactManifest"]["totalEntries"] == 1
    assert tools.runtime.artifact_manifest.entries()
    await tools.aclose()

    resumed = _tools(fake_engine, tmp_path, "lc-manifest")
    assert resumed.runtime.artifact_manifest.entries() == []
    assert target.exists()
    await resumed.aclose()
