"""The endpoint guard in front of caller-written page script (pure; the guard's JavaScript runs
in QuickJS here against a planted `location`, and on the real engine in
tests/real/tools/agent_browser/test_script_guard_engine.py)."""

from __future__ import annotations

import base64
import importlib
import json
from typing import Any
from urllib.parse import urlsplit

import pytest

from agent_browser_tools.engine.envelope import BatchRow, Envelope, OutputMode
from agent_browser_tools.planning.argv_rules import ArgvRejected, check_argv
from agent_browser_tools.planning.script_guard import (
    ScriptGuard,
    decode_script,
    endpoint_sources,
    refusal_message,
    script_problem,
    withhold,
)
from agent_browser_tools.taxonomy import batch_row_words, join_batch_row
from agent_browser_tools.tools.agent_browser.refs import refmap
from tests.support.plans import plan

quickjs: Any = importlib.import_module("quickjs")  # no type information
ORDINARY = frozenset({3000, 8080})


def _guard() -> ScriptGuard:
    return ScriptGuard(ORDINARY, nonce="n0nce")


def _run(script: str, url: str) -> Any:
    """Evaluate `script` as a page would at `url` (QuickJS with a planted `location` whose
    fields are what a browser shows: IPv6 hosts keep their brackets, no default port)."""
    parts = urlsplit(url)
    host = parts.netloc.rsplit("@", 1)[-1]
    if host.startswith("["):
        hostname, port = host[: host.index("]") + 1], host[host.index("]") + 2 :]
    else:
        hostname, _, port = host.partition(":")
    origin = f"{parts.scheme}://{host}" if host else "null"
    location = {"hostname": hostname, "port": port, "protocol": parts.scheme + ":"}
    context = quickjs.Context()
    context.eval(f"var location = {json.dumps({**location, 'origin': origin})};")
    return context.eval(script)


@pytest.mark.parametrize(
    "url",
    [
        "http://127.0.0.1:41683/json/list",
        "http://localhost:41683/",
        "http://localhost.:41683/",
        "http://app.localhost:41683/",
        "http://127.9.9.9:41683/",
        "http://0.0.0.0:41683/",
        "http://[::1]:41683/",
        "http://[::]:41683/",
        "http://[::ffff:7f00:1]:41683/",
        "http://[::ffff:0:0]:41683/",
        "http://127.0.0.1/",  # port 80, which no ordinary server holds here
        "https://localhost/",
    ],
)
def test_script_on_a_local_port_no_ordinary_server_holds_throws(url: str) -> None:
    with pytest.raises(quickjs.JSException) as raised:
        _run(_guard().script("'ran'"), url)
    assert "policy-blocked (browser-endpoint) [abt:n0nce]" in str(raised.value)
    with pytest.raises(quickjs.JSException):
        _run(f"!!({_guard().condition('true')})", url)


@pytest.mark.parametrize(
    "url",
    [
        "http://127.0.0.1:3000/app",
        "http://localhost:8080/",
        "https://example.com/",
        "http://example.com:41683/",
        "http://127.0.0.1.example.com:41683/",
        "http://10.0.0.5:41683/",
        "about:blank",
        "data:text/html,x",
    ],
)
def test_script_elsewhere_runs_and_keeps_its_value(url: str) -> None:
    guard = _guard()
    for script, value in [
        ("'ran'", "ran"),
        ("1 + 1", 2),
        ("var x = 4; x * 2", 8),
        ("let y = 3; y", 3),
        ("function f() { return 5 } f()", 5),
        ("{ 7 }", 7),
        ("if (true) { 'then' }", "then"),
        ("'use strict'; (function () { return typeof this })()", "undefined"),
        ("(function () { return typeof this })()", "object"),
        ('"use strict"\nnew Function("return typeof this")()', "object"),
        ("var z = 1;", None),
    ]:
        assert _run(guard.script(script), url) == _run(script, url), script
        assert _run(guard.script(script), url) == value, script
    assert _run(f"!!({guard.condition('1 === 1')})", url) is True
    assert _run(f"!!({guard.condition('0')})", url) is False


