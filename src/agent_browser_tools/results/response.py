"""The one builder of `ToolResult`s outside the direct tool's observation path.

Refusals, plain text answers and answers rendered from an `Observation` are all made here, so
the category fields in `details`, the category line in the text and `is_error` are decided in
one place and cannot drift from tool to tool.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from agent_browser_tools.input_limits import InputProblem, well_formed_text
from agent_browser_tools.redaction import argv_secrets, redact_argv, redact_text, scrub_exact
from agent_browser_tools.results.categories import (
    FailureCategory,
    ResultCategory,
    SuccessCategory,
    category_line,
)
from agent_browser_tools.results.observation import Observation
from agent_browser_tools.results.present import render_json, render_prose
from agent_browser_tools.results.tool_result import (
    ContentBlock,
    ImageBlock,
    TextBlock,
    ToolResult,
)


def caller_wants_json(params: Mapping[str, Any]) -> bool:
    """True when the caller's own `args` end up selecting `--json` (the last one wins)."""
    args = params.get("args") if isinstance(params, Mapping) else None
    if not isinstance(args, list):
        return False
    chosen = None
    for index, token in enumerate(args):
        if token == "--json":
            nxt = args[index + 1] if index + 1 < len(args) else None
            chosen = nxt if nxt in ("true", "false") else "true"
    return chosen == "true"


def rejected(
    message: str, params: Mapping[str, Any] | None = None, *, wants_json: bool = False
) -> ToolResult:
    """A `validation-error` for a tool input refused before any planning or spawn.

    Validation messages may quote the refused argv, so they get the argv's own redaction and
    `details.args` echoes it redacted (null when the input had no argv). `wants_json` renders
    the observation as JSON, as the caller's `--json` asked.
    """
    return _refused_input(
        FailureCategory.VALIDATION_ERROR, message, params, {}, wants_json=wants_json
    )


ECHO_ARGS = 40
ECHO_CHARS = 200
"""How much of a refused argv `details.args` echoes when the input broke a generic limit."""


def input_refused(problem: InputProblem, params: object, *, wants_json: bool = False) -> ToolResult:
    """A `validation-error` for input that breaks a generic limit (`input_limits`): a NUL
    byte, a lone surrogate, absurd nesting or size. `details.inputLimit` names the limit;
    `details.args` echoes at most the first tokens, shortened, with the offending characters
    written as escapes (the raw ones are what could not be used)."""
    args = params.get("args") if isinstance(params, Mapping) else None
    echo = None
    if isinstance(args, list):
        echo = {"args": [_visible(str(token)) for token in args[:ECHO_ARGS]]}
    return _refused_input(
        FailureCategory.VALIDATION_ERROR,
        problem.message,
        echo,
        {"inputLimit": problem.details()},
        wants_json=wants_json,
    )


def _visible(token: str) -> str:
    short = token[:ECHO_CHARS] + ("…" if len(token) > ECHO_CHARS else "")
    return well_formed_text(short.replace("\x00", "\\u0000"))


def policy_blocked(
    message: str,
    params: Mapping[str, Any] | None,
    policy: Mapping[str, Any],
    *,
    wants_json: bool = False,
) -> ToolResult:
    """A `policy-blocked` refusal: the operator's policy does not let the model ask for this.

    `details.policy` says which rule, what it refused and the operator setting that allows it.
    """
    return _refused_input(
        FailureCategory.POLICY_BLOCKED,
        message,
        params,
        {"policy": dict(policy)},
        wants_json=wants_json,
    )


def _refused_input(
    category: FailureCategory,
    message: str,
    params: Mapping[str, Any] | None,
    extra: Mapping[str, Any],
    *,
    wants_json: bool,
) -> ToolResult:
    args = params.get("args") if isinstance(params, Mapping) else None
    tokens = [str(a) for a in args] if isinstance(args, list) else None
    message = scrub_exact(redact_text(message), argv_secrets(tokens or ()))
    obs = Observation(success=False, failure_category=category, error=message)
    details: dict[str, Any] = {
        "args": redact_argv(tokens) if tokens is not None else None,
        "validationError": message,
        **extra,
        **obs.to_dict(),
    }
    if category is not FailureCategory.VALIDATION_ERROR:
        details.pop("validationError")
    text = render_json(obs) if wants_json else "\n".join(render_prose(obs, ()))
    return ToolResult(content=(TextBlock(text=text),), details=details, is_error=True)


def refused(message: str, **details: Any) -> ToolResult:
    """A `validation-error` for a call refused before any tool saw it (unknown or inactive
    tool, no registry) or for input a tool cannot take at all (code over the size limit)."""
    obs = Observation(
        success=False, failure_category=FailureCategory.VALIDATION_ERROR, error=message
    )
    body = {**obs.to_dict(), "validationError": message, **details}
    return from_observation(obs, details=body)


def text(
    body: str,
    category: SuccessCategory | FailureCategory,
    details: Mapping[str, Any] | None = None,
) -> ToolResult:
    """A plain answer with no observation behind it: `body`, and for a failure the category
    line. `details` get the category fields first, then the given ones."""
    success = isinstance(category, SuccessCategory)
    result = ResultCategory.SUCCESS if success else ResultCategory.FAILURE
    kind = "successCategory" if success else "failureCategory"
    full = {"resultCategory": result.value, kind: category.value, **(details or {})}
    if not success:
        body = f"{body}\n{category_line(False, category)}"
    return ToolResult(content=(TextBlock(text=body),), details=full, is_error=not success)


def from_observation(
    obs: Observation,
    *,
    text: str | None = None,
    details: dict[str, Any] | None = None,
    images: Sequence[ImageBlock] = (),
) -> ToolResult:
    """An answer built from an observation: `text` defaults to its prose (with the category
    line), `details` to the observation itself; `is_error` always follows `obs.success`."""
    if text is None:
        text = "\n".join(part for part in render_prose(obs, ()) if part)
    content: tuple[ContentBlock, ...] = (TextBlock(text=text), *images)
    return ToolResult(
        content=content,
        details=obs.to_dict() if details is None else details,
        is_error=not obs.success,
    )


def failed_step(result: ToolResult, head: str, details: dict[str, Any]) -> ToolResult:
    """A compound tool's failure at one inner step: `head` says which step, the inner
    result's text follows, and `details` are the compound tool's own."""
    blocks: tuple[ContentBlock, ...] = (TextBlock(text=f"{head}\n{result.text}"),)
    return ToolResult(content=blocks, details=details, is_error=True)
