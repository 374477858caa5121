"""Direct tool, after an element action: read back what it did (`details.actionEffect`).

Why: the engine answers `fill`, `select`, `check` and `click` with what it was asked
(`{"filled": "@e3"}`), not with what the element holds now. Its `fill` on a native date
input answers success and changes nothing; a checkbox whose click handler cancels the event
stays unchecked. So after a standalone `fill`/`type`/`select`/`check`/`uncheck`/`click`/`tap`
on a ref or selector, the element is read back in the post-action helper batch (`followups.
run_probe`: no extra engine call): `get value` (+ `get text` for contenteditable regions, an
`eval` of the focused native date/time input for date parts), `get value` + `get html` for a
select, and for check/uncheck and clicks on toggle refs the session's snapshot (its state
found by role and name, see `toggle_state`; `is checked` for a plain selector).

`actionEffect` names the element (role and name from the session's latest ref snapshot) and
what it holds; a read-back that provably does not match what was asked turns the call into
an `upstream-error` failure with a next action (`readback_failure`). Nothing read (no JSON
output, no session, a confirmation-gated `eval`, the element gone) leaves `verified` None.
Values are never shown for credential fields. Batch rows are not read back.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from agent_browser_tools.credentials.fields import credential_reason, selector_reason
from agent_browser_tools.credentials.store import TYPED_PLACEHOLDER
from agent_browser_tools.engine.envelope import BatchRow, OutputMode
from agent_browser_tools.planning.plan import ExecutionPlan
from agent_browser_tools.redaction import redact_text
from agent_browser_tools.results import next_actions as na
from agent_browser_tools.results.action_lines import COMMAND_VERBS
from agent_browser_tools.results.observation import Observation
from agent_browser_tools.state.models import RefInfo
from agent_browser_tools.state.ref_identity import same_element
from agent_browser_tools.state.stale_refs import ref_ids
from agent_browser_tools.tools.agent_browser.call import DirectCall
from agent_browser_tools.tools.agent_browser.confirm.confirm_gate import confirmation_gated
from agent_browser_tools.tools.agent_browser.effects import effect_verdict as ev
from agent_browser_tools.tools.agent_browser.effects import readback_failure
from agent_browser_tools.tools.agent_browser.effects.date_entry import READ_JS, parse_field
from agent_browser_tools.tools.agent_browser.effects.effect_verdict import Asked
from agent_browser_tools.tools.agent_browser.page.page_change import UNVERIFIED_WARNING
from agent_browser_tools.tools.agent_browser.refs import page_watch, refmap
from agent_browser_tools.tools.agent_browser.refs.ref_proof import DEFAULT_READ, current_refs

TOGGLES = frozenset({"checkbox", "radio", "switch", "menuitemcheckbox", "menuitemradio"})
DATE_PART_ROLES = frozenset({"spinbutton"})
"""Chromium shows each part of a native date/time input as a spinbutton."""
VALUE_LIMIT = 200
"""Longer read-back values are cut: the model typed them, it need not read them again."""

_ROW_KINDS = {"value": ("get", "value"), "text": ("get", "text"), "html": ("get", "html")}
SLIDER_ROLES = frozenset({"slider"})
"""A slider's value lives in `aria-valuenow` (an ARIA slider has no `value`); a native range
input has both."""


def applies(plan: ExecutionPlan) -> bool:
    """A standalone element action with a target (pure)."""
    match = plan.match
    return (
        not plan.is_batch
        and match is not None
        and match.spec.name in COMMAND_VERBS
        and bool(match.operands)
    )


def asked(plan: ExecutionPlan, table: Mapping[str, RefInfo]) -> Asked | None:
    """What the call asked of which element (pure)."""
    if not applies(plan) or plan.match is None:
        return None
    match = plan.match
    ids = ref_ids(match)
    ref = ids[0] if len(ids) == 1 else None
    ops, name = match.operands, match.spec.name
    text = ops[1] if name in ("fill", "type") and len(ops) > 1 else None
    options = tuple(ops[1:]) if name == "select" else ()
    return Asked(name, ops[0], ref, table.get(ref) if ref else None, text, options)


@dataclass
class ReadbackState:
    """This call's read-back: which rows it sent (`kinds`), what they read, and a verdict
    that fails the call: the read value did not take (`failed`), or the widget's way out
    could not reach it (`stopped`: target, why, next actions; see `widgets`)."""

    kinds: list[str] = field(default_factory=list)
    read: dict[str, Any] = field(default_factory=dict)
    failed: tuple[Asked, dict[str, Any], ev.DateVerdict | None] | None = None
    stopped: tuple[Asked, str, list[na.NextAction]] | None = None


def _readable(call: DirectCall) -> bool:
    return call.key is not None and call.plan.output_mode is OutputMode.JSON


def rows(call: DirectCall) -> list[list[str]]:
    """The read-back rows for the post-action batch (engine ids), remembered for `take`."""
    state = call.part(ReadbackState)
    state.kinds, state.read = [], {}
    target = asked(call.plan, call.ref_table) if _readable(call) else None
    if target is None:
        return []
    kinds: list[str] = []
    if target.command in ("fill", "type") and target.role in SLIDER_ROLES:
        kinds = ["value", "valuenow"]
    elif target.command in ("fill", "type"):
        kinds = ["value", "text"]
        if target.role in (None, *DATE_PART_ROLES) and not confirmation_gated(call):
            kinds.append("date")
    elif target.command == "select":
        kinds = ["value", "html"]
    elif target.command in ("check", "uncheck") or target.role in TOGGLES:
        kinds = ["checked"] if target.info is None else [_toggle_kind(call, target.info)]
    out = [_row(call, kind, target.operand) for kind in kinds]
    state.kinds = kinds
    return refmap.rows_to_engine(out, call.ref_table)


def _toggle_kind(call: DirectCall, info: RefInfo) -> str:
    """A toggle's state after the action: read in the page by its role and name (`toggle`),
    or, for a look-alike, a role the page cannot find or a page the wrapper must not probe,
    from the session's snapshot."""
    if confirmation_gated(call) or page_watch.toggle_row(info) is None:
        return "snapshot"
    return "toggle"


