"""Direct tool: did a standalone `click` reach its element, and did the page change at all?

Why: the engine calls a click done once it dispatched the mouse events at the element's
point. An element that moves, re-renders or gets covered between that check and the press
takes nothing, yet the result says success. So just before a direct click the wrapper
installs a short-lived page probe (one helper batch, session-scoped with the session's
daemon settings):

- a MutationObserver counting DOM changes: a click that changed the DOM is an observed
  mutation, so "application change unverified" is said only when nothing was seen;
- for a `button`/`checkbox`/`menuitem`/`radio`/`switch`/`tab` ref whose role and name are
  unique in the saved snapshot and on the live page, or an `xpath=` target with one match, a
  temporary marker attribute on that element, read back with native
  `get attr <selector> <marker>`. Only when the engine resolves the click's own selector to
  the marked element is the target trusted; trusted pointer/mouse/click events reaching it
  are then counted. Unproven identity leaves the click unverified, never failed. A ref the
  identity check reads in the same batch needs no marker of its own: the check's marker on
  the node the engine resolves binds the target (`install_rows`), and the probe holds the
  check's markers until it is collected, so that batch is one `eval` and one read.

The counts are read and the probe removed in the post-click url/title batch (no extra call).
Only mutations after the click's first trusted press count (see `judge` for the rule). A
proven target that received no trusted event fails the click (`clickDispatch`) unless the
page changed after the press. Skipped when confirmation settings could guard `eval`
(`confirm_gate`: a probe must not queue a prompt), on desktop
apps, for batch/QA/`find` clicks and without JSON output. A probe that is never collected
removes itself after the call's timeout budget plus two seconds.
"""

from __future__ import annotations

import json
import secrets
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from agent_browser_tools.engine.envelope import BatchRow, OutputMode
from agent_browser_tools.input_limits import loads_json_text
from agent_browser_tools.last_made import LastMade
from agent_browser_tools.planning.plan import ExecutionPlan
from agent_browser_tools.redaction import redact_argv, redact_text
from agent_browser_tools.results import next_actions as na
from agent_browser_tools.results.categories import FailureCategory
from agent_browser_tools.results.observation import Observation
from agent_browser_tools.state.models import RefInfo
from agent_browser_tools.state.stale_refs import ref_ids
from agent_browser_tools.taxonomy import CommandMatch
from agent_browser_tools.tools.agent_browser.browser.attachment import ELECTRON_TOOL, launch_of
from agent_browser_tools.tools.agent_browser.call import DirectCall, PageBefore
from agent_browser_tools.tools.agent_browser.confirm.confirm_gate import confirmation_gated
from agent_browser_tools.tools.agent_browser.helpers import helper_batch
from agent_browser_tools.tools.agent_browser.named_rows import RiderRows
from agent_browser_tools.tools.agent_browser.refs import page_watch

MARKER = "data-abt-click-probe"
ROLES = frozenset({"button", "checkbox", "menuitem", "radio", "switch", "tab"})
CLEANUP_GRACE_MS = 2_000
XPATH = "xpath="

