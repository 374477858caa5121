"""`agent_browser_code` input: the schema the tool list shows, kept light to import.

The tool itself (sandbox, bridge, presentation) lives in `run.py` and its neighbours and is
only imported when a cell runs.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

NAME = "agent_browser_code"
MAX_CODE_BYTES = 65_536
DEFAULT_TIMEOUT_MS = 120_000
MAX_TIMEOUT_MS = 300_000
FIELD_HINTS = {
    "args": "put commands inside the code as await browser({ args: [...] }), or use "
    "agent_browser for a single command",
    "stdin": "pass stdin per call inside the code: browser({ args, stdin })",
    "sessionMode": "a cell uses the session fixed by `session`/`namespace`; start a fresh "
    'managed browser first with agent_browser and sessionMode: "fresh"',
    "script": "the field is `code`",
}


class CodeInput(BaseModel):
    """`agent_browser_code` input."""

    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)

    code: str = Field(
        min_length=1,
        max_length=MAX_CODE_BYTES,
        description="Async JavaScript body.",
    )
    session: str | None = Field(
        default=None, min_length=1, description="Native session name (default: the current one)."
    )
    namespace: str | None = Field(
        default=None, description='Native namespace; "" selects the default namespace.'
    )
    timeoutMs: int = Field(
        default=DEFAULT_TIMEOUT_MS,
        gt=0,
        le=MAX_TIMEOUT_MS,
        description="Whole-cell deadline in milliseconds (default 120000, max 300000).",
    )
    outputPath: str | None = Field(
        default=None, min_length=1, description="Save the result data to this file."
    )
