"""Direct tool: the focused field as the page reports it (its script, its answer, the memo).

Shared by the read before a typing call (`secret_fields`: which value the keys should give a
credential field) and the read after it (`focused_field`, a row of the post-action batch),
which the next typing call on the same browser may use instead of reading again
(`remembered`). The read names the element (its document's URL without the fragment and its
place in the tree, through shadow roots and frames), so each field's values are tracked apart;
the value travels as code points, so scrubbing the read's own output cannot replace the value
the call extends.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from agent_browser_tools.credentials.fields import ATTRIBUTES, FieldRead
from agent_browser_tools.state.models import SessionKey
from agent_browser_tools.tools.agent_browser.call import DirectCall

FOCUSED_JS = (
    "(() => { let e = document.activeElement; const hops = [];"
    " const at = (n) => { const p = []; for (let x = n; x && x.parentElement;"
    " x = x.parentElement) { p.push(x.tagName + ':'"
    " + Array.prototype.indexOf.call(x.parentElement.children, x)); }"
    " return p.reverse().join('/'); };"
    " for (;;) { if (e && e.shadowRoot && e.shadowRoot.activeElement) {"
    " hops.push(at(e)); e = e.shadowRoot.activeElement; continue; } let d = null;"
    " try { d = e && e.contentDocument; } catch (_) {}"
    " if (d && d.activeElement) { hops.push(at(e)); e = d.activeElement; continue; } break; }"
    " if (!e || e === document.body) return null; const a = (n) => e.getAttribute(n);"
    " let s = null; try { s = [e.selectionStart, e.selectionEnd]; } catch (_) {}"
    " const doc = e.ownerDocument ? e.ownerDocument.URL.split('#')[0] : '';"
    " return { type: e.type || a('type'), autocomplete: a('autocomplete'), name: a('name'),"
    " id: e.id || null, 'aria-label': a('aria-label'), placeholder: a('placeholder'),"
    " labels: e.labels ? Array.from(e.labels, (l) => l.textContent) : [],"
    " value: typeof e.value === 'string' ? Array.from(e.value, (c) => c.codePointAt(0)) : null,"
    " selection: s, element: doc + ' ' + [...hops, at(e)].join(' > ') }; })()"
)


def parse(result: Mapping[str, Any]) -> FieldRead | None:
    """The read of `FOCUSED_JS`'s answer (an `eval` row's result), None when nothing is
    focused."""
    focused = result.get("result")
    if not isinstance(focused, Mapping):
        return None
    labels = [str(x) for x in focused.get("labels") or () if x]
    attrs = {a: _text(focused.get(a)) for a in ATTRIBUTES}
    points = focused.get("value")
    value = None
    if isinstance(points, list) and all(isinstance(p, int) and 0 <= p <= 0x10FFFF for p in points):
        value = "".join(map(chr, points))
    span = focused.get("selection")
    selection = None
    if isinstance(span, list) and len(span) == 2 and all(isinstance(n, int) for n in span):
        selection = (span[0], span[1])
    return FieldRead(attrs, labels, value, selection, _text(focused.get("element")))


def field_id(key: SessionKey, read: FieldRead) -> str | None:
    """The name `SecretStore.track_field` knows the focused element by (None: unknown)."""
    if not read.element:
        return None
    return f"{key.namespace or ''}/{key.session}|focused|{read.element}"


def remembered(call: DirectCall) -> FieldRead | None:
    """The focused field as the previous call's post-action batch read it, while no engine
    call ran since (then this call need not read it again)."""
    memo = call.rt.focused
    return memo.current(call.rt, call.key) if memo is not None else None


def _text(value: object) -> str | None:
    return value if isinstance(value, str) else None
