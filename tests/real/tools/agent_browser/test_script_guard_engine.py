"""The endpoint guard changes no script's answer (real engine and Chromium).

Every caller-written page script goes out with a guard statement in front of it
(`planning/script_guard.py`). Each script here runs twice on a fresh copy of the same page,
once guarded and once with the guard switched off, and must answer exactly the same: values of
statements, expressions, `() => ...` snippets, async IIFEs, strict-mode scripts, `eval -b`,
`eval --stdin`, `wait --fn`, batch rows of both kinds, and errors on the same line numbers. The
model sees its own script wherever its call is echoed.
"""

from __future__ import annotations

import base64
import json
import re
from typing import Any

import pytest

from agent_browser_tools.api import BrowserTools
from agent_browser_tools.planning.script_guard import ScriptGuard
from agent_browser_tools.results.tool_result import ToolResult
from agent_browser_tools.tools.agent_browser.safety import dispatch_guard
from tests.support.fixture_server import FixtureServer
from tests.support.tools import ab

pytestmark = pytest.mark.real_engine

_LINE = re.compile(r"<anonymous>:(\d+):\d+")


def _b64(text: str) -> str:
    return base64.b64encode(text.encode()).decode()


CASES: list[tuple[tuple[str, ...], str | None]] = [
    (("eval", "document.title"), None),
    (("eval", "var a = 2; a * 21"), None),
    (("eval", "() => 1"), None),
    (("eval", "async () => 2"), None),
    (
        ("eval", "(async () => { await new Promise(r => setTimeout(r, 20)); return 'late' })()"),
        None,
    ),
    (("eval", "'use strict'; (function () { return typeof this })()"), None),
    (("eval", "(function () { return typeof this })()"), None),
    (("eval", "let q = 5; q"), None),
    (("eval", "{ 7 }"), None),
    (("eval", "({a: 1, b: [1, 2]})"), None),
    (("eval", "var z = 1;"), None),
    (("eval", "'a string'"), None),
    (("eval", "-b", _b64("document.title + '!'")), None),
    (("eval", "--stdin"), "'use strict'\nconst n = 3;\n[n * 2, typeof this]"),
    (("eval", "--stdin"), '// a comment first\n"use strict";\n(() => typeof this)()'),
    (("wait", "--fn", "document.readyState === 'complete'"), None),
    # Errors: the same error, on the same line.
    (("eval", "\n\nthrow new Error('third line')"), None),
    (("eval", "'use strict'; undeclaredName = 1"), None),  # strict: a ReferenceError
    (("eval", "this is not javascript ("), None),
    (("eval", "--stdin"), "const ok = 1;\nnull.boom"),
]


def _answer(result: ToolResult) -> Any:
    details = result.details
    if result.is_error:
        error = str(details.get("error"))
        return ("error", error.split("\n")[0], _LINE.findall(error))
    return ("ok", details.get("data"))


async def _twice(
    tools: BrowserTools,
    page: str,
    monkeypatch: pytest.MonkeyPatch,
    args: tuple[str, ...],
    stdin: str | None,
) -> tuple[ToolResult, ToolResult]:
    """The call on a fresh page, guarded, then unguarded."""
    params = {"stdin": stdin} if stdin is not None else {}
    results = []
    real = dispatch_guard.script_guard
    made: list[ScriptGuard | None] = []
    for guarded in (True, False):
        with monkeypatch.context() as patch:
            opened = await ab(tools, "open", page)
            assert not opened.is_error, opened.text
            if guarded:  # record the guard, to know the call really went out guarded
                patch.setattr(
                    dispatch_guard,
                    "script_guard",
                    lambda plan, grid=None: _kept(made, real(plan, grid)),
                )
            else:
                patch.setattr(dispatch_guard, "script_guard", lambda plan, grid=None: None)
            results.append(await ab(tools, *args, **params))
    assert made and made[0] is not None and made[0].sent, made
    return results[0], results[1]


def _kept(made: list[ScriptGuard | None], guard: ScriptGuard | None) -> ScriptGuard | None:
    made.append(guard)
    return guard


@pytest.mark.parametrize(("args", "stdin"), CASES)
async def test_a_guarded_script_answers_what_it_answered_unguarded(
    browser_tools: BrowserTools,
    fixture_site: FixtureServer,
    monkeypatch: pytest.MonkeyPatch,
    args: tuple[str, ...],
    stdin: str | None,
) -> None:
    guarded, bare = await _twice(
        browser_tools, fixture_site.url("form.html"), monkeypatch, args, stdin
    )
    assert _answer(guarded) == _answer(bare)
    assert guarded.details["args"] == list(args)
    assert "let{}=" not in guarded.text + json.dumps(guarded.details, default=str)


async def test_batch_rows_of_both_kinds_answer_the_same_and_echo_the_callers_script(
    browser_tools: BrowserTools, fixture_site: FixtureServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    rows = [
        ["eval", "'use strict'; [document.title, typeof this]"],
        ["eval", "-b", _b64("1 + 1")],
        ["wait", "--fn", "document.body !== null"],
        ["eval", "(async () => 'async row')()"],
    ]
    page = fixture_site.url("form.html")
    for args, stdin in [
        (("batch",), json.dumps(rows)),
        (("batch", "eval \"'use strict'; typeof this\"", "eval 'var s = \"x\"; s + s'"), None),
    ]:
        guarded, bare = await _twice(browser_tools, page, monkeypatch, args, stdin)
        assert not guarded.is_error, guarded.text
        steps = guarded.details["batchSteps"]
        assert [s.get("result") for s in steps] == [
            s.get("result") for s in bare.details["batchSteps"]
        ]
        assert [s["command"] for s in steps] == [s["command"] for s in bare.details["batchSteps"]]
        assert "let{}=" not in guarded.text + json.dumps(guarded.details, default=str)
