"""The settle watcher's page scripts: arm, check and read back (shared, no call state).

`page.nav_settle` runs them around a direct action, `batches.step_settle` around each batch
step that may navigate; the module docstring of `nav_settle` says what they do and why.
"""

from __future__ import annotations

import json
import secrets
from collections.abc import Mapping
from typing import Any

from agent_browser_tools.input_limits import loads_json_text
from agent_browser_tools.taxonomy import CommandSpec, PageEffect
from agent_browser_tools.tools.agent_browser.call import DirectCall
from agent_browser_tools.tools.agent_browser.confirm.confirm_gate import confirmation_gated

QUIET_MS = 150
"""DOM quiet spell a new document must show after `load` (apps that render after load)."""
SKEW_MS = 200
"""A document whose navigation started after the action did (less this much clock slack
between our wall clock and the browser's `performance.timeOrigin`) is the action's new page,
unless it had finished loading before the action started: its `load` end, measured back from
now on the page's own monotonic clock (so without that slack), is older than the action. Why:
a click on an in-page `#anchor` right after a load keeps a document that passed the skew test,
and on a page that never stops changing its DOM the wait for quiet ran to the budget."""
HOLD_MS = 100
"""On an older unarmed document, how long a click or an Enter/Space press is given to start
the navigation it may have caused (a form submission starts a few ms after the key)."""
HOLD_KEYS = ("Enter", "Space", " ")
HOLD_COMMANDS = frozenset({"click", "dblclick", "tap", "find"})
BACKSTOP_MS = 3_000
"""Engine-side `wait --timeout` beyond the page-side deadline: only a browser clock far
behind ours reaches it (the batch then stops there and the probe is read again)."""

_ARM = """const abtArm = (prior) => {
const w = window, nav = w.navigation, hits = [];
if (prior && prior.stop) prior.stop();
const base = () => { const b = document.querySelector("base[target]"); return b ? b.target : ""; };
const selfish = (t) => ["", "_self", "_top", "_parent"].includes((t || "").toLowerCase());
const bare = (u) => u.split("#")[0];
const onSubmit = (e) => {
  const f = e.target, b = e.submitter;
  const method = (b && b.getAttribute("formmethod")) || f.getAttribute("method") || "get";
  const target = (b && b.getAttribute("formtarget")) || f.getAttribute("target") || base();
  if (method.toLowerCase() !== "dialog" && selfish(target)) hits.push({kind: "submit", e});
};
const onClick = (e) => {
  if (e.button !== 0 || e.ctrlKey || e.metaKey || e.shiftKey || e.altKey) return;
  const a = e.composedPath().find((n) => n instanceof Element && n.matches("a[href],area[href]"));
  if (!a || a.hasAttribute("download") || !selfish(a.getAttribute("target") || base())) return;
  let u; try { u = new URL(a.href, location.href); } catch (x) { return; }
  if (!/^(https?|file):$/.test(u.protocol)) return;
  if (u.hash && bare(u.href) === bare(location.href)) return;
  hits.push({kind: "link", e});
};
const onNavigate = (e) => {
  const d = e.destination;
  if (!e.hashChange && !(d && d.sameDocument) && !e.downloadRequest) hits.push({kind: "navigate"});
};
const onEnd = () => { for (const h of hits) h.done = true; };
const s = {stale: false, outcome: null};
const onHide = () => { s.stale = true; };
const onShow = (e) => { if (e.persisted) s.restored = true; };
s.pending = () => hits.some((h) => !h.done && !(h.e && h.e.defaultPrevented));
s.stop = () => {
  w.removeEventListener("submit", onSubmit, true);
  w.removeEventListener("click", onClick, true);
  w.removeEventListener("pagehide", onHide, true);
  w.removeEventListener("pageshow", onShow, true);
  if (nav) {
    nav.removeEventListener("navigate", onNavigate);
    nav.removeEventListener("navigatesuccess", onEnd);
    nav.removeEventListener("navigateerror", onEnd);
  }
};
w.addEventListener("submit", onSubmit, true);
w.addEventListener("click", onClick, true);
w.addEventListener("pagehide", onHide, true);
w.addEventListener("pageshow", onShow, true);
if (nav) {
  nav.addEventListener("navigate", onNavigate);
  nav.addEventListener("navigatesuccess", onEnd);
  nav.addEventListener("navigateerror", onEnd);
}
w.__abtSettle = s;
return s;
};"""

ARM_JS = "(() => {\n" + _ARM + "\nabtArm(window.__abtSettle);\nreturn true;\n})()"
"""Arm the watcher on the current document (a row of the click probe's install batch)."""