_INSTALL_JS = """(() => {
const cfg = %s, w = window;
try { if (w.__abtClickProbe) w.__abtClickProbe.stop(); } catch (e) {}
const norm = (s) => (s || "").replace(/\\s+/g, " ").trim();
const css = {button: "button,[role=button],input[type=button],input[type=submit],input[type=reset]",
  checkbox: "input[type=checkbox],[role=checkbox]", radio: "input[type=radio],[role=radio]",
  switch: "[role=switch]", tab: "[role=tab]", menuitem: "[role=menuitem]"};
const text = (id) => { const n = document.getElementById(id); return n ? n.textContent : ""; };
const label = (el) => {
  const by = el.getAttribute("aria-labelledby");
  if (by) return by.split(/\\s+/).map(text).join(" ");
  if (el.getAttribute("aria-label")) return el.getAttribute("aria-label");
  if (el.labels && el.labels.length) return Array.from(el.labels, (l) => l.textContent).join(" ");
  if (el instanceof HTMLInputElement) return el.value || el.title;
  return el.textContent || el.title;
};
let found = [];
const marked = new Map();  // the identity check's candidates (see `page_watch`) -> number
if (cfg.marked) {
  const s = w[cfg.watch];
  for (const el of (s && s.marked) || []) {
    const v = el.getAttribute(cfg.mark) || "";
    if (v.startsWith(cfg.marked + ".")) marked.set(el, v.slice(cfg.marked.length + 1));
  }
}
if (cfg.xpath) {
  const r = document.evaluate(cfg.xpath, document, null, XPathResult.ORDERED_NODE_SNAPSHOT_TYPE);
  for (let i = 0; i < r.snapshotLength; i++) found.push(r.snapshotItem(i));
} else if (cfg.role) {
  found = Array.from(document.querySelectorAll(css[cfg.role])).filter((el) =>
    (!el.getAttribute("role") || el.getAttribute("role") === cfg.role)
    && norm(label(el)) === cfg.name);
}
const target = found.length === 1 && found[0] instanceof Element ? found[0] : null;
if (target) target.setAttribute(cfg.marker, cfg.token);
const probe = {token: cfg.token, events: 0, hits: {}, mutations: 0, quiet: 0, phase: 0};
const ignored = new Set([cfg.marker, cfg.mark]);
const types = ["pointerdown", "mousedown", "pointerup", "mouseup", "click"];
const hover = ["pointerover", "pointermove", "mouseover", "mousemove"];
const count = (records) => {
  for (const r of records) {
    if (ignored.has(r.attributeName)) continue;
    if (probe.phase === 2) probe.mutations++; else if (probe.phase === 0) probe.quiet++;
  }
};
const observer = new MutationObserver(count);
const enter = (phase) => {
  if (probe.phase < phase) { count(observer.takeRecords()); probe.phase = phase; }
};
const hovered = (e) => { if (e.isTrusted) enter(1); };
const seen = (e) => {
  if (!e.isTrusted) return;
  enter(2);
  const path = e.composedPath();
  if (target && path.includes(target)) probe.events++;
  for (const [el, n] of marked) if (path.includes(el)) probe.hits[n] = (probe.hits[n] || 0) + 1;
};
observer.observe(document, {subtree: true, childList: true, attributes: true, characterData: true});
for (const t of types) w.addEventListener(t, seen, true);
for (const t of hover) w.addEventListener(t, hovered, true);
let timer = 0;
probe.stop = () => {
  clearTimeout(timer); count(observer.takeRecords()); observer.disconnect();
  for (const t of types) w.removeEventListener(t, seen, true);
  for (const t of hover) w.removeEventListener(t, hovered, true);
  if (target) target.removeAttribute(cfg.marker);
  for (const [el] of marked) {
    const v = el.getAttribute(cfg.mark) || "";
    if (v.startsWith(cfg.marked + ".")) el.removeAttribute(cfg.mark);
  }
  if (w.__abtClickProbe === probe) delete w.__abtClickProbe;
};
timer = setTimeout(probe.stop, cfg.ttl);
w.__abtClickProbe = probe;
return found.length + marked.size;
})()"""

_COLLECT_JS = """(() => {
const p = window.__abtClickProbe, n = %s;
if (!p || p.token !== %s) return null;
p.stop();
const events = n === null ? p.events : (p.hits[n] || 0);
return JSON.stringify({events, mutations: p.mutations, quiet: p.quiet});
})()"""


@dataclass(frozen=True)
class Target:
    """A click target the probe can prove: how the page finds it, how the engine reads it
    back, and the redacted descriptor a miss reports."""

    locate: dict[str, str]
    selector: str
    descriptor: dict[str, str]


@dataclass(frozen=True)
class Installed:
    token: str
    target: Target | None
    """Set only when the native read-back proved the marked element is the click's target."""
    bound: str | None = None
    """The engine ref whose identity-check marker names the target (`page_watch.Marks`): the
    target is proven by the marker that ref's node carried, read in the same batch."""


