"""Read-only page probes behind wrapper-side `snapshot --search` and `snapshot --viewport`.

Why: the accessibility snapshot leaves out plain text (a validation message below the fold)
and some labels, and says nothing about scroll position. Each wrapper flag therefore costs one
bounded `eval --stdin` of a script from here: it reads the rendered DOM, never changes it, stops
after a fixed number of nodes, and returns small JSON. Hidden elements (display none,
visibility hidden, zero size, aria-hidden, inert, closed <details>) are never reported, so a
search cannot surface text the user cannot see. The Python side validates the returned shape
and maps a match to a snapshot ref only when its role and name pick out exactly one ref.

Pure: building script text and parsing results; the orchestrator runs the scripts.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

#: Matches returned (validation kept first when cut; document order), and text/name bounds.
SEARCH_MAX_MATCHES = 20
MATCH_TEXT_LIMIT = 160
#: Elements scanned before a probe gives up (keeps a huge page from stalling the call).
PROBE_MAX_NODES = 50_000
VIEWPORT_MAX_CONTAINERS = 10

_SEARCH_TEMPLATE = r"""
(() => {
  const needle = __NEEDLE__.toLowerCase();
  const MAX = __MAX__, KEEP = 200, MAX_NODES = __NODES__, LIMIT = __LIMIT__;
  const SKIP = new Set(["SCRIPT", "STYLE", "NOSCRIPT", "TEMPLATE", "HEAD", "TITLE", "META"]);
  const ATTRS = ["aria-label", "placeholder", "title", "alt"];
  const VALID_RE = /(^|[\s_-])(error|errors|invalid|danger|warning|alert|validation)([\s_-]|$)/i;
  const norm = (s) => (s || "").replace(/\s+/g, " ").trim();
  const found = [], seen = new Set();
  let total = 0, scanned = 0, capped = false;
  const hiddenAncestor = (el) => {
    for (let n = el; n; n = n.parentElement || (n.getRootNode && n.getRootNode().host)) {
      if (n.nodeType !== 1) break;
      if (n.getAttribute("aria-hidden") === "true" || n.hasAttribute("inert")) return true;
      if (n.parentElement && n.parentElement.tagName === "DETAILS" && !n.parentElement.open
          && n.tagName !== "SUMMARY") return true;
    }
    return false;
  };
  const visible = (el) => {
    if (typeof el.checkVisibility === "function"
        && !el.checkVisibility({checkOpacity: true, checkVisibilityCSS: true})) return false;
    const st = getComputedStyle(el);
    if (st.display === "none" || st.visibility === "hidden" || st.visibility === "collapse") {
      return false;
    }
    const r = el.getBoundingClientRect();
    if (r.width <= 0 || r.height <= 0) return false;
    return !hiddenAncestor(el);
  };
  const implicitRole = (el) => {
    const t = el.tagName.toLowerCase(), type = (el.getAttribute("type") || "").toLowerCase();
    if (t === "a" && el.hasAttribute("href")) return "link";
    if (t === "button" || t === "summary") return "button";
    if (t === "input") {
      if (type === "checkbox" || type === "radio") return type;
      if (["button", "submit", "reset", "image"].includes(type)) return "button";
      if (type === "search") return "searchbox";
      if (type === "range") return "slider";
      if (type === "number") return "spinbutton";
      return type === "hidden" ? null : "textbox";
    }
    if (t === "textarea") return "textbox";
    if (t === "select") return (el.multiple || el.size > 1) ? "listbox" : "combobox";
    if (/^h[1-6]$/.test(t)) return "heading";
    if (t === "td") return el.closest("[role=grid],[role=treegrid]") ? "gridcell" : "cell";
    if (t === "th") return "columnheader";
    if (t === "img") return "img";
    if (t === "option") return "option";
    return null;
  };
  const labelText = (el) => {
    const by = el.getAttribute("aria-labelledby");
    if (by) {
      const t = by.split(/\s+/).map((id) => document.getElementById(id)).filter(Boolean)
        .map((n) => norm(n.textContent)).join(" ");
      if (t) return t;
    }
    const al = norm(el.getAttribute("aria-label"));
    if (al) return al;
    if (el.labels && el.labels.length) {
      return norm(Array.from(el.labels).map((l) => l.textContent).join(" "));
    }
    for (const a of ["placeholder", "title", "alt"]) {
      const v = norm(el.getAttribute(a));
      if (v) return v;
    }
    return "";
  };
  const NAME_FROM_CONTENT = ["button", "link", "heading", "tab", "option", "menuitem", "cell",
    "gridcell", "columnheader", "checkbox", "radio", "switch", "treeitem"];
  const target = (el) => {
    if (el.tagName === "LABEL" && el.control) return el.control;
    const hit = el.closest("a[href],button,[role],input,select,textarea,summary,h1,h2,h3,h4,h5,"
      + "h6,td,th,label");
    if (hit && hit.tagName === "LABEL" && hit.control) return hit.control;
    return hit || el;
  };
  const validation = (el) => {
    if (el.closest("[role=alert],[role=alertdialog],[aria-live=assertive]")) return true;
    if (el.getAttribute("aria-invalid") === "true") return true;
    if (el.id) {
      const id = CSS.escape(el.id);
      const sel = `[aria-invalid=true][aria-errormessage~="${id}"],`
        + `[aria-invalid=true][aria-describedby~="${id}"]`;
      if (document.querySelector(sel)) return true;
    }
    for (let n = el, i = 0; n && i < 4; n = n.parentElement, i++) {
      const c = (typeof n.className === "string" ? n.className : "") + " " + (n.id || "");
      if (VALID_RE.test(c)) return true;
    }
    return false;
  };
  const describe = (el, via, order) => {
    const t = target(el);
    const role = (t.getAttribute("role") || "").split(/\s+/)[0] || implicitRole(t);
    const label = labelText(t);
    const name = label || (role && NAME_FROM_CONTENT.includes(role) ? norm(t.innerText) : "");
    const text = via === "text" ? norm(el.innerText || el.textContent) : norm(el.getAttribute(via));
    const r = el.getBoundingClientRect();
    const m = {text: text.slice(0, LIMIT), tagName: el.tagName.toLowerCase(),
      kind: validation(el) ? "validation" : "text",
      offscreen: r.bottom <= 0 || r.top >= innerHeight || r.right <= 0 || r.left >= innerWidth,
      matchedBy: via, order};
    if (role) m.role = role;
    if (name) m.name = name.slice(0, LIMIT);
    return m;
  };
  const FIELDS = new Set(["INPUT", "SELECT", "TEXTAREA"]);
  const consider = (el, via) => {
    if (!el || seen.has(el)) return;
    seen.add(el);
    const t = target(el);
    if (t !== el && FIELDS.has(t.tagName)) {
      if (seen.has(t)) return;
      seen.add(t);
    }
    if (!visible(el)) return;
    total++;
    if (found.length < KEEP) found.push(describe(el, via, total));
  };
  const splitText = (el) => {
    const own = Array.from(el.childNodes).some((n) => n.nodeType === 3 && n.data.trim());
    if (!own || !el.firstElementChild || seen.has(el)) return;
    const text = el.textContent || "";
    if (text.length > 2000 || !norm(text).toLowerCase().includes(needle)) return;
    for (const c of el.children) {
      if (norm(c.textContent).toLowerCase().includes(needle)) return;
    }
    consider(el, "text");
  };
  const filter = {acceptNode: (n) => (n.nodeType === 1 && SKIP.has(n.tagName))
    ? NodeFilter.FILTER_REJECT : NodeFilter.FILTER_ACCEPT};
  const walk = (root) => {
    const tw = document.createTreeWalker(root, NodeFilter.SHOW_ELEMENT | NodeFilter.SHOW_TEXT,
      filter);
    for (let n = tw.nextNode(); n; n = tw.nextNode()) {
      if (++scanned > MAX_NODES) { capped = true; return; }
      if (n.nodeType === 3) {
        if (n.data.toLowerCase().includes(needle)) consider(n.parentElement, "text");
        continue;
      }
      for (const a of ATTRS) {
        const v = n.getAttribute(a);
        if (v && v.toLowerCase().includes(needle)) { consider(n, a); break; }
      }
      splitText(n);
      if (n.shadowRoot) walk(n.shadowRoot);
      if (capped) return;
    }
  };
  if (needle) walk(document.body || document.documentElement);
  const rank = (m) => (m.kind === "validation" ? 0 : 1);
  found.sort((a, b) => rank(a) - rank(b) || a.order - b.order);
  const kept = found.slice(0, MAX).sort((a, b) => a.order - b.order);
  const matches = kept.map(({order, ...rest}) => rest);
  return {search: __NEEDLE__, matches, total, truncated: total > matches.length || capped,
    scanned, capped};
})()
"""

VIEWPORT_PROBE_JS = r"""
(() => {
  const de = document.documentElement, b = document.body;
  const MAX = __MAX__, MAX_NODES = __NODES__;
  const selector = (el) => {
    let s = el.tagName.toLowerCase();
    if (el.id) return s + "#" + CSS.escape(el.id);
    const cls = (typeof el.className === "string" ? el.className : "").trim().split(/\s+/)
      .filter(Boolean).slice(0, 2);
    if (cls.length) s += "." + cls.map((c) => CSS.escape(c)).join(".");
    const label = el.getAttribute("aria-label");
    if (label) s += "[aria-label=" + JSON.stringify(label.slice(0, 60)) + "]";
    return s;
  };
  const containers = [];
  let count = 0, scanned = 0, capped = false;
  for (const el of document.querySelectorAll("body *")) {
    if (++scanned > MAX_NODES) { capped = true; break; }
    if (el.scrollHeight <= el.clientHeight + 1 && el.scrollWidth <= el.clientWidth + 1) continue;
    if (el.clientHeight === 0 && el.clientWidth === 0) continue;
    const st = getComputedStyle(el);
    if (!/(auto|scroll|overlay)/.test(st.overflowY + " " + st.overflowX)) continue;
    count++;
    if (containers.length < MAX) {
      containers.push({selector: selector(el), scrollTop: Math.round(el.scrollTop),
        scrollLeft: Math.round(el.scrollLeft), scrollHeight: el.scrollHeight,
        scrollWidth: el.scrollWidth, clientHeight: el.clientHeight,
        clientWidth: el.clientWidth});
    }
  }
  const vv = window.visualViewport;
  return {scrollX: Math.round(window.scrollX), scrollY: Math.round(window.scrollY),
    innerWidth: window.innerWidth, innerHeight: window.innerHeight,
    documentWidth: Math.max(de.scrollWidth, b ? b.scrollWidth : 0),
    documentHeight: Math.max(de.scrollHeight, b ? b.scrollHeight : 0),
    devicePixelRatio: window.devicePixelRatio,
    visualViewport: vv ? {scale: vv.scale, offsetLeft: vv.offsetLeft, offsetTop: vv.offsetTop,
      width: vv.width, height: vv.height} : null,
    scrollableContainers: count, containers, containersTruncated: count > containers.length,
    capped};
})()
""".replace("__MAX__", str(VIEWPORT_MAX_CONTAINERS)).replace("__NODES__", str(PROBE_MAX_NODES))


def search_probe_js(search: str) -> str:
    """The rendered-DOM search script for `search` (a JSON string literal, never spliced raw)."""
    script = (
        _SEARCH_TEMPLATE.replace("__MAX__", str(SEARCH_MAX_MATCHES))
        .replace("__NODES__", str(PROBE_MAX_NODES))
        .replace("__LIMIT__", str(MATCH_TEXT_LIMIT))
    )
    # The needle goes in last, so text that looks like a placeholder stays literal.
    return script.replace("__NEEDLE__", json.dumps(search))


#: The brief's name for the builder.
SEARCH_PROBE_JS = search_probe_js


def _bounded_str(value: Any) -> str | None:
    return value[:MATCH_TEXT_LIMIT] if isinstance(value, str) else None


def _unique_ref(role: str, name: str, refs: Mapping[str, Mapping[str, Any]]) -> str | None:
    """The one ref with this role and name. A name the probe cut at MATCH_TEXT_LIMIT (a long
    table cell) matches a ref whose name starts with it."""
    wanted = " ".join(name.split())
    cut = len(name) >= MATCH_TEXT_LIMIT
    hits = [
        ref
        for ref, entry in refs.items()
        if isinstance(entry, Mapping)
        and entry.get("role") == role
        and isinstance(entry.get("name"), str)
        and _same_name(" ".join(entry["name"].split()), wanted, cut)
    ]
    return hits[0] if len(hits) == 1 else None


def _same_name(name: str, wanted: str, cut: bool) -> bool:
    return name.startswith(wanted) if cut else name == wanted


def parse_search_probe(result: Any, refs: Mapping[str, Mapping[str, Any]]) -> list[dict[str, Any]]:
    """Validated matches in document order (the probe keeps validation messages first when it
    must cut the list), each with a unique `ref` when its role and name identify exactly one
    ref of the full snapshot."""
    raw = result.get("matches") if isinstance(result, Mapping) else None
    if not isinstance(raw, list):
        return []
    out: list[dict[str, Any]] = []
    for item in raw[:SEARCH_MAX_MATCHES]:
        if not isinstance(item, Mapping) or not isinstance(item.get("text"), str):
            continue
        match: dict[str, Any] = {
            "text": item["text"][:MATCH_TEXT_LIMIT],
            "tagName": _bounded_str(item.get("tagName")) or "",
            "kind": "validation" if item.get("kind") == "validation" else "text",
            "offscreen": item.get("offscreen") is True,
        }
        role, name = _bounded_str(item.get("role")), _bounded_str(item.get("name"))
        if role:
            match["role"] = role
        if name:
            match["name"] = name
        ref = _unique_ref(role, name, refs) if role and name else None
        if ref:
            match["ref"] = ref
        out.append(match)
    return out


def search_probe_counts(result: Any) -> tuple[int, bool]:
    """(total visible matches, whether the list or the scan was cut short)."""
    if not isinstance(result, Mapping):
        return 0, False
    total = result.get("total")
    count = total if isinstance(total, int) and total >= 0 else 0
    return count, result.get("truncated") is True


_VIEWPORT_NUMBERS = (
    "scrollX",
    "scrollY",
    "innerWidth",
    "innerHeight",
    "documentWidth",
    "documentHeight",
    "devicePixelRatio",
    "scrollableContainers",
)
_CONTAINER_FIELDS = (
    "scrollTop",
    "scrollLeft",
    "scrollHeight",
    "scrollWidth",
    "clientHeight",
    "clientWidth",
)


def parse_viewport_probe(result: Any) -> dict[str, Any] | None:
    """`details.snapshotViewport` from the probe result, or None when it is not the shape."""
    if not isinstance(result, Mapping):
        return None
    out: dict[str, Any] = {}
    for key in _VIEWPORT_NUMBERS:
        value = result.get(key)
        if not isinstance(value, int | float) or isinstance(value, bool):
            return None
        out[key] = value
    containers = []
    for item in (result.get("containers") or [])[:VIEWPORT_MAX_CONTAINERS]:
        if isinstance(item, Mapping) and isinstance(item.get("selector"), str):
            row: dict[str, Any] = {"selector": item["selector"][:MATCH_TEXT_LIMIT]}
            row.update({k: item[k] for k in _CONTAINER_FIELDS if isinstance(item.get(k), int)})
            containers.append(row)
    out["containers"] = containers
    out["containersTruncated"] = result.get("containersTruncated") is True
    if isinstance(result.get("visualViewport"), Mapping):
        out["visualViewport"] = dict(result["visualViewport"])
    return out