_CHECK = """(() => {
const cfg = %s, w = window, s = w.__abtSettle, now = Date.now();
const late = now >= cfg.deadline;
if (s && s.by === cfg.token) return true;
%s
const done = (out) => {
  const q = w.__abtSettleQuiet;
  if (q) { q.observer.disconnect(); delete w.__abtSettleQuiet; }
  const next = abtArm(s);
  next.by = cfg.token;
  next.outcome = {...out, waitedMs: Math.max(0, now - cfg.start), readyState: document.readyState};
  return true;
};
if (s && !s.stale) {
  if (!s.pending()) return done({navigated: false, settled: true, reason: "no-navigation"});
  return late ? done({navigated: true, settled: false, reason: "not-committed"}) : false;
}
if (s && s.restored && document.readyState === "complete") {
  return done({navigated: true, settled: true, reason: "restored"});
}
let q = w.__abtSettleQuiet;
if (!q) {
  const entry = performance.getEntriesByType("navigation")[0];
  const loaded = entry && entry.loadEventEnd > 0
    ? Date.now() - (performance.now() - entry.loadEventEnd) : null;
  const young = performance.timeOrigin >= cfg.since - cfg.skew
    && !(loaded !== null && loaded < cfg.since);
  q = {first: performance.now(), last: performance.now(), young};
  q.observer = new MutationObserver(() => { q.last = performance.now(); });
  q.observer.observe(document, {subtree: true, childList: true, attributes: true,
    characterData: true});
  w.__abtSettleQuiet = q;
}
const complete = document.readyState === "complete";
const calm = performance.now() - q.last >= cfg.quiet;
const held = !q.young && !late && performance.now() - q.first < cfg.hold;
if (complete && (calm || !q.young) && !held) {
  return done({navigated: q.young, settled: true, reason: q.young ? "loaded" : "no-navigation"});
}
const grace = complete && performance.now() - q.first < cfg.quiet + 150;
if (!late || grace) return false;
return done({navigated: q.young, settled: false, reason: complete ? "dom-busy" : "loading"});
})()"""

OUTCOME_JS = "JSON.stringify((window.__abtSettle && window.__abtSettle.outcome) || null)"

PENDING = '{"pending": true}'
QUICK_JS = "(() => {\nconst settled = %s;\nreturn settled === true ? %s : '%s';\n})()"
"""The check once, as a page script beside the probe batch's others: its outcome when the
page is settled now (nearly every action), else `PENDING` (the wait runs in a second batch)."""


def wait_check(
    start: int, since: int, budget: int, *, hold: bool, skew: int = SKEW_MS
) -> tuple[str, str]:
    """The polling check for `wait --fn` (it arms a fresh watcher on the page it ends on) and
    the engine's own timeout for that wait: the wait began at `start`, the action at `since`
    (wall-clock ms), `budget` is the settle budget, `hold` gives a click or key `HOLD_MS`."""
    cfg = {
        "token": secrets.token_hex(6),
        "start": start,
        "deadline": start + budget,
        "quiet": QUIET_MS,
        "since": since,
        "skew": skew,
        "hold": HOLD_MS if hold else 0,
    }
    return _CHECK % (json.dumps(cfg), _ARM), str(budget + BACKSTOP_MS)


def outcome_of(raw: object) -> dict[str, Any] | None:
    """The watcher's outcome from an outcome read's `result` (a JSON string); None when it
    cannot be read."""
    try:
        seen = loads_json_text(raw) if isinstance(raw, str) else None
    except ValueError:
        return None
    return seen if isinstance(seen, dict) else None


SETTLING_EFFECTS = frozenset({PageEffect.MAY_NAVIGATE, PageEffect.HISTORY})


def settles(spec: CommandSpec) -> bool:
    """The taxonomy's may-navigate and history commands: the page may be another after them."""
    return spec.page_effect in SETTLING_EFFECTS or spec.navigation_summary


def allowed(call: DirectCall) -> bool:
    """A session and no engine confirmation policy that could turn the page script into a
    prompt of its own (`confirm_gate`); the budget is the caller's to check."""
    return call.key is not None and not confirmation_gated(call)


def outcome(seen: Mapping[str, Any]) -> dict[str, Any]:
    """The watcher's outcome as the page left it, with only the fields we trust the type of."""
    out: dict[str, Any] = {
        "navigated": seen.get("navigated") is True,
        "settled": seen.get("settled") is not False,
        "reason": str(seen.get("reason") or "unknown"),
    }
    waited = seen.get("waitedMs")
    if isinstance(waited, int | float):
        out["waitedMs"] = int(waited)
    if isinstance(seen.get("readyState"), str):
        out["readyState"] = seen["readyState"]
    return out
