"""`details.summary` for calls that did not set their own (batches and advanced tools do).

Why: the contract's observation has a one-line `summary` (`Snapshot: 1 refs on
https://example.com/`) that code and hosts can show without parsing the output. It stays in
`details` only: the visible text already says the same at more length.
"""

from __future__ import annotations

from collections.abc import Mapping

from agent_browser_tools.planning.plan import ExecutionPlan
from agent_browser_tools.results.observation import Observation
from agent_browser_tools.state.snapshot_payload import snapshot_payload


def ordinary(plan: ExecutionPlan, obs: Observation) -> str:
    """One line: the snapshot's ref count and page, the observed page change, or the
    command and its category."""
    command = " ".join(plan.path) or "agent-browser"
    if not obs.success:
        category = obs.failure_category.value if obs.failure_category else "failure"
        return f"{command} failed ({category})"
    data = obs.data if isinstance(obs.data, Mapping) else {}
    payload = snapshot_payload(data)
    produces_refs = plan.match is not None and plan.match.spec.produces_refs
    if produces_refs and payload is not None and payload.refs is not None:
        page = data.get("origin") or data.get("url") or "the current page"
        return f"Snapshot: {len(payload.refs)} refs on {page}"
    change = obs.extra.get("pageChangeSummary")
    if isinstance(change, Mapping) and isinstance(change.get("summary"), str):
        return str(change["summary"])
    category = obs.success_category.value if obs.success_category else "completed"
    return f"{command}: {category}"
