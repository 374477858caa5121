"""The canonical observation: the same decision content in prose or JSON.

`{success, resultCategory, data?, error?, summary?, successCategory?, failureCategory?,
nextActions?, warnings?, ...}`. Prose and JSON renderings are both built from this one value so
they cannot disagree; `details` carries it plus audit metadata.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from agent_browser_tools.results.categories import (
    FailureCategory,
    ResultCategory,
    SuccessCategory,
)
from agent_browser_tools.results.next_actions import NextAction


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
    extra: dict[str, Any] = field(default_factory=dict)
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
    return Observation(success=False, failure_category=category, error=error, extra=dict(extra))
