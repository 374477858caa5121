"""The tool registry: every tool declared as data, and which ones a conversation sees.

Always-on: `agent_browser`, `agent_browser_code`, `agent_browser_tools`, plus
`agent_browser_web_search` when a credential resolves. Advanced tools are registered inactive
and listed once enabled through `agent_browser_tools`. A host allowlist (`--tools`) is honoured:
excluded tools are reported unavailable and can never be enabled or called around it.

`Toolkit.call` is the one gate every call passes: unknown, excluded, inactive and unimplemented
tools are refused there, and the input is validated there once, so a handler only ever gets
its own typed input model. Input no tool can use (a NUL byte, a lone surrogate, absurd nesting
or size: `input_limits`) is refused before the model sees it. Nothing raises out of it: an
exception a tool did not handle is logged with its traceback and answered as an `aborted`
result (`details.internalError`), and every answer leaves well-formed (`ToolResult.well_formed`)
and within the message budget (one rule for every host, the Python API included).
"""

from __future__ import annotations

import importlib
import logging
from collections.abc import Awaitable, Callable, Iterable, Mapping
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ValidationError

from agent_browser_tools.grid_errors import GridUnavailable
from agent_browser_tools.input_limits import input_problem
from agent_browser_tools.planning.policy import PolicyBlocked, check_timeout
from agent_browser_tools.results import response
from agent_browser_tools.results.bounds import spill_bytes
from agent_browser_tools.results.categories import FailureCategory
from agent_browser_tools.results.message_budget import fit_message
from agent_browser_tools.results.tool_result import ToolResult
from agent_browser_tools.results.validation import explain_validation_error, field_list
from agent_browser_tools.state.sqlite_journal import JournalWriteError

if TYPE_CHECKING:
    from agent_browser_tools.runtime import Runtime

logger = logging.getLogger(__name__)

Handler = Callable[["Runtime", Any], Awaitable[ToolResult]]
"""`async (rt, inp) -> ToolResult`, where `inp` is an instance of the spec's `input_model`."""


def compact_schema(model: type[BaseModel]) -> dict[str, Any]:
    """The model's JSON schema, trimmed of what costs tokens on every turn but says nothing
    (decorative `title`s, `default: null`, a `default` its description already says), with
    every optional field also accepting `null`.

    Why null: strict function calling (OpenAI `strict`, the Agents SDK's
    `convert_schemas_to_strict`) makes every field required, so a model must send *something*
    for an option it does not want; `null` is the one value every tool reads as "absent"
    (`ToolSpec.call` drops it), where a made-up `""` or `0` would be refused or misread."""

    def strip(node: Any) -> Any:
        if isinstance(node, list):
            return [strip(item) for item in node]
        if not isinstance(node, dict):
            return node
        out = {k: strip(v) for k, v in node.items() if not (k == "title" and isinstance(v, str))}
        options = out.get("anyOf")
        if isinstance(options, list) and {"type": "null"} in options and len(options) == 2:
            (kept,) = [o for o in options if o != {"type": "null"}]
            del out["anyOf"]
            out = {**kept, **out}
            if out.get("default", 0) is None:
                del out["default"]
        if "default" in out and "default" in str(out.get("description", "")).lower():
            del out["default"]  # the description already says it
        properties = out.get("properties")
        if isinstance(properties, dict):
            required = set(out.get("required", ()))
            for name, prop in properties.items():
                if name not in required:
                    properties[name] = nullable(prop)
        return out

    schema: dict[str, Any] = strip(model.model_json_schema())
    schema.pop("description", None)  # the tool's own description says it; don't pay twice
    return schema


def nullable(node: dict[str, Any]) -> dict[str, Any]:
    """`node` also accepting `null`: `type: [T, "null"]` (and `null` in an `enum`/`const`)
    where it has one simple type, else an `anyOf` with a null branch."""
    out = dict(node)
    kind = out.get("type")
    options = out.get("anyOf")
    if isinstance(options, list):
        if {"type": "null"} not in options:
            out["anyOf"] = [*options, {"type": "null"}]
        return out
    if isinstance(kind, list):
        out["type"] = kind if "null" in kind else [*kind, "null"]
    elif isinstance(kind, str):
        out["type"] = kind if kind == "null" else [kind, "null"]
    else:
        return {"anyOf": [out, {"type": "null"}]}
    if "const" in out:
        out["enum"] = [out.pop("const")]
    if isinstance(out.get("enum"), list) and None not in out["enum"]:
        out["enum"] = [*out["enum"], None]
    return out


def absent_nulls(params: Mapping[str, Any]) -> dict[str, Any]:
    """`params` without its `null` fields: every tool reads `null` as "not given", the value
    strict function calling sends for an option the model does not want."""
    return {key: value for key, value in params.items() if value is not None}