def _row(call: DirectCall, kind: str, operand: str) -> list[str]:
    if kind == "date":
        return ["eval", READ_JS]
    if kind == "checked":
        return ["is", "checked", operand]
    if kind == "valuenow":
        return ["get", "attr", operand, "aria-valuenow"]
    if kind == "toggle":
        target = asked(call.plan, call.ref_table)
        row = page_watch.toggle_row(target.info) if target and target.info else None
        assert row is not None  # `_toggle_kind` chose it
        return row
    if kind == "snapshot":
        assert call.key is not None
        recorded = call.rt.log.state.session(call.key).ref_snapshot
        return list(recorded.read_args if recorded and recorded.read_args else DEFAULT_READ)
    return [*_ROW_KINDS[kind], operand]


def take(call: DirectCall, answered: Sequence[BatchRow]) -> None:
    """Keep what each read-back row answered (a failed or missing row is left out)."""
    read: dict[str, Any] = {}
    state = call.part(ReadbackState)
    for kind, row in zip(state.kinds, answered, strict=False):
        result = row.result if row.success and isinstance(row.result, Mapping) else None
        if result is None:
            continue
        if kind == "checked" and isinstance(result.get("checked"), bool):
            read[kind] = result["checked"]
        elif kind == "snapshot":
            read[kind] = result
        elif kind == "toggle" and page_watch.toggle_state(result) is not None:
            read["checked"] = page_watch.toggle_state(result)
        elif kind == "date":
            read[kind] = parse_field(result.get("result"))
        elif kind == "valuenow" and isinstance(result.get("value"), str):
            read[kind] = result["value"]
        elif isinstance(result.get(kind), str):
            read[kind] = result[kind]
    state.read = read


def judge(call: DirectCall, obs: Observation) -> None:
    """`actionEffect` for a successful element action; a provable no-op fails the call."""
    target = asked(call.plan, call.ref_table)
    if target is None or not obs.success:
        return
    read: Mapping[str, Any] = call.part(ReadbackState).read
    hidden = _hidden(call, obs, target, read)
    effect: dict[str, Any] = {
        "verb": COMMAND_VERBS[target.command],
        "ref": "@" + target.ref if target.ref else None,
        "role": target.role,
        "name": redact_text(target.info.name) if target.info and target.info.name else None,
        "value": None,
        "valueHidden": hidden,
        "checked": None,
        "verified": None,
        "expected": None,
    }
    date = _fill_effect(call, target, read, effect) if target.text is not None else None
    if target.command == "select":
        labels, effect["verified"] = ev.select_verdict(
            target.options, read.get("value"), read.get("html")
        )
        effect["expected"] = [redact_text(o) for o in target.options]
        effect["value"] = [redact_text(v) for v in labels] if labels is not None else None
    elif "snapshot" in read or "checked" in read:
        checked = toggle_state(target, call.ref_table, read.get("snapshot"))
        _toggle_effect(call, target, read.get("checked") if checked is None else checked, effect)
    if hidden:
        effect["value"] = effect["expected"] = None
    obs.extra["actionEffect"] = effect
    if effect["verified"] is False:
        call.part(ReadbackState).failed = (target, effect, date)


