"""Selector-miss recovery and accessible-select resolution from snapshot refs (pure).

A semantic `find` often misses although the page plainly shows the intended control: a button
has no `<label>`, a contenteditable has no placeholder, a link's text is not its accessible
name. One fresh `snapshot -i` (taken by the caller) lists the current `@eN` refs with role and
accessible name; this module picks candidates from those refs and builds exact follow-ups:

- `visibleRefFallback`: refs whose role/name exactly match the missed target. Non-fill actions
  carry direct ref argv; fill candidates never do, so recovery never repeats the fill text.
- `richInputRecovery`: for fill misses, exact editable `textbox`/`searchbox` refs with focus and
  click argv only. Nothing here types text, presses Enter or submits: the agent chooses the
  input method (real key events vs paste-like insertion) and verifies application state.
- `nameCandidateFallback`: when nothing matches exactly, a bounded list of buttons/links whose
  names contain every word of the target (click misses only), as exact-name `find` retries.

Everything is bounded to `MAX_CANDIDATES` so a dense page cannot flood the result.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from agent_browser_tools.results.next_actions import NextAction
from agent_browser_tools.state.models import RefInfo

SEMANTIC_LOCATORS = ("role", "text", "label", "placeholder", "alt", "title", "testid")
"""`find` locators that name an accessible target; `first`/`last`/`nth` take CSS instead."""
EDITABLE_ROLES = frozenset({"textbox", "searchbox"})
NAME_CANDIDATE_ROLES = ("button", "link")
SELECT_ROLES = ("combobox", "listbox")
MAX_CANDIDATES = 3

DIRECT_ARGV = {
    "click": ("click",),
    "check": ("check",),
    "hover": ("hover",),
    "text": ("get", "text"),
}
"""Native command that does what a `find` action does, but on a concrete ref. `fill` is absent
on purpose: its argv would have to carry the fill text."""

INPUT_METHOD_HINT = (
    "Focus or click the current editable ref, then send the text in a separate call: use "
    "keyboard type when a framework-controlled editor requires real key events; keyboard "
    "inserttext is paste-like and can change the DOM without updating application state, so "
    "use it only with later application-state verification. Do not press Enter or submit "
    "unless the flow explicitly requires it."
)

_REF_ID = re.compile(r"e(\d+)")


@dataclass(frozen=True)
class FindTarget:
    """What a semantic `find` was looking for (never its fill text)."""

    locator: str
    value: str
    action: str
    name: str | None = None  # `--name` of a role locator

    @property
    def role(self) -> str | None:
        return self.value.lower() if self.locator == "role" else None

    @property
    def wanted_name(self) -> str | None:
        return self.name if self.locator == "role" else self.value

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"locator": self.locator, "value": self.value, "action": self.action}
        if self.name is not None:
            out["name"] = self.name
        return out


def find_target(operands: Sequence[str], name: str | None) -> FindTarget | None:
    """The target of `find <locator> <value> [action] [text]`; None for CSS-based locators."""
    if len(operands) < 2 or operands[0] not in SEMANTIC_LOCATORS:
        return None
    action = operands[2].lower() if len(operands) > 2 else "click"
    return FindTarget(locator=operands[0], value=operands[1], action=action, name=name)


def _norm(text: str | None) -> str:
    return " ".join((text or "").split())


def _words(text: str | None) -> set[str]:
    return set(re.findall(r"\w+", (text or "").lower()))


def ordered_refs(refs: Mapping[str, RefInfo]) -> list[tuple[str, RefInfo]]:
    """Refs in document order (`e2` before `e10`), so candidate order is deterministic."""

    def key(item: tuple[str, RefInfo]) -> tuple[int, str]:
        found = _REF_ID.fullmatch(item[0])
        return (int(found.group(1)) if found else 1 << 30, item[0])

    return sorted(refs.items(), key=key)


def exact_matches(target: FindTarget, refs: Mapping[str, RefInfo]) -> list[tuple[str, RefInfo]]:
    """Refs whose role (for role locators) and accessible name equal the target exactly."""
    wanted = target.wanted_name
    out = []
    for ref, info in ordered_refs(refs):
        if target.role is not None and (info.role or "").lower() != target.role:
            continue
        if wanted is not None and _norm(info.name) != _norm(wanted):
            continue
        out.append((ref, info))
    return out


def name_candidates(target: FindTarget, refs: Mapping[str, RefInfo]) -> list[tuple[str, RefInfo]]:
    """Buttons/links whose names contain every target word: bounded guesses for a click miss."""
    words = _words(target.wanted_name)
    if target.action != "click" or not words:
        return []
    roles = NAME_CANDIDATE_ROLES if target.role is None else (target.role,)
    if not set(roles) <= set(NAME_CANDIDATE_ROLES):
        return []
    found = [
        (ref, info)
        for ref, info in ordered_refs(refs)
        if (info.role or "").lower() in roles and info.name and words <= _words(info.name)
    ]
    return found[:MAX_CANDIDATES]


def select_targets(
    refs: Mapping[str, RefInfo], role: str | None, name: str | None
) -> list[tuple[str, RefInfo]]:
    """Current combobox/listbox refs for an accessible select (`role` None: either role)."""
    roles = (role.lower(),) if role else SELECT_ROLES
    return [
        (ref, info)
        for ref, info in ordered_refs(refs)
        if (info.role or "").lower() in roles and (name is None or _norm(info.name) == _norm(name))
    ]


def numbered(base: str, index: int, total: int) -> str:
    """`base` for a lone candidate, `base-1`..`base-N` when there are several."""
    return f"{base}-{index + 1}" if total > 1 else base


def describe_ref(ref: str, info: RefInfo) -> dict[str, Any]:
    out: dict[str, Any] = {"ref": "@" + ref}
    if info.role:
        out["role"] = info.role
    if info.name is not None:
        out["name"] = info.name
    return out


def visible_ref_fallback(
    target: FindTarget,
    matches: Sequence[tuple[str, RefInfo]],
    snapshot: Mapping[str, Any],
    prefix: Sequence[str],
) -> dict[str, Any] | None:
    """`visibleRefFallback` for exact matches; direct ref argv only for non-fill actions."""
    if not matches:
        return None
    direct = DIRECT_ARGV.get(target.action)
    candidates = []
    for ref, info in matches[:MAX_CANDIDATES]:
        candidate = describe_ref(ref, info)
        if direct is not None:
            candidate["args"] = [*prefix, *direct, "@" + ref]
        candidate["reason"] = (
            f"Exact role/name match for the missed {target.locator} locator in a fresh snapshot -i."
        )
        candidates.append(candidate)
    summary = (
        f"The {target.locator} locator {target.value!r} missed, but a fresh snapshot -i shows "
        f"{len(matches)} exact role/name match(es); these refs are current."
    )
    return {
        "candidates": candidates,
        "snapshot": dict(snapshot),
        "summary": summary,
        "target": target.to_dict(),
    }


def rich_input_ids(count: int) -> list[str]:
    ids = []
    for index in range(count):
        ids.append(numbered("focus-current-editable-ref", index, count))
        ids.append(numbered("click-current-editable-ref", index, count))
    return ids


def rich_input_recovery(
    target: FindTarget, matches: Sequence[tuple[str, RefInfo]], prefix: Sequence[str]
) -> dict[str, Any] | None:
    """`richInputRecovery` for a fill miss with exact editable matches (focus/click only)."""
    if target.action != "fill":
        return None
    editable = [(r, i) for r, i in matches if (i.role or "").lower() in EDITABLE_ROLES]
    editable = editable[:MAX_CANDIDATES]
    if not editable:
        return None
    candidates = []
    for ref, info in editable:
        candidate = describe_ref(ref, info)
        candidate["focusArgs"] = [*prefix, "focus", "@" + ref]
        candidate["clickArgs"] = [*prefix, "click", "@" + ref]
        candidate["reason"] = "Exact editable role/name match in a fresh snapshot -i."
        candidates.append(candidate)
    return {
        "candidates": candidates,
        "inputMethodHint": INPUT_METHOD_HINT,
        "nextActionIds": rich_input_ids(len(candidates)),
        "summary": (
            f"The fill target {target.value!r} was not found by its {target.locator} locator; "
            "focus or click the current editable ref, then type the text in a separate call."
        ),
        "target": target.to_dict(),
    }


def name_candidate_fallback(
    target: FindTarget, found: Sequence[tuple[str, RefInfo]], prefix: Sequence[str]
) -> dict[str, Any] | None:
    """Bounded button/link name candidates as exact-name `find role` retries."""
    if not found:
        return None
    candidates = []
    for ref, info in found[:MAX_CANDIDATES]:
        candidate = describe_ref(ref, info)
        role = (info.role or "").lower()
        name = info.name or ""
        candidate["args"] = [*prefix, "find", "role", role, "click", "--name", name, "--exact"]
        candidate["reason"] = f"{role} name contains every word of {target.wanted_name!r}."
        candidates.append(candidate)
    return {
        "candidates": candidates,
        "summary": "No exact role/name match; these buttons/links have names containing the "
        "target words. Check which one is intended before clicking.",
        "target": target.to_dict(),
    }


def visible_ref_actions(diagnostic: Mapping[str, Any]) -> list[NextAction]:
    """`try-current-visible-ref[-N]` for every candidate that has direct argv."""
    usable = [c for c in diagnostic["candidates"] if c.get("args")]
    return [
        NextAction(
            id=numbered("try-current-visible-ref", index, len(usable)),
            reason=f"Act on the current visible {c.get('role', 'element')} {c.get('name')!r} "
            f"({c['ref']}) that exactly matches the missed locator target.",
            safety="The ref comes from the fresh snapshot just taken; re-snapshot first if the "
            "page changed since.",
            params={"args": list(c["args"])},
        )
        for index, c in enumerate(usable)
    ]


def rich_input_actions(diagnostic: Mapping[str, Any]) -> list[NextAction]:
    """Focus/click actions for each editable candidate: never text, Enter or submit."""
    candidates = diagnostic["candidates"]
    actions = []
    for index, c in enumerate(candidates):
        for kind in ("focus", "click"):
            actions.append(
                NextAction(
                    id=numbered(f"{kind}-current-editable-ref", index, len(candidates)),
                    reason=f"{kind.capitalize()} the current editable {c.get('role')} "
                    f"{c.get('name')!r} ({c['ref']}) before typing the text in a separate call.",
                    safety="Does not type, press Enter or submit; verify application state "
                    "after entering text.",
                    params={"args": list(c[f"{kind}Args"])},
                )
            )
    return actions


def name_candidate_actions(diagnostic: Mapping[str, Any]) -> list[NextAction]:
    candidates = diagnostic["candidates"]
    return [
        NextAction(
            id=numbered("try-name-candidate", index, len(candidates)),
            reason=f"Click the {c.get('role')} named {c.get('name')!r}, whose name contains "
            "the missed target's words.",
            safety="A name guess, not an exact match: confirm it is the intended control.",
            params={"args": list(c["args"])},
        )
        for index, c in enumerate(candidates)
    ]


def _candidate_line(candidate: Mapping[str, Any], suffix: str = "") -> str:
    role = candidate.get("role", "element")
    return f"- {candidate['ref']} {role} {candidate.get('name', '')!r}{suffix}"


def fallback_text(diagnostic: Mapping[str, Any]) -> str:
    lines = [f"Current snapshot ref fallback: {diagnostic['summary']}"]
    for c in diagnostic["candidates"]:
        lines.append(_candidate_line(c, f": {' '.join(c['args'])}" if c.get("args") else ""))
    return "\n".join(lines)


def rich_input_text(diagnostic: Mapping[str, Any]) -> str:
    lines = [f"Rich input recovery: {diagnostic['summary']}"]
    for c in diagnostic["candidates"]:
        lines.append(_candidate_line(c, f": focus {c['ref']} or click {c['ref']}"))
    lines.append(diagnostic["inputMethodHint"])
    return "\n".join(lines)


def name_candidate_text(diagnostic: Mapping[str, Any]) -> str:
    lines = [f"Candidate fallbacks: {diagnostic['summary']}"]
    lines += [_candidate_line(c, f": {' '.join(c['args'])}") for c in diagnostic["candidates"]]
    return "\n".join(lines)
