"""Identity at the cost of the refs used: a page-side change log, read in one small batch.

Why: re-reading the whole page before every ref call (`snapshot -i`) costs what the page
costs: seconds on a list of a thousand rows, against tens of milliseconds for the action.
The engine itself resolves a ref by its DOM node, so what must be proven is only that the
node the engine will act on is the element the snapshot named, unchanged.

How: right before each snapshot the wrapper installs (or finds) a `MutationObserver` in the
page that numbers every DOM change and remembers, per node, the last change to its
attributes, to anything inside it, and when it was inserted (`begin`). The snapshot records
that number (`PageEpoch`). Before a ref call one batch asks the page, for each ref, which
elements could be it (the role's elements whose accessible name, as the page computes it, is
the recorded one), whether anything about them changed since the epoch, and numbers them with
a marker attribute; then asks the engine which marker each used ref's node carries (`get attr
@ref`, resolved exactly as the action will resolve it), and removes the markers (at once,
or, before a probed click, when the click probe that holds them is collected). A ref is
proven unchanged when its node is one of those candidates and neither it, its ancestors
(attributes, insertion), its content, its labels, nor, for a twin, the rest of its row (up to
its nearest look-alikes) changed, and (for a ref the engine could re-resolve by role and name)
no element with its role and name was removed. A marker rather than the node's box: a box
match had to rule out every other element of the role at that place (reading 1,500 boxes
cost 10 ms on a page of 1,500 rows) and proved no element without a box. Anything else
(another document, a page that hides the log, shadow DOM, frames, a name the page computes
differently, a change near the element) is not a refusal: the full re-read decides, as before.

Limit: the script runs in the page's own JavaScript world and trusts it. It guards against a
page that re-renders, not against one written to fool this check: such a page can fake the
change log (`window.__abtPageWatch1` is the page's to replace) or copy a marker onto another
node from its own MutationObserver before the engine reads it. The full re-read, from the
engine's accessibility tree, is not open to that.

Pure: the JavaScript and the reading of its answer; `identity` runs the batch.
"""

from __future__ import annotations

import json
import secrets
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from agent_browser_tools.engine.envelope import BatchRow
from agent_browser_tools.input_limits import loads_json_text
from agent_browser_tools.state.models import PageEpoch, RefInfo

KEY = "__abtPageWatch1"
MARK = "data-abt-ref-check"
"""The attribute that numbers the candidates of one check, read back through the engine."""
IGNORED_ATTRIBUTES = (
    "data-abt-click-probe",
    MARK,
    "aria-expanded",
    "aria-selected",
    "aria-checked",
    "aria-current",
    "aria-busy",
)
"""The wrapper's own markers, and state attributes that never change a role or name
(so is a text field's `value` attribute, which frameworks copy from what was typed)."""
REMOVED_KEPT = 400
"""Removed subtrees the log keeps; older ones only say that something was removed."""
NEAR_TWINS = 3
"""A twin is looked for among this many look-alikes either side of its recorded place: a
list of a thousand "Edit" buttons answers with a few candidates, not a thousand."""

ROLE_SELECTORS: dict[str, str] = {
    "button": "button,[role=button],input[type=button],input[type=submit],input[type=reset],"
    "input[type=image],summary",
    "link": "a[href],area[href],[role=link]",
    "checkbox": "input[type=checkbox],[role=checkbox]",
    "radio": "input[type=radio],[role=radio]",
    "textbox": "input:not([type]),input[type=text],input[type=email],input[type=tel],"
    "input[type=url],input[type=password],textarea,[contenteditable=''],"
    "[contenteditable=true],[role=textbox]",
    "searchbox": "input[type=search],[role=searchbox]",
    "combobox": "select,input[list],[role=combobox]",
    "listbox": "select[multiple],[role=listbox]",
    "spinbutton": "input[type=number],[role=spinbutton]",
    "slider": "input[type=range],[role=slider]",
    "option": "option,[role=option]",
    "heading": "h1,h2,h3,h4,h5,h6,[role=heading]",
    "cell": "td,[role=cell]",
    "gridcell": "td,[role=gridcell]",
    "columnheader": "th,[role=columnheader]",
    "rowheader": "th,[role=rowheader]",
    "listitem": "li,[role=listitem]",
}
"""Elements that can carry each role (generously: a wrong guess only costs a re-read)."""

