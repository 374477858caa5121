"""`agent_browser_action`: click, check, fill or select by stable locator, compiled to native argv.

The tool is a compiler, not a second executor: every call becomes ordinary native argv
(`find <locator> <value> <action> [text]`, `click <selector>`, `select <selector> <value...>`)
and runs through the `agent_browser` executor, so it gets the same guards, journal, categories
and recovery. Only two things are its own:

- an accessible select (role combobox/listbox + name, or label + values; `action_select`) resolves
  one current `@ref` from a fresh `snapshot -i` taken under the identity lock, then selects
  that ref under the same lock, so no other call can recycle refs in between. The engine has no
  `find ... select`, and guessing among several controls would select the wrong one;
- recovery: a stale compiled `find` may be retried after a refresh (it names its target, not a
  ref), while a stale direct or select ref only gets refresh guidance; selector misses on any
  `find` (raw or compiled) get current-ref candidates from `recover_find_miss`.

Input rules are strict and checked before anything is dispatched: a contradictory call would
otherwise run a command the agent did not mean.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, NoReturn

from agent_browser_tools.planning.plan import ExecutionPlan
from agent_browser_tools.redaction import redact_argv, redact_text
from agent_browser_tools.results import next_actions as na
from agent_browser_tools.results import response
from agent_browser_tools.results import selector_recovery as sr
from agent_browser_tools.results.categories import FailureCategory
from agent_browser_tools.results.observation import Observation
from agent_browser_tools.results.tool_result import ToolResult
from agent_browser_tools.runtime import Runtime
from agent_browser_tools.state.models import RefInfo, SessionPageState
from agent_browser_tools.tools import agent_browser
from agent_browser_tools.tools.action.schema import NAME, ActionInput
from agent_browser_tools.tools.action.select_control import accessible_select
from agent_browser_tools.tools.agent_browser.hooks import Hooks, PostHook

__all__ = ["NAME", "ActionInput", "ActionRejected", "compile_action", "run"]


class ActionRejected(ValueError):
    """A field combination that cannot mean one native command; the message says the fix."""


def _reject(message: str) -> NoReturn:
    raise ActionRejected(message)


@dataclass(frozen=True)
class Compiled:
    """The native form of one action. `args` is None until an accessible select is resolved."""

    action: str
    prefix: tuple[str, ...]
    args: tuple[str, ...] | None
    locator: str | None = None
    selector: str | None = None
    values: tuple[str, ...] = ()
    select_role: str | None = None
    select_name: str | None = None

    @property
    def is_find(self) -> bool:
        return self.args is not None and self.args[len(self.prefix)] == "find"

    def semantic(self, args: Sequence[str] | None, selector: str | None) -> dict[str, Any]:
        """`details.compiledSemanticAction`, argv redacted like `args` / `effectiveArgs`."""
        out: dict[str, Any] = {"action": self.action}
        if selector is not None:
            out["selector"] = selector
        if self.locator is not None:
            out["locator"] = self.locator
        if self.action == "select":
            out["values"] = [redact_text(v) for v in self.values]
        out["args"] = redact_argv(args) if args is not None else []
        return out


# ----- compile (pure) --------------------------------------------------------------------


def compile_action(inp: ActionInput) -> Compiled:
    """Check every field rule, then build the native argv (raises `ActionRejected`)."""
    prefix = ("--session", inp.session) if inp.session is not None else ()
    _common_rules(inp)
    if inp.action == "select":
        return _compile_select(inp, prefix)
    if inp.selector is not None:
        fill = (inp.text,) if inp.text is not None else ()
        args = (*prefix, inp.action, inp.selector, *fill)
        return Compiled(inp.action, prefix, args, selector=inp.selector)
    return _compile_find(inp, prefix)


def _common_rules(inp: ActionInput) -> None:
    if inp.action == "fill" and inp.text is None:
        _reject('fill needs `text` (the text to enter), e.g. {"text": "user@example.com"}.')
    if inp.action != "fill" and inp.text is not None:
        _reject(f"`text` is fill text and is not accepted for {inp.action}; remove it.")
    if inp.action != "select" and inp.values is not None:
        _reject(f"`values` lists select options and is not accepted for {inp.action}; remove it.")
    if inp.selector is None:
        return
    given = [f"`{f}`" for f in ("locator", "role", "name") if getattr(inp, f) is not None]
    if given:
        _reject(
            f"`selector` cannot be combined with {', '.join(given)}: use either a direct "
            "`selector` or locator fields."
        )
    if inp.action != "select" and inp.value is not None:
        _reject(
            "`value` is a locator value and cannot be combined with `selector`; with a direct "
            "selector send only `selector`" + (" and `text`." if inp.action == "fill" else ".")
        )


def _locator_kind(inp: ActionInput) -> str | None:
    """A bare `role` implies the role locator."""
    return "role" if inp.locator is None and inp.role is not None else inp.locator


def _compile_find(inp: ActionInput, prefix: tuple[str, ...]) -> Compiled:
    locator = _locator_kind(inp)
    if locator is None:
        _reject(
            f"{inp.action} needs a target: `selector` (CSS or current @ref), or `locator` with "
            'its `value`, e.g. {"locator": "label", "value": "Email"}, or `role` with `name`.'
        )
    if locator == "role":
        value = _role_value(inp)
    else:
        if inp.role is not None or inp.name is not None:
            _reject(
                f"`role`/`name` only apply to the role locator, not `{locator}`; put the "
                f"{locator} text in `value`."
            )
        if not inp.value:
            _reject(f"locator `{locator}` needs a non-empty `value` (the {locator} to find).")
        value = inp.value
    args = [*prefix, "find", locator, value, inp.action]
    if inp.text is not None:
        args.append(inp.text)
    if locator == "role" and inp.name is not None:
        args += ["--name", inp.name]
    return Compiled(inp.action, prefix, tuple(args), locator=locator)


def _role_value(inp: ActionInput) -> str:
    if inp.role is not None and inp.value is not None and inp.role.lower() != inp.value.lower():
        _reject(
            f"`role` {inp.role!r} and `value` {inp.value!r} disagree; for the role locator "
            "`role` replaces `value`, so send one of them (or the same role in both)."
        )
    role = inp.role or inp.value
    if not role:
        _reject('the role locator needs `role` (or `value`) naming the role, e.g. "button".')
    return role


def _compile_select(inp: ActionInput, prefix: tuple[str, ...]) -> Compiled:
    if inp.selector is not None:
        options = _options(inp)
        args = (*prefix, "select", inp.selector, *options)
        return Compiled("select", prefix, args, selector=inp.selector, values=options)
    locator = _locator_kind(inp)
    if locator == "label":
        return _label_select(inp, prefix)
    if locator == "role":
        return _role_select(inp, prefix)
    if locator is None:
        _reject(
            "select needs `selector` (CSS or current @ref) with `value`/`values`, or an "
            'accessible target: {"locator": "label", "value": "<label>", "values": [...]} or '
            '{"role": "combobox", "name": "<name>", "value": "<option>"}.'
        )
    _reject(f"select supports only the role and label locators, not `{locator}`.")


def _options(inp: ActionInput) -> tuple[str, ...]:
    if inp.value is not None and inp.values is not None:
        _reject("give one option in `value` or several in `values`, not both.")
    if inp.values is not None:
        return tuple(inp.values)
    if inp.value is not None:
        return (inp.value,)
    _reject("select needs the option(s) to choose: `value` or `values`.")


def _label_select(inp: ActionInput, prefix: tuple[str, ...]) -> Compiled:
    if inp.role is not None or inp.name is not None:
        _reject(
            "label select takes the label in `value`; `role`/`name` belong to role select "
            '({"locator": "role", "role": "combobox", "name": ...}).'
        )
    if not inp.value:
        _reject("label select needs `value` = the visible label of the select.")
    if inp.values is None:
        _reject('label select needs the options in `values`, e.g. {"values": ["chocolate"]}.')
    values = tuple(inp.values)
    return Compiled("select", prefix, None, "label", values=values, select_name=inp.value)


def _role_select(inp: ActionInput, prefix: tuple[str, ...]) -> Compiled:
    if inp.role is not None:
        role = inp.role
        if inp.values is not None and inp.value is not None and inp.value.lower() != role.lower():
            _reject(
                "with `values` given, `value` is the role locator value and must equal `role`; "
                "drop `value` or move it into `values`."
            )
        options = tuple(inp.values) if inp.values is not None else _options(inp)
    else:
        if not inp.value or inp.values is None:
            _reject(
                "role select needs `role` (combobox or listbox) plus the option in `value` "
                "or `values`."
            )
        role, options = inp.value, tuple(inp.values)
    if role.lower() not in sr.SELECT_ROLES:
        _reject(f"role select resolves a combobox or listbox, not {role!r}; use role combobox.")
    return Compiled(
        "select",
        prefix,
        None,
        "role",
        values=options,
        select_role=role.lower(),
        select_name=inp.name,
    )


# ----- run -------------------------------------------------------------------------------


def _call(inp: ActionInput, args: Sequence[str], *, output: bool = True) -> dict[str, Any]:
    params: dict[str, Any] = {"args": list(args)}
    if output and inp.outputPath is not None:
        params["outputPath"] = inp.outputPath
    if inp.timeoutMs is not None:
        params["timeoutMs"] = inp.timeoutMs
    return params


async def run(rt: Runtime, inp: ActionInput) -> ToolResult:
    """Compile and execute one (validated) action through the direct executor."""
    try:
        compiled = compile_action(inp)
    except ActionRejected as exc:
        return response.rejected(f"{NAME} input rejected: {exc}")
    if compiled.args is None:
        base = {k: v for k, v in _call(inp, ()).items() if k != "args"}
        return await accessible_select(
            rt, compiled, base, lambda args, ref: _hooks(compiled, args, ref)
        )
    hooks = _hooks(compiled, compiled.args, compiled.selector)
    result: ToolResult = await agent_browser.run(rt, _call(inp, compiled.args), hooks=hooks)
    return result


def _hooks(compiled: Compiled, args: Sequence[str], selector: str | None) -> Hooks:
    details = {"compiledSemanticAction": compiled.semantic(args, selector)}
    return Hooks(tool=NAME, post=_stale_recovery(compiled), details=details)


def _stale_recovery(compiled: Compiled) -> PostHook:
    """Stale refs: always refresh; only a compiled `find` may then retry, because it names its
    target by locator, while a direct or select `@ref` would hit the same stale ref again."""

    async def post(rt: Runtime, plan: ExecutionPlan, obs: Observation) -> None:
        if obs.success or obs.failure_category is not FailureCategory.STALE_REF:
            return
        prefix = na.session_prefix(plan.session.key, not plan.session.used_implicit_session)
        if not any(a.id == "refresh-interactive-refs" for a in obs.next_actions):
            obs.next_actions.append(na.refresh_interactive_refs(prefix))
        if compiled.is_find:
            obs.next_actions.append(
                na.NextAction(
                    id="retry-semantic-action-after-stale-ref",
                    reason="Retry the same semantic target via its compiled find command after "
                    "the upstream stale-ref failure proves the prior action did not execute.",
                    safety="Use only for the same intended target; direct stale @refs still "
                    "require a fresh snapshot or stable locator before retrying.",
                    params={"args": redact_argv(plan.args)},
                )
            )

    return post


# ----- selector-miss recovery (raw and compiled `find`) ---------------------------------


async def recover_find_miss(rt: Runtime, plan: ExecutionPlan, obs: Observation) -> None:
    """After a `find` selector miss: one fresh `snapshot -i` (journaled, so its refs become the
    session's latest ref map) and candidates from it. Runs inside the identity lock."""
    match, key = plan.match, plan.session.key
    if match is None or key is None:
        return
    target = sr.find_target(match.operands, match.flag_value("--name"))
    if target is None:
        return
    prefix = na.session_prefix(key, not plan.session.used_implicit_session)
    snap: ToolResult = await agent_browser.run(
        rt, {"args": [*prefix, "snapshot", "-i"]}, lock_held=True
    )
    entry = rt.log.state.session(key)
    if snap.is_error or entry.ref_snapshot is None:
        obs.next_actions.append(na.refresh_interactive_refs(prefix))
        return
    apply_find_recovery(obs, target, entry.ref_snapshot.refs, _snapshot_view(entry), prefix)


def _snapshot_view(entry: SessionPageState) -> dict[str, Any]:
    """The same shape as `details.refSnapshot`."""
    assert entry.ref_snapshot is not None
    refs = {k: v.model_dump(exclude_none=True) for k, v in entry.ref_snapshot.refs.items()}
    return {"refs": refs, "target": {"url": entry.ref_snapshot.target_url}}


def apply_find_recovery(
    obs: Observation,
    target: sr.FindTarget,
    refs: Mapping[str, RefInfo],
    snapshot: Mapping[str, Any],
    prefix: Sequence[str],
) -> None:
    """Attach the diagnostics, visible sections and next actions (pure over `obs`)."""
    matches = sr.exact_matches(target, refs)
    fallback = sr.visible_ref_fallback(target, matches, snapshot, prefix)
    if fallback is not None:
        obs.extra["visibleRefFallback"] = fallback
        obs.warnings.append(sr.fallback_text(fallback))
        obs.next_actions += sr.visible_ref_actions(fallback)
    rich = sr.rich_input_recovery(target, matches, prefix)
    if rich is not None:
        obs.extra["richInputRecovery"] = rich
        obs.warnings.append(sr.rich_input_text(rich))
        obs.next_actions += sr.rich_input_actions(rich)
    if matches:
        return
    guesses = sr.name_candidate_fallback(target, sr.name_candidates(target, refs), prefix)
    if guesses is not None:
        obs.extra["nameCandidateFallback"] = guesses
        obs.warnings.append(sr.name_candidate_text(guesses))
        obs.next_actions += sr.name_candidate_actions(guesses)
    if not any(a.id == "refresh-interactive-refs" for a in obs.next_actions):
        obs.next_actions.append(na.refresh_interactive_refs(prefix))