@dataclass(frozen=True, kw_only=True)
class InstallRows(RiderRows):
    """The probe's part of the pre-dispatch batch: its page script (the install),
    then the read of its own marker, unless an identity check's marker binds the target. With
    a check in the same batch, the probe also holds the check's markers (they stay through
    the click and go when the probe is collected), so the batch needs no removal row."""

    token: str
    target: Target | None
    bound: str | None


def target_of(match: CommandMatch, refs: Mapping[str, RefInfo]) -> Target | None:
    """The provable target of a click (pure): an `xpath=` selector, or a ref whose eligible
    role and name are unique in the saved snapshot (duplicates pass through unprobed)."""
    operand = match.operands[0] if match.operands else ""
    if operand.startswith(XPATH):
        shown = redact_text(operand)
        return Target(
            {"xpath": operand[len(XPATH) :]}, operand, {"kind": "xpath", "selector": shown}
        )
    ids = ref_ids(match)
    info = refs.get(ids[0]) if len(ids) == 1 else None
    if info is None or info.role not in ROLES or not info.name:
        return None
    if _pairs(refs)[(info.role, info.name)] != 1:
        return None
    return Target(
        {"role": info.role, "name": info.name},
        "@" + (info.engine or ids[0]),
        {
            "kind": "accessible",
            "refId": "@" + ids[0],
            "role": info.role,
            "name": redact_text(info.name),
        },
    )


_PAIRS: LastMade[Counter[tuple[str | None, str | None]]] = LastMade()


def _pairs(refs: Mapping[str, RefInfo]) -> Counter[tuple[str | None, str | None]]:
    """How many refs show each role and name, kept for the last (immutable) table: every
    click until the next snapshot asks, and a table can hold thousands of refs."""
    return _PAIRS.get_or_make((refs,), lambda: Counter((r.role, r.name) for r in refs.values()))


@dataclass
class ProbeState:
    """This call's probe, from its install before the click to its collection after it."""

    installed: bool = False
    probe: Installed | None = None
    seen: dict[str, int] | None = None
    """The counts the collection read (`events`, `mutations`, `quiet`)."""
    marks_left: bool = False
    """The identity check's markers stayed on the page for a probe whose install failed (its
    batch sent no removal): the post-action batch or `discard` removes them."""


def remember_page(call: DirectCall) -> None:
    """Before a direct click: the page it starts on and its recorded refs, for the overlay
    check (same URL; a dialog that was already there)."""
    match, key = call.plan.match, call.key
    if key is None or match is None or not match.spec.click_probes or call.plan.is_batch:
        return
    before = call.part(PageBefore)
    if before.remembered:
        return  # asked by each batch the probe may ride in; the page is the same
    target = call.rt.log.state.session(key).target
    before.remembered = True
    before.url = target.url if target is not None else None
    before.refs = call.ref_table  # the recorded table is never changed in place: no copy


def wanted(call: DirectCall) -> bool:
    """Whether a click gets the dispatch probe (see the module docstring)."""
    plan, key = call.plan, call.key
    if not call.part(PageBefore).remembered or key is None:
        return False
    if plan.output_mode is not OutputMode.JSON:
        return False
    entry = call.rt.log.state.session(key)
    if not entry.active or entry.closed or entry.target_unknown:
        return False
    if confirmation_gated(call):
        return False
    return call.hooks.tool != ELECTRON_TOOL and launch_of(call.rt.log.state, key) is None


