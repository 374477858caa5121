"""The tool registry: every tool declared as data, and which ones a conversation sees.

Always-on: `agent_browser`, `agent_browser_code`, `agent_browser_tools`, plus
`agent_browser_web_search` when a credential resolves. Advanced tools are registered inactive
and listed once enabled through `agent_browser_tools`. A host allowlist (`--tools`) is honoured:
excluded tools are reported unavailable and can never be enabled or called around it.
"""

from __future__ import annotations

import importlib
from collections.abc import Awaitable, Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from agent_browser_tools.results.tool_result import ToolResult
    from agent_browser_tools.runtime import Runtime

Handler = Callable[["Runtime", Mapping[str, Any]], Awaitable["ToolResult"]]


class ToolSpec:
    """One tool as data: name, capability, words, schema and handler.

    `handler` may be given as `"package.module:function"`: it is imported on first use, so
    listing tools (what an MCP client does at start) does not load every tool's machinery.
    """

    def __init__(
        self,
        name: str,
        description: str,
        input_schema: dict[str, Any],
        handler: Handler | str | None,
        capability: str | None = None,
        unavailable_reason: str | None = None,
    ) -> None:
        self.name = name
        self.description = description
        self.input_schema = input_schema
        self.capability = capability  # None: always on; else the `enable` name
        self.unavailable_reason = unavailable_reason
        self._handler = handler

    @property
    def handler(self) -> Handler | None:
        if isinstance(self._handler, str):
            module, _, attr = self._handler.partition(":")
            loaded: Handler = getattr(importlib.import_module(module), attr)
            self._handler = loaded
        return self._handler

    @property
    def implemented(self) -> bool:
        return self._handler is not None

    @property
    def always_on(self) -> bool:
        return self.capability is None

    def with_handler(self, handler: Handler | str | None) -> ToolSpec:
        """A copy of this spec with another handler (hosts and tests swap handlers)."""
        return ToolSpec(
            self.name,
            self.description,
            self.input_schema,
            handler,
            self.capability,
            self.unavailable_reason,
        )

    def __repr__(self) -> str:
        return f"ToolSpec({self.name!r}, capability={self.capability!r})"


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
