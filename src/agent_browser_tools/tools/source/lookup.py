"""`sourceLookup`: ranked candidates from DOM, React and workspace evidence (pure).

Every candidate says where it came from (`source`), how much it is worth (`confidence`) and
why (`evidence`): the tool reports local hints, not ownership, and an agent must be able to
tell a literal found in a file from a guess. Statuses follow the contract: `candidates-found`
whenever any candidate exists (even if React failed), `unsupported` when nothing was found and
a React step failed, `no-candidates` otherwise.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any
from urllib.parse import urlsplit

from agent_browser_tools.redaction import redact_text, redact_url
from agent_browser_tools.tools.source import workspace
from agent_browser_tools.tools.source.react import HOOK_MISSING, NO_RENDERER, Inspection
from agent_browser_tools.workspace_files import is_skipped_dir, is_wanted_file

HTML_HINT_CHARS = 120
EVIDENCE_LINE_CHARS = 220
_CONFIDENCE_ORDER = {"high": 0, "medium": 1, "low": 2}
_ELEMENT_EVIDENCE = "element literal "


@dataclass
class Evidence:
    """Everything the lookup saw, gathered by the handler."""

    root: Path
    selector: str | None = None
    visible: bool | None = None
    html: str | None = None
    react: str | None = None
    """None (not needed or fine), `devtools-missing`, `no-react`, or `failed`."""
    react_error: str | None = None
    element: Inspection | None = None
    element_match: str | None = None
    hosts_inspected: int = 0
    components: list[Inspection] = field(default_factory=list)
    fiber: Inspection | None = None
    scan: workspace.Scan | None = None
    notes: list[str] = field(default_factory=list)


def build(ev: Evidence) -> dict[str, Any]:
    """The `sourceLookup` object for this evidence."""
    candidates = [*_workspace(ev), *_react_sources(ev), *_dom(ev)]
    candidates.sort(key=_rank)
    limitations = [*_react_limits(ev), *ev.notes]
    if ev.scan is not None:
        limitations += ev.scan.limitations()
    if candidates:
        status = "candidates-found"
    elif ev.react is not None:
        status = "unsupported"
    else:
        status = "no-candidates"
    return {
        "status": status,
        "candidates": candidates,
        "limitations": limitations,
        "summary": _summary(status, candidates),
        "workspaceRoot": str(ev.root),
    }


def candidate_lines(found: Mapping[str, Any]) -> list[str]:
    """One line per candidate for the model-visible text (details do not reach the model)."""
    lines = []
    for c in found["candidates"]:
        where = c.get("file") or c.get("scriptUrl") or "DOM"
        if "line" in c:
            where += f":{c['line']}:{c.get('column', 1)}"
        who = f" <{c['component']}>" if c.get("component") else ""
        evidence = str(c["evidence"])
        if len(evidence) > EVIDENCE_LINE_CHARS:
            evidence = evidence[: EVIDENCE_LINE_CHARS - 3] + "..."
        lines.append(f"- {where}{who} ({c['source']}, {c['confidence']}): {evidence}")
    return lines


def _rank(candidate: dict[str, Any]) -> tuple[int, int]:
    """Confidence first; among equals, the element's own literal before its component."""
    element_literal = candidate["evidence"].startswith(_ELEMENT_EVIDENCE)
    return (_CONFIDENCE_ORDER.get(candidate["confidence"], 3), 0 if element_literal else 1)


def _summary(status: str, candidates: list[dict[str, Any]]) -> str:
    if not candidates:
        return (
            "No source candidates found."
            if status == "no-candidates"
            else "No source candidates: React inspection was unavailable and nothing else matched."
        )
    best = candidates[0]
    where = best.get("file") or best.get("scriptUrl") or "the live DOM"
    if "line" in best and ("file" in best or "scriptUrl" in best):
        where = f"{where}:{best['line']}"
    return (
        f"{len(candidates)} source candidate(s); best: {where} ({best['source']}, "
        f"{best['confidence']} confidence). Candidates are hints, not proof of ownership."
    )


def _confirmed(ev: Evidence) -> set[str]:
    """Components the live React tree showed (by name)."""
    names = {c.name for c in ev.components}
    if ev.fiber is not None:
        names.add(ev.fiber.name)
        names.update(ev.fiber.owners)
    if ev.element is not None:
        names.update(ev.element.owners)
    return names


def _element_owner(ev: Evidence) -> str | None:
    if ev.element is None:
        return None
    return next((o for o in ev.element.owners if o[:1].isupper()), None)


