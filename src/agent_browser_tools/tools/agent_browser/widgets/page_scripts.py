"""The page scripts the widget ways out run (pure strings; each answers one JSON text).

Why scripts at all: a slider's range and step, whether a combobox's list shows the asked option,
and which calendar cell stands for a date live only in the page. Each script reads; the only
thing one writes is a one-call mark (`data-abt-widget-pick` holding a fresh random nonce, so a
page cannot plant a look-alike in advance) on the element the engine's own click then presses,
so every press is a real one. `UNMARK_JS` removes the mark.

The page's labels are untrusted: a calendar cell counts only when its whole label is a date
(V8's `Date.parse` also reads "Delete entry from March 15, 2027" as one), and options are
looked for in the list the focused combobox controls (`aria-controls`/`aria-owns`) when it
names one.
"""

from __future__ import annotations

import json
import secrets

MARK = "data-abt-widget-pick"


def new_nonce() -> str:
    """The mark's value for one way out."""
    return secrets.token_hex(8)


def marked(nonce: str) -> str:
    """The selector the engine clicks: the element the script just marked with `nonce`."""
    return f'[{MARK}="{nonce}"]'


_FOCUSED = """let e = document.activeElement;
while (e && e.shadowRoot && e.shadowRoot.activeElement) e = e.shadowRoot.activeElement;"""

SLIDER_JS = f"""(() => {{
{_FOCUSED}
const range = e instanceof HTMLInputElement && e.type === "range";
if (!e || !(range || e.getAttribute("role") === "slider")) return null;
const a = (n) => e.getAttribute(n);
return JSON.stringify(range
  ? {{native: true, now: e.value, min: e.min || "0", max: e.max || "100", step: e.step || "1"}}
  : {{native: false, now: a("aria-valuenow"), min: a("aria-valuemin"), max: a("aria-valuemax"),
      step: null}});
}})()"""
"""The focused slider (the way out focuses it first): its value, range and, for a native range
input, its step (an ARIA slider has no step attribute: the way out measures one key press)."""

_VISIBLE = """const shown = (el) => {
  const r = el.getBoundingClientRect();
  const s = getComputedStyle(el);
  return r.width > 0 && r.height > 0 && s.visibility !== "hidden" && s.display !== "none";
};
const norm = (t) => (t || "").replace(/\\s+/g, " ").trim();"""

_PICK = """(async (want, mark, nonce, wait, quiet) => {
%s
document.querySelectorAll("[" + mark + "]").forEach((el) => el.removeAttribute(mark));
const deadline = Date.now() + wait;
const lists = () => {
  %s
  const ids = ((e && (e.getAttribute("aria-controls") || e.getAttribute("aria-owns"))) || "")
    .split(/\\s+/).filter(Boolean);
  const own = ids.map((id) => document.getElementById(id)).filter(Boolean);
  return own.length ? own : [document];
};
let names = [];
let last = null;
let since = Date.now();
for (;;) {
  const options = lists().flatMap((box) => [...box.querySelectorAll('[role="option"]')])
    .filter((o) => shown(o) && o.getAttribute("aria-disabled") !== "true");
  names = options.map((o) => norm(o.getAttribute("aria-label") || o.textContent));
  let hit = options.filter((o, i) => names[i] === want);
  if (!hit.length) hit = options.filter((o, i) => names[i].toLowerCase() === want.toLowerCase());
  if (hit.length === 1) {
    hit[0].setAttribute(mark, nonce);
    return JSON.stringify({picked: names[options.indexOf(hit[0])], names: names.slice(0, 12)});
  }
  if (Date.now() > deadline) break;
  if (!options.length && Date.now() > deadline - wait + quiet) break;
  const seen = names.join("\\n");
  if (seen !== last) [last, since] = [seen, Date.now()];
  else if (options.length && Date.now() - since > quiet) break;
  await new Promise((r) => setTimeout(r, 50));
}
return JSON.stringify({picked: null, names: names.slice(0, 12)});
})(%s, %s, %s, %s, %s)"""


def pick_option_js(name: str, nonce: str, wait_ms: int, quiet_ms: int) -> str:
    """Wait up to `wait_ms` for exactly one visible option named `name` (exact, then ignoring
    case) and mark it; answer its name and the names shown (`picked` null when none or several
    match). With no option showing at all after `quiet_ms`, stop early: no list comes."""
    args = (json.dumps(name), json.dumps(MARK), json.dumps(nonce), int(wait_ms), int(quiet_ms))
    return _PICK % (_VISIBLE, _FOCUSED, *args)


