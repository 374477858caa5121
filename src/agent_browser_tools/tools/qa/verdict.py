"""`agent_browser_qa` verdict: compiled QA steps + native batch rows -> pass/fail (pure).

Rules (contract): console errors, definitely new page errors, page errors that match a
nonempty pre-check baseline (an *unverified* check, never counted as new errors), actionable
failed requests, failed batch steps and failed visible assertions all fail the QA. Benign icon
misses are warnings. Reading a diagnostic successfully is not a pass by itself: the rows must be
read and judged, and at least one check must have run.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from agent_browser_tools.results.diagnostics import (
    classify_network_request_failure,
    request_rows,
    select_request_id,
    summarize_network_failures,
)

StepRole = Literal[
    "clear-network",
    "clear-console",
    "clear-errors",
    "error-baseline",
    "open",
    "ready",
    "settle",
    "expect-text",
    "expect-selector",
    "read-network",
    "read-console",
    "read-errors",
    "screenshot",
]

CHECK_ROLES: frozenset[str] = frozenset(
    {"expect-text", "expect-selector", "read-network", "read-console", "read-errors", "screenshot"}
)
UNVERIFIED_ERRORS = "page-error check could not be verified"
MAX_LISTED = 5
MAX_LINE = 200

Finding = Literal[
    "assertion", "console", "network", "new-errors", "unverified-errors", "step", "artifact"
]


@dataclass(frozen=True)
class QaStep:
    """One compiled batch row: its role in the verdict, the argv it runs and a short label."""

    role: StepRole
    argv: tuple[str, ...]
    label: str


@dataclass
class QaVerdict:
    passed: bool = False
    failed_checks: list[str] = field(default_factory=list)
    not_run_checks: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    summary: str = ""
    findings: set[Finding] = field(default_factory=set)
    request_id: str | None = None
    checks_run: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {
            "passed": self.passed,
            "failedChecks": list(self.failed_checks),
            "notRunChecks": list(self.not_run_checks),
            "warnings": list(self.warnings),
            "summary": self.summary,
        }


def _line(text: Any) -> str:
    first = str(text or "").strip().split("\n", 1)[0]
    return first if len(first) <= MAX_LINE else first[: MAX_LINE - 1] + "…"


def _listed(items: Sequence[str]) -> str:
    shown = "; ".join(items[:MAX_LISTED])
    more = len(items) - MAX_LISTED
    return shown + (f" (+{more} more)" if more > 0 else "")


def _error_key(row: Mapping[str, Any]) -> tuple[str, str, str]:
    return (str(row.get("text", "")), str(row.get("line")), str(row.get("column")))


def _error_rows(result: Any) -> list[Mapping[str, Any]] | None:
    rows = result.get("errors") if isinstance(result, Mapping) else None
    if not isinstance(rows, list):
        return None
    return [r for r in rows if isinstance(r, Mapping)]


def _judge_errors(
    verdict: QaVerdict, result: Any, baseline: list[Mapping[str, Any]] | None
) -> None:
    final = _error_rows(result)
    if final is None:
        verdict.failed_checks.append("page errors could not be read")
        verdict.findings.add("step")
        return
    before = Counter(_error_key(r) for r in baseline or ())
    after = Counter(_error_key(r) for r in final)
    matched = after & before
    new = after - before
    if new:
        texts = [_line(key[0]) for key in new.elements()]
        verdict.failed_checks.append(f"{len(texts)} new page error(s): {_listed(texts)}")
        verdict.findings.add("new-errors")
    if matched:
        count = sum(matched.values())
        verdict.failed_checks.append(UNVERIFIED_ERRORS)
        verdict.warnings.append(
            f"{count} page error(s) match the pre-check error baseline "
            f"({_listed([_line(k[0]) for k in matched])}); they may predate this check, so they "
            "are not counted as new errors."
        )
        verdict.findings.add("unverified-errors")


def _judge_console(verdict: QaVerdict, result: Any) -> None:
    messages = result.get("messages") if isinstance(result, Mapping) else None
    if not isinstance(messages, list):
        verdict.failed_checks.append("console messages could not be read")
        verdict.findings.add("step")
        return
    errors = [
        _line(m.get("text"))
        for m in messages
        if isinstance(m, Mapping) and str(m.get("type", "")).lower() == "error"
    ]
    if errors:
        verdict.failed_checks.append(f"{len(errors)} console error(s): {_listed(errors)}")
        verdict.findings.add("console")


def _judge_network(verdict: QaVerdict, result: Any) -> None:
    if not isinstance(result, Mapping) or not any(
        isinstance(result.get(k), list) for k in ("requests", "items", "entries")
    ):
        verdict.failed_checks.append("network requests could not be read")
        verdict.findings.add("step")
        return
    rows = request_rows(result)
    lines = summarize_network_failures(rows)
    if lines["actionable"]:
        actionable = lines["actionable"]
        verdict.failed_checks.append(f"{len(actionable)} failed request(s): {_listed(actionable)}")
        verdict.findings.add("network")
        failed = [r for r in rows if classify_network_request_failure(r).verdict == "actionable"]
        verdict.request_id = select_request_id(failed)
    for line in lines["benign"]:
        verdict.warnings.append(f"benign icon miss: {line}")


def _judge_artifact(
    verdict: QaVerdict, step_no: int, artifacts: Sequence[Mapping[str, Any]]
) -> None:
    entry = next((a for a in artifacts if a.get("step") == step_no), None)
    if entry is None or entry.get("state") != "verified":
        state = entry.get("status", entry.get("state")) if entry else "not reported"
        verdict.failed_checks.append(f"screenshot artifact not verified ({state})")
        verdict.findings.add("artifact")


def _failed_step(verdict: QaVerdict, step: QaStep, row: Mapping[str, Any]) -> None:
    error = _line(row.get("error") or "failed")
    if step.role in ("expect-text", "expect-selector"):
        verdict.failed_checks.append(f"{step.label} not visible: {error}")
        verdict.findings.add("assertion")
    else:
        verdict.failed_checks.append(f"step {row.get('step', '?')} ({step.label}) failed: {error}")
        verdict.findings.add("step")


def _judge_row(
    verdict: QaVerdict,
    step: QaStep,
    step_no: int,
    result: Any,
    baseline: list[Mapping[str, Any]] | None,
    artifacts: Sequence[Mapping[str, Any]],
) -> None:
    if step.role == "read-errors":
        _judge_errors(verdict, result, baseline)
    elif step.role == "read-console":
        _judge_console(verdict, result)
    elif step.role == "read-network":
        _judge_network(verdict, result)
    elif step.role == "screenshot":
        _judge_artifact(verdict, step_no, artifacts)
    if step.role in CHECK_ROLES:
        verdict.checks_run.append(step.label)


def evaluate(
    steps: Sequence[QaStep],
    rows: Sequence[Mapping[str, Any]],
    *,
    batch_error: str | None = None,
    artifacts: Sequence[Mapping[str, Any]] = (),
) -> QaVerdict:
    """Judge the reached batch rows (`batchSteps`, in step order) against the compiled plan."""
    verdict = QaVerdict()
    baseline: list[Mapping[str, Any]] | None = None
    stopped = False
    for index, step in enumerate(steps):
        row = rows[index] if index < len(rows) else None
        if row is None or stopped:
            if step.role in CHECK_ROLES:
                verdict.not_run_checks.append(step.label)
            if not stopped:
                stopped = True
                reason = _line(batch_error or "no result was returned")
                verdict.failed_checks.append(f"QA batch stopped before {step.label}: {reason}")
                verdict.findings.add("step")
            continue
        if not row.get("success"):
            _failed_step(verdict, step, row)
            stopped = True
            continue
        result = row.get("result")
        if step.role == "error-baseline":
            baseline = _error_rows(result)
            if baseline is None:
                verdict.failed_checks.append("page-error baseline could not be read")
                verdict.findings.add("step")
        _judge_row(verdict, step, index + 1, result, baseline, artifacts)
    if not verdict.checks_run and not verdict.failed_checks:
        verdict.failed_checks.append("no QA check ran")
        verdict.findings.add("step")
    verdict.passed = not verdict.failed_checks
    verdict.summary = _summary(verdict)
    return verdict


def _summary(verdict: QaVerdict) -> str:
    if not verdict.passed:
        return "QA preset failed: " + _listed(verdict.failed_checks)
    if verdict.warnings:
        return "QA preset passed with warnings: " + _listed(verdict.warnings)
    return "QA preset passed: " + ", ".join(verdict.checks_run) + "."
