"""One explanation of a refused tool input, worded per tool.

Every tool rejects unknown fields instead of ignoring them, so the message names each problem
and its fix: `hints` say what replaced a field an agent may still send, `examples` show a valid
value for a field that is missing or wrong.
"""

from __future__ import annotations

from collections.abc import Mapping

from pydantic import BaseModel, ValidationError


def field_list(model: type[BaseModel]) -> str:
    """The model's fields as prose (`a, b and c`), for "accepts only ..."."""
    names = list(model.model_fields)
    if len(names) < 2:
        return "".join(names)
    return f"{', '.join(names[:-1])} and {names[-1]}"


def explain_validation_error(
    exc: ValidationError,
    tool: str,
    allowed: str,
    hints: Mapping[str, str] | None = None,
    examples: Mapping[str, str] | None = None,
) -> str:
    """One readable message for a rejected input, naming the fix for each problem."""
    hints = hints or {}
    examples = examples or {}
    problems: list[str] = []
    for error in exc.errors():
        location = ".".join(str(part) for part in error["loc"]) or "input"
        if error["type"] == "extra_forbidden":
            hint = hints.get(str(error["loc"][0]))
            problems.append(f"unknown field `{location}`" + (f" ({hint})" if hint else ""))
            continue
        example = examples.get(location)
        suffix = f" ({example})" if example else ""
        if error["type"] == "missing":
            problems.append(f"missing required field `{location}`{suffix}")
        else:
            problems.append(f"`{location}`: {error['msg']}{suffix}")
    return f"{tool} input rejected: {'; '.join(problems)}. {tool} accepts only {allowed}."
