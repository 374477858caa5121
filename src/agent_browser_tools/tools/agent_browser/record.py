"""Direct tool: what a call changed, written to the journal.

`effects_of` is the pure rule (plan + envelope + probe -> effects); `own_at_spawn` makes the
managed browser ours before the engine runs; `complete` adds the managed-session effects,
settles a fresh launch, journals the completion and then attaches the recovery next actions
that depend on the state the completion produced.
"""

from __future__ import annotations

from agent_browser_tools.engine.envelope import EngineFailure, Envelope, OutputMode
from agent_browser_tools.planning.plan import ExecutionPlan
from agent_browser_tools.results.observation import Observation
from agent_browser_tools.state.effects import (
    Probe,
    failure_effects,
    success_effects,
    text_mode_effects,
)
from agent_browser_tools.state.models import (
    Effect,
    ManagedSessionSelected,
    PageEpoch,
    RefInfo,
    RefsInvalidated,
    RefsRecorded,
)
from agent_browser_tools.tools.agent_browser import command_followups
from agent_browser_tools.tools.agent_browser.batches import batch_steps
from agent_browser_tools.tools.agent_browser.browser import attached_app, close_all, session_facts
from agent_browser_tools.tools.agent_browser.browser.sessions import headed_handoff, settle_fresh
from agent_browser_tools.tools.agent_browser.call import DirectCall, Spawned
from agent_browser_tools.tools.agent_browser.files import recording
from agent_browser_tools.tools.agent_browser.observe import add_recovery
from agent_browser_tools.tools.agent_browser.page import webmcp
from agent_browser_tools.tools.agent_browser.safety import browser_loss

RESTARTED = (
    "The engine launched a new browser for this call; refs from before it name nothing now. "
    "Run `snapshot -i`."
)


def _record_engine_ids(
    effects: list[Effect], spawned: Spawned, epoch: PageEpoch | None = None
) -> None:
    """Recorded refs keep the engine id behind each shown id (see `refmap`) and the page's
    change-log position read before the snapshot (`page_watch`); a browser launch retires
    older refs even when this call recorded none."""
    reverse = spawned.shown.reverse() if spawned.shown is not None else {}
    for index, effect in enumerate(effects):
        if isinstance(effect, RefsRecorded) and (reverse or epoch is not None):
            refs = effect.refs
            if reverse:
                refs = {ref: _with_engine(info, reverse.get(ref)) for ref, info in refs.items()}
            update = {"refs": refs, "epoch": None if spawned.restarted else epoch}
            effects[index] = effect.model_copy(update=update)
    if spawned.restarted and not any(
        isinstance(e, RefsRecorded | RefsInvalidated) for e in effects
    ):
        effects.append(RefsInvalidated(reason="page-transition", summary=RESTARTED))


def _with_engine(info: RefInfo, engine: str | None) -> RefInfo:
    # Built directly: `_replace` costs several times more, for every ref of a renamed page.
    return RefInfo(info[0], info[1], info[2], engine, info[4], info[5]) if engine else info


def retiring_command(plan: ExecutionPlan, envelope: Envelope) -> str | None:
    """The first dispatched command of the call that retires the session's refs whatever its
    outcome (`record start`, a URL-bearing `record restart`, WebMCP calls), else None."""
    if not plan.is_batch:
        match = plan.match
        return match.spec.name if match is not None and match.retires_refs else None
    reached = len(envelope.rows or ())
    for match in (plan.row_matches or ())[:reached]:
        if match is not None and match.retires_refs:
            return match.spec.name
    return None


def _retirement(command: str) -> RefsInvalidated:
    summary = f"`{command}` may have replaced the page; refs from before it were retired."
    return RefsInvalidated(reason="page-transition", summary=summary)


def _retired(plan: ExecutionPlan, envelope: Envelope, effects: list[Effect]) -> list[Effect]:
    command = retiring_command(plan, envelope)
    return effects if command is None else [*effects, _retirement(command)]


def page_state_warning(plan: ExecutionPlan, envelope: Envelope) -> str | None:
    """The contract's proactive `Page state:` warning for a ref-retiring attempt."""
    command = retiring_command(plan, envelope)
    if command is None:
        return None
    return (
        f"Page state: `{command}` can swap the page it acts on, so the session's refs were "
        "retired (not an observed change). Run `snapshot -i` before using refs."
    )