def install_rows(call: DirectCall, check: page_watch.Check | None) -> InstallRows | None:
    """The probe's rows for the batch before the click (`pre_dispatch`: the identity check's,
    or one of its own), once per call; None when the click gets no probe. With the identity
    `check` of the same batch (its markers are on the page while the scripts run), a ref
    target is bound by the marker its node carries: no read of its own, and the markers stay
    until the probe is collected or expires."""
    remember_page(call)
    state = call.part(ProbeState)
    if state.installed or not wanted(call) or call.plan.match is None:
        return None
    state.installed = True
    target = target_of(call.plan.match, call.ref_table)
    token = secrets.token_hex(8)
    budget = call.plan.timeout.timeout_ms + call.rt.settings.process_timeout_ms
    cfg: dict[str, Any] = {"marker": MARKER, "token": token, "ttl": budget + CLEANUP_GRACE_MS}
    cfg |= {"mark": page_watch.MARK, "watch": page_watch.KEY}
    bound = _bound_by(target, check)
    if check is not None:
        cfg["marked"] = check.nonce  # the probe holds the check's markers until collected
    if bound is None:
        cfg |= _locate(target)
    scripts = [["eval", _INSTALL_JS % json.dumps(cfg)]]
    reads = [["get", "attr", target.selector, MARKER]] if bound is None and target else []
    return InstallRows(
        scripts=scripts,
        reads=reads,
        holds_marks=check is not None,
        token=token,
        target=target,
        bound=bound,
    )


def _bound_by(target: Target | None, check: page_watch.Check | None) -> str | None:
    """The engine ref of a ref target the identity check also reads, else None."""
    if target is None or check is None or "role" not in target.locate:
        return None
    read = ["get", "attr", target.selector, page_watch.MARK]
    return target.selector[1:] if read in check.reads else None


def take_install(
    call: DirectCall, rows: InstallRows, scripts: Sequence[BatchRow], reads: Sequence[BatchRow]
) -> None:
    """Keep the installed probe (`scripts`/`reads`: what the batch answered for its rows)."""
    state = call.part(ProbeState)
    if not scripts or not scripts[0].success:
        state.marks_left = rows.holds_marks
        return
    if rows.bound is not None:
        state.probe = Installed(rows.token, rows.target, rows.bound)
        return
    proven = rows.target is not None and bool(reads) and _value(reads[0]) == rows.token
    state.probe = Installed(rows.token, rows.target if proven else None)


async def discard(call: DirectCall) -> None:
    """A call refused after its probe was installed: remove the probe now (and with it the
    identity check's markers it holds), not when it expires."""
    row = collect_row(call)
    if row is not None:
        state = call.part(ProbeState)
        state.probe, state.marks_left = None, False
        await helper_batch(call.rt, call.plan, [row])


def will_install(call: DirectCall) -> bool:
    """Whether `install_rows` will give rows the identity check's batch can carry."""
    remember_page(call)
    installed = call.part(ProbeState).installed
    return not installed and wanted(call) and call.plan.match is not None


def _locate(target: Target | None) -> dict[str, str]:
    return dict(target.locate) if target is not None else {}


def _value(row: BatchRow) -> Any:
    return row.result.get("value") if row.success and isinstance(row.result, Mapping) else None


def collect_row(call: DirectCall) -> list[str] | None:
    """The `eval` that reads the counts and removes the probe, for the post-click batch (or
    only the check's markers, when the probe that was to hold them did not install)."""
    state = call.part(ProbeState)
    probe = state.probe
    if probe is None:
        return ["eval", page_watch.UNMARK_JS] if state.marks_left else None
    number = None
    if probe.bound is not None:
        number = _bound_number(call, probe.bound)
        if number is None:  # the engine's node carried none of the check's markers
            state.probe = Installed(probe.token, None, probe.bound)
    return ["eval", _COLLECT_JS % (json.dumps(number), json.dumps(probe.token))]


def _bound_number(call: DirectCall, engine: str) -> str | None:
    """The candidate number the engine's node carried in this call's identity check."""
    marks = call.ref_marks[-1] if call.ref_marks else None
    number = marks.numbers.get(engine) if marks is not None else None
    return str(number) if number is not None else None


def post_rows(call: DirectCall) -> list[list[str]]:
    """The collection row for the post-action batch, if a probe was installed."""
    row = collect_row(call)
    return [row] if row is not None else []


def take(call: DirectCall, rows: Sequence[BatchRow]) -> None:
    """Keep the collected counts (`rows`: the collect row's answer, if it ran)."""
    raw = rows[0].result.get("result") if rows and isinstance(rows[0].result, Mapping) else None
    try:
        seen = loads_json_text(raw) if isinstance(raw, str) else None
    except ValueError:
        return
    if isinstance(seen, dict) and all(
        isinstance(seen.get(k), int) for k in ("events", "mutations")
    ):
        call.part(ProbeState).seen = {k: v for k, v in seen.items() if isinstance(v, int)}


