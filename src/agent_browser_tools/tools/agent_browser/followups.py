"""Direct tool, after the engine answered: the read-backs that complete an observation.

`read_back` runs the post-action probe (at most one extra engine call: the settle wait, then
url + title in one batch), decides the call's effects, annotates the page change, and
completes snapshots (compaction, wrapper views, complete refs for a native delta).
Nothing here re-enters the executor.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from agent_browser_tools.engine.envelope import BatchRow, EngineFailure, Envelope, OutputMode
from agent_browser_tools.planning.plan import ExecutionPlan
from agent_browser_tools.redaction import redact_text, redact_url
from agent_browser_tools.results.categories import FailureCategory
from agent_browser_tools.results.observation import Observation
from agent_browser_tools.state.effects import Probe
from agent_browser_tools.state.journal import scrub_effect
from agent_browser_tools.state.models import Effect
from agent_browser_tools.taxonomy import PageEffect
from agent_browser_tools.tools.agent_browser import record, widgets
from agent_browser_tools.tools.agent_browser.call import DirectCall, Spawned
from agent_browser_tools.tools.agent_browser.confirm import confirmations
from agent_browser_tools.tools.agent_browser.confirm.confirm_gate import confirmation_gated
from agent_browser_tools.tools.agent_browser.effects import action_readback
from agent_browser_tools.tools.agent_browser.helpers import helper_batch
from agent_browser_tools.tools.agent_browser.named_rows import Answers, NamedRows
from agent_browser_tools.tools.agent_browser.page import click_probe, nav_settle, page_change
from agent_browser_tools.tools.agent_browser.page import snapshot as snapshot_flow
from agent_browser_tools.tools.agent_browser.participants import POST_READERS


async def read_back(call: DirectCall, obs: Observation, spawned: Spawned) -> list[Effect]:
    """Confirmation outcome, probe, effects (scrubbed), page-change summary and snapshot
    completion, in that order.

    Effects are scrubbed now, not only when journaled: summaries built from them quote URLs.
    """
    plan, rt, envelope = call.plan, call.rt, spawned.envelope
    prior = rt.log.state.session(call.key) if call.key is not None else None
    gate = confirmations.settle(plan, prior, obs, envelope)
    pending = obs.failure_category is FailureCategory.CONFIRMATION_REQUIRED
    # An approved `close` ended the session: a probe would start a new browser (0.41 launches
    # one for any page command on a closed session).
    quiet = pending or gate.closed
    probe = await run_probe(call, obs) if wants_probe(plan, envelope) and not quiet else None
    nav_settle.report(call, obs)
    changed = page_change.title_changed(prior, probe)
    mutations = click_probe.judge(call, obs, title_changed=changed)
    if not pending:
        action_readback.judge(call, obs)
        # A widget's way out that clicked re-reads where the page is: effects and the page
        # line then say so (an option or calendar control may be a link).
        probe = await widgets.settle(call, obs) or probe
    effects = [] if pending else [scrub_effect(e) for e in record.effects_of(plan, envelope, probe)]
    page_change.annotate(plan, obs, prior, probe, effects, dom_mutations=mutations)
    action_readback.conclude(call, obs)
    if plan.path == ("snapshot",) and obs.success and plan.output_mode is OutputMode.JSON:
        snapshot_flow.compact(rt, obs, interactive=snapshot_flow.interactive(plan))
        if call.hooks.snapshot is not None:
            previous = prior.ref_snapshot.refs if prior and prior.ref_snapshot else None
            await snapshot_flow.apply_views(rt, plan, obs, call.hooks.snapshot, previous)
    if call.key is not None and plan.output_mode is OutputMode.JSON and not pending:
        delta_effects = await snapshot_flow.complete_delta(rt, plan, obs, envelope, spawned.shown)
        effects += [scrub_effect(e) for e in delta_effects]
    return effects + [scrub_effect(e) for e in confirmations.conclude(gate, plan, obs)]


def wants_probe(plan: ExecutionPlan, envelope: Envelope) -> bool:
    """Whether the call gets the post-action url/title probe (pure)."""
    if plan.output_mode is not OutputMode.JSON or plan.session.key is None:
        return False
    if envelope.failure in (EngineFailure.TIMEOUT, EngineFailure.MISSING_BINARY):
        return False
    if plan.is_batch:
        reached = [m for m, _ in zip(plan.row_matches or (), envelope.rows or (), strict=False)]
        return any(
            m is not None and (m.spec.navigation_summary or m.spec.failure_probe) for m in reached
        )
    spec = plan.match.spec if plan.match is not None else None
    if spec is None:
        return False
    if envelope.success:
        # Anything that may navigate (keys, taps, locator clicks, evals) is probed too: an
        # unobserved navigation would let old refs pass the stale-ref guard on the new page.
        # Element actions are read back in the same batch (`action_readback`).
        may_navigate = spec.navigation_summary or spec.page_effect is PageEffect.MAY_NAVIGATE
        return may_navigate or action_readback.applies(plan)
    return spec.failure_probe


async def run_probe(call: DirectCall, obs: Observation) -> Probe | None:
    """One extra engine call: the settle check when the action may have navigated (see
    `nav_settle`; a second call only while a navigation is still on its way), `get url` and
    the title in a single fail-fast batch (and the click probe's collection, see
    `click_probe`, the element read-back, see `action_readback`, and the focused field after
    typing into it, see `focused_field`). Each reader gets its own named rows' answers."""
    lead = nav_settle.rows(call, obs, quick=True)
    answered = await _probe_batch(call, lead)
    if lead and answered is not None and nav_settle.pending(call, answered["settle"]):
        _take_consumed(call, answered)
        lead = nav_settle.rows(call, obs)
        answered = await _probe_batch(call, lead)
    if lead and answered is not None and not nav_settle.take(call, answered["settle"]):
        lead = []  # the wait failed (the page went away mid-check): read the page once more
        answered = await _probe_batch(call, lead)
    if answered is None:
        return None
    for reader in POST_READERS:
        reader.take(call, answered[reader.name])
    url = title = None
    for row in answered["page"]:
        if row.success and isinstance(row.result, Mapping):
            url = url or _str(row.result.get("url"))
            said = row.result.get("result") if row.command[:1] == ("eval",) else None
            title = title or _str(row.result.get("title")) or _str(said)
    if not url:
        return None
    return Probe(url=redact_url(url), title=redact_text(title) if title else None)


