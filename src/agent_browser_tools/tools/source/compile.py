"""`agent_browser_source` input and its compiled native batch (pure).

The lookup is local evidence only: `is visible <selector>` (the element exists and shows),
`get html <selector>` (its content, when DOM hints are on), `react tree` (component names and
fiber ids, needs a browser launched with `--enable react-devtools`) and `react inspect <id>`
for a fiber the caller named. The batch runs without `--bail`: a page without React must not
hide what the DOM steps found.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from agent_browser_tools.redaction import redact_argv
from agent_browser_tools.workspace_files import MAX_FILES_CAP

NAME = "agent_browser_source"
ALLOWED = (
    "at least one of selector, reactFiberId or componentName; optional includeDomHints, "
    "maxWorkspaceFiles, outputPath, timeoutMs and sessionMode"
)
BATCH_ARGS = ("batch",)
IDENTIFIER = re.compile(r"^[A-Za-z_$][\w$]*$")
Role = Literal["visible", "html", "tree", "inspect"]


class SourceRejected(ValueError):
    """An input the lookup cannot run; the message names the fix."""


class SourceInput(BaseModel):
    """Flat input: what to look up (selector, fiber, component) and how far to search."""

    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)

    selector: str | None = Field(
        default=None, min_length=1, description="CSS selector or current @ref of the element."
    )
    reactFiberId: int | str | None = Field(
        default=None, description="Fiber id from `react tree` (needs --enable react-devtools)."
    )
    componentName: str | None = Field(
        default=None,
        min_length=1,
        max_length=200,
        description="Component to find in the page's React tree and the workspace sources.",
    )
    includeDomHints: bool = Field(
        default=True, description="Also read the element's HTML (`get html`)."
    )
    maxWorkspaceFiles: int | None = Field(
        default=None,
        ge=1,
        le=MAX_FILES_CAP,
        description="Most .ts/.tsx/.js/.jsx files to search (default 2000, max 5000).",
    )
    outputPath: str | None = Field(default=None, description="Save the result to this file.")
    timeoutMs: int | None = Field(default=None, gt=0, description="Watchdog for the batch.")
    sessionMode: Literal["auto", "fresh"] = Field(
        default="auto", description='"fresh" runs in a new browser (it has no page yet).'
    )


@dataclass(frozen=True)
class Step:
    role: Role
    argv: tuple[str, ...]


@dataclass(frozen=True)
class CompiledSource:
    """The batch plan and the query it answers."""

    steps: tuple[Step, ...]
    selector: str | None
    fiber_id: int | None
    component: str | None
    query: dict[str, Any]

    @property
    def stdin(self) -> str:
        return json.dumps([list(step.argv) for step in self.steps])

    def details(self) -> dict[str, Any]:
        steps = [redact_argv(step.argv) for step in self.steps]
        return {
            "compiledSourceLookup": {
                "args": list(BATCH_ARGS),
                "stdin": json.dumps(steps),
                "steps": steps,
                "query": dict(self.query),
            }
        }


def compile_source(inp: SourceInput) -> CompiledSource:
    """Check the query and build its batch; raises `SourceRejected` with the fix."""
    if inp.selector is None and inp.reactFiberId is None and inp.componentName is None:
        raise SourceRejected("give at least one of selector, reactFiberId or componentName")
    fiber = _fiber_id(inp.reactFiberId)
    component = inp.componentName.strip() if inp.componentName is not None else None
    if component is not None and not IDENTIFIER.match(component):
        raise SourceRejected(
            f"componentName {component!r} is not a JavaScript identifier; use the component's "
            "name as written in code (e.g. SaveButton)"
        )
    steps: list[Step] = []
    if inp.selector is not None:
        steps.append(Step("visible", ("is", "visible", inp.selector)))
        if inp.includeDomHints:
            steps.append(Step("html", ("get", "html", inp.selector)))
    steps.append(Step("tree", ("react", "tree")))
    if fiber is not None:
        steps.append(Step("inspect", ("react", "inspect", str(fiber))))
    query = inp.model_dump(
        include={
            "selector",
            "reactFiberId",
            "componentName",
            "includeDomHints",
            "maxWorkspaceFiles",
        },
        exclude_none=True,
    )
    return CompiledSource(tuple(steps), inp.selector, fiber, component, query)


def _fiber_id(value: int | str | None) -> int | None:
    if value is None:
        return None
    text = str(value).strip()
    if not re.fullmatch(r"[0-9]{1,9}", text) or int(text) < 1:
        raise SourceRejected(
            f"reactFiberId {value!r} is not a fiber id; use a number from `react tree`"
        )
    return int(text)
