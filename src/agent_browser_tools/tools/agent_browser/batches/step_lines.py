"""A batch's steps in the words of direct calls: the element each acted on and where it went.

Why: step lines used to be the engine's raw answers (`{"filled": "@e6"}`, `click @e2` for the
model's `check @e2`, which the wrapper sends as one click), and a submit that moved the page
was listed as "dispatched without an observed change". Each step that acted on a ref now
carries `effect` (verb, role, name, ref: the same fields a direct action's
`details.actionEffect` has, without a read-back), and each step whose page move was watched
carries `page` (`batches.step_settle`, or for the last step the call's own settle), so the
lines say "Clicked button "Place order" (@e3) -> page "Order received" - URL".
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from agent_browser_tools.results.action_lines import COMMAND_VERBS
from agent_browser_tools.results.observation import Observation
from agent_browser_tools.taxonomy import resolve_command
from agent_browser_tools.tools.agent_browser.batches import step_settle
from agent_browser_tools.tools.agent_browser.call import DirectCall
from agent_browser_tools.tools.agent_browser.page import settle_scripts

_REF = re.compile(r"^(?:@|ref=)(e\d+)$")


def annotate(call: DirectCall, obs: Observation) -> None:
    """`effect` on each successful ref action, `page` on each watched step that moved the
    page (which then is no dispatch-only step)."""
    steps = obs.extra.get("batchSteps")
    if not call.plan.is_batch or not isinstance(steps, list):
        return
    pages = call.part(step_settle.StepPages).by_step
    for step in steps:
        if not isinstance(step, dict) or not step.get("success"):
            continue
        effect = _effect(call, step)
        if effect is not None:
            step["effect"] = effect
        page = pages.get(step.get("step", 0))
        if page is not None:
            _moved(step, page)


def annotate_last(call: DirectCall, obs: Observation) -> None:
    """The last step's page move, which the call's own settle watched (`nav_settle`)."""
    steps = obs.extra.get("batchSteps")
    last = call.part(step_settle.StepPages).last_step
    if last is None or not isinstance(steps, list) or not steps:
        return
    step, settle = steps[-1], obs.extra.get("navigationSettle")
    summary = obs.extra.get("pageChangeSummary")
    if step.get("step") != last or not step.get("success") or not isinstance(settle, Mapping):
        return
    match = resolve_command([str(t) for t in step.get("command", [])])
    if match is None or not settle_scripts.settles(match.spec):
        return
    page: dict[str, Any] = {**settle}
    if isinstance(summary, Mapping) and summary.get("changeType") == "navigation":
        page.update({k: summary[k] for k in ("url", "title") if summary.get(k)})
    _moved(step, page)


def _moved(step: dict[str, Any], page: Mapping[str, Any]) -> None:
    kept = {k: page[k] for k in ("navigated", "settled", "url", "title", "reason") if k in page}
    step["page"] = kept
    if page.get("navigated") is True:
        step.pop("dispatchOnly", None)


def _effect(call: DirectCall, step: Mapping[str, Any]) -> dict[str, Any] | None:
    """Verb and element of a ref action (role and name from the snapshot the model used)."""
    command = [str(t) for t in step.get("command", [])]
    match = resolve_command(command)
    verb = COMMAND_VERBS.get(match.spec.name) if match is not None else None
    refs = match.ref_values() if match is not None else ()
    spelled = _REF.match(refs[0]) if match is not None and len(refs) == 1 else None
    if verb is None or spelled is None:
        return None  # a selector's answer line already names it (`Filled #email.`)
    ref = spelled.group(1)
    info = call.ref_table.get(ref)
    effect: dict[str, Any] = {"verb": verb, "ref": f"@{ref}"}
    if info is not None and info.role:
        effect["role"] = info.role
    if info is not None and info.name:
        effect["name"] = info.name
    result = step.get("result")
    if verb == "selected" and isinstance(result, Mapping) and result.get("selected"):
        effect["value"] = result["selected"]
    return effect
