"""The one helper batch before the dispatch, built around the identity check.

Why one batch: every engine process costs a few milliseconds before it does anything, and
every extra row in a batch about one more. So the features that read or prepare the page
before the action share the identity check's batch, in this order:

1. the check's page script (`page_watch`: it numbers each ref's candidates with a marker);
2. the click probe's install and the settle watcher's arming (`click_probe`, `nav_settle`);
   these scripts run in the same `eval` as the check's (`eval_merge`);
3. the marker each used ref's node carries (`get attr @ref`, resolved as the action will be),
   and the click probe's own marker read when the check's markers cannot bind its target;
4. the markers' removal, unless the click probe holds them until it is collected after the
   click (a ref target is then bound by the marker its node carries: no read of its own);
5. the credential-field reads (`secret_fields`).

A ref click is then two rows (one `eval`, one `get attr`) in one process before the click.
"""

from __future__ import annotations

from collections.abc import Sequence

from agent_browser_tools.engine.envelope import BatchRow
from agent_browser_tools.tools.agent_browser.call import DirectCall
from agent_browser_tools.tools.agent_browser.helpers import helper_batch
from agent_browser_tools.tools.agent_browser.named_rows import NamedRows
from agent_browser_tools.tools.agent_browser.page import click_probe
from agent_browser_tools.tools.agent_browser.refs import identity, page_watch
from agent_browser_tools.tools.agent_browser.safety import secret_fields


def batch(call: DirectCall) -> identity.Batch | None:
    """The runner of the shared batch, or None when nothing rides along (the identity check
    then runs its rows alone)."""
    riders = secret_fields.pre_rows(call)
    probed = click_probe.will_install(call)
    if not riders and not probed:
        return None

    async def run(check: page_watch.Check) -> Sequence[BatchRow]:
        probe = click_probe.install_rows(call, check) if probed else None
        rows = NamedRows()
        rows.add("check", [check.script])
        rows.add("probe", probe.scripts if probe is not None else [])
        rows.add("reads", check.reads)
        rows.add("probe-reads", probe.reads if probe is not None else [])
        held = probe is not None and probe.holds_marks
        rows.add("unmark", [] if held else [["eval", page_watch.UNMARK_JS]])
        rows.add("secrets", riders)
        envelope = await helper_batch(call.rt, call.plan, rows.rows)
        answers = rows.answers((envelope.rows or ()) if envelope is not None else ())
        if probe is not None:
            click_probe.take_install(call, probe, answers["probe"], answers["probe-reads"])
        if riders and len(answers["secrets"]) == len(riders):
            secret_fields.take_pre(call, answers["secrets"])
        return (*answers["check"], *answers["reads"])

    return run
