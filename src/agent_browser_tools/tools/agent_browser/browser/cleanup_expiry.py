"""Automatic cleanup that ran out of its budget says so, and keeps the browser owned.

At conversation end the wrapper closes its managed browsers within
`AGENT_BROWSER_TOOLS_IMPLICIT_SESSION_CLOSE_TIMEOUT_MS` (`sessions.close_owned`). A close that
expires has not been confirmed: the browser may still run. Journaling it as closed, or
dropping it from the owned set, would leave it to the engine's idle timeout with nobody
responsible. So an expiry is reported (budget, phase, time spent in that phase, on the
server's log) and the session stays owned: in memory for a later `aclose`, and in the journal
(still active) so a resumed conversation owns and closes it.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

from agent_browser_tools.engine.envelope import OutputMode, parse_outcome
from agent_browser_tools.runtime import Runtime
from agent_browser_tools.state.models import SessionKey
from agent_browser_tools.tools.agent_browser.helpers import session_args

logger = logging.getLogger(__name__)

PHASE = "native close"
"""The one cleanup phase the wrapper runs per browser (no policy or daemon inspection step)."""


@dataclass(frozen=True)
class CloseResult:
    """One cleanup close: confirmed by the engine, or expired with what the report needs."""

    key: SessionKey
    confirmed: bool
    expired: bool
    budget_ms: int
    spent_ms: float

    def report(self) -> dict[str, object]:
        return {
            "sessionName": self.key.label,
            "budgetMs": self.budget_ms,
            "phase": PHASE,
            "phaseMs": round(self.spent_ms),
            "ownershipRetained": True,
        }


async def close_within_budget(rt: Runtime, key: SessionKey) -> CloseResult:
    """`close` the session with the cleanup budget as its watchdog."""
    budget = rt.settings.session_close_timeout_ms
    raw = await rt.spawn([*session_args(key), "close"], timeout_ms=budget, session=key)
    confirmed = parse_outcome(raw, OutputMode.JSON).success
    return CloseResult(key, confirmed, raw.timed_out, budget, raw.duration_ms)


def report_expired(result: CloseResult) -> None:
    """Log the expiry: closure unconfirmed, ownership retained (not a caller cancellation)."""
    facts = result.report()
    logger.warning(
        "cleanup of managed browser %s expired after %s ms in phase %r (budget %s ms); "
        "closure is unconfirmed and the session stays owned for recovery; raise "
        "AGENT_BROWSER_TOOLS_IMPLICIT_SESSION_CLOSE_TIMEOUT_MS to give it longer",
        facts["sessionName"],
        facts["phaseMs"],
        PHASE,
        facts["budgetMs"],
    )
