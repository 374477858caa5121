"""`click_probe`: only a target whose identity can be proven gets a dispatch probe, and a
miss fails the click only when nothing changed after the press."""

from __future__ import annotations

from dataclasses import replace
from types import SimpleNamespace as NS
from typing import Any

from agent_browser_tools.engine.envelope import BatchRow
from agent_browser_tools.results.observation import Observation
from agent_browser_tools.state.models import RefInfo
from agent_browser_tools.taxonomy import CommandMatch, resolve_command
from agent_browser_tools.tools.agent_browser.page import click_probe
from agent_browser_tools.tools.agent_browser.page.click_probe import (
    Installed,
    InstallRows,
    ProbeState,
    Target,
    _bound_by,
    collect_row,
    discard,
    judge,
    post_rows,
    take_install,
    target_of,
)
from agent_browser_tools.tools.agent_browser.refs import page_watch as pw
from tests.support.fake_calls import fake_call

REFS = {
    "e1": RefInfo(role="button", name="Save", engine="e7"),
    "e2": RefInfo(role="link", name="Home"),
    "e3": RefInfo(role="button", name="Delete"),
    "e4": RefInfo(role="button", name="Delete"),
    "e5": RefInfo(role="checkbox", name=""),
}


def _click(*args: str) -> CommandMatch:
    match = resolve_command(["click", *args])
    assert match is not None
    return match


def test_a_unique_eligible_ref_is_located_by_role_and_name_and_read_back_by_engine_id() -> None:
    target = target_of(_click("@e1"), REFS)
    assert target is not None
    assert target.locate == {"role": "button", "name": "Save"}
    assert target.selector == "@e7", "the read-back speaks the engine's id"
    assert target.descriptor == {
        "kind": "accessible",
        "refId": "@e1",
        "role": "button",
        "name": "Save",
    }


def test_an_xpath_target_is_located_by_its_expression() -> None:
    target = target_of(_click("xpath=//button[1]"), REFS)
    assert target is not None and target.locate == {"xpath": "//button[1]"}
    assert target.descriptor == {"kind": "xpath", "selector": "xpath=//button[1]"}


def test_unprovable_targets_get_no_probe() -> None:
    """A link is not an eligible role, look-alike names are no proof of identity, a nameless
    box cannot be found by name, and a CSS selector or unknown ref names no recorded
    element."""
    for operand in ("@e2", "@e3", "@e5", "#save", "@e99"):
        assert target_of(_click(operand), REFS) is None, operand


TARGET = Target(
    {"role": "button", "name": "Buy"},
    "@e1",
    {"kind": "accessible", "refId": "@e1", "role": "button", "name": "Buy"},
)


def _judged(seen: dict[str, int], *, title_changed: bool = False) -> tuple[int | None, Observation]:
    """Judge a probed `click @e1` whose proven target saw `seen`; (evidence, observation)."""
    plan = NS(
        session=NS(key=None, used_implicit_session=True),
        checked=NS(command_tokens=("click", "@e1")),
    )
    call: Any = fake_call(ProbeState(probe=Installed("tok", TARGET), seen=seen), plan=plan)
    obs = Observation(success=True)
    return judge(call, obs, title_changed=title_changed), obs


def test_a_target_without_events_on_an_unchanged_page_is_a_dispatch_miss() -> None:
    evidence, obs = _judged({"events": 0, "mutations": 0})
    assert evidence == 0 and not obs.success
    assert obs.extra["clickDispatch"]["status"] == "no-native-event-observed"
    assert [a.id for a in obs.next_actions] == [
        "inspect-click-dispatch-miss",
        "retry-click-after-dispatch-miss",
    ]


