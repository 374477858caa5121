"""Tool specs in the shape each model API takes, and the strict variant of a schema.

Why: a host hands `BrowserTools.tool_specs()` straight to its model API, and each API wants
its own envelope (Chat Completions nests the function, Responses is flat, Anthropic names the
schema `input_schema`). Strict function calling (OpenAI `strict: true`, the Agents SDK's
`strict_json_schema`) accepts only a subset of JSON Schema; `strict_schema` rewrites a
published schema into it without changing what a call means: every field is required, and
the optional ones accept `null`, which every tool reads as "absent".
"""

from __future__ import annotations

import copy
import json
from collections.abc import Iterable
from typing import Any, Literal

from agent_browser_tools.tools.registry import ToolSpec, nullable

SpecFlavor = Literal["generic", "anthropic", "openai", "chat", "responses"]
FLAVORS: tuple[str, ...] = ("generic", "anthropic", "openai", "chat", "responses")
"""`generic`/`anthropic`: name, description, input_schema. `openai`/`chat`: Chat Completions
`{"type": "function", "function": {...}}`. `responses`: the Responses API's flat function."""

STRICT_KEYWORDS = frozenset(
    {
        "type",
        "description",
        "properties",
        "required",
        "additionalProperties",
        "items",
        "enum",
        "const",
        "anyOf",
        "$ref",
        "$defs",
        "pattern",
        "format",
        "multipleOf",
        "maximum",
        "exclusiveMaximum",
        "minimum",
        "exclusiveMinimum",
        "minItems",
        "maxItems",
    }
)
"""The keywords OpenAI's strict mode (Structured Outputs, "supported schemas") accepts; the
others (`default`, `minLength`, `maxLength`, ...) are dropped: the tool validates them."""


def strict_schema(schema: dict[str, Any]) -> dict[str, Any]:
    """`schema` under the strict rules: every object closed (`additionalProperties: false`)
    with all its properties required, formerly optional ones accepting `null`, and no keyword
    outside `STRICT_KEYWORDS` (a dropped `default` is said in the description instead)."""
    strict: dict[str, Any] = _strict(copy.deepcopy(schema))
    return strict


NAMED_SCHEMAS = frozenset({"properties", "$defs"})
"""Keywords whose value maps names to schemas (the names are not keywords)."""


def _strict_map(node: Any) -> Any:
    if not isinstance(node, dict):
        return node
    return {name: _strict(value) for name, value in node.items()}


def _strict(node: Any) -> Any:
    if isinstance(node, list):
        return [_strict(item) for item in node]
    if not isinstance(node, dict):
        return node
    out = {
        key: _strict_map(value) if key in NAMED_SCHEMAS else _strict(value)
        for key, value in node.items()
        if key in STRICT_KEYWORDS
    }
    default = node.get("default")
    said = "default" in str(out.get("description", "")).lower()
    if default is not None and "description" in out and not said:
        out["description"] = f"{out['description']} Default: {json.dumps(default)}."
    properties = out.get("properties")
    if isinstance(properties, dict) or out.get("type") == "object":
        properties = properties if isinstance(properties, dict) else {}
        required = set(node.get("required", ()))
        out["properties"] = {
            name: prop if name in required else nullable(prop) for name, prop in properties.items()
        }
        out["required"] = list(properties)
        out["additionalProperties"] = False
    return out


def function_tools(
    specs: Iterable[ToolSpec], flavor: str = "generic", *, strict: bool = False
) -> list[dict[str, Any]]:
    """`specs` as function-tool declarations for `flavor` (see `FLAVORS`); `strict` uses
    `strict_schema` and, for the OpenAI shapes, sets `"strict": true`. Raises `ValueError`
    for an unknown flavour, listing the valid ones."""
    if flavor not in FLAVORS:
        raise ValueError(f"unknown tool spec flavour {flavor!r}; valid: {', '.join(FLAVORS)}")
    return [_declare(spec, flavor, strict) for spec in specs]


def _declare(spec: ToolSpec, flavor: str, strict: bool) -> dict[str, Any]:
    schema = strict_schema(spec.input_schema) if strict else spec.input_schema
    if flavor in ("openai", "chat"):
        function: dict[str, Any] = {
            "name": spec.name,
            "description": spec.description,
            "parameters": schema,
        }
        if strict:
            function["strict"] = True
        return {"type": "function", "function": function}
    if flavor == "responses":
        # The Responses API treats a missing `strict` as true; say it either way.
        return {
            "type": "function",
            "name": spec.name,
            "description": spec.description,
            "parameters": schema,
            "strict": strict,
        }
    return {"name": spec.name, "description": spec.description, "input_schema": schema}
