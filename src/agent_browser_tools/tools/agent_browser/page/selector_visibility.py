"""`selectorTextVisibility`: `get text` on a CSS selector whose first match is hidden.

Why: the engine reads the FIRST element a selector matches, visible or not. On tabbed or
collapsed pages a broad selector (`.panel`, `div`) returns a hidden tab's text, which an agent
then reports as what the page shows. One read-only helper `eval` counts the matches and their
visibility; when the first is hidden the result says so and offers the
`inspect-visible-text-candidates` read. Refs (`@eN`) are exact elements and are not probed;
nor is a session under a confirmation policy (a page `eval` could raise its own pending
confirmation next to the model's).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from agent_browser_tools.engine.envelope import OutputMode
from agent_browser_tools.results import next_actions as na
from agent_browser_tools.results.observation import Observation
from agent_browser_tools.taxonomy import Diagnostic
from agent_browser_tools.tools.agent_browser.call import DirectCall
from agent_browser_tools.tools.agent_browser.confirm.confirm_gate import confirmation_gated
from agent_browser_tools.tools.agent_browser.helpers import helper_data

MAX_CANDIDATES = 10
_VISIBLE = (
    "const visible = (el) => { const s = getComputedStyle(el); "
    "return s.display !== 'none' && s.visibility !== 'hidden' && el.getClientRects().length > 0; };"
)


def probe_script(selector: str) -> str:
    """Counts of matches and visible matches; null when the selector is not CSS."""
    return (
        f"(() => {{ {_VISIBLE} let nodes; "
        f"try {{ nodes = Array.from(document.querySelectorAll({json.dumps(selector)})); }} "
        "catch (e) { return null; } "
        "const shown = nodes.map(visible); "
        "return { matchCount: nodes.length, visibleCount: shown.filter(Boolean).length, "
        "firstMatchVisible: nodes.length ? shown[0] : null }; })()"
    )


def candidates_script(selector: str) -> str:
    """The visible matches' text (bounded): the read the `inspect-...` action runs."""
    return (
        f"(() => {{ {_VISIBLE} "
        f"return Array.from(document.querySelectorAll({json.dumps(selector)}))"
        f".filter(visible).slice(0, {MAX_CANDIDATES})"
        ".map((el, index) => ({ index, tag: el.tagName.toLowerCase(), id: el.id || null, "
        "text: (el.innerText || '').trim().slice(0, 200) })); })()"
    )


def _selector(call: DirectCall) -> str | None:
    plan, match = call.plan, call.plan.match
    if plan.is_batch or match is None or match.spec.diagnostic is not Diagnostic.SELECTOR_TEXT:
        return None
    if plan.output_mode is not OutputMode.JSON or not match.operands:
        return None
    selector = match.operands[0]
    return None if selector.startswith(("@", "ref=")) else selector


async def check(call: DirectCall, obs: Observation, prefix: Sequence[str]) -> None:
    """Probe a successful `get text <css>`; annotate when its first match is hidden."""
    selector = _selector(call)
    if selector is None or not obs.success or call.key is None:
        return
    if confirmation_gated(call):
        return
    data = await helper_data(call.rt, call.plan, ["eval", "--stdin"], stdin=probe_script(selector))
    counts = data.get("result") if isinstance(data, Mapping) else None
    if not isinstance(counts, Mapping) or counts.get("firstMatchVisible") is not False:
        return
    annotate(obs, selector, counts, prefix)


def annotate(
    obs: Observation, selector: str, counts: Mapping[str, Any], prefix: Sequence[str]
) -> None:
    """`selectorTextVisibility`, its warning and the candidates action (pure)."""
    total, shown = counts.get("matchCount"), counts.get("visibleCount")
    summary = (
        f"get text read the first of {total} element(s) matching {selector!r}, and that "
        f"element is hidden; {shown} match(es) are visible. The text may be hidden tab or "
        "collapsed content, not what the page shows."
    )
    obs.extra["selectorTextVisibility"] = {
        "selector": selector,
        "matchCount": total,
        "visibleCount": shown,
        "firstMatchVisible": False,
        "summary": summary,
    }
    obs.warnings.append(summary + " Prefer a visible @ref or a more specific selector.")
    obs.next_actions.append(
        na.NextAction(
            id="inspect-visible-text-candidates",
            reason="List the visible elements this selector matches, with their text.",
            params={"args": [*prefix, "eval", "--stdin"], "stdin": candidates_script(selector)},
        )
    )