_JS = """(() => {
const cfg = %s, w = window, K = "%s", MARK = "%s";
const IGNORED = new Set(%s);
let s = w[K];
if (!s || !s.observer || s.version !== 1) {
  if (!cfg.begin && !cfg.read) return JSON.stringify({token: null});
  s = {version: 1, seq: 0, token: Math.random().toString(36).slice(2) + Date.now().toString(36),
    attr: new WeakMap(), under: new WeakMap(), ins: new WeakMap(), removed: [], dropped: 0};
  const typed = (r) => r.attributeName === "value" && r.target instanceof HTMLInputElement
    && !["button", "submit", "reset", "image"].includes(r.target.type);
  const up = (node, seq) => {
    for (let n = node; n && s.under.get(n) !== seq; n = n.parentNode) s.under.set(n, seq);
  };
  const log = (records) => {
    for (const r of records) {
      if (r.type === "attributes" && (IGNORED.has(r.attributeName) || typed(r))) continue;
      const seq = ++s.seq;
      const el = r.target.nodeType === 1 ? r.target : r.target.parentNode;
      if (r.type === "attributes") s.attr.set(r.target, seq);
      if (el) up(el, seq);
      for (const n of r.addedNodes) { s.ins.set(n, seq); up(n, seq); }
      for (const n of r.removedNodes) {
        if (n.nodeType !== 1) continue;
        s.removed.push([seq, n]);
        if (s.removed.length > %d) s.dropped = s.removed.shift()[0];
      }
    }
  };
  s.observer = new MutationObserver(log);
  s.flush = () => log(s.observer.takeRecords());
  s.observer.observe(document, {subtree: true, childList: true, attributes: true,
    characterData: true});
  Object.defineProperty(w, K, {value: s, configurable: true});
}
s.flush();
if (cfg.begin) return JSON.stringify({token: s.token, seq: s.seq});
if (!cfg.read && s.token !== cfg.token) return JSON.stringify({token: s.token, seq: s.seq});
const g = cfg.read ? Infinity : cfg.seq;
const norm = (t) => (t || "").replace(/\\s+/g, " ").trim();
const text = (id) => { const n = document.getElementById(id); return n ? n.textContent : ""; };
const labelled = (el) => {
  const by = el.getAttribute("aria-labelledby");
  return by ? by.split(/\\s+/).map((id) => document.getElementById(id)).filter(Boolean) : [];
};
let labelMap = null;
const labelsOf = (el) => {
  if (!el.isConnected) return el.labels ? Array.from(el.labels) : [];
  if (!labelMap) {
    labelMap = new Map();
    for (const l of document.getElementsByTagName("label")) {
      const c = l.control;
      if (c) labelMap.set(c, [...(labelMap.get(c) || []), l]);
    }
  }
  return labelMap.get(el) || [];
};
const nameOf = (el) => {
  const by = labelled(el);
  if (by.length) return norm(by.map((n) => n.textContent).join(" "));
  const aria = el.getAttribute("aria-label");
  if (aria && norm(aria)) return norm(aria);
  const labels = labelsOf(el).map((l) => l.textContent);
  if (labels.length) return norm(labels.join(" "));
  if (el instanceof HTMLInputElement) {
    if (["button", "submit", "reset"].includes(el.type)) return norm(el.value);
    return norm(el.title || el.placeholder || "");
  }
  if (el instanceof HTMLTextAreaElement || el instanceof HTMLSelectElement) return norm(el.title);
  if (el instanceof HTMLImageElement) return norm(el.alt);
  return norm(el.textContent) || norm(el.title);
};
const later = (map, n) => (map.get(n) || 0) > g;
const custom = (el) => el.localName.includes("-") || !!el.shadowRoot;
const status = (el, twins) => {
  if (!el.isConnected || el.getRootNode() !== document) return 2;
  if (!el.getClientRects().length) return 2;  // no box: a pointer action finds another one
  if (custom(el) || Array.from(el.getElementsByTagName("*")).some(custom)) return 2;
  if (later(s.under, el)) return 1;
  for (let a = el; a; a = a.parentNode) {
    if (later(s.ins, a) || (a !== el && later(s.attr, a))) return 1;
  }
  for (const l of [...labelled(el), ...labelsOf(el)]) {
    if (later(s.under, l) || later(s.ins, l)) return 1;
  }
  for (const twin of twins) {
    let block = el;
    while (block.parentElement && !block.parentElement.contains(twin)) block = block.parentElement;
    if (later(s.under, block)) return 1;
  }
  return 0;
};
const out = {token: s.token, seq: s.seq, nonce: cfg.nonce || null, refs: []};
const lists = new Map(), marks = new Map();
if (cfg.nonce) {
  for (const el of s.marked || []) el.removeAttribute(MARK);  // a check whose removal never ran
  s.marked = [];
}
const mark = (el) => {
  if (!cfg.nonce) return null;
  if (!marks.has(el)) {
    marks.set(el, marks.size);
    el.setAttribute(MARK, cfg.nonce + "." + (marks.size - 1));
    s.marked.push(el);
  }
  return marks.get(el);
};
for (const ref of cfg.refs) {
  const sel = cfg.selectors[ref.role];
  if (!sel) { out.refs.push(null); continue; }
  const from = ref.nth === null ? 0 : Math.max(0, ref.nth - %d);
  const stop = ref.nth === null ? Infinity : ref.nth + %d + 2;
  if (!lists.has(sel)) lists.set(sel, document.querySelectorAll(sel));
  const found = [];
  for (const el of lists.get(sel)) {
    if (nameOf(el) === ref.name && found.push(el) >= stop) break;
  }
  const to = ref.nth === null ? found.length : stop - 1;
  const candidates = found.slice(from, to).map((el, j) => {
    const i = from + j;
    const near = ref.twin ? [found[i - 1], found[i + 1]].filter(Boolean) : [];
    const on = el instanceof HTMLInputElement && ["checkbox", "radio"].includes(el.type)
      ? el.checked : el.getAttribute("aria-checked") === "true";
    return [mark(el), status(el, near), on];
  });
  let removed = s.dropped > g;
  if (!removed) {
    removed = s.removed.some(([seq, n]) => seq > g
      && [n, ...n.querySelectorAll(sel)].some((el) => el.matches(sel) && nameOf(el) === ref.name));
  }
  out.refs.push({c: candidates, rm: removed});
}
return JSON.stringify(out);
})()"""


