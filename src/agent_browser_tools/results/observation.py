"""The canonical observation: the same decision content in prose or JSON.

`{success, resultCategory, data?, error?, summary?, successCategory?, failureCategory?,
nextActions?, warnings?, ...}`. Prose and JSON renderings are both built from this one value so
they cannot disagree; `details` carries it plus audit metadata.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Annotated, Any, Final, TypedDict, get_type_hints

from agent_browser_tools.results.categories import (
    FailureCategory,
    ResultCategory,
    SuccessCategory,
)
from agent_browser_tools.results.next_actions import NextAction


class _Audience:
    """Who sees an observation key: `CELL` keys are part of the canonical observation a code
    cell's `browser()` returns; `DETAILS` keys only reach `details` (audit, rendering input)."""

    def __init__(self, name: str) -> None:
        self.name = name

    def __repr__(self) -> str:
        return self.name


CELL: Final = _Audience("cell")
DETAILS: Final = _Audience("details")

Json = dict[str, Any]


class ObservationExtras(TypedDict, total=False):
    """Every key a stage may add to an observation, each marked `CELL` or `DETAILS`.

    Why declared: a misspelt or unlisted key would otherwise vanish silently from code cells.
    """

    # direct tool: page facts and ref guards
    navigationSummary: Annotated[Json, CELL]
    navigationSettle: Annotated[Json, CELL]
    pageChangeSummary: Annotated[Json, CELL]
    readConfirmation: Annotated[Json, CELL]
    sessionTabTargetUnknown: Annotated[bool, CELL]
    webMcpCatalog: Annotated[Json, CELL]
    browserLost: Annotated[Json, CELL]
    gridBrowser: Annotated[Json, CELL]
    agentBrowserStarted: Annotated[bool, CELL]
    staleRef: Annotated[Json, CELL]
    policy: Annotated[Json, CELL]
    """A refusal after dispatch (the endpoint guard stopped a page script): rule, subject,
    allowWith, as `details.policy` of a refusal before dispatch."""
    notEditable: Annotated[Json, CELL]
    clickDispatch: Annotated[Json, CELL]
    actionEffect: Annotated[Json, CELL]
    managedSessionOutcome: Annotated[Json, CELL]
    lifecycle: Annotated[Json, CELL]
    closeAllApplied: Annotated[bool, CELL]
    browserWindow: Annotated[Json, DETAILS]
    attachedBrowserSession: Annotated[bool, CELL]
    managedSessionCwd: Annotated[str, DETAILS]
    sessionTabReopenPending: Annotated[bool, CELL]
    # batches
    batchSteps: Annotated[list[Json], CELL]
    batchFailure: Annotated[Json, CELL]
    timeoutPartialProgress: Annotated[Json, CELL]
    # artifacts and files
    artifacts: Annotated[list[Json], CELL]
    artifactVerification: Annotated[Json, CELL]
    imageObservations: Annotated[list[Json], CELL]
    imagePath: Annotated[str, CELL]
    imagePaths: Annotated[list[str], CELL]
    savedFilePath: Annotated[str, CELL]
    savedFile: Annotated[Json, CELL]
    artifactManifest: Annotated[Json, DETAILS]
    outputFile: Annotated[Json, CELL]
    recordingPersistenceWarning: Annotated[str, CELL]
    managedSessionCleanupOnlyReason: Annotated[str, CELL]
    scrubbedFiles: Annotated[list[Json], CELL]
    largeValues: Annotated[list[Json], CELL]
    # secrets: credential fields treated as such (typed values registered, reads redacted)
    redacted: Annotated[Json, CELL]
    fullOutputPath: Annotated[str, DETAILS]
    # read
    readExecution: Annotated[str, CELL]
    readSource: Annotated[Any, CELL]
    # snapshots
    snapshotDeltaRefs: Annotated[Json, CELL]
    snapshotCompaction: Annotated[Json, DETAILS]
    snapshotFilter: Annotated[Json, DETAILS]
    snapshotViewport: Annotated[Json, DETAILS]
    snapshotDiff: Annotated[Json, DETAILS]
    overlayBlockers: Annotated[Json, DETAILS]
    # selector-miss recovery
    visibleRefFallback: Annotated[Json, DETAILS]
    richInputRecovery: Annotated[Json, DETAILS]
    nameCandidateFallback: Annotated[Json, DETAILS]
    # network
    networkRequestsPageFilter: Annotated[Json, DETAILS]
    networkRouteDiagnostics: Annotated[list[Json], CELL]
    # command diagnostics (`command_followups`)
    evalStdinHint: Annotated[str, CELL]
    stateKeyHint: Annotated[str, CELL]
    selectorTextVisibility: Annotated[Json, CELL]
    # advanced tools and code cells
    semanticSelect: Annotated[Json, DETAILS]
    qaPreset: Annotated[Json, DETAILS]
    qaTargetVerification: Annotated[Json, DETAILS]
    sourceLookup: Annotated[Json, DETAILS]
    networkSourceLookup: Annotated[Json, DETAILS]
    failures: Annotated[list[Json], DETAILS]
    # web search
    provider: Annotated[str, DETAILS]
    query: Annotated[str, DETAILS]
    httpStatus: Annotated[int | None, DETAILS]


class ProcessFacts(TypedDict, total=False):
    """How the engine process ran: details only, never rendered."""

    exitCode: int | None
    timedOut: bool
    timeoutMs: int
    durationMs: float
    stderr: str
    parseError: str


def keys_for(audience: _Audience) -> frozenset[str]:
    """The `ObservationExtras` keys marked for `audience`."""
    hints = get_type_hints(ObservationExtras, include_extras=True)
    return frozenset(
        name for name, hint in hints.items() if audience in getattr(hint, "__metadata__", ())
    )


@dataclass
class Observation:
    """What one call means for the agent. Mutable while the orchestrator assembles it."""

    success: bool
    success_category: SuccessCategory | None = None
    failure_category: FailureCategory | None = None
    data: Any = None
    error: str | None = None
    summary: str | None = None
    next_actions: list[NextAction] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    extra: ObservationExtras = field(default_factory=lambda: ObservationExtras())
    process: ProcessFacts | None = None
    """Process facts of the spawned call; merged into details only."""
    context: dict[str, Any] = field(default_factory=dict)
    """Rendering hints that are not part of the observation (e.g. a compacted snapshot)."""

    @property
    def result_category(self) -> ResultCategory:
        return ResultCategory.SUCCESS if self.success else ResultCategory.FAILURE

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "success": self.success,
            "resultCategory": self.result_category.value,
        }
        if self.success and self.success_category is not None:
            out["successCategory"] = self.success_category.value
        if not self.success and self.failure_category is not None:
            out["failureCategory"] = self.failure_category.value
        if self.summary:
            out["summary"] = self.summary
        if self.data is not None:
            out["data"] = self.data
        if self.error:
            out["error"] = self.error
        if self.warnings:
            out["warnings"] = list(self.warnings)
        if self.next_actions:
            out["nextActions"] = [action.to_dict() for action in self.next_actions]
        out.update(self.extra)
        return out


def failure(category: FailureCategory, error: str, **extra: Any) -> Observation:
    extras = ObservationExtras()
    for name in keys_for(CELL) | keys_for(DETAILS):
        if name in extra:
            extras[name] = extra.pop(name)  # type: ignore[literal-required]
    if extra:
        raise TypeError(f"undeclared observation keys: {sorted(extra)}")
    return Observation(success=False, failure_category=category, error=error, extra=extras)
