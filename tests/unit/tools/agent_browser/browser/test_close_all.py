"""`closeAllApplied` only when a close of the whole namespace succeeded (pure)."""

from __future__ import annotations

from agent_browser_tools.results.observation import Observation
from agent_browser_tools.state.models import NamespaceClosed, SessionClosed
from agent_browser_tools.tools.agent_browser.browser import close_all
from tests.support.plans import FORM, managed, page, plan

STATE = managed(page(FORM))


def test_a_failed_direct_close_all_clears_state_but_claims_nothing() -> None:
    call = plan(["close", "--all"], STATE)
    failed = Observation(success=False)
    close_all.mark(call, failed, [NamespaceClosed()])
    assert "closeAllApplied" not in failed.extra
    done = Observation(success=True)
    close_all.mark(call, done, [NamespaceClosed()])
    assert done.extra["closeAllApplied"] is True


def test_a_plain_close_is_not_a_close_all() -> None:
    obs = Observation(success=True)
    close_all.mark(plan(["close"], STATE), obs, [SessionClosed()])
    assert "closeAllApplied" not in obs.extra