def _workspace(ev: Evidence) -> list[dict[str, Any]]:
    if ev.scan is None:
        return []
    confirmed = _confirmed(ev)
    owner = _element_owner(ev)
    owner_files = {
        m.file
        for m in ev.scan.matches
        if m.needle.kind == "definition" and m.needle.component == owner
    }
    out = []
    for match in ev.scan.matches:
        needle = match.needle
        confidence = needle.confidence
        evidence = f"{needle.label} at {match.file}:{match.line}: {match.excerpt}"
        if needle.kind == "attribute":
            evidence = _ELEMENT_EVIDENCE + evidence
        component = needle.component
        if needle.kind == "definition":
            if needle.component in confirmed:
                confidence = "high"
                evidence += f"; the live React tree renders {needle.component}"
            else:
                confidence = "medium"
        elif needle.kind == "attribute" and match.file in owner_files:
            confidence = "high"
            component = owner
            evidence += f"; React shows the element is rendered by {owner} defined in this file"
        candidate: dict[str, Any] = {
            "source": "workspace-search",
            "confidence": confidence,
            "evidence": evidence,
            "file": match.file,
            "line": match.line,
            "column": match.column,
        }
        if component is not None:
            candidate["component"] = component
        out.append(candidate)
    return out


def _react_sources(ev: Evidence) -> list[dict[str, Any]]:
    seen: set[tuple[str, int, int]] = set()
    out = []
    for inspection in [*([ev.fiber] if ev.fiber else []), *ev.components]:
        if inspection.source is None or inspection.source in seen:
            continue
        seen.add(inspection.source)
        out.append(_react_source(ev.root, inspection))
    return out


def _react_source(root: Path, inspection: Inspection) -> dict[str, Any]:
    assert inspection.source is not None
    url, line, column = inspection.source
    local = served_workspace_file(root, url)
    base = {
        "source": "react-inspect",
        "component": inspection.name,
        "line": line,
        "column": column,
    }
    if local is not None:
        return {
            **base,
            "confidence": "medium",
            "file": local,
            "evidence": (
                f"react inspect #{inspection.id} ({inspection.name}) places its code in the "
                f"served module {local}; line numbers are of the served (transformed) module"
            ),
        }
    shown = redact_url(url)
    return {
        **base,
        "confidence": "low",
        "scriptUrl": shown,
        "evidence": (
            f"react inspect #{inspection.id} ({inspection.name}) places its code at "
            f"{shown}:{line}:{column}, a script the page loaded (a bundle is not a workspace "
            "file; search the workspace for the component name)"
        ),
    }


def served_workspace_file(root: Path, url: str) -> str | None:
    """The workspace file a dev server served at `url` (`/src/App.tsx` -> `src/App.tsx`).

    Only a plain relative path to an existing source file the workspace search would read
    counts (no skipped or hidden dir, no dotfile, no symlink): a bundle path such as
    `/dist/app.js` is build output, not the code to edit."""
    try:
        path = urlsplit(url).path
    except ValueError:
        return None
    parts = PurePosixPath(path).parts[1:] if path.startswith("/") else ()
    if not parts or any(is_skipped_dir(p) for p in parts[:-1]):
        return None
    if not is_wanted_file(parts[-1], workspace.SOURCE_SUFFIXES):
        return None
    current = root
    for part in parts:
        current = current / part
        if current.is_symlink():
            return None
    return "/".join(parts) if current.is_file() else None


def _dom(ev: Evidence) -> list[dict[str, Any]]:
    if ev.selector is None or ev.visible is None:
        return []
    facts = [f"`is visible {ev.selector}`: {str(ev.visible).lower()}"]
    if ev.html is not None:
        hint = " ".join(ev.html.split())[:HTML_HINT_CHARS]
        facts.append(f"inner HTML: {redact_text(hint)!r}")
    if ev.element is not None and ev.element_match is not None:
        facts.append(
            f"React fiber #{ev.element.id} <{ev.element.name}> matched by {ev.element_match}"
        )
        if ev.element.owners:
            facts.append(f"rendered by {' > '.join(ev.element.owners)}")
    candidate: dict[str, Any] = {
        "source": "dom",
        "confidence": "low",
        "evidence": "; ".join(facts),
    }
    owner = _element_owner(ev)
    if owner is not None:
        candidate["component"] = owner
    return [candidate]


def _react_limits(ev: Evidence) -> list[str]:
    if ev.react == HOOK_MISSING:
        return [
            "React inspection needs the browser launched with `--enable react-devtools` (the "
            "engine installs the DevTools hook only at launch); this browser was launched "
            "without it, so no fiber or component evidence was read."
        ]
    if ev.react == NO_RENDERER:
        return [
            "No React renderer is attached to this page (not a React page, a build without "
            "DevTools support, or React has not rendered yet); only DOM and workspace evidence "
            "was used."
        ]
    if ev.react == "failed":
        return [f"React inspection failed: {ev.react_error or 'unknown error'}"]
    notes = []
    if ev.selector is not None and ev.element is None and ev.hosts_inspected:
        notes.append(
            f"No React fiber among the {ev.hosts_inspected} inspected host fibers matched "
            f"{ev.selector!r}; pass reactFiberId from `react tree` to inspect one directly."
        )
    return notes
