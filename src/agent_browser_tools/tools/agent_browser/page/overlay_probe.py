"""Direct tool, after a click: is a dialog now covering the page?

Why: a click that opens a cookie wall, a newsletter modal or a confirmation dialog stays on
the same URL and reports success; the next click then hits the dialog (the engine refuses it
as covered) or lands on it. So after a standalone `@ref` click whose URL stayed the same
(fragment ignored, query significant) and whose dispatch was not already found missing, and
after any click the engine refused because something covers its target, the wrapper takes
one session-scoped snapshot and reports `overlayBlockers` (`candidates`, `summary`,
`snapshot`) with `inspect-overlay-state` and `try-overlay-blocker-candidate-N`.

The snapshot is a compact full tree (`snapshot -c`), not `snapshot -i`: with this engine the
interactive view leaves dialog containers out, and a dialog role is the only evidence that
counts (see `results.overlays`). It runs through the executor like a caller's snapshot, so its
refs become the session's latest and the candidates' refs are valid as shown. That journaled
snapshot runs only when a first, unjournaled read found a dialog: a click that opened nothing
leaves the session's refs those of the model's own snapshot. A dialog that was already in the
session's recorded snapshot (a persistent cookie banner) is not news: it is attached as
evidence with the recorded refs (`already_there`), no change is claimed and no journaled
snapshot runs. CSS selector clicks that succeeded do not get it (the contract's rule). Cost:
none when the post-click batch's page read (`DIALOG_JS`) finds no dialog element at all;
else one engine call, two when a new dialog is found. The first read's refs are
not recorded directly: recording refs takes the executor's journal entry, engine-to-shown id
mapping, redaction and host hook, which only a journaled run gives.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from agent_browser_tools.engine.envelope import BatchRow, OutputMode
from agent_browser_tools.results import next_actions as na
from agent_browser_tools.results import overlays
from agent_browser_tools.results.observation import Observation
from agent_browser_tools.results.tool_result import ToolResult
from agent_browser_tools.state.models import RefInfo
from agent_browser_tools.state.snapshot_payload import snapshot_payload
from agent_browser_tools.state.stale_refs import normalize_url, ref_ids
from agent_browser_tools.tools.agent_browser.browser.attachment import ELECTRON_TOOL, launch_of
from agent_browser_tools.tools.agent_browser.call import DirectCall, PageBefore
from agent_browser_tools.tools.agent_browser.confirm.confirm_gate import confirmation_gated
from agent_browser_tools.tools.agent_browser.helpers import helper_data
from agent_browser_tools.tools.agent_browser.page import page_change

Nested = Callable[[Mapping[str, Any]], Awaitable[ToolResult]]
COVERED = "is covered by"
READ = ("snapshot", "-c")


@dataclass
class DialogSeen:
    """What the post-click batch's dialog pre-read said (None: it did not run or failed)."""

    seen: bool | None = None


def qualifies(call: DirectCall, obs: Observation) -> bool:
    """A covered-click refusal, or a same-URL `@ref` click with no dispatch miss (pure over
    the call's state)."""
    plan, key = call.plan, call.key
    if not call.part(PageBefore).remembered or key is None:
        return False
    if plan.output_mode is not OutputMode.JSON:
        return False
    if call.hooks.tool == ELECTRON_TOOL or launch_of(call.rt.log.state, key) is not None:
        return False
    if not obs.success:
        return COVERED in (obs.error or "")
    clicked = obs.data.get("clicked") if isinstance(obs.data, Mapping) else None
    if not isinstance(clicked, str) or not clicked.startswith(("@e", "ref=")):
        return False
    if "clickDispatch" in obs.extra or call.warnings:
        return False
    before = call.part(PageBefore).url
    after = (obs.extra.get("navigationSummary") or {}).get("url")
    if not isinstance(before, str) or not isinstance(after, str) or not (before and after):
        return False
    return normalize_url(before) == normalize_url(after)