def test_a_page_that_changed_after_the_press_keeps_the_click_unverified_without_retry() -> None:
    """A re-render under the pointer or a handler that stopped the event: the app may have
    acted, so a failure inviting a retry could submit twice."""
    for seen, title in (
        ({"events": 0, "mutations": 57}, False),
        ({"events": 0, "mutations": 0}, True),
    ):
        evidence, obs = _judged(seen, title_changed=title)
        assert obs.success and obs.failure_category is None, seen
        assert obs.extra["clickDispatch"]["status"] == "no-target-event-page-changed"
        assert any("no trusted pointer or click event reached @e1" in w for w in obs.warnings)
        ids = [a.id for a in obs.next_actions]
        assert ids == ["inspect-click-dispatch-miss"], ids
        assert evidence == seen["mutations"]


def test_mutations_on_a_page_that_mutates_by_itself_are_no_evidence() -> None:
    """Timers and animations changed the DOM before the pointer arrived: a count after the
    press says nothing about the click (it still keeps a target miss from failing)."""
    evidence, obs = _judged({"events": 2, "mutations": 40, "quiet": 9})
    assert evidence == 0 and obs.success and "clickDispatch" not in obs.extra
    evidence, obs = _judged({"events": 2, "mutations": 40, "quiet": 0})
    assert evidence == 40


def _check(*engines: str) -> pw.Check:
    reads = [["get", "attr", "@" + e, pw.MARK] for e in engines]
    return pw.Check(["eval", "check"], reads, "n0nce")


def test_a_ref_target_the_identity_check_reads_is_bound_by_its_marker() -> None:
    """The check's `get attr @ref` already names the node the engine will click: the probe
    reads no marker of its own. An xpath target, or a ref the check does not read, is not."""
    target = target_of(_click("@e1"), REFS)
    assert _bound_by(target, _check("e7")) == "e7"
    assert _bound_by(target, _check("e3")) is None
    assert _bound_by(target, None) is None
    assert _bound_by(target_of(_click("xpath=//button[1]"), REFS), _check("e7")) is None


def test_a_bound_probe_counts_the_events_of_the_candidate_the_engines_node_carried() -> None:
    """The collect row asks for that candidate's count; when the engine's node carried none
    of the check's markers, the target is unproven and a miss cannot fail the click."""
    probe = Installed("tok", TARGET, bound="e7")
    call: Any = fake_call(ProbeState(probe=probe), ref_marks=[pw.Marks("n0nce", {"e7": 2})])
    row = collect_row(call)
    assert row is not None and 'n = "2"' in row[1] and '"tok"' in row[1]
    assert call.part(ProbeState).probe.target == TARGET
    call = fake_call(ProbeState(probe=probe), ref_marks=[pw.Marks("n0nce", {"e3": 0})])
    row = collect_row(call)
    assert row is not None and "n = null" in row[1]
    assert call.part(ProbeState).probe.target is None


async def test_the_checks_markers_go_even_when_the_probe_that_was_to_hold_them_failed(
    monkeypatch: Any,
) -> None:
    """A page that breaks the install (it patched `addEventListener`) leaves the check's
    markers with no owner: the batch sent no removal, so the post-action batch or `discard`
    must take them off."""
    rows = InstallRows(
        scripts=[["eval", "install"]],
        reads=[],
        holds_marks=True,
        token="t",
        target=None,
        bound=None,
    )
    failed = BatchRow(("eval", "install"), False, None, "addEventListener is not a function")
    call: Any = fake_call(ProbeState())
    take_install(call, rows, [failed], [])
    assert post_rows(call) == [["eval", pw.UNMARK_JS]]
    sent: list[list[list[str]]] = []

    async def helper_batch(rt: Any, plan: Any, batch: list[list[str]]) -> None:
        sent.append(batch)

    monkeypatch.setattr(click_probe, "helper_batch", helper_batch)
    call = fake_call(ProbeState(), rt=None, plan=None)
    take_install(call, rows, [failed], [])
    await discard(call)
    await discard(call)  # once removed, nothing is left to remove
    assert sent == [[["eval", pw.UNMARK_JS]]]
    kept = fake_call(ProbeState())
    take_install(kept, replace(rows, holds_marks=False), [failed], [])
    assert post_rows(kept) == []  # the check's own batch removed its markers
