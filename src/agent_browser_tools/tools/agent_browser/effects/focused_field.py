"""Direct tool: the focused field, read in the page before and after a call types into it.

Why: `press` and `keyboard type` type into whatever has focus, and the snapshot does not say
whether that is a password field, nor what it holds. `secret_fields` reads it (one `eval`)
before such a call, to register the value the keys should give it. This module also reads it
after the call, as one more row of the post-action batch that runs anyway (`followups`), for
two reasons:

- what the field really holds is then known, not only predicted: a key that changed nothing
  (a full field, a key the page cancels, an input filter) leaves a value the prediction did
  not name, and it is registered now (`SecretStore.track_field`);
- the next typing call on the same browser can use this read instead of its own when no
  engine call ran in between (`remembered`): a password pressed key by key then costs two
  engine calls per key (the press and the post-action batch), not three.

The read names the element (its document's URL without the fragment and its place in the
tree, through shadow roots and frames), so each field's values are tracked apart. The value
travels as code points, so scrubbing the read's own output cannot replace the value the call
extends.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from agent_browser_tools.credentials.fields import ATTRIBUTES, FieldRead
from agent_browser_tools.credentials.typing import key_edit
from agent_browser_tools.engine.envelope import BatchRow
from agent_browser_tools.runtime import FocusedRead
from agent_browser_tools.state.models import SessionKey
from agent_browser_tools.taxonomy import FieldEdit
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


def post_rows(call: DirectCall) -> list[list[str]]:
    """The read-after row for the post-action batch of a call that typed into the focused
    element (`press` of an editing key, `keyboard type`), else none."""
    match = call.plan.match
    if call.plan.is_batch or match is None or call.key is None:
        return []
    rule = match.spec.field_value
    if rule is None or rule.target is not None or rule.text is None:
        return []
    if rule.edit is FieldEdit.KEY and not _edits(match.operands, rule.text):
        return []
    return [["eval", FOCUSED_JS]]


def take(call: DirectCall, answered: Sequence[BatchRow]) -> None:
    """Register what a credential field holds after the call, and remember the read for the
    next call (only on the wrapper's own browsers: a session someone else may drive can have
    changed before the next call)."""
    row = answered[0] if answered else None
    result = row.result if row is not None and row.success else None
    read = parse(result) if isinstance(result, Mapping) else None
    key = call.key
    if read is None or key is None:
        return
    if read.credential is not None and read.value is not None:
        call.rt.secrets.track_field(field_id(key, read), read=read.value)
    if not call.rt.caller_owned(key):
        call.rt.focused = FocusedRead(key, call.rt.spawns, read)


def _edits(operands: Sequence[str], index: int) -> bool:
    return len(operands) > index and key_edit(operands[index]) is not None


def _text(value: object) -> str | None:
    return value if isinstance(value, str) else None
