"""Hard widgets: when an element action did not take, the way out that works, run by the tool.

Why here and not as next actions alone: the way that works depends on what only the page knows
(a slider's step, whether a list shows the option, which calendar cell is the day), and a model
that follows a literal next action cannot adapt it. So after the engine's own `fill`/`select`
and its read-back (`action_readback.judge`), `settle` runs one driver (`drivers`) when the
element is a hard widget and the read-back says the value is not there (or, for comboboxes and
date pickers, not committed):

| widget (snapshot role, what was read)          | way out                                  |
|------------------------------------------------|------------------------------------------|
| `slider` (range input, ARIA slider), a number  | focus, Home/End, arrows; `aria-valuenow` |
| editor (contenteditable text that kept old)    | focus, select-all, `keyboard inserttext` |
| `combobox` (autocomplete, select2-like)        | open, type, click the option so named    |
| text field given a date, with a calendar       | open, month controls, click the day      |

Each sets exactly the asked value; a driver that cannot reach it fails the call with what the
widget holds and next actions that work when followed literally (`readback_failure.stopped`).
Credential fields are left alone (their values are never typed by the tool).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from agent_browser_tools.redaction import redact_text
from agent_browser_tools.results.observation import Observation
from agent_browser_tools.state.effects import Probe
from agent_browser_tools.tools.agent_browser.call import DirectCall
from agent_browser_tools.tools.agent_browser.confirm.confirm_gate import confirmation_gated
from agent_browser_tools.tools.agent_browser.effects import action_readback
from agent_browser_tools.tools.agent_browser.effects.effect_verdict import Asked
from agent_browser_tools.tools.agent_browser.widgets import drivers
from agent_browser_tools.tools.agent_browser.widgets.calendar_date import asked_day
from agent_browser_tools.tools.agent_browser.widgets.outcome import Outcome, Reached, Stopped
from agent_browser_tools.tools.agent_browser.widgets.slider_keys import number

__all__ = ["Outcome", "Reached", "Stopped", "settle"]


async def settle(call: DirectCall, obs: Observation) -> Probe | None:
    """Run the widget's way out after a judged element action; record what it reached.

    A way out that clicked (an option, a calendar's controls or day) may have moved the page:
    the page's url and title are read once more and returned, so the caller records and
    reports where the page is now (None: nothing clicked, or the read failed)."""
    target = action_readback.asked(call.plan, call.ref_table)
    effect = obs.extra.get("actionEffect")
    if target is None or target.ref is None or not obs.success or not isinstance(effect, dict):
        return None
    if effect.get("valueHidden") or confirmation_gated(call):
        return None  # credentials are never typed by the tool; gated pages get no extra actions
    clicks: list[bool] = []
    read = call.part(action_readback.ReadbackState).read
    outcome = await _way_out(call, target, effect, read, clicks)
    _record(call, obs, target, effect, outcome)
    return await drivers.page_now(call) if clicks else None


def _record(
    call: DirectCall,
    obs: Observation,
    target: Asked,
    effect: dict[str, Any],
    outcome: Outcome | None,
) -> None:
    if isinstance(outcome, Reached):
        effect.update(value=redact_text(outcome.value), verified=True, how=outcome.how)
        call.part(action_readback.ReadbackState).failed = None
    elif isinstance(outcome, Stopped) and outcome.advice:
        obs.warnings.append(outcome.error)
        obs.next_actions += outcome.actions
    elif isinstance(outcome, Stopped):
        effect["verified"] = False
        state = call.part(action_readback.ReadbackState)
        state.stopped = (target, outcome.error, outcome.actions)


async def _way_out(
    call: DirectCall,
    target: Asked,
    effect: Mapping[str, Any],
    read: Mapping[str, Any],
    clicks: list[bool],
) -> Outcome | None:
    """The widget's driver, if any; `clicks` gets an entry when the driver may have clicked."""
    verified, prefix = effect.get("verified"), action_readback.retry_prefix(call)
    if target.role == "slider" and target.command == "fill" and verified is not True:
        want = number(target.text)
        return None if want is None else await drivers.slider(call, target.operand, want, prefix)
    if target.role == "combobox" and target.command in ("fill", "select"):
        picked = await _combobox(call, target, verified, read, prefix)
        clicks += [True] if picked is not None else []
        return picked
    if target.command != "fill" or not target.text or read.get("date") is not None:
        return None
    day = asked_day(target.text)
    if day is not None and target.role in (None, "textbox", "combobox", "generic"):
        # Text that took needs a calendar only when one is showing (typed, not yet chosen).
        took = verified is True
        picked = await drivers.calendar(call, target.operand, day, opened=took)
        clicks += [True] if picked is not None or not took else []
        if picked is not None and not (took and isinstance(picked, Stopped)):
            return picked
    if verified is False and read.get("text") and not read.get("value"):
        return await drivers.editor(call, target.operand, target.text)
    return None


async def _combobox(
    call: DirectCall,
    target: Asked,
    verified: object,
    read: Mapping[str, Any],
    prefix: list[str],
) -> Outcome | None:
    """A native select that took needs nothing; otherwise pick the option by its name (a
    typed combobox already shows its list; one that holds no typed text is opened first)."""
    if target.command == "select":
        native = "<option" in str(read.get("html") or "").lower()
        if verified is True or native or len(target.options) != 1:
            return None  # a native select the page refused is not for the tool to force
        name, took = target.options[0], False
    else:
        name, took = target.text or "", bool(read.get("value"))
    if not name.strip():
        return None
    return await drivers.combobox(call, target.operand, name, took=took, prefix=prefix)