TITLE_JS = "document.title"
"""The title read as one more page script (what the engine's `get title` reads, without a
batch row of its own); `get title` where page scripts may be gated (`confirm_gate`)."""


def _probe_rows(call: DirectCall, lead: list[list[str]]) -> NamedRows:
    """The probe batch's rows by reader, in the order the answer lists them: the settle wait,
    the page's url and title, then each participant's (`participants.POST_READERS`)."""
    title = ["get", "title"] if confirmation_gated(call) else ["eval", TITLE_JS]
    batch = NamedRows()
    batch.add("settle", lead)
    batch.add("page", [["get", "url"], title])
    for reader in POST_READERS:
        batch.add(reader.name, reader.rows(call))
    return batch


def _take_consumed(call: DirectCall, answered: Answers) -> None:
    """Before the batch is sent again: keep what rows that removed themselves answered."""
    for reader in POST_READERS:
        if reader.consumes:
            reader.take(call, answered[reader.name])


async def _probe_batch(
    call: DirectCall, lead: list[list[str]], *, ask_url: bool | None = None
) -> dict[str, tuple[BatchRow, ...]] | None:
    """The probe batch, answered per named group (`_probe_rows`). The engine runs the page
    scripts last, side by side (one `eval`: `eval_merge`), after the settle wait and the url
    read. Without a wait the url comes with the scripts' answer (`_scripts_only`); `ask_url`
    sends its row all the same. None when the batch could not run."""
    batch = _probe_rows(call, lead)
    rows, url_at = batch.rows, batch.start("page")
    scripted = ask_url is None and not confirmation_gated(call) and _scripts_only(lead)
    order = [i for i in _order(rows, lead) if not (scripted and i == url_at)]
    envelope = await helper_batch(call.rt, call.plan, [rows[i] for i in order], bail=True)
    if envelope is None or envelope.rows is None:
        return None
    at = {sent: answered for sent, answered in zip(order, envelope.rows, strict=False)}
    if scripted:
        origin = _origin(at.get(url_at + 1))
        if origin is None:  # the scripts did not run: read the url as a row of its own
            ran = [
                at.get(i) or BatchRow(tuple(row), False, None, NOT_RUN)
                for i, row in enumerate(rows)
            ]
            _take_consumed(call, batch.answers(ran))
            return await _probe_batch(call, lead, ask_url=True)
        at[url_at] = BatchRow(("get", "url"), True, {"url": origin}, None)
    kept = [at.get(i) or BatchRow(tuple(row), False, None, NOT_RUN) for i, row in enumerate(rows)]
    return batch.answers(kept)


def _scripts_only(lead: Sequence[Sequence[str]]) -> bool:
    """No wait leads the batch: the page scripts run right after the action, and the
    engine's answer to them names the page they ran on (`origin`), so `get url` needs no
    row of its own (after a wait the url is read where the wait ended)."""
    return all(row[0] == "eval" for row in lead)


def _origin(row: BatchRow | None) -> str | None:
    """The page url the engine gives with a page script's answer (the merged title read)."""
    if row is None or not row.success or not isinstance(row.result, Mapping):
        return None
    return _str(row.result.get("origin"))


NOT_RUN = "not run: the probe batch stopped at an earlier failure"


def _order(rows: Sequence[Sequence[str]], lead: Sequence[Sequence[str]]) -> list[int]:
    """The order the engine runs the probe rows in: the settle wait and `get url` first
    (and `get title` where scripts may be gated), then every page script (side by side, as
    one `eval`), then the element reads, which may fail (a field that went away) and so stop
    the batch without costing the others."""
    head = len(lead) + 2
    first = [i for i in range(head) if rows[i][0] != "eval"]
    scripts = [i for i, row in enumerate(rows) if row[0] == "eval"]
    reads = [i for i in range(head, len(rows)) if rows[i][0] != "eval"]
    return first + scripts + reads


def _str(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None