DIALOG_JS = """(() => {
const SEL = "dialog[open],[role=dialog],[role=alertdialog],[aria-modal=true]";
const seen = (root) => {
  for (const el of root.querySelectorAll(SEL)) {
    if (el.getClientRects().length) return true;
  }
  // The document's live collection walks 10,000 elements in about a millisecond, a static
  // `querySelectorAll("*")` list in four or five (a shadow root has only the latter).
  const all = root.getElementsByTagName
    ? root.getElementsByTagName("*") : root.querySelectorAll("*");
  for (let i = 0; i < all.length; i++) {
    const inner = all[i].shadowRoot;
    if (inner && seen(inner)) return true;
  }
  return false;
};
return seen(document);
})()"""
"""Whether the page shows a dialog at all (open shadow roots included): the snapshot that
names its dismiss controls runs only then, not after every click on a long page."""


def dialog_row(call: DirectCall) -> list[str] | None:
    """The dialog pre-read for the post-click batch (a direct `@ref` click whose page the
    wrapper may probe), else None."""
    match = call.plan.match
    if not call.part(PageBefore).remembered or match is None or not ref_ids(match):
        return None
    return None if confirmation_gated(call) else ["eval", DIALOG_JS]


def post_rows(call: DirectCall) -> list[list[str]]:
    """The dialog pre-read as the post-action batch's rows (none when not wanted)."""
    row = dialog_row(call)
    return [row] if row is not None else []


def take_post(call: DirectCall, rows: Sequence[BatchRow]) -> None:
    """Keep the pre-read's answer from the post-action batch (a failed row says nothing)."""
    if rows:
        take_dialog(call, rows[0].result if rows[0].success else None)


def take_dialog(call: DirectCall, answered: Any) -> None:
    """Keep what the pre-read said (`True`/`False`; nothing when it failed)."""
    seen = answered.get("result") if isinstance(answered, Mapping) else None
    if isinstance(seen, bool):
        call.part(DialogSeen).seen = seen


async def run(call: DirectCall, obs: Observation, nested: Nested) -> None:
    """`overlayBlockers` when a snapshot shows a dialog with dismiss controls."""
    if not qualifies(call, obs):
        return
    if obs.success and call.part(DialogSeen).seen is False:
        return  # the post-click read saw no dialog anywhere: nothing can cover the page
    payload = snapshot_payload(await helper_data(call.rt, call.plan, list(READ)))
    if payload is None or payload.refs is None:
        return
    found = overlays.overlay_blockers(payload.refs, payload.text)
    if found is None:
        return
    plan = call.plan
    prefix = na.session_prefix(plan.session.key, not plan.session.used_implicit_session)
    known = already_there(call.part(PageBefore).refs, payload.refs, payload.text, found)
    if obs.success and known is not None:
        overlays.attach(obs, known, prefix)  # evidence only: this click did not open it
        return
    result = await nested({"args": [*prefix, *READ]})
    fresh = result.details.get("overlayBlockers")
    if result.is_error or not isinstance(fresh, Mapping):
        return
    overlays.attach(obs, {**fresh, "snapshot": result.details.get("refSnapshot")}, prefix)
    page_change.saw_overlay(obs, plan.path[0])


def already_there(
    prior: Mapping[str, RefInfo],
    refs: Mapping[str, Mapping[str, Any]],
    text: str,
    found: Mapping[str, Any],
) -> dict[str, Any] | None:
    """The blockers again, named by the refs of the session's recorded snapshot, when the
    dialog was already in it (pure); None when it may be new.

    Already there: every dialog seen now is named in the recorded snapshot; or, when that
    snapshot shows no dialog at all (the interactive view leaves dialog containers out),
    every dismiss control seen now is in it by role and name. A persistent cookie banner is
    then not news: no change is claimed and the session's refs stay the model's own."""
    by_pair = {
        ((info.role or "").lower(), info.name or ""): ref
        for ref, info in reversed(list(prior.items()))
    }
    if not by_pair:
        return None
    before = overlays.modal_names({r: i._asdict() for r, i in prior.items()})
    if before and not overlays.modal_names(refs, text) <= before:
        return None
    candidates = []
    for candidate in found["candidates"]:
        ref = by_pair.get((candidate["role"], candidate["name"]))
        if ref is None:
            return None
        shown = "@" + ref
        candidates.append({**candidate, "ref": shown, "args": ["click", shown]})
    summary = (
        "A dialog that was already on the page before this click is still there (its "
        "controls are in your last snapshot): "
        + ", ".join(f"{c['ref']} {c['name']!r}" for c in candidates)
        + ". The click did not open it."
    )
    return {"candidates": candidates, "summary": summary, "preexisting": True}
