"""Remote-tab bookkeeping: which tabs a conversation opened and closes (no engine needed)."""

from __future__ import annotations

import json
from collections.abc import Sequence

from agent_browser_tools.engine.remote_tabs import RemoteTabs

DIR = "/tmp/abt-x/conv"


class Recorder:
    """Stands in for the engine: answers `tab list` with a bound blank tab."""

    def __init__(self, tabs: list[dict[str, object]]) -> None:
        self.tabs = tabs
        self.calls: list[tuple[str | None, str, tuple[str, ...]]] = []

    async def __call__(self, args: Sequence[str], namespace: str | None, session: str) -> str:
        self.calls.append((namespace, session, tuple(args)))
        if list(args[-2:]) == ["tab", "list"]:
            return json.dumps({"success": True, "data": {"tabs": self.tabs}})
        return json.dumps({"success": True, "data": {}})


def _blank(target: str, *, active: bool = True, url: str = "about:blank") -> dict[str, object]:
    return {"targetId": target, "active": active, "url": url}


def _ok(target: str) -> str:
    return json.dumps({"success": True, "data": {"targetId": target}})


async def test_the_first_spawn_attaches_and_records_the_bound_tab_once() -> None:
    run, tabs = (
        Recorder([_blank("USER", active=False, url="https://x"), _blank("OURS")]),
        RemoteTabs(),
    )
    await tabs.before(["--json", "--session", "abt-a", "open", "https://a"], DIR, run)
    await tabs.before(["--json", "--session", "abt-a", "snapshot"], DIR, run)
    assert run.calls == [(None, "abt-a", ("--json", "tab", "list"))]
    assert tabs.opened == {(DIR, None, "abt-a"): ["OURS"]}


async def test_a_bound_tab_that_is_not_fresh_is_never_taken_for_ours() -> None:
    for listed in ([_blank("USER", url="https://user")], [_blank("USER", active=False)], []):
        tabs = RemoteTabs()
        await tabs.before(["--session", "s", "get", "url"], DIR, Recorder(listed))
        assert tabs.opened == {(DIR, None, "s"): []}


async def test_tabs_the_session_opens_are_closed_before_its_close_and_no_others() -> None:
    run, tabs = Recorder([_blank("OURS")]), RemoteTabs()
    await tabs.before(["--json", "--session", "s", "open", "u"], DIR, run)
    tabs.after(["--json", "--session", "s", "tab", "new", "u"], DIR, _ok("NEW"))
    tabs.after(["--json", "--session", "s", "click", "@e1", "--new-tab"], DIR, _ok("CLICKED"))
    tabs.after(["--json", "--session", "s", "open", "u"], DIR, _ok("OURS-AGAIN"))
    tabs.after(["--json", "--session", "s", "tab", "new"], DIR, '{"success": false}')
    run.calls.clear()
    await tabs.before(["--json", "--session", "s", "close"], DIR, run)
    closed = [call[2][-1] for call in run.calls]
    assert closed == ["OURS", "NEW", "CLICKED"]
    assert all(call[2][1:3] == ("tab", "close") for call in run.calls)
    assert tabs.opened == {}


async def test_close_all_closes_the_tabs_of_every_session_in_that_dir_and_namespace() -> None:
    run, tabs = Recorder([_blank("T")]), RemoteTabs()
    await tabs.before(["--session", "a", "open", "u"], DIR, run)
    await tabs.before(["--session", "b", "open", "u"], "/other/dir", run)
    await tabs.before(["--namespace", "ns", "--session", "c", "open", "u"], DIR, run)
    run.calls.clear()
    await tabs.before(["--json", "close", "--all"], DIR, run)
    assert [(c[0], c[1]) for c in run.calls] == [(None, "a")]
    assert set(tabs.opened) == {("/other/dir", None, "b"), (DIR, "ns", "c")}


async def test_a_call_that_attaches_on_its_own_keeps_its_tab() -> None:
    run, tabs = Recorder([_blank("T")]), RemoteTabs()
    await tabs.before(["--session", "mine", "--cdp", "9222", "open", "u"], DIR, run)
    await tabs.before(["--json", "session", "list"], DIR, run)
    assert run.calls == [] and tabs.opened == {}