def conclude(call: DirectCall, obs: Observation) -> None:
    """Fail a call whose read-back provably did not take. Run after the page-change summary,
    so a toggle that also navigated still says where the page is now; the generic
    "unverified" warning is dropped (the error says exactly what is wrong)."""
    state = call.part(ReadbackState)
    failed, stopped = state.failed, state.stopped
    if (failed is None and stopped is None) or not obs.success:
        return
    if UNVERIFIED_WARNING in obs.warnings:
        obs.warnings.remove(UNVERIFIED_WARNING)
    if stopped is not None:
        readback_failure.stopped(call, obs, *stopped)
    elif failed is not None:
        readback_failure.fail(call, obs, *failed)


def retry_prefix(call: DirectCall) -> list[str]:
    """The argv prefix a next action needs to act on the same session."""
    session = call.plan.session
    return na.session_prefix(session.key, not session.used_implicit_session)


def _fill_effect(
    call: DirectCall, target: Asked, read: Mapping[str, Any], effect: dict[str, Any]
) -> ev.DateVerdict | None:
    """Value and verdict of a `fill`/`type`; the date verdict when the target is a native
    date/time input."""
    # Engine output comes back with registered secrets replaced: compare like with like.
    secrets = call.rt.secrets
    want = secrets.scrub_data(secrets.resolve(target.text or ""))
    if target.role in SLIDER_ROLES:
        held = read.get("valuenow") or read.get("value")
        effect.update(value=held, expected=want, verified=ev.slider_verdict(want, held))
        return None
    field = read.get("date")
    if field is not None and (target.role in DATE_PART_ROLES or read.get("value") == ""):
        date = ev.date_verdict(field, want)
        effect.update(value=field.value, verified=date.verified, expected=date.wanted or want)
        return date
    shown, effect["verified"] = ev.text_verdict(
        want, read.get("value"), read.get("text"), replaced=target.command == "fill"
    )
    effect["value"] = _shown(shown) if shown is not None else None
    effect["expected"] = _shown(want)
    return None


def toggle_state(target: Asked, table: Mapping[str, RefInfo], data: object) -> bool | None:
    """The target toggle's state in the post-action snapshot, found by its recorded role and
    name (pure). Why not `is checked <ref>`: a list patched in place (a pinned row sorted to
    the top) shows another row in the clicked node, whose state says nothing about this one.
    The ref's own node counts while it still shows the same element; otherwise the one
    element with that role and name (none, or look-alikes: unknown)."""
    if target.info is None or target.ref is None:
        return None
    fresh, states = current_refs(data), refmap.checked_states(data)
    if fresh is None:
        return None
    want = (target.info.role, target.info.name)
    own = refmap.engine_id(target.ref, table)
    mine = fresh.get(own)
    anchor_now = lambda shown: fresh.get(refmap.engine_id(shown, table))  # noqa: E731
    if mine is not None and same_element(target.info, mine, anchor_now):
        return states.get(own)
    same = [ref for ref, info in fresh.items() if (info.role, info.name) == want]
    return states.get(same[0]) if len(same) == 1 else None


def _toggle_effect(
    call: DirectCall, target: Asked, checked: bool | None, effect: dict[str, Any]
) -> None:
    if checked is None:
        return
    if target.command in ("check", "uncheck"):
        wanted: bool | None = target.command == "check"
    else:
        engine = refmap.engine_id(target.ref, call.ref_table) if target.ref else None
        prior = call.checked.get(engine) if engine else None
        wanted = ev.toggle_expected(target.role, prior)
    effect.update(checked=checked, expected=wanted)
    effect["verified"] = None if wanted is None else checked == wanted


def _shown(value: str) -> str:
    value = redact_text(value)
    return value if len(value) <= VALUE_LIMIT else value[:VALUE_LIMIT] + "…"


def _hidden(call: DirectCall, obs: Observation, target: Asked, read: Mapping[str, Any]) -> bool:
    """A credential field's value is never echoed: the pre-dispatch probe found one, the
    ref's name or the selector names one, the text is an operator secret, or what was read
    back is a registered secret (helper output arrives with those already replaced)."""
    if target.command not in ("fill", "type", "select"):
        return False
    fields = (obs.extra.get("redacted") or {}).get("fields") or ()
    if any(f.get("target") == target.operand for f in fields if isinstance(f, Mapping)):
        return True
    name = target.info.name if target.info is not None else None
    if credential_reason({}, [name]) or selector_reason(target.operand):
        return True
    if "{{secret:" in (target.text or ""):
        return True
    return any(
        isinstance(v, str) and (TYPED_PLACEHOLDER in v or "{{secret:" in v)
        for v in (read.get("value"), read.get("text"))
    )