_DATE_WORDS = (
    "jan(uary)?",
    "feb(ruary)?",
    "mar(ch)?",
    "apr(il)?",
    "may",
    "june?",
    "july?",
    "aug(ust)?",
    "sept?(ember)?",
    "oct(ober)?",
    "nov(ember)?",
    "dec(ember)?",
    "mon(day)?",
    "tue(s(day)?)?",
    "wed(nesday)?",
    "thu(r(s(day)?)?)?",
    "fri(day)?",
    "sat(urday)?",
    "sun(day)?",
)
"""English month and weekday names: with the day's digits and separators, all a label may hold."""

_CALENDAR = """((want, mark, nonce) => {
%s
document.querySelectorAll("[" + mark + "]").forEach((el) => el.removeAttribute(mark));
const dateWords = new RegExp(%s, "gi");
const dateOnly = (t) => t.replace(/(\\d)(st|nd|rd|th)/gi, "$1").replace(dateWords, "")
  .replace(/[\\d\\s,./-]/g, "") === "";
const day = (t) => {
  if (!t || t.length > 40 || !dateOnly(t)) return null;
  const iso = /^\\s*(\\d{4})-(\\d{2})-(\\d{2})\\s*$/.exec(t);
  if (iso) return Number(iso[1]) * 10000 + Number(iso[2]) * 100 + Number(iso[3]);
  const ms = Date.parse(t);
  if (Number.isNaN(ms) || !/\\b\\d{4}\\b/.test(t)) return null;
  const d = new Date(ms);
  return d.getFullYear() * 10000 + (d.getMonth() + 1) * 100 + d.getDate();
};
const label = (el) => el.getAttribute("aria-label") || el.getAttribute("title") || "";
const away = (el) => el.closest("a[href]") &&
  !/^(#|javascript:)/i.test(el.closest("a[href]").getAttribute("href"));
const dated = [...document.querySelectorAll("[aria-label], [title]")]
  .filter((el) => shown(el) && !away(el) && day(label(el)) !== null);
// A calendar is one box of at least a month of day cells (not the page body), next to the
// field when the field has focus: dated elements scattered over a page are not one.
const boxOf = (el) => {
  for (let b = el.parentElement; b && b !== document.body; b = b.parentElement) {
    if (dated.filter((c) => b.contains(c)).length >= 28) return b;
  }
  return null;
};
%s
const field = e instanceof HTMLInputElement ? e.getBoundingClientRect() : null;
const near = (box) => {
  if (!field) return true;
  const r = box.getBoundingClientRect();
  const dx = Math.max(r.left - field.right, field.left - r.right, 0);
  const dy = Math.max(r.top - field.bottom, field.top - r.bottom, 0);
  return dx < 400 && dy < 400;
};
const box = [...new Set(dated.map(boxOf))].find((b) => b && near(b));
if (!box) return JSON.stringify({open: false});
const cells = dated.filter((el) => box.contains(el));
const hit = cells.filter((el) => day(label(el)) === want);
if (hit.length) {
  hit[0].setAttribute(mark, nonce);
  return JSON.stringify({open: true, marked: "day", label: norm(label(hit[0]))});
}
const days = cells.map((el) => day(label(el)));
const later = Math.max(...days) < want;
if (!later && Math.min(...days) < want) return JSON.stringify({open: true, marked: null});
const words = later ? /(^|[^a-z])(next|forward)([^a-z]|$)|›|»|→/i
  : /(^|[^a-z])(prev|previous|back)([^a-z]|$)|‹|«|←/i;
const says = (el) => [el.getAttribute("aria-label"), el.getAttribute("title"),
  typeof el.className === "string" ? el.className : "",
  el.childElementCount ? "" : el.textContent].join(" ");
let controls = [];
for (let around = box, up = 0; around && up < 6 && !controls.length; up++) {
  controls = [...around.querySelectorAll("button, [role=button], span, a")]
    .filter((el) => shown(el) && words.test(says(el)) && day(label(el)) === null && !away(el));
  around = around.parentElement;
}
controls.sort((x, y) => /month/i.test(says(y)) - /month/i.test(says(x)));
if (!controls.length) return JSON.stringify({open: true, marked: null, later});
controls[0].setAttribute(mark, nonce);
return JSON.stringify({open: true, marked: later ? "next" : "previous", later});
})(%s, %s, %s)"""


def calendar_js(year: int, month: int, day: int, nonce: str) -> str:
    """In an open calendar: mark the cell labelled with the date (`aria-label`/`title` that
    `Date.parse` reads as that day), else the month control that moves toward it (its label,
    title or class says next/previous and month)."""
    want = year * 10000 + month * 100 + day
    words = json.dumps("|".join(_DATE_WORDS))
    args = (json.dumps(want), json.dumps(MARK), json.dumps(nonce))
    return _CALENDAR % (_VISIBLE, words, _FOCUSED, *args)


UNMARK_JS = (
    f'(() => {{ document.querySelectorAll("[{MARK}]")'
    f'.forEach((el) => el.removeAttribute("{MARK}")); return null; }})()'
)
