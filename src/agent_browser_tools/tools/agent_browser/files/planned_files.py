"""Direct tool: the files a call asks the engine to write, by step (pure).

Shared by the output-path checks before the dispatch (`artifacts.preflight`, `recording`) and
the verification after it (`artifacts.collect`), so both read one list.
"""

from __future__ import annotations

from agent_browser_tools.planning.plan import ExecutionPlan
from agent_browser_tools.results import artifacts as art


def planned_requests(plan: ExecutionPlan) -> list[art.ArtifactRequest]:
    """Every artifact the call's command (or each batch row, numbered from 1) requests."""
    if plan.row_matches is not None:
        requests: list[art.ArtifactRequest] = []
        for index, match in enumerate(plan.row_matches, start=1):
            requests += art.requests_for(match, step=index)
        return requests
    return art.requests_for(plan.match)