def test_the_guard_stays_on_the_first_line_after_a_prologue_or_hashbang() -> None:
    guard = _guard()
    stmt = guard.script("")
    for script, expected in [
        ("document.title", stmt + "document.title"),
        ("'use strict';\nfoo()", "'use strict';" + stmt + "\nfoo()"),
        ('// note\n"use strict"\nfoo()', '// note\n"use strict";' + stmt + "\nfoo()"),
        (
            "/* a */ 'use asm'; 'use strict' // why\nfoo()",
            "/* a */ 'use asm'; 'use strict' ;" + stmt + "// why\nfoo()",
        ),
        ("#!/usr/bin/env node\nfoo()", "#!/usr/bin/env node\n" + stmt + "foo()"),
        ("\n\nthrow new Error('line 3')", stmt + "\n\nthrow new Error('line 3')"),
        ("'hello'", stmt + "'hello'"),  # a string, not "use strict": the guard goes first
    ]:
        assert guard.script(script) == expected
        assert "\n" not in stmt


def test_eval_rows_are_guarded_where_the_engine_reads_the_script() -> None:
    guard = _guard()
    plain = guard.row(["--json", "--session", "s", "eval", "document.title"])
    assert plain is not None and plain[:3] == ("--json", "--session", "s")
    assert plain[3] == "eval" and plain[4] == guard.script("document.title")
    joined = guard.row(["eval", "a", "+ 1"])
    assert joined == ("eval", guard.script("a + 1"))  # the engine joins the words with a space
    encoded = guard.row(["eval", "-b", base64.b64encode(b"document.title").decode()])
    assert encoded is not None and encoded[:2] == ("eval", "-b")
    assert decode_script(encoded[2]) == guard.script("document.title")
    assert guard.row(["eval", "--stdin"]) is None
    assert guard.stdin_script(["eval", "--stdin"], "1 + 1") == guard.script("1 + 1")
    assert guard.stdin_script(["eval", "x"], "not a script") == "not a script"
    assert guard.row(["eval"]) is None  # the engine refuses an empty script
    assert guard.row(["get", "text", "body"]) is None
    # A flag after the script is part of it for the engine (it reads flags first only).
    assert guard.row(["eval", "x", "-b"]) == ("eval", guard.script("x -b"))


def test_wait_fn_values_are_guarded_as_expressions() -> None:
    guard = _guard()
    assert guard.row(["wait", "--fn", "ready", "--timeout", "5"]) == (
        "wait",
        "--fn",
        guard.condition("ready"),
        "--timeout",
        "5",
    )
    twice = guard.row(["wait", "-f", "a", "--fn", "b"])
    assert twice == ("wait", "-f", guard.condition("a"), "--fn", guard.condition("b"))
    assert guard.row(["wait", "2000"]) is None
    assert guard.row(["wait", "--text", "x"]) is None


def test_scripts_that_cannot_be_guarded_are_refused_before_dispatch() -> None:
    assert script_problem(["eval", "--stdin"], "batch row 2: ", in_batch=True) is not None
    assert script_problem(["eval", "--stdin"], "", in_batch=False) is None
    assert "base64" in (script_problem(["eval", "-b", "%%%"], "", in_batch=False) or "")
    assert script_problem(["eval", "-b", "ZG9j"], "", in_batch=False) is None
    assert script_problem(["wait", "--fn", "x"], "", in_batch=True) is None
    with pytest.raises(ArgvRejected, match="batch row 1: eval --stdin"):
        check_argv(["batch"], json.dumps([["eval", "--stdin"]]))
    with pytest.raises(ArgvRejected, match="base64"):
        check_argv(["eval", "-b", "bm90IHBhZGRlZA"], None)


