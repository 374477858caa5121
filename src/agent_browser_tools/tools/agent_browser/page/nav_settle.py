"""Direct tool: an action that starts a navigation returns once the new page has settled.

Why: the engine's `click` (and `press Enter`, `tap`, ...) answers as soon as the input events
are dispatched. A form POST whose response is still on its way keeps the old document alive,
so the next `snapshot -i` saw the old page, or a new one still parsing (`0 refs`), right after
our own result said "URL changed". Measured on engine 0.39.4 + Chromium: a form submission's
navigation starts a few ms after the click returns (the planned-navigation task), and while a
navigation is in flight Chromium holds back every renderer command (`eval`, `get title`,
`snapshot`) until the new document commits; `get url` does not wait and still names the old
page.

How, within the one post-action helper batch (`followups.run_probe`), as its first rows:

- a page-side watcher, armed before the action (by the click probe's install batch, and by
  every earlier probe batch on the same document), records what announces a same-tab,
  cross-document navigation: a Navigation API `navigate` event, a `submit` event and a click
  on a link, each only while the page has not cancelled it (`defaultPrevented`; an
  intercepted navigation's `navigatesuccess` or a `navigateerror` ends it);
- `wait --fn` polls (every 100 ms, the engine's cadence) a check that returns at once when the
  armed document is still there and nothing was announced (a same-page click costs one
  evaluation), keeps polling while a navigation is announced on the old document, and on a
  new document waits for `load` plus a short quiet spell without DOM mutations. It always
  ends true by the settle budget (an engine timeout would stop the fail-fast batch), arms a
  fresh watcher on the page it ends on and leaves its outcome there;
- an `eval` reads the outcome back; `get url` and the title script then name the settled
  page.

The check is first evaluated once, as one more page script of that batch (`rows(quick=True)`):
when the page is settled then (a click that started no navigation, nearly every one), its
outcome comes back with the other reads and no wait runs; otherwise (`pending`) the batch is
sent again led by the polling wait. So a same-page action pays no extra batch row for it.

A probe batch after an action that cannot navigate carries only the arming row. A document
the watcher never saw (opened by `open`, no probe since) is the action's new page when its
navigation started after the action did (`performance.timeOrigin`); an older one ends the
wait at once, except that a click or an Enter/Space press gets one more poll to start the
navigation it may have caused.

The budget is `[tools] settle_ms` / `AGENT_BROWSER_TOOLS_SETTLE_MS` (0 turns all of this off).
Its deadline and the action's start are wall-clock times shared with the page (`Date.now()`,
`performance.timeOrigin`): the managed browser runs on this machine. A navigation that has
not committed holds the check itself (Chromium, above), so the wait can outlast the budget by
the server's answer time, which any next command would wait for too.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from agent_browser_tools.engine.envelope import BatchRow
from agent_browser_tools.results.observation import Observation
from agent_browser_tools.tools.agent_browser.batches import step_settle
from agent_browser_tools.tools.agent_browser.call import DirectCall
from agent_browser_tools.tools.agent_browser.page import settle_scripts
from agent_browser_tools.tools.agent_browser.page.settle_scripts import (
    ARM_JS,
    HOLD_COMMANDS,
    HOLD_KEYS,
    OUTCOME_JS,
    PENDING,
    QUICK_JS,
)


@dataclass
class SettleState:
    """This call's settle wait: when the action started (`since`), when the wait began
    (`start`, kept by a second batch), which form it took and what it saw."""

    since: int | None = None
    start: int | None = None
    quick: bool = False
    waiting: bool = False
    outcome: dict[str, Any] | None = None


def before(call: DirectCall) -> None:
    """Just before the action is dispatched: when it started, so the check can tell a
    document the action made from one that was there before it."""
    call.part(SettleState).since = int(time.time() * 1000)


def budget_ms(call: DirectCall) -> int:
    """The settle budget (`Settings.settle_ms`); 0: settling is off."""
    return call.rt.settings.settle_ms


def arm_rows(call: DirectCall) -> list[list[str]]:
    """The row that arms the watcher, for a helper batch that runs before an action (the
    click probe's install); none when settling is off."""
    return [["eval", ARM_JS]] if budget_ms(call) > 0 else []


def rows(call: DirectCall, obs: Observation, *, quick: bool = False) -> list[list[str]]:
    """The rows that lead the probe batch: the settle wait and its outcome after an action
    that may have navigated (`quick`: one evaluation of the check, see `QUICK_JS`), else only
    the arming row (so a later `press Enter` finds the watcher armed); none when settling is
    off or not allowed here."""
    if not _allowed(call):
        return []
    if not (obs.success and _may_navigate(call)):
        return arm_rows(call)
    check, timeout = _check(call)
    call.part(SettleState).quick = quick
    if quick:
        return [["eval", QUICK_JS % (check, OUTCOME_JS, PENDING)]]
    return [["wait", "--fn", check, "--timeout", timeout], ["eval", OUTCOME_JS]]


def _check(call: DirectCall) -> tuple[str, str]:
    """The page check for this action and the engine's own timeout for a wait on it."""
    budget = budget_ms(call)
    state = call.part(SettleState)
    if state.start is None:  # a second batch keeps the first one's start
        state.start = int(time.time() * 1000)
    start = state.start
    since = state.since if state.since is not None else start
    state.waiting = True
    return settle_scripts.wait_check(start, since, budget, hold=_holds(call))


def _allowed(call: DirectCall) -> bool:
    return budget_ms(call) > 0 and settle_scripts.allowed(call)


def _may_navigate(call: DirectCall) -> bool:
    """The taxonomy's may-navigate and history commands (and batches that reached one: a
    batch run step by step settled its earlier steps as it went, `step_settle`, so only its
    last step is left to settle here)."""
    plan = call.plan
    if plan.is_batch:
        matches = [m for m in plan.row_matches or () if m is not None]
        if call.part(step_settle.StepPages).last_step is not None:
            matches = matches[-1:]
        return any(settle_scripts.settles(m.spec) for m in matches)
    return plan.match is not None and settle_scripts.settles(plan.match.spec)


def _holds(call: DirectCall) -> bool:
    """A click, or a key that submits or activates (`HOLD_MS`)."""
    match = call.plan.match
    if match is None or call.plan.is_batch:
        return False
    if match.spec.name == "press":
        key = match.operands[0] if match.operands else ""
        return any(part in key for part in HOLD_KEYS)
    return match.spec.name in HOLD_COMMANDS


def pending(call: DirectCall, answered: Sequence[BatchRow]) -> bool:
    """Whether the quick check found the page not settled yet (or could not run): the wait
    must poll in a batch of its own."""
    state = call.part(SettleState)
    if not state.waiting or not state.quick:
        return False
    first = answered[0] if answered else None
    result = first.result if first is not None and first.success else None
    return not isinstance(result, Mapping) or result.get("result") in (PENDING, None)


def take(call: DirectCall, answered: Sequence[BatchRow]) -> bool:
    """Keep the outcome the settle rows left (`answered`: the batch's rows from the first);
    False when the wait itself failed, so the rows after it never ran."""
    state = call.part(SettleState)
    if not state.waiting:
        return True
    if not answered or not answered[0].success:
        state.outcome = {"settled": False, "reason": "wait-failed"}
        return False
    told = answered[0] if state.quick else answered[1] if len(answered) > 1 else None
    second = told.result if told is not None else None
    seen = settle_scripts.outcome_of(second.get("result") if isinstance(second, Mapping) else None)
    unread = {"settled": True, "reason": "outcome-unread"}
    state.outcome = settle_scripts.outcome(seen) if seen is not None else unread
    return True


def report(call: DirectCall, obs: Observation) -> None:
    """`details.navigationSettle`, and a warning only when the wait stopped before the page
    settled."""
    outcome = call.part(SettleState).outcome
    if outcome is None:
        return
    settle = {**outcome, "budgetMs": budget_ms(call)}
    obs.extra["navigationSettle"] = settle
    if outcome.get("reason") == "wait-failed":
        obs.warnings.append("Could not confirm the page settled; snapshot again before acting.")
    elif outcome.get("settled") is False:
        waited = outcome.get("waitedMs", settle["budgetMs"])
        obs.warnings.append(f"Page still loading after {waited} ms; snapshot again before acting.")