def effects_of(plan: ExecutionPlan, envelope: Envelope, probe: Probe | None) -> list[Effect]:
    """The state changes the engine's answer (and the probe) prove (pure)."""
    if plan.output_mode is OutputMode.TEXT:
        if plan.checked.inspection:
            return []
        text = text_mode_effects(plan.match, plan.checked.command_tokens)
        return text if plan.is_batch else _retired(plan, envelope, text)
    if not plan.is_batch:
        return _retired(plan, envelope, _single_effects(plan, envelope, probe))
    owner, launch = plan.session.ownership, plan.session.launch_flags
    effects: list[Effect] = []
    for match, row in zip(plan.row_matches or (), envelope.rows or (), strict=False):
        if row.success:
            effects += success_effects(
                match, row.command, row.result, probe=None, ownership=owner, launch_flags=launch
            )
        else:
            effects += failure_effects(match, row.command, row.error, timed_out=False, probe=None)
        if match is not None and match.retires_refs:
            effects.append(_retirement(match.spec.name))
    if envelope.failure is EngineFailure.TIMEOUT:
        effects += failure_effects(None, ("batch",), envelope.error, timed_out=True, probe=None)
    if probe is not None:
        effects += success_effects(
            None,
            ("get", "url"),
            {"url": probe.url, "title": probe.title},
            probe=None,
            ownership=None,
            launch_flags=(),
        )
    return effects


def _single_effects(plan: ExecutionPlan, envelope: Envelope, probe: Probe | None) -> list[Effect]:
    tokens = plan.checked.command_tokens
    if envelope.success:
        return success_effects(
            plan.match,
            tokens,
            envelope.data,
            probe=probe,
            ownership=plan.session.ownership,
            launch_flags=plan.session.launch_flags,
        )
    return failure_effects(
        plan.match,
        tokens,
        envelope.error,
        timed_out=envelope.failure is EngineFailure.TIMEOUT,
        probe=probe,
    )


def own_at_spawn(call: DirectCall) -> None:
    """Own the managed browser before the engine may start it, whatever the call's outcome.

    A call that launches the browser and then fails (an unreachable or blocked URL) still
    leaves a daemon and Chromium running; owning it only on success would leave them to the
    engine's idle timeout once the conversation ends.
    """
    rt, plan, key = call.rt, call.plan, call.key
    if key is None or not plan.session.used_implicit_session:
        return
    if rt.root_id == rt.conversation_id or plan.session.fresh:
        # A sub-agent shares its root's browser; only the root closes it.
        rt.owned_sessions.add(key)


async def complete(
    call: DirectCall, obs: Observation, effects: list[Effect], spawned: Spawned
) -> None:
    """A browser (or a launched desktop app) lost under the call, ownership, fresh-launch
    outcome, headed handoff, journal completion, then recovery."""
    rt, plan, key = call.rt, call.plan, call.key
    was_unknown = key is not None and rt.log.state.session(key).target_unknown
    webmcp.present(plan, obs, spawned.envelope)
    effects += recording.after_answer(call, obs, spawned)
    browser_loss.after_answer(call, obs, effects, spawned.restarted)
    await browser_loss.grid_after_answer(call, obs, effects)
    retired = page_state_warning(plan, spawned.envelope)
    if retired is not None:
        obs.warnings.append(retired)
    await attached_app.after_answer(call, obs, effects)
    effects += browser_loss.daemon_seen(call)
    managed = key is not None and obs.success and plan.session.used_implicit_session
    if managed and key is not None and rt.log.state.managed_session != key.session:
        effects.append(ManagedSessionSelected(session=key.session))
    _record_engine_ids(effects, spawned, call.epoch[0] if call.epoch else None)
    await settle_fresh(rt, plan, obs, effects)
    if plan.output_mode is OutputMode.JSON:
        headed_handoff(plan, obs, spawned.envelope)
    effects += webmcp.pending_effects(plan, spawned.envelope, was_unknown)
    await command_followups.complete(call, obs, effects)
    await session_facts.after_answer(call, obs, effects)
    if key is not None:
        rt.log.complete(spawned.call_id, key, obs.success, effects)
    unknown = key is not None and rt.log.state.session(key).target_unknown
    add_recovery(
        plan,
        obs,
        target_unknown=unknown,
        max_timeout_ms=rt.policy.max_timeout_ms,
        network_source_enabled="network" in rt.log.state.activated_tools,
    )
    if webmcp.leaves_target_unknown(plan, spawned.envelope, was_unknown):
        webmcp.pending_actions(plan, obs)
    recording.pending_followups(call, obs)
    close_all.mark(plan, obs, effects)
    batch_steps.annotate(plan, obs)
