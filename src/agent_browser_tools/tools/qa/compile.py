"""`agent_browser_qa` input and its compiled native `batch --bail` plan (pure).

URL QA: clear the enabled network/console buffers, capture the page-error residue that remains
after the native clear (`errors --clear` then `errors`), open the URL, wait for the load state,
settle 150 ms when diagnostics are read, assert visible text/selector (5 s native timeouts),
read the enabled diagnostics, then take the optional screenshot. Attached QA runs the same
checks on the current page without navigation or buffer clears; its page-error baseline is a
plain `errors` read before the checks. `--bail` stops at a missed assertion, so later
diagnostics do not run.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from agent_browser_tools.redaction import redact_argv, redact_url
from agent_browser_tools.tools.qa.verdict import QaStep, StepRole

NAME = "agent_browser_qa"
ALLOWED = (
    "url or attached, expectedText, expectedSelector, screenshotPath, checkNetwork, "
    "checkConsole, checkErrors, loadState, outputPath, timeoutMs and sessionMode"
)
ASSERT_TIMEOUT_MS = 5_000
SETTLE_MS = 150
MAX_TEXTS = 20
MAX_TEXT_CHARS = 1_000
LABEL_CHARS = 80
BATCH_ARGS = ("batch", "--bail")

LoadState = Literal["domcontentloaded", "load", "networkidle"]


class QaRejected(ValueError):
    """An input combination QA cannot run; the message names the fix."""


class QaInput(BaseModel):
    """Flat QA input: `{url, ...checks}` or `{attached: true, ...checks}`."""

    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)

    url: str | None = Field(default=None, description="Open this URL, then check it.")
    attached: Literal[True] | None = Field(
        default=None, description="Check the current page without navigating (exclusive with url)."
    )
    expectedText: str | list[str] | None = Field(
        default=None, description="Text that must be visible (5 s each); a list checks all."
    )
    expectedSelector: str | None = Field(
        default=None, description="Selector that must match a visible element (5 s)."
    )
    screenshotPath: str | None = Field(default=None, description="Save a verified screenshot.")
    checkNetwork: bool | None = Field(
        default=None, description="Fail on failed requests (default: url on, attached off)."
    )
    checkConsole: bool | None = Field(
        default=None, description="Fail on console errors (default: url on, attached off)."
    )
    checkErrors: bool | None = Field(
        default=None, description="Fail on page errors (default: url on, attached off)."
    )
    loadState: LoadState | None = Field(
        default=None, description="Readiness before checks (url default domcontentloaded)."
    )
    outputPath: str | None = Field(default=None, description="Save the result to this file.")
    timeoutMs: int | None = Field(default=None, gt=0, description="Watchdog for the whole check.")
    sessionMode: Literal["auto", "fresh"] = Field(
        default="auto", description='"fresh" runs URL QA in a new browser; attached: "auto".'
    )


@dataclass(frozen=True)
class CompiledQa:
    """The fixed batch plan and the checks it implements."""

    steps: tuple[QaStep, ...]
    checks: dict[str, Any]

    @property
    def attached(self) -> bool:
        return bool(self.checks["attached"])

    @property
    def stdin(self) -> str:
        return json.dumps([list(step.argv) for step in self.steps])

    def job(self) -> dict[str, Any]:
        """`compiledJob`: internal batch-plan metadata with redacted step argv."""
        steps = [redact_argv(step.argv) for step in self.steps]
        return {
            "args": list(BATCH_ARGS),
            "failFast": True,
            "stdin": json.dumps(steps),
            "steps": steps,
        }

    def details(self) -> dict[str, Any]:
        job = self.job()
        return {"compiledJob": job, "compiledQaPreset": {**job, "checks": dict(self.checks)}}


def normalize_text(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()


def visible_text_predicate(text: str) -> str:
    """A `wait --fn` expression: `text` occurs in the rendered (visible) text of the page.

    `innerText` leaves out `display: none` and `visibility: hidden` content; whitespace is
    collapsed on both sides so line breaks between elements do not defeat the match.
    """
    want = json.dumps(normalize_text(text))
    return (
        f"(() => {{ const want = {want}; const body = document.body; "
        "return !!body && body.innerText.replace(/\\s+/g, ' ').includes(want); })()"
    )


def _short(text: str) -> str:
    return text if len(text) <= LABEL_CHARS else text[: LABEL_CHARS - 1] + "…"


def _expected_texts(inp: QaInput) -> list[str]:
    raw = inp.expectedText
    texts = [raw] if isinstance(raw, str) else list(raw or [])
    if isinstance(raw, list) and not raw:
        raise QaRejected("expectedText must not be an empty list")
    if len(texts) > MAX_TEXTS:
        raise QaRejected(f"expectedText takes at most {MAX_TEXTS} strings")
    out = []
    for text in texts:
        normal = normalize_text(text)
        if not normal:
            raise QaRejected("expectedText entries must contain visible characters")
        if len(normal) > MAX_TEXT_CHARS:
            raise QaRejected(f"expectedText entries are limited to {MAX_TEXT_CHARS} characters")
        out.append(normal)
    return out


def _operand(name: str, value: str | None) -> None:
    if value is None:
        return
    if not value.strip():
        raise QaRejected(f"{name} must not be empty")
    if value.startswith("-"):
        raise QaRejected(f"{name} must not start with '-' (it would be read as a flag)")
    if any(ord(ch) < 32 for ch in value):
        raise QaRejected(f"{name} must not contain control characters")


def _check_combination(inp: QaInput) -> None:
    if inp.url is not None and inp.attached:
        raise QaRejected("url and attached: true are exclusive; choose one form")
    if inp.url is None and not inp.attached:
        raise QaRejected("give either url (open and check) or attached: true (current page)")
    if inp.attached and inp.sessionMode != "auto":
        raise QaRejected('attached QA only accepts sessionMode "auto" (it checks the current page)')
    for name in ("url", "expectedSelector", "screenshotPath"):
        _operand(name, getattr(inp, name))
    selector = inp.expectedSelector
    if selector is not None and selector.strip().isdigit():
        raise QaRejected("expectedSelector must be a selector, not a number of milliseconds")
    if selector is not None and selector.startswith("@") and not inp.attached:
        raise QaRejected(
            "expectedSelector refs (@eN) belong to the current page; URL QA opens a new page, "
            "so use a CSS selector"
        )


def _enabled(inp: QaInput) -> dict[str, bool]:
    default = not inp.attached
    return {
        "checkNetwork": default if inp.checkNetwork is None else inp.checkNetwork,
        "checkConsole": default if inp.checkConsole is None else inp.checkConsole,
        "checkErrors": default if inp.checkErrors is None else inp.checkErrors,
    }


def _step(role: StepRole, label: str, *argv: str) -> QaStep:
    return QaStep(role=role, argv=tuple(argv), label=label)


def _prelude(inp: QaInput, enabled: dict[str, bool]) -> list[QaStep]:
    """Buffer resets, the page-error baseline, navigation and readiness."""
    steps: list[QaStep] = []
    attached = bool(inp.attached)
    if not attached and enabled["checkNetwork"]:
        steps.append(
            _step("clear-network", "clear network requests", "network", "requests", "--clear")
        )
    if not attached and enabled["checkConsole"]:
        steps.append(_step("clear-console", "clear console", "console", "--clear"))
    if enabled["checkErrors"]:
        if not attached:
            steps.append(_step("clear-errors", "clear page errors", "errors", "--clear"))
        steps.append(_step("error-baseline", "read page-error baseline", "errors"))
    state = inp.loadState or (None if attached else "domcontentloaded")
    if inp.url is not None:
        steps.append(_step("open", f"open {_short(redact_url(inp.url))}", "open", inp.url))
    if state is not None:
        steps.append(_step("ready", f"wait for {state}", "wait", "--load", state))
    if not attached and any(enabled.values()):
        steps.append(_step("settle", f"settle {SETTLE_MS} ms", "wait", str(SETTLE_MS)))
    return steps


def _checks(inp: QaInput, texts: list[str], enabled: dict[str, bool]) -> list[QaStep]:
    timeout = str(ASSERT_TIMEOUT_MS)
    steps = [
        _step(
            "expect-text",
            f'expected text "{_short(text)}"',
            "wait",
            "--fn",
            visible_text_predicate(text),
            "--timeout",
            timeout,
        )
        for text in texts
    ]
    if inp.expectedSelector is not None:
        label = f'expected selector "{_short(inp.expectedSelector)}"'
        steps.append(
            _step("expect-selector", label, "wait", inp.expectedSelector, "--timeout", timeout)
        )
    if enabled["checkNetwork"]:
        steps.append(_step("read-network", "network requests check", "network", "requests"))
    if enabled["checkConsole"]:
        steps.append(_step("read-console", "console check", "console"))
    if enabled["checkErrors"]:
        steps.append(_step("read-errors", "page-error check", "errors"))
    if inp.screenshotPath is not None:
        label = f"screenshot {_short(inp.screenshotPath)}"
        steps.append(_step("screenshot", label, "screenshot", inp.screenshotPath))
    return steps


def compile_qa(inp: QaInput) -> CompiledQa:
    """The fixed plan for a validated input; raises `QaRejected` for bad combinations."""
    _check_combination(inp)
    texts = _expected_texts(inp)
    enabled = _enabled(inp)
    if not texts and inp.expectedSelector is None and not any(enabled.values()):
        raise QaRejected(
            "nothing to check: give expectedText or expectedSelector, or enable checkNetwork, "
            "checkConsole or checkErrors (a screenshot alone is evidence, not a check)"
        )
    attached = bool(inp.attached)
    checks: dict[str, Any] = {"attached": attached}
    if inp.url is not None:
        checks["url"] = redact_url(inp.url)
    checks["diagnosticsResetAtStart"] = not attached and any(enabled.values())
    if texts:
        checks["expectedText"] = texts
    if inp.expectedSelector is not None:
        checks["expectedSelector"] = inp.expectedSelector
    if inp.screenshotPath is not None:
        checks["screenshotPath"] = inp.screenshotPath
    checks.update(enabled)
    state = inp.loadState or (None if attached else "domcontentloaded")
    if state is not None:
        checks["loadState"] = state
    steps = (*_prelude(inp, enabled), *_checks(inp, texts, enabled))
    return CompiledQa(steps=steps, checks=checks)
