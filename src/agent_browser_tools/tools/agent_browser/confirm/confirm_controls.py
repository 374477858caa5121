"""Native `--confirm-actions` controls: which engine answers are genuine pending controls (pure).

Why strict: a pending control decides which exact `confirm`/`deny` the model is offered and
is remembered as the session's provenance (`readConfirmation`). Only the engine's own answer
shape counts, read at the top level of a command's response `data` (or of the inner response
a `confirm` wraps): page text, `eval` values and JSON-looking strings sit below those levels
and never match. An answer with fields the engine does not send, or a malformed or mismatched
`tab new` continuation, is still not success (nothing ran) but grants no provenance.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from agent_browser_tools.taxonomy import CommandMatch, ConfirmationRole

_CONTROL_KEYS = frozenset(
    {"confirmation_required", "confirmation_id", "action", "lifecycle", "category", "description"}
)
_CONTINUATION_KEYS = frozenset({"after_confirmation", "guidance"})
_READ_KEYS = frozenset({"capabilities"})


@dataclass(frozen=True)
class Control:
    """One pending native control. `genuine`: the exact engine shape (provenance may be kept)."""

    id: str
    action: str
    genuine: bool
    after_url: str | None = None
    guidance: str | None = None
    capabilities: dict[str, bool] | None = None


def control_of(data: Any, match: CommandMatch | None) -> Control | None:
    """The pending control in one response's `data`, else None.

    `match` is the command that was asked for (`tab new` may carry a continuation, an explicit
    URL `read` may carry capabilities); None for a control nested in a `confirm` answer, which
    then may carry neither.
    """
    if not isinstance(data, Mapping) or data.get("confirmation_required") is not True:
        return None
    ident, action = data.get("confirmation_id"), data.get("action")
    if not isinstance(ident, str) or not ident:
        return None
    role = match.spec.confirmation if match is not None else None
    allowed = _CONTROL_KEYS | (_READ_KEYS if role is ConfirmationRole.URL_READ else frozenset())
    extra = set(data) - allowed
    genuine = isinstance(action, str) and bool(action)
    after = guidance = None
    if extra & _CONTINUATION_KEYS:
        after, guidance = _continuation(data, match, action)
        genuine = genuine and after is not None
        extra -= _CONTINUATION_KEYS
    capabilities = _capabilities(data.get("capabilities"))
    if "capabilities" in data and capabilities is None:
        genuine = False
    return Control(
        id=ident,
        action=action if isinstance(action, str) else "",
        genuine=genuine and not extra,
        after_url=after,
        guidance=guidance,
        capabilities=capabilities,
    )


def _continuation(
    data: Mapping[str, Any], match: CommandMatch | None, action: Any
) -> tuple[str | None, str | None]:
    """`(url, guidance)` of a valid `tab new` continuation, else `(None, None)`.

    Valid only as a pair, on a `tab new` the model asked for, naming exactly the URL operand
    it gave (`after_confirmation: ["open", <url>]`) with non-empty guidance."""
    if match is None or match.spec.confirmation is not ConfirmationRole.OPENS_TAB:
        return None, None
    after, guidance = data.get("after_confirmation"), data.get("guidance")
    requested = match.operands[0] if match.operands else None
    if (
        action != "tab_new"
        or requested is None
        or not isinstance(after, list)
        or after != ["open", requested]
        or not isinstance(guidance, str)
        or not guidance.strip()
    ):
        return None, None
    return requested, guidance


def _capabilities(value: Any) -> dict[str, bool] | None:
    if not isinstance(value, Mapping) or not value:
        return None
    if not all(isinstance(k, str) and isinstance(v, bool) for k, v in value.items()):
        return None
    return dict(value)


@dataclass(frozen=True)
class Decision:
    """A `confirm`/`deny` answer: what the engine says happened to the pending action."""

    approved: bool
    action: str | None
    inner: Mapping[str, Any] | None
    """The approved action's own response (`{success, data | error}`), for `confirm`."""


def decision_of(data: Any, role: ConfirmationRole | None) -> Decision | None:
    """The engine's `{confirmed|denied: true, action, result?}` answer, else None."""
    if not isinstance(data, Mapping):
        return None
    action = data.get("action")
    action = action if isinstance(action, str) and action else None
    if role is ConfirmationRole.DENY and data.get("denied") is True:
        return Decision(approved=False, action=action, inner=None)
    if role is ConfirmationRole.APPROVE and data.get("confirmed") is True:
        inner = data.get("result")
        return Decision(True, action, inner if isinstance(inner, Mapping) else None)
    return None


def inner_failure(decision: Decision) -> str | None:
    """The approved action's own error when it failed (the outer answer still says success)."""
    inner = decision.inner
    if inner is None or inner.get("success") is not False:
        return None
    error = inner.get("error")
    return error if isinstance(error, str) and error else "the confirmed action failed"


def inner_data(decision: Decision) -> Any:
    """The approved action's response data (a nested control, a snapshot, a page fact)."""
    inner = decision.inner
    return inner.get("data") if inner is not None and inner.get("success") is True else None
