"""Strict input models for the direct tool.

Unknown fields are rejected (not ignored) so that an agent using an old shape (`script`,
`job`, `semanticAction`, ...) learns the replacement instead of silently losing its intent.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from agent_browser_tools.results.validation import explain_validation_error as explain

FORMER_FIELDS = {
    "script": "use agent_browser_code { code } for JavaScript over the browser",
    "job": 'use args ["batch", "--bail"] with a JSON array of argv rows in stdin',
    "semanticAction": "enable `action` with agent_browser_tools, then call agent_browser_action",
    "qa": "enable `qa` with agent_browser_tools, then call agent_browser_qa",
    "electron": "enable `electron` with agent_browser_tools, then call agent_browser_electron",
    "sourceLookup": "enable `source` with agent_browser_tools, then call agent_browser_source",
    "networkSourceLookup": "enable `network`, then call agent_browser_network_source",
}

ARGS_EXAMPLE = 'args is a non-empty list of CLI tokens, e.g. {"args": ["snapshot", "-i"]}'
"""Appended when `args` is missing, empty or not a list: the bare pydantic message ("List
should have at least 1 item") does not tell an agent what a valid call looks like."""
ARG_EXAMPLES = {"args": ARGS_EXAMPLE}


class AgentBrowserInput(BaseModel):
    """`agent_browser` input: exact CLI args after `agent-browser`, plus wrapper options."""

    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)

    args: list[str] = Field(
        min_length=1,
        description=(
            "Exact agent-browser CLI args (no binary name, no shell operators), e.g. "
            '["open", "https://example.com"], ["snapshot", "-i"], ["click", "@e2"]. '
            "Omit --json for prose; include it for parseable JSON."
        ),
    )
    stdin: str | None = Field(
        default=None,
        description="Raw stdin, only for `eval --stdin`, `batch` and `auth save --password-stdin`.",
    )
    outputPath: str | None = Field(
        default=None,
        description="Save the result data to this file (relative to the execution dir; "
        "inside the workspace roots).",
    )
    timeoutMs: int | None = Field(
        default=None, gt=0, description="Wrapper watchdog for this call, in milliseconds."
    )
    sessionMode: Literal["auto", "fresh"] = Field(
        default="auto",
        description='"fresh" starts a new managed browser so launch flags apply.',
    )


def explain_validation_error(exc: ValidationError, tool: str, allowed: str) -> str:
    """The direct family's wording of `results.validation.explain_validation_error`.

    The registry validates tool calls itself; this stays for the executor, which still checks
    the raw params code cells and compound tools hand it.
    """
    return explain(exc, tool, allowed, FORMER_FIELDS, ARG_EXAMPLES)


def parse_input(params: Any) -> AgentBrowserInput:
    """Validate raw host params; raises `ValidationError`."""
    return AgentBrowserInput.model_validate(params)
