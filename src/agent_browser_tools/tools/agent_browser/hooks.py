"""Extension points for tools built on the direct executor (advanced tools, code cells).

An advanced tool compiles its flat input to native argv and runs it through the same
executor as `agent_browser`, so it gets the same guards, journal and categories. `Hooks`
lets it add its own metadata and verdicts without re-implementing any of that.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from agent_browser_tools.results.snapshot.views import SnapshotFlags

if TYPE_CHECKING:
    from agent_browser_tools.planning.plan import ExecutionPlan
    from agent_browser_tools.planning.policy import WrapperGrant
    from agent_browser_tools.results.observation import Observation
    from agent_browser_tools.runtime import Runtime

PostHook = Callable[["Runtime", "ExecutionPlan", "Observation"], Awaitable[None]]


@dataclass(frozen=True)
class Hooks:
    """`post` runs inside the identity lock after the observation is built (it may spawn
    read-only helper commands through `rt.spawn`); `details` is merged into the result's
    details; `tool` names the tool in journal rows and messages."""

    tool: str = "agent_browser"
    post: PostHook | None = None
    details: Mapping[str, Any] = field(default_factory=dict)
    snapshot: SnapshotFlags | None = None
    """Wrapper-side snapshot flags (`--search`, `--search-exact`, `--filter`, `--viewport`,
    `--diff`)."""
    grant: WrapperGrant | None = None
    """The one operator-only command this wrapper-built call may run (see `WrapperGrant`)."""
    model_visible: bool = True
    """False for a code cell's inner call (the contract's `modelVisible: false`): the result
    is read as data, so no prose is rendered, nothing is spilled and no image is base64'd."""


def compiled_call(
    args: Sequence[str],
    stdin: str | None,
    *,
    session_mode: str,
    timeout_ms: int | None,
    output_path: str | None,
) -> dict[str, Any]:
    """The `agent_browser` params an advanced tool runs its compiled plan with: the caller's
    session mode, and `timeoutMs` / `outputPath` only when the caller gave them."""
    call: dict[str, Any] = {"args": list(args), "stdin": stdin, "sessionMode": session_mode}
    if timeout_ms is not None:
        call["timeoutMs"] = timeout_ms
    if output_path is not None:
        call["outputPath"] = output_path
    return call