def test_to_engine_guards_direct_stdin_and_both_batch_forms() -> None:
    guard = _guard()
    args, _ = refmap.to_engine(plan(["eval", "document.title"]), {}, guard=guard)
    assert args[-1] == guard.script("document.title")
    _, stdin = refmap.to_engine(plan(["eval", "--stdin"], stdin="1 + 1"), {}, guard=guard)
    assert stdin == guard.script("1 + 1")
    rows = [["open", "http://x.test/"], ["eval", "document.title"], ["wait", "--fn", "ok"]]
    _, stdin = refmap.to_engine(plan(["batch"], rows=rows), {}, guard=guard)
    assert json.loads(stdin or "[]") == [
        rows[0],
        ["eval", guard.script("document.title")],
        ["wait", "--fn", guard.condition("ok")],
    ]
    script = "document.querySelector(\"a[title='x y']\").href"
    argv = plan(["batch", "open http://x.test/", join_batch_row(("eval", script))])
    args, _ = refmap.to_engine(argv, {}, guard=guard)
    assert args[-2] == "open http://x.test/"  # untouched rows keep the caller's quoting
    assert batch_row_words(args[-1]) == ("eval", guard.script(script))


def test_the_answer_shows_the_callers_script_and_a_refusal_as_policy() -> None:
    guard = _guard()
    sent = guard.row(["eval", "steal()"])
    assert sent is not None
    error = f"Evaluation error: Error: policy-blocked (browser-endpoint) {guard.mark} "
    error += "http://127.0.0.1:41683\n    at <anonymous>:1:310"
    answer = Envelope(
        mode=OutputMode.JSON,
        success=False,
        rows=(
            BatchRow(("open", "http://x.test/r"), True, {"url": "http://x.test/r"}, None),
            BatchRow(sent, False, None, error),
        ),
    )
    settled = guard.settle(answer)
    assert settled.rows is not None
    assert settled.rows[1].command == ("eval", "steal()")
    assert settled.rows[1].error == refusal_message("http://127.0.0.1:41683")
    assert settled.extra["policy"] == {
        "rule": "browser-endpoint",
        "subject": "http://127.0.0.1:41683",
        "allowWith": None,
    }
    # A page cannot fake a refusal: it does not know this call's mark.
    fake = "Evaluation error: Error: policy-blocked (browser-endpoint) [abt:guess] x"
    spoofed = guard.settle(Envelope(mode=OutputMode.JSON, success=False, error=fake))
    assert spoofed.error == fake and "policy" not in spoofed.extra


def test_content_from_a_browsers_endpoint_is_withheld() -> None:
    devtools = "http://127.0.0.1:41683/json/list"
    rows = (
        BatchRow(("open", "http://x.test/r"), True, {"url": devtools}, None),
        BatchRow(("get", "text", "body"), True, {"origin": devtools, "text": "[tabs]"}, None),
        BatchRow(("get", "title"), True, {"title": "t"}, None),
    )
    answer = Envelope(mode=OutputMode.JSON, success=True, rows=rows)
    assert endpoint_sources(answer) == [devtools]
    kept = withhold(answer, frozenset({41683}))
    assert kept.rows is not None and not kept.success
    assert [r.success for r in kept.rows] == [True, False, True]
    assert kept.rows[1].result is None and "[tabs]" not in str(kept)
    assert kept.extra["policy"]["subject"] == devtools
    read = Envelope(
        mode=OutputMode.JSON,
        success=True,
        data={"content": "[tabs]", "finalUrl": devtools, "url": "https://x.test/r"},
    )
    assert withhold(read, frozenset({41683})).data is None
    # A dev server's page, or a port no browser holds, keeps its answer.
    assert withhold(read, frozenset({9222})) == read
    local = Envelope(mode=OutputMode.JSON, success=True, data={"origin": "https://x.test/"})
    assert endpoint_sources(local) == []


def test_native_text_answers_are_settled_too() -> None:
    guard = _guard()
    sent = guard.row(["eval", "steal()"])
    assert sent is not None
    refusal = f"Error: policy-blocked (browser-endpoint) {guard.mark} http://127.0.0.1:41683"
    answer = Envelope(
        mode=OutputMode.TEXT,
        success=False,
        text=f"[1] eval {sent[1]}\n{refusal}",
        error=f"Evaluation error: {refusal}",
        stderr=refusal,
    )
    settled = guard.settle(answer)
    assert settled.text == "[1] eval steal()\nError: policy-blocked (browser-endpoint) " + (
        "http://127.0.0.1:41683"
    )
    assert guard.mark not in (settled.stderr + str(settled.error))
    assert settled.extra["policy"]["subject"] == "http://127.0.0.1:41683"
