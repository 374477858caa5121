"""The values one direct call carries from stage to stage (see `execute.run`).

Why a value and not parameters: every post-dispatch stage needs the runtime, the plan, the
caller's request and the hooks; passing one `DirectCall` keeps the stage signatures short and
makes the order in `execute.run` the only thing to read.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from agent_browser_tools.engine.envelope import Envelope
from agent_browser_tools.engine.runner import RawOutcome
from agent_browser_tools.planning.inputs import AgentBrowserInput
from agent_browser_tools.planning.plan import ExecutionPlan
from agent_browser_tools.runtime import Runtime
from agent_browser_tools.state.models import SessionKey
from agent_browser_tools.tools.agent_browser.hooks import Hooks


@dataclass(frozen=True)
class DirectRequest:
    """A validated call: the input the engine will see (wrapper flags stripped), the caller's
    raw params (for redacted echoes), the hooks and whether the caller asked for JSON."""

    inp: AgentBrowserInput
    params: Mapping[str, Any]
    hooks: Hooks
    wants_json: bool


@dataclass(frozen=True)
class DirectCall:
    """A planned call that holds its browser identity's lock."""

    rt: Runtime
    request: DirectRequest
    plan: ExecutionPlan

    @property
    def hooks(self) -> Hooks:
        return self.request.hooks

    @property
    def key(self) -> SessionKey | None:
        return self.plan.session.key

    @property
    def output_path(self) -> str | None:
        return self.request.inp.outputPath

    @property
    def ref_base(self) -> int:
        """Engine ref `eN` is shown as `e(N + ref_base)` for this session (see `refmap`)."""
        if self.key is None:
            return 0
        return self.rt.log.state.ref_bases.get(self.key.label, 0)


@dataclass(frozen=True)
class Spawned:
    """What the engine answered: the journal's call id, the process facts, the envelope."""

    call_id: str
    raw: RawOutcome
    envelope: Envelope
    ref_base: int | None = None
    """Set when this answer restarted the engine's ref numbering: the session's new base."""
