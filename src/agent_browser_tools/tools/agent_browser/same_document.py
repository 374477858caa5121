"""Direct tool, right after a snapshot: which elements are the very nodes of refs a page change
within the same document dropped?

Why: `back` between two views of one page (a pushState route, a restored page) leaves the
same document, but the engine numbers every element anew after it, and the wrapper drops the
refs a page change leaves. A model that remembers a ref from before (the field it saw first)
was refused although the element never changed. So the dropped refs are kept aside
(`SessionPageState.left`), and when the change log read just before this snapshot has their
document's token (`left_of_this_document`):

1. each element that reads exactly as one dropped ref did, and is the only one on each side
   that reads so, is a candidate (`refmap.left_candidates`);
2. the page proves each candidate the same node: the element at the engine's new ref was
   neither inserted nor changed (nor its labels) since that snapshot (`page_watch`, one
   small batch); a reading alone proves nothing (a wizard's "Continue" is a new node each
   step);
3. proven elements show their old ids (`refmap.Shown.kept`); the rest get new ones.

Cost: nothing unless the snapshot follows such a page change; then one batch for at most
`MAX_KEPT` candidates (a page of thousands keeps the first ones in document order).
"""

from __future__ import annotations

from agent_browser_tools.engine.envelope import Envelope
from agent_browser_tools.state.effects import refs_from_snapshot
from agent_browser_tools.state.models import RefSnapshot
from agent_browser_tools.state.snapshot_payload import snapshot_payload
from agent_browser_tools.tools.agent_browser import page_watch, refmap
from agent_browser_tools.tools.agent_browser.call import DirectCall
from agent_browser_tools.tools.agent_browser.helpers import helper_batch

MAX_KEPT = 200


async def kept_ids(call: DirectCall, envelope: Envelope) -> dict[str, str]:
    """Engine id -> old shown id of each element proven to be a dropped ref's node."""
    left = left_of_this_document(call)
    payload = snapshot_payload(envelope.data) if left is not None else None
    if left is None or left.epoch is None or payload is None or payload.refs is None:
        return {}
    infos = refs_from_snapshot({"refs": payload.refs}, payload.text)
    found = refmap.left_candidates(left.refs, infos)
    askable = [engine for engine in found if page_watch.askable(left.refs[found[engine]])]
    engines = sorted(askable, key=refmap.ref_number)[:MAX_KEPT]
    questions = [page_watch.Question(engine, left.refs[found[engine]]) for engine in engines]
    rows = page_watch.check_rows(left.epoch, questions)
    if rows is None:
        return {}
    answer = await helper_batch(call.rt, call.plan, rows)
    if answer is None or answer.rows is None:
        return {}
    proven = page_watch.proven_each(left.epoch, questions, answer.rows)
    return {engine: found[engine] for engine in engines if engine in proven}


def left_of_this_document(call: DirectCall) -> RefSnapshot | None:
    """The last refs of a document the session's page left, when the change log read just
    before this snapshot (`identity.begin_epoch`) is that document's."""
    if call.key is None or not call.epoch:
        return None
    return call.rt.log.state.session(call.key).left.get(call.epoch[0].token)
