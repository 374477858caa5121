"""The values one direct call carries from stage to stage (see `execute.run`).

Why a value and not parameters: every post-dispatch stage needs the runtime, the plan, the
caller's request and the hooks; passing one `DirectCall` keeps the stage signatures short and
makes the order in `execute.run` the only thing to read.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, TypeVar, cast

from agent_browser_tools.engine.envelope import Envelope
from agent_browser_tools.engine.runner import RawOutcome
from agent_browser_tools.planning.inputs import AgentBrowserInput
from agent_browser_tools.planning.plan import ExecutionPlan
from agent_browser_tools.planning.policy import PolicyBlocked
from agent_browser_tools.results.next_actions import NextAction
from agent_browser_tools.results.observation import Observation
from agent_browser_tools.results.tool_result import ImageBlock
from agent_browser_tools.runtime import Runtime
from agent_browser_tools.state.models import Effect, PageEpoch, RefInfo, SessionKey
from agent_browser_tools.tools.agent_browser.hooks import Hooks
from agent_browser_tools.tools.agent_browser.refs.page_watch import Marks
from agent_browser_tools.tools.agent_browser.refs.refmap import Shown


class Refused(Exception):
    """The call is refused before dispatch; the message says why.

    A validation error unless `policy` says the operator's policy refused it (`policy-blocked`).
    """

    def __init__(self, message: str, policy: PolicyBlocked | None = None) -> None:
        super().__init__(message)
        self.policy = policy


PartT = TypeVar("PartT")


@dataclass
class PageBefore:
    """The page a direct click starts on (`click_probe.remember_page`): whether it was
    remembered, its URL and its recorded refs (the overlay check compares them)."""

    remembered: bool = False
    url: str | None = None
    refs: Mapping[str, RefInfo] = field(default_factory=dict)


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
    checked: dict[str, bool] = field(default_factory=dict)
    """Checkbox states (engine ids) the identity re-read saw, for `check`/`uncheck`."""
    warnings: list[str] = field(default_factory=list)
    """What stages before the dispatch found that the result must say (`drift_guard`)."""
    next_actions: list[NextAction] = field(default_factory=list)
    """Recovery a stage before the dispatch offers (`drift_guard` on a blank tab)."""
    browser_lost: dict[str, Any] = field(default_factory=dict)
    """How the session's browser was found lost (`browser_loss`), for `details.browserLost`."""
    parts: dict[type[Any], Any] = field(default_factory=dict)
    """Each feature's own typed state for this call, by its type (see `part`)."""
    ref_marks: list[Marks] = field(default_factory=list)
    """Which identity-check marker each checked ref's node carried (`page_watch`): it binds
    the click probe's target without a read of its own."""
    epoch: list[PageEpoch] = field(default_factory=list)
    """The page-side change log's position read just before a snapshot (`page_watch`)."""
    refs_at_start: object = field(init=False, default=None)
    """The session's ref map (the object) when the call began: an answer repeats a large map
    only when the call changed it (`finish`)."""

    def __post_init__(self) -> None:
        key = self.plan.session.key
        snapshot = self.rt.log.state.session(key).ref_snapshot if key is not None else None
        refs = snapshot.refs if snapshot is not None else None
        object.__setattr__(self, "refs_at_start", refs)  # frozen: set once, here

    def part(self, kind: type[PartT]) -> PartT:
        """This call's state of one feature: an instance of the feature's own state class
        (a dataclass whose fields all have defaults), made on first use. A fact several
        features share is declared here (`PageBefore`), not read from another feature."""
        found = self.parts.get(kind)
        if found is None:
            found = self.parts[kind] = kind()
        return cast(PartT, found)

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
    def ref_table(self) -> Mapping[str, RefInfo]:
        """The session's latest refs by shown id, with engine ids where they differ."""
        if self.key is None:
            return {}
        snapshot = self.rt.log.state.session(self.key).ref_snapshot
        return snapshot.refs if snapshot is not None else {}


@dataclass(frozen=True)
class Spawned:
    """What the engine answered: the journal's call id, the process facts, the envelope."""

    call_id: str
    raw: RawOutcome
    envelope: Envelope
    """The answer with shown ref ids (see `refmap`)."""
    shown: Shown | None = None
    """How this answer's engine refs were shown; None for sessionless calls."""
    restarted: bool = False
    """The engine launched a browser for this call: refs from before it name nothing."""


@dataclass
class Answer:
    """What the engine answered and what the call has made of it so far: the steps after the
    dispatch (`participants`, the read-back, the journal) refine it in place, in order, and
    `finish` presents it."""

    spawned: Spawned
    obs: Observation
    effects: list[Effect] = field(default_factory=list)
    """What the call did to the page, as the journal records it (`followups.read_back`)."""
    images: list[ImageBlock] = field(default_factory=list)
    """Inline images of verified screenshots (`artifacts.collect`)."""