UNMARK_JS = f"""(() => {{
const s = window["{KEY}"];
for (const el of (s && s.marked) || []) el.removeAttribute("{MARK}");
if (s) s.marked = [];
return true;
}})()"""
"""Removes the check's markers (the last row of its batch, before anything else runs)."""


def begin_args() -> list[str]:
    """The `eval` that installs the log if needed and answers where it stands now."""
    return ["eval", _script({"begin": True})]


def epoch_of(data: Any) -> PageEpoch | None:
    """The epoch a `begin_args` eval answered (its `data`), else None (no proof for that
    snapshot's refs: the full re-read decides)."""
    answer = _parsed(data)
    token, seq = answer.get("token"), answer.get("seq")
    if isinstance(token, str) and token and isinstance(seq, int):
        return PageEpoch(token=token, seq=seq)
    return None


Checked = dict[str, bool] | None
"""Engine ref id -> whether the element shows checked, for proven refs (None: not proven)."""


@dataclass(frozen=True)
class Question:
    """One ref to prove: the engine id the action will use and what the snapshot recorded."""

    engine: str
    info: RefInfo


def askable(info: RefInfo) -> bool:
    """Whether the page can find elements of this ref's role (`check_rows` asks only then)."""
    return ROLE_SELECTORS.get(info.role or "") is not None


@dataclass(frozen=True)
class Check:
    """One identity check: the page's answer (`script`), the marker each ref's node carries
    (`reads`, one `get attr @ref` per ref) and the nonce its markers carry."""

    script: list[str]
    reads: list[list[str]]
    nonce: str

    @property
    def rows(self) -> list[list[str]]:
        """The check on its own: the script, the reads, then the markers' removal (before
        anything else runs, so no later read of the page shows them)."""
        return [self.script, *self.reads, ["eval", UNMARK_JS]]


def check_rows(epoch: PageEpoch, questions: Sequence[Question]) -> Check | None:
    """The page's answer (it numbers each ref's candidates with a marker) and the marker each
    ref's node carries (`get attr @ref`, resolved as the action will resolve it); None when a
    recorded role has no known elements (the re-read decides). `Check.rows` adds the
    markers' removal; a batch that defers it removes them with `UNMARK_JS` later."""
    selectors = {q.info.role: ROLE_SELECTORS.get(q.info.role or "") for q in questions}
    if not questions or any(v is None for v in selectors.values()):
        return None
    refs = [
        {
            "role": q.info.role,
            "name": q.info.name or "",
            "twin": q.info.anchors is not None,
            "nth": q.info.nth if q.info.anchors is not None else None,
        }
        for q in questions
    ]
    nonce = secrets.token_hex(6)
    cfg = {"begin": False, "token": epoch.token, "seq": epoch.seq, "refs": refs}
    cfg |= {"selectors": selectors, "nonce": nonce}
    reads = [["get", "attr", "@" + q.engine, MARK] for q in questions]
    return Check(["eval", _script(cfg)], reads, nonce)


def engine_marks(check: Check, questions: Sequence[Question], rows: Sequence[BatchRow]) -> Marks:
    """Engine id -> the candidate number its node carried in this check (from the `reads`
    answers in `rows`, laid out as `check.rows`), proven unchanged or not: the number names
    the one element the engine resolves that ref to, at the time of the check."""
    reads = rows[1 : len(questions) + 1]
    out: dict[str, int] = {}
    for q, row in zip(questions, reads, strict=False):
        number = _marked(row, check.nonce)
        if number is not None:
            out[q.engine] = number
    return Marks(check.nonce, out)


