"""Binding a code cell's `browser()` calls to one browser identity (pure but for config reads).

The identity is fixed before the code runs, with the direct tool's precedence: an explicit
`session`/`namespace`, else the native configured default (`AGENT_BROWSER_SESSION` or the
engine config's `session`), else the conversation's managed session. Inner args may not
select another session or namespace, in the argv or in any batch row, nor run `close --all`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from agent_browser_tools import taxonomy
from agent_browser_tools.planning.argv_rules import ArgvRejected, parse_batch_rows
from agent_browser_tools.planning.sessions import (
    engine_namespace,
    managed_base_name,
    native_session_default,
)
from agent_browser_tools.runtime import Runtime
from agent_browser_tools.state.models import SessionKey

Mode = Literal["explicit", "native", "managed"]


@dataclass(frozen=True)
class CellIdentity:
    """The one browser a cell talks to, fixed before its code runs."""

    session: str
    namespace: str | None
    mode: Mode

    @property
    def key(self) -> SessionKey:
        return SessionKey(session=self.session, namespace=self.namespace)

    @property
    def label(self) -> str:
        return f"session {self.session!r} (namespace {self.namespace or 'default'})"


def resolve_identity(rt: Runtime, session: str | None, namespace: str | None) -> CellIdentity:
    """Same precedence as a direct call: explicit, native configured default, managed."""
    ns = engine_namespace(namespace)  # the engine's name: one identity, one lock
    if session:
        return CellIdentity(session, ns, "explicit")
    native = native_session_default(rt.settings.env, rt.cwd)
    if native:
        return CellIdentity(native, ns, "native")
    managed = rt.log.state.managed_session or managed_base_name(rt.root_id)
    return CellIdentity(managed, ns, "managed")


def inner_prefix(rt: Runtime, ident: CellIdentity) -> list[str]:
    """Global flags that bind one inner argv to the cell's identity.

    For the managed session the direct executor's own injection is used while it selects the
    same browser, because that path is what records managed ownership (and so shutdown
    cleanup). If the managed slot moved during the cell, the fixed name is passed explicitly.
    """
    ns = ["--namespace", ident.namespace] if ident.namespace else []
    if ident.mode == "managed":
        current = rt.log.state.managed_session or managed_base_name(rt.root_id)
        native = native_session_default(rt.settings.env, rt.cwd)
        if current == ident.session and native is None:
            return ns
    return ["--session", ident.session, *ns]


class BrowserRequest(BaseModel):
    """The argument of `browser()` inside a cell."""

    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)

    args: list[str] = Field(min_length=1)
    stdin: str | None = None
    timeoutMs: int | None = Field(default=None, gt=0)


def _row_violation(tokens: Sequence[str], ident: CellIdentity, where: str) -> str | None:
    globals_, rest = taxonomy.split_global_flags(tokens)
    for name, value in globals_:
        if name == "--session" and value is not None and value != ident.session:
            return (
                f"{where}`--session {value}` selects another browser; this cell is bound to "
                f"{ident.label}. Use agent_browser outside the cell for other sessions, or pass "
                "session/namespace to agent_browser_code."
            )
        if name == "--namespace" and value is not None and (value or None) != ident.namespace:
            return (
                f"{where}`--namespace {value}` selects another namespace; this cell is bound to "
                f"{ident.label}. Pass namespace to agent_browser_code instead."
            )
    match = taxonomy.resolve_command(rest) if rest else None
    if match is not None and match.spec.path == ("close",) and match.has_flag("--all"):
        return (
            f"{where}`close --all` would close every session of the namespace; a cell may only "
            "close its own browser (`close`). Use agent_browser outside the cell for "
            "namespace-wide cleanup."
        )
    return None


def scope_violation(args: Sequence[str], stdin: str | None, ident: CellIdentity) -> str | None:
    """Why an inner argv (or one of its batch rows) leaves the cell's identity, if it does."""
    problem = _row_violation(args, ident, "")
    if problem is not None:
        return problem
    _, rest = taxonomy.split_global_flags(args)
    match = taxonomy.resolve_command(rest) if rest else None
    if match is None or match.spec.path != ("batch",):
        return None
    try:
        batch = parse_batch_rows(stdin, [t for t in match.operands if not t.startswith("--")])
    except ArgvRejected:
        return None  # the executor rejects the malformed batch with its own message
    for index, row in enumerate(batch.rows, start=1):
        problem = _row_violation(row, ident, f"batch row {index}: ")
        if problem is not None:
            return problem
    return None
