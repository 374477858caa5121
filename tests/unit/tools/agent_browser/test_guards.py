"""`guards.refusal`: what is refused before dispatch, with which category and next action."""

from __future__ import annotations

from agent_browser_tools.results.categories import FailureCategory
from agent_browser_tools.results.observation import Observation
from agent_browser_tools.state.models import ConversationState
from agent_browser_tools.tools.agent_browser.batches import segments
from agent_browser_tools.tools.agent_browser.guards import refusal
from tests.support.plans import CLEAN, FORM, managed, named, page, plan

CURRENT = managed(page(FORM, refs_from=FORM)).model_copy(update={"ref_high": 120})
"""On the form page with refs from a snapshot of that page; refs up to @e120 were shown earlier
in the conversation (so @e99 is a ref of another page, not one never issued)."""
FIRST = managed(page(FORM, refs_from=FORM))
"""The same page, and its snapshot is the only one the conversation has shown."""
NO_SNAPSHOT = managed(page(FORM, refs_from=None))
"""On the form page, and no snapshot has shown a ref yet."""
MOVED = managed(page(CLEAN, refs_from=FORM))
"""Now on the clean page, refs still from the older snapshot of the form page."""
UNKNOWN = managed(page(None, refs_from=None, target_unknown=True))
"""The page target is unknown (an unobserved navigation or an interrupted call)."""

REFRESH = {"args": ["snapshot", "-i"]}
VERIFY_STDIN = '[["get", "url"], ["snapshot", "-i"]]'


def _refusal(
    args: list[str], state: ConversationState, *, rows: list[list[str]] | None = None
) -> Observation | None:
    return refusal(plan(args, state, rows=rows), state)


def test_current_refs_are_allowed() -> None:
    assert _refusal(["click", "@e13"], CURRENT) is None


def test_a_ref_whose_page_url_changed_is_left_to_the_identity_re_read() -> None:
    """A URL change may keep the document (pushState): the re-read before dispatch decides."""
    assert _refusal(["click", "@e13"], MOVED) is None


def test_a_refused_ref_gets_the_refresh_action_and_a_reason() -> None:
    obs = _refusal(["click", "@e99"], CURRENT)
    assert obs is not None and not obs.success
    assert obs.failure_category is FailureCategory.STALE_REF
    assert obs.error == (
        "Stale ref blocked before dispatch: @e99 is not a ref of this page's snapshots (it came "
        "from another page, or was never shown). Run `snapshot -i` and use the current refs."
    )
    (action,) = obs.next_actions
    assert action.id == "refresh-interactive-refs"
    assert action.to_dict()["params"] == REFRESH


def test_a_ref_missing_from_the_latest_snapshot_is_refused() -> None:
    obs = _refusal(["click", "@e99"], CURRENT)
    assert obs is not None and obs.failure_category is FailureCategory.STALE_REF
    assert "@e99 is not a ref of this page's snapshots" in (obs.error or "")
    assert obs.extra["staleRef"] == {
        "refs": ["@e99"],
        "step": None,
        "reason": "not-in-latest-snapshot",
    }


def test_the_refresh_action_targets_the_callers_session() -> None:
    """A caller-selected session must be named again, or the refresh reads another browser."""
    state = named("mine", page(CLEAN, refs_from=FORM, ownership="caller"))
    obs = _refusal(["--session", "mine", "click", "@e99"], state)
    assert obs is not None
    assert [a.params for a in obs.next_actions] == [
        {"args": ["--session", "mine", "snapshot", "-i"]}
    ]


def test_a_read_only_getter_on_an_old_ref_is_refused_too() -> None:
    """A read of another element is a wrong answer: reads with refs follow the same rule."""
    obs = _refusal(["get", "text", "@e99"], CURRENT)
    assert obs is not None and obs.failure_category is FailureCategory.STALE_REF
    assert obs.extra["staleRef"]["reason"] == "not-in-latest-snapshot"


def test_a_batch_names_the_first_stale_step() -> None:
    obs = _refusal(["batch"], CURRENT, rows=[["get", "title"], ["click", "@e99"]])
    assert obs is not None and obs.failure_category is FailureCategory.STALE_REF
    assert obs.extra["staleRef"] == {
        "refs": ["@e99"],
        "step": 2,
        "reason": "not-in-latest-snapshot",
    }
    assert (obs.error or "").startswith("Stale ref blocked before dispatch: step 2: @e99")


def test_a_stdin_batch_ref_after_a_page_swapping_step_is_re_read_where_it_runs() -> None:
    """Not refused up front: the batch is split there and @e3 is re-read before its step."""
    rows = [["click", "@e13"], ["fill", "@e3", "Ada"]]
    assert _refusal(["batch"], CURRENT, rows=rows) is None
    entry = CURRENT.session(plan(["batch"], CURRENT, rows=rows).session.key)  # type: ignore[arg-type]
    parts = segments.split(plan(["batch"], CURRENT, rows=rows), entry)
    assert parts is not None
    assert [(p.start, p.verify) for p in parts] == [(0, ()), (1, ("e3",))]


def test_an_args_batch_ref_after_a_page_swapping_step_is_refused() -> None:
    """Args batches run as written (the caller's own row strings): the static latch stays."""
    obs = _refusal(["batch", "--bail", "click @e13", "fill @e3 Ada"], CURRENT)
    assert obs is not None and obs.extra["staleRef"] == {
        "refs": ["@e3"],
        "step": 2,
        "reason": "batch-latch",
    }
    assert "after step 1 (`click`) may have replaced the page" in (obs.error or "")