def judge(call: DirectCall, obs: Observation, *, title_changed: bool = False) -> int | None:
    """Judge a probed click; return the DOM mutations that count as evidence of a change
    (None when the probe did not run or was not collected).

    The evidence rule: the probe counts only mutations after the first trusted press event
    (pointer/mouse down/up, click) anywhere in the document, and none at all when the page
    mutated on its own before the pointer even arrived (timers, animations, live feeds):
    there a count says nothing about this click. A proven target that got no trusted event
    fails the click only when nothing changed after the press (no mutation, same title); if
    something did, the app may have acted on it (a re-render under the pointer, a handler
    that stopped the event), so the click stays a success, unverified, with no retry offer
    that could submit twice."""
    state = call.part(ProbeState)
    probe, seen = state.probe, state.seen
    if probe is None or seen is None:
        return None
    after = int(seen["mutations"])
    if obs.success and probe.target is not None and seen["events"] == 0:
        if after or title_changed:
            changed_without_target(call, obs, probe.target, after, title_changed)
        else:
            dispatch_miss(call, obs, probe.target, seen["events"])
    return 0 if seen.get("quiet") else after


def changed_without_target(
    call: DirectCall, obs: Observation, target: Target, mutations: int, title_changed: bool
) -> None:
    """No event reached the marked element, yet the page changed: unverified, not failed."""
    what = target.descriptor.get("refId") or target.descriptor.get("selector")
    obs.extra["clickDispatch"] = {
        "status": "no-target-event-page-changed",
        "reason": "page-changed-without-a-target-dom-event",
        "nativeEventCount": 0,
        "domMutations": mutations,
        "titleChanged": title_changed,
        "target": dict(target.descriptor),
    }
    seen = "the title changed" if title_changed else f"{mutations} DOM mutations followed"
    obs.warnings.append(
        f"Click unverified: no trusted pointer or click event reached {what}, but {seen} "
        "the press. The app may have acted (the element re-rendered under the pointer, or a "
        "handler stopped the event) or something else changed. Check the page before "
        "clicking again: a repeated click could act twice."
    )
    obs.next_actions.append(_inspect(call.plan))


def dispatch_miss(call: DirectCall, obs: Observation, target: Target, events: int) -> None:
    """The contract's `clickDispatch` miss: failed, with inspect and retry next actions."""
    plan = call.plan
    prefix = na.session_prefix(plan.session.key, not plan.session.used_implicit_session)
    what = target.descriptor.get("refId") or target.descriptor.get("selector")
    obs.extra["clickDispatch"] = {
        "status": "no-native-event-observed",
        "reason": "native-click-produced-no-target-dom-event",
        "nativeEventCount": events,
        "target": dict(target.descriptor),
    }
    obs.success, obs.success_category = False, None
    obs.failure_category = FailureCategory.UPSTREAM_ERROR
    obs.error = (
        f"Click dispatch diagnostic: the engine reported the click on {what} as done, but no "
        "trusted pointer or click event reached that element (it may have moved, re-rendered "
        "or been covered). Nothing is known to have happened."
    )
    obs.next_actions += [
        _inspect(plan),
        na.NextAction(
            id="retry-click-after-dispatch-miss",
            reason="Retry the same native click once the element is in place.",
            safety="Do not replace it with a scripted .click(); that proves nothing.",
            params={"args": [*prefix, *redact_argv(plan.checked.command_tokens)]},
        ),
    ]


def _inspect(plan: ExecutionPlan) -> na.NextAction:
    prefix = na.session_prefix(plan.session.key, not plan.session.used_implicit_session)
    return na.NextAction(
        id="inspect-click-dispatch-miss",
        reason="See where the element is now before clicking again.",
        params={"args": [*prefix, "snapshot", "-i"]},
    )
