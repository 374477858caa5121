"""OpenAI's strict-schema rules and the Agents SDK's strict conversion, as test helpers.

`strict_violations` encodes the documented rules of strict function calling (Structured
Outputs, "Supported schemas"): the root is an object, not an `anyOf`; every object has
`additionalProperties: false` and lists every property in `required`; only the supported
keywords appear; at most 10 levels of nesting, 5000 properties and 1000 enum values.

`agents_sdk_strict` reproduces what the OpenAI Agents SDK's `ensure_strict_json_schema` does
to a tool schema under `convert_schemas_to_strict=True` / `strict_json_schema=True`, from its
documented behaviour (objects closed, every property required, `default: null` dropped,
`properties`/`items`/`anyOf`/`$defs` walked): the package is not a dependency here, so the
conversion is checked against this reproduction.
"""

from __future__ import annotations

import copy
from typing import Any

SUPPORTED = frozenset(
    {
        "type",
        "description",
        "title",
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
MAX_DEPTH = 10
MAX_PROPERTIES = 5000
MAX_ENUM_VALUES = 1000


def strict_violations(schema: dict[str, Any]) -> list[str]:
    """Every broken strict rule in `schema`, as `path: rule` lines (empty: it passes)."""
    problems: list[str] = []
    if schema.get("type") != "object" or "anyOf" in schema:
        problems.append("$: the root must be an object, not anyOf")
    counts = {"properties": 0, "enum": 0}
    _walk(schema, "$", 1, problems, counts)
    if counts["properties"] > MAX_PROPERTIES:
        problems.append(f"$: more than {MAX_PROPERTIES} properties")
    if counts["enum"] > MAX_ENUM_VALUES:
        problems.append(f"$: more than {MAX_ENUM_VALUES} enum values")
    return problems


def _walk(
    node: dict[str, Any], path: str, depth: int, problems: list[str], counts: dict[str, int]
) -> None:
    if depth > MAX_DEPTH:
        problems.append(f"{path}: nested deeper than {MAX_DEPTH}")
    for key in node:
        if key not in SUPPORTED:
            problems.append(f"{path}: unsupported keyword {key!r}")
    counts["enum"] += len(node.get("enum", ()))
    kinds = node.get("type")
    if kinds == "object" or (isinstance(kinds, list) and "object" in kinds):
        properties: dict[str, Any] = node.get("properties", {})
        counts["properties"] += len(properties)
        if node.get("additionalProperties") is not False:
            problems.append(f"{path}: additionalProperties must be false")
        if sorted(node.get("required", [])) != sorted(properties):
            problems.append(f"{path}: every property must be in required")
        for name, prop in properties.items():
            _walk(prop, f"{path}.{name}", depth + 1, problems, counts)
    if isinstance(node.get("items"), dict):
        _walk(node["items"], f"{path}[]", depth + 1, problems, counts)
    for n, option in enumerate(node.get("anyOf", ())):
        _walk(option, f"{path}|{n}", depth, problems, counts)
    for name, definition in node.get("$defs", {}).items():
        _walk(definition, f"$defs.{name}", 1, problems, counts)


def agents_sdk_strict(schema: dict[str, Any]) -> dict[str, Any]:
    """`schema` as the Agents SDK's strict conversion leaves it (see the module docstring)."""
    converted: dict[str, Any] = _sdk(copy.deepcopy(schema))
    return converted


def _sdk(node: Any) -> Any:
    if not isinstance(node, dict):
        return node
    if node.get("type") == "object" and "additionalProperties" not in node:
        node["additionalProperties"] = False
    if node.get("additionalProperties") is True:
        raise ValueError("additionalProperties must not be true in a strict schema")
    properties = node.get("properties")
    if isinstance(properties, dict):
        node["required"] = list(properties)
        node["properties"] = {name: _sdk(prop) for name, prop in properties.items()}
    if isinstance(node.get("items"), dict):
        node["items"] = _sdk(node["items"])
    if isinstance(node.get("anyOf"), list):
        node["anyOf"] = [_sdk(option) for option in node["anyOf"]]
    if isinstance(node.get("$defs"), dict):
        node["$defs"] = {name: _sdk(value) for name, value in node["$defs"].items()}
    if "default" in node and node["default"] is None:
        del node["default"]
    return node


def accepts_null(prop: dict[str, Any]) -> bool:
    """Whether a property schema lets `null` through (a type list, an enum or an anyOf)."""
    kinds = prop.get("type")
    typed = kinds == "null" or (isinstance(kinds, list) and "null" in kinds)
    if "anyOf" in prop:
        typed = any(accepts_null(option) for option in prop["anyOf"])
    if "enum" in prop and None not in prop["enum"]:
        return False
    return typed