@dataclass(frozen=True, kw_only=True)
class ToolSpec:
    """One tool, declared once: what hosts list, how it is gated, validated and run.

    `handler` may be given as `"package.module:function"`: it is imported on first use, so
    listing tools (what an MCP client does at start) does not load every tool's machinery.
    The `*_hint` fields become MCP tool annotations; they describe, they do not enforce.
    """

    name: str
    title: str
    summary: str
    """A few words on when to use the tool (the README's "When" column)."""
    description: str
    input_model: type[BaseModel]
    handler: Handler | str | None
    capability: str | None = None
    """None: always on; else the name `agent_browser_tools {"enable": [...]}` takes."""
    read_only_hint: bool
    destructive_hint: bool
    open_world_hint: bool
    idempotent_hint: bool | None = None
    unavailable_reason: str | None = None
    listed_when: str | None = None
    """A condition the catalog puts on listing an always-on tool, said for the docs."""
    allowed: str | None = None
    """The fields named in "accepts only ..."; None: the input model's fields."""
    field_hints: Mapping[str, str] = field(default_factory=dict)
    """Unknown field -> what replaced it (agents still send old shapes)."""
    field_examples: Mapping[str, str] = field(default_factory=dict)
    """Field -> a valid example, added when that field is missing or wrong."""

    @cached_property
    def input_schema(self) -> dict[str, Any]:
        return compact_schema(self.input_model)

    @property
    def implemented(self) -> bool:
        return self.handler is not None

    @property
    def always_on(self) -> bool:
        return self.capability is None

    def load_handler(self) -> Handler | None:
        """The handler, importing a lazy `"module:function"` on first use."""
        if not isinstance(self.handler, str):
            return self.handler
        module, _, attr = self.handler.partition(":")
        loaded: Handler = getattr(importlib.import_module(module), attr)
        return loaded

    async def call(self, rt: Runtime, params: Mapping[str, Any]) -> ToolResult:
        """Validate `params` once against the input model (a `null` field counts as absent),
        then run the handler with it. Input that breaks a generic limit is refused first."""
        # A caller's own `--json` only counts for tools whose input is argv.
        wants_json = "args" in self.input_model.model_fields and response.caller_wants_json(params)
        problem = input_problem(params)
        if problem is not None:
            return response.input_refused(problem, params, wants_json=wants_json)
        params = absent_nulls(params)
        try:
            inp = self.input_model.model_validate(params)
        except ValidationError as exc:
            allowed = self.allowed or field_list(self.input_model)
            message = explain_validation_error(
                exc, self.name, allowed, self.field_hints, self.field_examples
            )
            return response.rejected(message, params, wants_json=wants_json)
        timeout_ms = getattr(inp, "timeoutMs", None)
        if isinstance(timeout_ms, int):
            try:
                check_timeout(timeout_ms, rt.policy)
            except PolicyBlocked as exc:
                return response.policy_blocked(str(exc), params, exc.as_details())
        handler = self.load_handler()
        if handler is None:
            return response.refused(f"{self.name} is {self.unavailable_reason}.")
        try:
            return await handler(rt, inp)
        except JournalWriteError as exc:
            return journal_write_failed(self.name, exc)
        except GridUnavailable as exc:
            return grid_unavailable(self.name, exc)


def enable_action(spec: ToolSpec) -> dict[str, Any]:
    """The exact call that activates an inactive tool: advice the model can execute instead of
    prose it must turn into a payload."""
    return {
        "tool": "agent_browser_tools",
        "id": f"enable-{spec.capability}",
        "reason": f"{spec.name} is inactive; activate its capability, then repeat the call.",
        "params": {"enable": [spec.capability]},
    }


def internal_error(tool: str) -> ToolResult:
    """The answer to an exception no tool handled: a stable category, a short message and no
    internals (the traceback is in the server's log)."""
    message = (
        f"{tool} stopped on an internal error of agent-browser-tools (logged on the server); "
        "whether it changed anything before stopping is unknown. Check the browser (get url, "
        "then snapshot -i) before repeating the call."
    )
    details = {"error": message, "internalError": True}
    return response.text(f"Error: {message}", FailureCategory.ABORTED, details)


def grid_unavailable(tool: str, exc: GridUnavailable) -> ToolResult:
    """A call the operator's Selenium Grid gave no browser (the direct tool says more, with
    the calls that free a slot): a full grid is a `timeout`, any other refusal an
    `upstream-error`."""
    message = f"{tool} got no browser, so its browser step did not run: {exc}."
    category = FailureCategory.TIMEOUT if exc.full else FailureCategory.UPSTREAM_ERROR
    category = FailureCategory.POLICY_BLOCKED if exc.limited else category
    details = {"error": message, "gridBrowser": {"full": exc.full, "limited": exc.limited}}
    return response.text(f"Error: {message}", category, details)


