"""Each tab keeps its refs while the session is on another tab (pure: engine-shaped answers
through `success_effects`, folded by the reducers, and through the journal's own schema)."""

from __future__ import annotations

from typing import Any

from pydantic import TypeAdapter

from agent_browser_tools import taxonomy
from agent_browser_tools.state.effects import Probe, success_effects
from agent_browser_tools.state.journal import scrub_effect
from agent_browser_tools.state.models import Effect, SessionPageState, TabSelected
from agent_browser_tools.state.reducers import apply_effect
from agent_browser_tools.state.stale_refs import guard_direct

A, B = "TARGET-A", "TARGET-B"
ROWS = "http://127.0.0.1:8000/rows.html"
FORM = "http://127.0.0.1:8000/form.html"


def _call(state: SessionPageState, tokens: list[str], data: Any, url: str) -> SessionPageState:
    match = taxonomy.resolve_command(tokens)
    assert match is not None, tokens
    probe = Probe(url=url, title=None)
    for effect in success_effects(
        match, tokens, data, probe=probe, ownership=None, launch_flags=()
    ):
        state = apply_effect(state, scrub_effect(effect))
    return state


def _snapshot(state: SessionPageState, url: str, refs: dict[str, str]) -> SessionPageState:
    data = {
        "origin": url,
        "refs": {ref: {"role": "button", "name": name} for ref, name in refs.items()},
        "snapshot": "\n".join(f'- button "{n}" [ref={r}]' for r, n in refs.items()),
    }
    return _call(state, ["snapshot", "-i"], data, url)


def _on_a_then_b() -> SessionPageState:
    state = _call(SessionPageState(), ["open", ROWS], {"url": ROWS, "targetId": A}, ROWS)
    state = _snapshot(state, ROWS, {"e1": "Edit", "e2": "Save"})
    state = _call(state, ["tab", "new", FORM], {"targetId": B, "url": FORM}, FORM)
    return _snapshot(state, FORM, {"e3": "Submit"})


def _refused(state: SessionPageState, ref: str) -> str | None:
    match = taxonomy.resolve_command(["click", "@" + ref])
    assert match is not None
    stale = guard_direct(match, state)
    return stale.code if stale is not None else None


def test_returning_to_a_tab_that_still_shows_its_page_gives_its_refs_back() -> None:
    state = _on_a_then_b()
    assert _refused(state, "e1") == "not-in-latest-snapshot"  # A's ref while on B
    back = _call(state, ["tab", "t1"], {"targetId": A, "url": ROWS, "tabId": "t1"}, ROWS)
    assert back.tab == A and back.ref_snapshot is not None
    assert set(back.ref_snapshot.refs) == {"e1", "e2"}
    assert _refused(back, "e1") is None and _refused(back, "e3") == "not-in-latest-snapshot"
    again = _call(back, ["tab", "t2"], {"targetId": B, "url": FORM, "tabId": "t2"}, FORM)
    assert again.ref_snapshot is not None and set(again.ref_snapshot.refs) == {"e3"}


def test_a_tab_that_moved_to_another_page_meanwhile_has_no_refs() -> None:
    state = _on_a_then_b()
    moved = f"{ROWS}?page=2"
    back = _call(state, ["tab", "t1"], {"targetId": A, "url": moved}, moved)
    assert back.ref_snapshot is None and back.ref_invalidation is not None
    assert A not in back.parked and _refused(back, "e1") == "refs-invalidated"


def test_a_closed_tab_keeps_nothing_and_the_tab_after_it_is_unknown() -> None:
    state = _on_a_then_b()
    closed = _call(state, ["tab", "close"], {"closed": True, "targetId": B}, ROWS)
    assert closed.tab is None and B not in closed.parked and closed.ref_snapshot is None
    assert A in closed.parked  # A is where the engine went, but the answer did not say so
    gone = _call(closed, ["tab", "close", "t1"], {"closed": True, "targetId": A}, ROWS)
    assert gone.parked == {}


def test_a_switch_the_result_does_not_name_parks_and_restores_nothing() -> None:
    state = _on_a_then_b()
    window = _call(state, ["window", "new"], {"tabId": "t4", "total": 3}, "about:blank")
    assert window.tab is None and window.ref_snapshot is None
    assert set(window.parked) == {A, B}
    back = _call(window, ["tab", "t1"], {"targetId": A, "url": ROWS}, ROWS)
    assert back.ref_snapshot is not None and set(back.ref_snapshot.refs) == {"e1", "e2"}


def test_the_journal_keeps_tab_switches_and_parked_refs() -> None:
    adapter: TypeAdapter[Effect] = TypeAdapter(Effect)
    effect = TabSelected(target=A, url=ROWS + "?token=abc", summary="s")
    stored = adapter.validate_json(adapter.dump_json(scrub_effect(effect)))
    assert isinstance(stored, TabSelected) and stored.target == A and "abc" not in str(stored.url)
    state = _on_a_then_b()
    restored = SessionPageState.model_validate_json(state.model_dump_json())
    assert restored.parked == state.parked and restored.tab == B
