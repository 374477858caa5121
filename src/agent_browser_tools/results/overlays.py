"""Overlay blockers: conservative evidence that a modal covers the page (pure).

Only strong evidence counts: a `dialog`/`alertdialog` ref plus up to three separate
button/link/menuitem refs whose names look like close/dismiss controls. Page chrome without a
dialog role ("privacy", "sign in", banners) is not enough, so ordinary pages stay quiet.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from agent_browser_tools.results import next_actions as na
from agent_browser_tools.results.observation import Observation
from agent_browser_tools.results.snapshot.tree import parse_snapshot, subtree_end

MODAL_ROLES = frozenset({"dialog", "alertdialog"})
DISMISS_ROLES = frozenset({"button", "link", "menuitem"})
_DISMISS_NAME = re.compile(
    r"^\s*(close|dismiss|no,? thanks|not now|maybe later|got it|ok|accept( all)?|reject( all)?|"
    r"decline|continue|skip|cancel|[x×✕✖])\b|^\s*[x×✕✖]\s*$",
    re.IGNORECASE,
)
MAX_CANDIDATES = 3


def _modal_subtree_refs(text: str) -> tuple[list[str], set[str]]:
    """Names of dialog nodes in the tree and the refs inside them (dialogs carry no ref)."""
    lines = parse_snapshot(text)
    names: list[str] = []
    inside: set[str] = set()
    for line in lines:
        if line.role.lower() in MODAL_ROLES:
            names.append(line.name or line.role)
            for child in lines[line.index + 1 : subtree_end(lines, line.index)]:
                if child.ref:
                    inside.add(child.ref)
    return names, inside


def modal_names(refs: Mapping[str, Mapping[str, Any]], text: str = "") -> set[str]:
    """The names (else roles) of the dialogs a snapshot shows, as refs or in its tree."""
    named = {
        str(info.get("name") or info.get("role"))
        for info in refs.values()
        if str(info.get("role", "")).lower() in MODAL_ROLES
    }
    return named | set(_modal_subtree_refs(text)[0] if text else [])


def overlay_blockers(
    refs: Mapping[str, Mapping[str, Any]], text: str = ""
) -> dict[str, Any] | None:
    """`{candidates, summary}` when the snapshot shows a modal with dismiss controls.

    A dialog is found either as a ref'd node or in the tree text (full snapshots show dialog
    containers without refs); candidates inside a found dialog come first.
    """
    modal = [r for r, info in refs.items() if str(info.get("role", "")).lower() in MODAL_ROLES]
    names, inside = _modal_subtree_refs(text) if text else ([], set())
    if not modal and not names:
        return None
    refs = dict(sorted(refs.items(), key=lambda item: item[0] not in inside))
    candidates = []
    for ref, info in refs.items():
        role = str(info.get("role", "")).lower()
        name = str(info.get("name") or "")
        if role in DISMISS_ROLES and _DISMISS_NAME.search(name):
            candidates.append(
                {
                    "ref": "@" + ref,
                    "role": role,
                    "name": name,
                    "args": ["click", "@" + ref],
                    "reason": f"{role} named {name!r}"
                    + (" inside the dialog" if ref in inside else " on a page with a dialog"),
                }
            )
        if len(candidates) == MAX_CANDIDATES:
            break
    if not candidates:
        return None
    listed = ", ".join(f"{c['ref']} {c['name']!r}" for c in candidates)
    shown = ", ".join([*("@" + r for r in modal), *(repr(n) for n in names)])
    summary = (
        f"The snapshot shows a modal dialog ({shown}) with likely dismiss controls: "
        f"{listed}. It may cover the controls you want."
    )
    return {"candidates": candidates, "summary": summary}


def attach(obs: Observation, found: Mapping[str, Any], prefix: list[str]) -> None:
    """`overlayBlockers`, the visible bullets and `inspect-overlay-state` plus one
    `try-overlay-blocker-candidate-N` per candidate (the inspection first, once)."""
    obs.extra["overlayBlockers"] = dict(found)
    obs.warnings.append("Possible overlay blockers: " + found["summary"])
    if not any(a.id == "inspect-overlay-state" for a in obs.next_actions):
        obs.next_actions.append(na.inspect_overlay_state(prefix))
    for index, candidate in enumerate(found["candidates"], start=1):
        obs.next_actions.append(
            na.NextAction(
                id=f"try-overlay-blocker-candidate-{index}",
                reason=f"Dismiss the overlay with {candidate['name']!r} ({candidate['ref']}).",
                safety="Evidence only: make sure this control dismisses, not accepts, anything "
                "the task must not agree to.",
                params={"args": [*prefix, *candidate["args"]]},
            )
        )