def journal_write_failed(tool: str, exc: JournalWriteError) -> ToolResult:
    """A call whose journal write failed: an `aborted` result, never an exception.

    Before the dispatch (intent) nothing ran; after it (completion) the browser acted but the
    outcome is not recorded, so the page must be checked before anything relies on it."""
    if exc.kind == "intent":
        what = f"{tool} did not run: {exc}."
    else:
        what = f"{tool} ran, but its outcome was not recorded: {exc}. Check the page (get url)."
    message = f"{what} Free space in the state dir (or fix it), then retry."
    details = {"error": message, "journalWriteFailed": exc.kind}
    return response.text(f"Error: {message}", FailureCategory.ABORTED, details)


@dataclass
class Toolkit:
    """The declared tools and this conversation's active set."""

    specs: dict[str, ToolSpec]
    allowlist: frozenset[str] | None = None
    activated: set[str] = field(default_factory=set)

    def allowed(self, name: str) -> bool:
        return self.allowlist is None or name in self.allowlist

    def is_listed(self, spec: ToolSpec) -> bool:
        """Visible to the model now: allowed, and always-on or enabled."""
        if not self.allowed(spec.name):
            return False
        return spec.always_on or (spec.capability in self.activated)

    def listed(self) -> list[ToolSpec]:
        return [spec for spec in self.specs.values() if self.is_listed(spec)]

    def by_capability(self, capability: str) -> ToolSpec | None:
        return next((s for s in self.specs.values() if s.capability == capability), None)

    async def call(self, rt: Runtime, name: str, params: Any) -> ToolResult:
        """Run one tool call; problems come back as `validation-error` results, never raise.

        Every answer leaves scrubbed of the conversation's secret values (`Runtime.secrets`),
        whichever tool built it, well-formed, and within the message budget
        (`results.message_budget`): what does not fit goes to the conversation's spill dir and
        is named. An exception no tool handled is logged and answered as `internal_error`
        (cancellation still propagates)."""
        try:
            result = rt.scrub_result(await self._call(rt, name, params))
        except Exception:
            logger.exception("tool call %s raised", name)
            result = internal_error(name)

        def write(stem: str, suffix: str, data: bytes) -> str:
            return str(spill_bytes(rt.spill_dir, stem, suffix, data))

        return fit_message(result.well_formed(), write)

    async def _call(self, rt: Runtime, name: str, params: Any) -> ToolResult:
        spec = self.specs.get(name)
        if spec is None or not self.allowed(name):
            names = ", ".join(s.name for s in self.listed())
            shown = repr(name[:80] + "…" if len(name) > 80 else name)  # echo no absurd name
            return response.refused(f"unknown or unavailable tool {shown}; available: {names}.")
        if not self.is_listed(spec):
            return response.refused(
                f"{name} is inactive; enable it first with agent_browser_tools "
                f'{{"enable": ["{spec.capability}"]}}, then repeat this call.',
                nextActions=[enable_action(spec)],
            )
        if not spec.implemented:
            return response.refused(f"{name} is {spec.unavailable_reason}.")
        if not isinstance(params, Mapping):
            return response.refused(f"{name} input must be a JSON object.")
        return await spec.call(rt, params)

    def enable(self, capabilities: Iterable[str]) -> dict[str, str]:
        """Enable capabilities; returns capability -> outcome (`enabled`, `already-enabled`,
        `unavailable: ...`). Unrelated active tools stay active."""
        outcome: dict[str, str] = {}
        for capability in capabilities:
            spec = self.by_capability(capability)
            if spec is None:
                outcome[capability] = "unknown capability"
            elif not self.allowed(spec.name):
                outcome[capability] = (
                    f"unavailable: {spec.name} is excluded by the host's tool allowlist"
                )
            elif not spec.implemented:
                outcome[capability] = f"unavailable: {spec.unavailable_reason}"
            elif capability in self.activated:
                outcome[capability] = "already-enabled"
            else:
                self.activated.add(capability)
                outcome[capability] = "enabled"
        return outcome

    def inventory(self) -> list[dict[str, Any]]:
        rows = []
        for spec in self.specs.values():
            status = "active" if self.is_listed(spec) else "inactive"
            if not self.allowed(spec.name):
                status = "unavailable (excluded by allowlist)"
            elif not spec.implemented:
                status = f"unavailable ({spec.unavailable_reason})"
            rows.append(
                {
                    "name": spec.name,
                    "capability": spec.capability,
                    "status": status,
                    "description": spec.description,
                }
            )
        return rows
