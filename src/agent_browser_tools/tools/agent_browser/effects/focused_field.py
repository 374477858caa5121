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

The read itself (its script, its answer, the memo) is `focused_read`'s.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from agent_browser_tools.credentials.typing import key_edit
from agent_browser_tools.engine.envelope import BatchRow
from agent_browser_tools.runtime import FocusedRead
from agent_browser_tools.taxonomy import FieldEdit
from agent_browser_tools.tools.agent_browser.call import DirectCall
from agent_browser_tools.tools.agent_browser.effects.focused_read import (
    FOCUSED_JS,
    field_id,
    parse,
)


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