def test_a_batch_with_a_snapshot_step_before_the_ref_is_allowed() -> None:
    rows = [["click", "@e13"], ["snapshot", "-i"], ["fill", "@e3", "Ada"]]
    assert _refusal(["batch"], CURRENT, rows=rows) is None


def test_an_unknown_page_target_is_refused_as_tab_drift() -> None:
    obs = _refusal(["get", "text", "h1"], UNKNOWN)
    assert obs is not None and not obs.success
    assert obs.failure_category is FailureCategory.TAB_DRIFT
    assert "so this command could act on a page you have not seen" in (obs.error or "")
    assert obs.extra == {"sessionTabTargetUnknown": True}
    (action,) = obs.next_actions
    assert action.id == "verify-page-target"
    assert action.params == {"args": ["batch", "--bail"], "stdin": VERIFY_STDIN}


def test_tab_drift_wins_over_a_stale_ref() -> None:
    """On an unknown page the first fix is to look at the page, not to re-snapshot refs."""
    obs = _refusal(["click", "@e13"], UNKNOWN)
    assert obs is not None and obs.failure_category is FailureCategory.TAB_DRIFT
    assert "staleRef" not in obs.extra


def test_an_unknown_target_in_a_batch_names_the_step() -> None:
    obs = _refusal(["batch"], UNKNOWN, rows=[["tab", "list"], ["get", "text", "h1"]])
    assert obs is not None and obs.failure_category is FailureCategory.TAB_DRIFT
    assert "so step 2 could act" in (obs.error or "")


def test_commands_that_establish_the_target_run_on_an_unknown_page() -> None:
    assert _refusal(["get", "url"], UNKNOWN) is None
    assert _refusal(["open", FORM], UNKNOWN) is None
    assert _refusal(["batch"], UNKNOWN, rows=[["get", "url"], ["snapshot", "-i"]]) is None


def test_help_inspection_is_never_refused() -> None:
    """`--help` prints native text and touches no page, whatever the refs look like."""
    assert _refusal(["click", "@e13", "--help"], MOVED) is None
    assert _refusal(["click", "--help"], UNKNOWN) is None


def test_text_mode_alone_does_not_bypass_the_stale_ref_guard() -> None:
    """`--json false` changes the rendering, not the element the click would hit."""
    obs = _refusal(["--json", "false", "click", "@e99"], CURRENT)
    assert obs is not None and obs.failure_category is FailureCategory.STALE_REF


def test_a_ref_never_issued_in_the_conversation_is_a_validation_error() -> None:
    """Above every id shown so far: a wrong argument, not a stale ref."""
    obs = _refusal(["click", "@e999"], CURRENT)
    assert obs is not None and obs.failure_category is FailureCategory.VALIDATION_ERROR
    assert obs.error == (
        "Nothing ran: @e999 was never issued by a snapshot in this conversation (the highest "
        "ref shown so far is @e120); run `snapshot -i` and use a ref from it."
    )
    assert obs.extra["staleRef"] == {"refs": ["@e999"], "step": None, "reason": "unknown-ref"}
    assert [a.id for a in obs.next_actions] == ["refresh-interactive-refs"]


def test_the_highest_issued_id_is_the_last_one_that_stays_stale() -> None:
    """@e120 was shown (stale on this page), @e121 never was: the boundary is exact."""
    shown = _refusal(["click", "@e120"], CURRENT)
    never = _refusal(["click", "@e121"], CURRENT)
    assert shown is not None and shown.failure_category is FailureCategory.STALE_REF
    assert never is not None and never.extra["staleRef"]["reason"] == "unknown-ref"


def test_without_the_counter_the_sessions_own_snapshot_bounds_what_was_issued() -> None:
    """A state whose counter is 0 (an older journal) still knows the ids its snapshot shows."""
    assert _refusal(["click", "@e13"], FIRST) is None
    obs = _refusal(["click", "@e99"], FIRST)
    assert obs is not None and obs.extra["staleRef"]["reason"] == "unknown-ref"
    assert "highest ref shown so far is @e" in (obs.error or "")


def test_with_no_snapshot_yet_the_model_is_told_to_take_one_first() -> None:
    obs = _refusal(["click", "@e1"], NO_SNAPSHOT)
    assert obs is not None and obs.failure_category is FailureCategory.VALIDATION_ERROR
    assert obs.error == (
        "Nothing ran: @e1 was never issued: no snapshot in this conversation has shown refs "
        "yet. Run `snapshot -i` first and use a ref from it."
    )


def test_a_batch_row_with_a_never_issued_ref_is_named_before_the_latch() -> None:
    rows = [["click", "@e13"], ["fill", "@e999", "Ada"]]
    obs = _refusal(["batch"], CURRENT, rows=rows)
    assert obs is not None and obs.failure_category is FailureCategory.VALIDATION_ERROR
    assert obs.extra["staleRef"] == {"refs": ["@e999"], "step": 2, "reason": "unknown-ref"}
    assert (obs.error or "").startswith("Nothing ran: step 2: @e999 was never issued")


def test_refs_after_an_in_batch_snapshot_are_not_judged_by_the_counter() -> None:
    """Those ids come from a snapshot taken inside the batch: nobody has seen them yet."""
    rows = [["snapshot", "-i"], ["click", "@e999"]]
    assert _refusal(["batch"], CURRENT, rows=rows) is None
