"""Direct tool, before journaling: the per-command diagnostics of a finished call.

One place for the small reads the taxonomy's `diagnostic` column asks for (route tracker and
`networkRouteDiagnostics`, `evalStdinHint`, `stateKeyHint`, `selectorTextVisibility`, idempotent
`stream enable`) and the paired stop of a long-running start. Each rule lives in its own
module; this one only orders them. Runs before the journal completion, so an idempotent
`stream enable` is journaled as the success it is and route changes are recorded with it.
"""

from __future__ import annotations

from agent_browser_tools.results import next_actions as na
from agent_browser_tools.results.observation import Observation
from agent_browser_tools.state.models import Effect
from agent_browser_tools.tools.agent_browser import command_hints
from agent_browser_tools.tools.agent_browser.call import DirectCall
from agent_browser_tools.tools.agent_browser.page import routes, selector_visibility


async def complete(call: DirectCall, obs: Observation, effects: list[Effect]) -> None:
    """Annotate `obs` and add route effects to `effects`."""
    plan, key = call.plan, call.key
    prefix = na.session_prefix(key, not plan.session.used_implicit_session)
    command_hints.stream_already_enabled(plan, obs, prefix)
    hint = command_hints.eval_stdin_hint(plan, call.request.inp.stdin, obs)
    if hint is not None:
        obs.extra["evalStdinHint"] = hint
        obs.warnings.append(hint)
    key_hint = command_hints.state_key_hint(plan, obs)
    if key_hint is not None:
        obs.extra["stateKeyHint"] = key_hint
        obs.warnings.append(key_hint)
    stop = command_hints.paired_stop_action(plan, prefix) if obs.success else None
    if stop is not None and not command_hints.has_action_args(
        obs.next_actions, stop.params["args"]
    ):
        obs.next_actions.append(stop)
    command_hints.failed_requests_filter(plan, obs, prefix)
    if key is None:
        return
    active = call.rt.log.state.session(key).routes
    effects += routes.route_effects(plan, obs, active)
    routes.diagnose(plan, obs, active, prefix)
    await selector_visibility.check(call, obs, prefix)