@dataclass(frozen=True)
class Marks:
    """Which candidate marker (`MARK` = `nonce.number`) each checked ref's node carried."""

    nonce: str
    numbers: Mapping[str, int]


def proven(
    epoch: PageEpoch, check: Check, questions: Sequence[Question], rows: Sequence[BatchRow]
) -> Checked:
    """Engine id -> whether it shows checked, when the answers to `check` prove every ref
    unchanged; None otherwise."""
    found = _found(epoch, check, questions, rows)
    if found is None or any(one is None for one in found):
        return None
    pairs = zip(questions, found, strict=True)
    return {q.engine: one is not None and one[2] is True for q, one in pairs}


def proven_each(
    epoch: PageEpoch, check: Check, questions: Sequence[Question], rows: Sequence[BatchRow]
) -> set[str]:
    """The engine ids among `questions` that the answers to `check` prove unchanged since
    `epoch`, each on its own."""
    found = _found(epoch, check, questions, rows) or []
    return {q.engine for q, one in zip(questions, found, strict=False) if one is not None}


def _found(
    epoch: PageEpoch, check: Check, questions: Sequence[Question], rows: Sequence[BatchRow]
) -> list[list[Any] | None] | None:
    """Per question, the one unchanged candidate the engine's node is (`_one`), or None for
    the whole answer when it is not the page's answer to this check on this document."""
    count = len(questions)
    if len(rows) < count + 1:
        return None
    answer = _answer(rows[0])
    found = answer.get("refs")
    if answer.get("token") != epoch.token or not isinstance(found, list) or len(found) != count:
        return None
    if answer.get("nonce") != check.nonce:
        return None
    reads = rows[1 : count + 1]
    return [_one(_marked(row, check.nonce), seen) for row, seen in zip(reads, found, strict=True)]


def _one(number: int | None, seen: Any) -> list[Any] | None:
    """The candidate the engine's node is, when it is unchanged and none like it was
    removed."""
    if number is None or not isinstance(seen, Mapping) or seen.get("rm") is not False:
        return None
    candidates = seen.get("c")
    if not isinstance(candidates, list):
        return None
    at = [c for c in candidates if isinstance(c, list) and len(c) == 3 and c[0] == number]
    return at[0] if len(at) == 1 and at[0][1] == 0 else None


def _marked(row: BatchRow, nonce: str) -> int | None:
    """The candidate number the engine's node carries for this check (another check's
    marker, or none, proves nothing)."""
    result = row.result if row.success and isinstance(row.result, Mapping) else None
    value = result.get("value") if result is not None else None
    if not isinstance(value, str) or not value.startswith(nonce + "."):
        return None
    number = value[len(nonce) + 1 :]
    return int(number) if number.isascii() and number.isdigit() and len(number) < 6 else None


def toggle_row(info: RefInfo) -> list[str] | None:
    """A read of the checked state of the one element with this role and name (the page
    computes names as in `check_rows`); None when the role has no known elements."""
    selector = ROLE_SELECTORS.get(info.role or "")
    if selector is None or info.anchors is not None:
        return None
    ref = {"role": info.role, "name": info.name or "", "twin": False, "nth": None}
    cfg = {"read": True, "refs": [ref], "selectors": {info.role: selector}}
    return ["eval", _script(cfg)]


def toggle_state(result: Any) -> bool | None:
    """What `toggle_row` read: the state of the one such element, else None."""
    found = _parsed(result).get("refs")
    seen = found[0] if isinstance(found, list) and len(found) == 1 else None
    candidates = seen.get("c") if isinstance(seen, Mapping) else None
    if (
        not isinstance(candidates, list)
        or len(candidates) != 1
        or not isinstance(candidates[0], list)
    ):
        return None
    state = candidates[0][2] if len(candidates[0]) == 3 else None
    return state if isinstance(state, bool) else None


def _answer(row: BatchRow | None) -> Mapping[str, Any]:
    return _parsed(row.result if row is not None and row.success else None)


def _parsed(result: Any) -> Mapping[str, Any]:
    raw = result.get("result") if isinstance(result, Mapping) else None
    try:
        answer = loads_json_text(raw) if isinstance(raw, str) else None
    except ValueError:
        return {}
    return answer if isinstance(answer, Mapping) else {}


def _script(cfg: Mapping[str, Any]) -> str:
    ignored = json.dumps(list(IGNORED_ATTRIBUTES))
    return _JS % (json.dumps(cfg), KEY, MARK, ignored, REMOVED_KEPT, NEAR_TWINS, NEAR_TWINS)
