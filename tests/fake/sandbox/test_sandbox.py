"""`agent_browser_code` end to end on the fake engine: the sandbox, its caps and its bridge.

Every cell runs in a real QuickJS worker process; inner `browser()` calls go through the
direct tool's executor to the fake engine, whose call log proves what was (not) dispatched.
Escape attempts must all fail inside the sandbox; every limit must fail the cell without
harming the parent (the next cell works) and without leaving a worker behind.
"""

from __future__ import annotations

import itertools
import json
import os
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from agent_browser_tools.engine.discovery import clear_engine_cache
from agent_browser_tools.planning.sessions import managed_base_name
from agent_browser_tools.results.tool_result import ToolResult
from agent_browser_tools.runtime import Runtime
from agent_browser_tools.settings import Settings
from agent_browser_tools.state.models import SessionKey
from agent_browser_tools.tools.code.spec import SPEC as CODE
from tests.support.fake import FakeEngine

CONVERSATION = "conv-code-1"
MANAGED = managed_base_name(CONVERSATION)


@pytest.fixture(autouse=True)
def _fresh_engine_cache() -> Iterator[None]:
    clear_engine_cache()
    yield
    clear_engine_cache()


def runtime(fake: FakeEngine, tmp_path: Path, **extra: str) -> Runtime:
    base = {k: v for k, v in os.environ.items() if not k.startswith("AGENT_BROWSER")}
    (tmp_path / "home").mkdir(exist_ok=True)
    env = {
        **base,
        "HOME": str(tmp_path / "home"),
        "AGENT_BROWSER_TOOLS_BIN": str(fake.path),
        "AGENT_BROWSER_TOOLS_STATE_DIR": str(tmp_path / "state"),
        **extra,
    }
    settings = Settings.load(env=env, cwd=tmp_path)
    rt = Runtime(settings, conversation_id=CONVERSATION, cwd=tmp_path)
    assert rt.engine.path == str(fake.path)
    fake.reset()
    return rt


async def cell(rt: Runtime, code: str, **extra: Any) -> ToolResult:
    return await CODE.call(rt, {"code": code, **extra})


def data(result: ToolResult) -> Any:
    assert not result.is_error, f"{result.text}\n{result.details}"
    return result.details.get("data")


def engine_calls(fake: FakeEngine) -> list[list[str]]:
    return [argv for argv in fake.argvs() if argv != ["--version"]]


def my_workers() -> list[int]:
    """Live sandbox workers that are children of this test process."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            cmdline = (entry / "cmdline").read_bytes().decode(errors="replace")
        except OSError:
            continue
        fields = stat[stat.rindex(")") + 2 :].split()
        if fields[0] != "Z" and int(fields[1]) == os.getpid() and "sandbox/worker.py" in cmdline:
            found.append(int(entry.name))
    return found


# ----- escapes -------------------------------------------------------------------------------


async def test_host_apis_do_not_exist(fake_engine: FakeEngine, tmp_path: Path) -> None:
    rt = runtime(fake_engine, tmp_path)
    names = [
        "require", "process", "fetch", "XMLHttpRequest", "setTimeout", "setInterval",
        "WebAssembly", "std", "os", "print", "__abt_send", "module", "Deno", "Bun",
    ]  # fmt: skip
    code = f"return {json.dumps(names)}.map(n => [n, typeof globalThis[n]])"
    types = dict(data(await cell(rt, code)))
    assert types == dict.fromkeys(names, "undefined")


@pytest.mark.parametrize(
    ("code", "needle"),
    [
        ("return require('fs')", "require is not defined"),
        ("return process.env", "process is not defined"),
        ("return await fetch('http://127.0.0.1/')", "fetch is not defined"),
        ("return new XMLHttpRequest()", "XMLHttpRequest is not defined"),
        ("setTimeout(() => 1, 1)", "setTimeout is not defined"),
        ("return await import('fs')", "could not load module"),
        ("return await import('data:text/javascript,export default 1')", "could not load"),
        ("return new Function('return 1')()", "code generation from strings"),
        ("return eval('1+1')", "code generation from strings"),
        ("return (0, eval)('1+1')", "code generation from strings"),
        ("return Function('return this')()", "code generation from strings"),
        ("return (async () => {}).constructor('return 1')", "code generation from strings"),
        ("return (function* () {}).constructor('yield 1')", "code generation from strings"),
        ("return (async function* () {}).constructor('yield 1')", "code generation from strings"),
        ("return Reflect.construct(Function, ['return 1'])", "code generation from strings"),
        ("return new WebAssembly.Module(new Uint8Array())", "WebAssembly is not defined"),
    ],
)
async def test_escape_attempts_fail_as_script_errors(
    fake_engine: FakeEngine, tmp_path: Path, code: str, needle: str
) -> None:
    result = await cell(runtime(fake_engine, tmp_path), code)
    assert result.is_error
    assert result.details["failureCategory"] == "script-error"
    assert needle in result.details["error"], result.details["error"]


async def test_observations_are_plain_json_objects(fake_engine: FakeEngine, tmp_path: Path) -> None:
    """Nothing host-side is reachable from what `browser()` returns."""
    rt = runtime(fake_engine, tmp_path)
    code = """
      const obs = await browser({ args: ['get', 'url'] });
      const out = {
        objectProto: Object.getPrototypeOf(obs) === Object.prototype,
        chainEnds: Object.getPrototypeOf(Object.prototype) === null,
        ownKeys: Object.getOwnPropertyNames(obs).sort(),
        functions: Object.values(obs).filter(v => typeof v === 'function').length,
        browserIsPlain: Object.getPrototypeOf(browser) === Function.prototype,
      };
      try { out.ctor = obs.constructor.constructor('return this')(); }
      catch (err) { out.ctor = String(err); }
      return out;
    """
    result = data(await cell(rt, code))
    assert result["objectProto"] and result["chainEnds"] and result["browserIsPlain"]
    assert result["functions"] == 0
    assert "success" in result["ownKeys"]
    assert "code generation from strings is disabled" in result["ctor"] or "EvalError" in str(
        result["ctor"]
    )


async def test_globals_are_fresh_every_cell(fake_engine: FakeEngine, tmp_path: Path) -> None:
    rt = runtime(fake_engine, tmp_path)
    await cell(rt, "globalThis.leak = 42; Object.prototype.polluted = 1; return 1")
    assert data(await cell(rt, "return [typeof leak, ({}).polluted === undefined]")) == [
        "undefined",
        True,
    ]


# ----- resource limits -----------------------------------------------------------------------


async def test_memory_bomb_fails_the_cell_and_the_next_cell_works(
    fake_engine: FakeEngine, tmp_path: Path
) -> None:
    rt = runtime(fake_engine, tmp_path)
    bomb = "const a = []; for (;;) a.push('x'.repeat(4096) + a.length);"
    result = await cell(rt, bomb, timeoutMs=60_000)
    assert result.details["failureCategory"] == "script-error"
    assert "out of memory" in result.details["error"]
    assert "64 MiB" in result.details["error"]
    assert data(await cell(rt, "return 'alive'")) == "alive"


async def test_infinite_loop_times_out_near_the_deadline(
    fake_engine: FakeEngine, tmp_path: Path
) -> None:
    rt = runtime(fake_engine, tmp_path)
    started = time.monotonic()
    result = await cell(rt, "for (;;) {}", timeoutMs=1000)
    elapsed = time.monotonic() - started
    assert result.details["failureCategory"] == "timeout"
    assert result.details["codeRun"]["timedOut"] is True
    assert elapsed < 3.0, elapsed
    assert my_workers() == []
    assert data(await cell(rt, "return 1")) == 1


async def test_deadlocked_body_is_a_script_error(fake_engine: FakeEngine, tmp_path: Path) -> None:
    result = await cell(runtime(fake_engine, tmp_path), "await new Promise(() => {})")
    assert result.details["failureCategory"] == "script-error"
    assert "can never settle" in result.details["error"]


async def test_uncaught_error_reports_message_and_line(
    fake_engine: FakeEngine, tmp_path: Path
) -> None:
    result = await cell(runtime(fake_engine, tmp_path), "const a = 1;\n\nthrow new Error('boom')")
    assert result.details["failureCategory"] == "script-error"
    assert result.details["scriptError"] == {"name": "Error", "message": "boom", "line": 3}
    assert "uncaught Error: boom (line 3)" in result.text
    assert "failureCategory: script-error" in result.text


# ----- calls ---------------------------------------------------------------------------------


async def test_the_26th_call_is_rejected(fake_engine: FakeEngine, tmp_path: Path) -> None:
    rt = runtime(fake_engine, tmp_path)
    code = """
      const seen = [];
      for (let i = 0; i < 26; i++) {
        const r = await browser({ args: ['get', 'url'] });
        seen.push(r.success ? 'ok' : r.failureCategory + ': ' + r.error);
      }
      return seen.slice(23);
    """
    result = await cell(rt, code)
    tail = data(result)
    assert tail[:2] == ["ok", "ok"]
    assert tail[2].startswith("validation-error: call 26 rejected")
    run = result.details["codeRun"]
    assert run["callCount"] == 26
    assert run["rejectedCallCount"] == 1
    assert run["failedCallCount"] == 1
    assert len(engine_calls(fake_engine)) == 25
    assert "call 26 `get url`: validation-error" in result.text


async def test_promise_all_calls_run_one_at_a_time(fake_engine: FakeEngine, tmp_path: Path) -> None:
    rt = runtime(fake_engine, tmp_path)
    fake_engine.on({"command": ["get", "url"]}, delay_ms=150, envelope={"data": {"url": "x"}})
    code = """
      const rs = await Promise.all([0, 1, 2].map(() => browser({ args: ['get', 'url'] })));
      return rs.map(r => r.success);
    """
    result = await cell(rt, code)
    assert data(result) == [True, True, True]
    starts = sorted(float(str(c["time"])) for c in fake_engine.calls())
    assert len(starts) == 3
    gaps = [b - a for a, b in itertools.pairwise(starts)]
    assert min(gaps) >= 0.14, gaps  # each call started after the previous one's 150 ms


async def test_identity_is_fixed_and_other_sessions_are_refused(
    fake_engine: FakeEngine, tmp_path: Path
) -> None:
    rt = runtime(fake_engine, tmp_path)
    code = """
      const a = await browser({ args: ['get', 'url'] });
      const b = await browser({ args: ['--session', 'other', 'get', 'url'] });
      const c = await browser({ args: ['close', '--all'] });
      const d = await browser({ args: ['batch'], stdin: JSON.stringify([['--namespace', 'x',
        'get', 'url']]) });
      return [a.success, b.failureCategory, c.failureCategory, d.failureCategory];
    """
    result = await cell(rt, code, session="mine")
    assert data(result) == [True, "validation-error", "validation-error", "validation-error"]
    assert engine_calls(fake_engine) == [["--json", "--session", "mine", "get", "url"]]
    assert result.details["codeRun"]["rejectedCallCount"] == 3
    assert result.details["sessionName"] == "mine"
    assert "selects another browser" in result.text


async def test_managed_identity_uses_the_ordinary_ownership_path(
    fake_engine: FakeEngine, tmp_path: Path
) -> None:
    rt = runtime(fake_engine, tmp_path)
    result = await cell(rt, "return (await browser({ args: ['get', 'url'] })).success")
    assert data(result) is True
    assert engine_calls(fake_engine) == [["--json", "--session", MANAGED, "get", "url"]]
    assert SessionKey(session=MANAGED) in rt.owned_sessions
    assert rt.log.state.managed_session == MANAGED
    assert result.details["usedImplicitSession"] is True


async def test_namespace_is_prepended(fake_engine: FakeEngine, tmp_path: Path) -> None:
    rt = runtime(fake_engine, tmp_path)
    await cell(rt, "await browser({ args: ['get', 'url'] })", session="s1", namespace="ns1")
    assert engine_calls(fake_engine) == [
        ["--json", "--session", "s1", "--namespace", "ns1", "get", "url"]
    ]


async def test_handled_failures_stay_visible(fake_engine: FakeEngine, tmp_path: Path) -> None:
    rt = runtime(fake_engine, tmp_path)
    fake_engine.on(
        {"command": ["click"]},
        envelope={"success": False, "error": "Element not found: #missing"},
    )
    code = """
      const r = await browser({ args: ['click', '#missing'] });
      emit({ clicked: r.success });
    """
    result = await cell(rt, code)
    assert data(result) == {"clicked": False}
    assert result.details["codeRun"]["failedCallCount"] == 1
    failure = result.details["failures"][0]
    assert failure["args"] == ["click", "#missing"]
    assert failure["failureCategory"] == "selector-not-found"
    assert "call 1 `click #missing`: selector-not-found" in result.text


async def test_invalid_request_shape_fails_the_outer_result(
    fake_engine: FakeEngine, tmp_path: Path
) -> None:
    rt = runtime(fake_engine, tmp_path)
    code = "const r = await browser({ args: 'get url' }); return r.success"
    result = await cell(rt, code)
    assert result.is_error
    assert result.details["failureCategory"] == "validation-error"
    assert "invalid browser() request" in result.details["error"]
    assert engine_calls(fake_engine) == []


async def test_unawaited_calls_are_reported(fake_engine: FakeEngine, tmp_path: Path) -> None:
    rt = runtime(fake_engine, tmp_path)
    fake_engine.on({"command": ["get", "url"]}, delay_ms=100, envelope={"data": {"url": "x"}})
    result = await cell(rt, "browser({ args: ['get', 'url'] }); browser({ args: ['get', 'url'] })")
    assert not result.is_error
    run = result.details["codeRun"]
    assert run["callCount"] == 2
    assert run["rejectedCallCount"] >= 1
    assert "missing await" in result.text


# ----- output --------------------------------------------------------------------------------


async def test_emits_become_data(fake_engine: FakeEngine, tmp_path: Path) -> None:
    rt = runtime(fake_engine, tmp_path)
    assert data(await cell(rt, "emit({ a: 1 }); return 5")) == {"a": 1}
    assert data(await cell(rt, "emit(1); emit('two'); emit([3])")) == [1, "two", [3]]
    assert data(await cell(rt, "return { r: true }")) == {"r": True}
    none = await cell(rt, "const x = 1;")
    assert "data" not in none.details
    assert none.details["codeRun"]["emitCount"] == 0


async def test_oversized_emit_fails_even_when_caught(
    fake_engine: FakeEngine, tmp_path: Path
) -> None:
    rt = runtime(fake_engine, tmp_path)
    code = "try { emit('x'.repeat(70000)); } catch (err) {} return 'survived'"
    result = await cell(rt, code)
    assert result.is_error
    assert result.details["failureCategory"] == "validation-error"
    assert "65536" in result.details["error"]


async def test_output_path_is_written(fake_engine: FakeEngine, tmp_path: Path) -> None:
    rt = runtime(fake_engine, tmp_path)
    result = await cell(rt, "emit({ a: [1, 2] })", outputPath="@out/result.json")
    saved = result.details["outputFile"]
    assert saved["status"] == "saved"
    assert saved["path"] == "out/result.json"
    text = (tmp_path / "out" / "result.json").read_text()
    assert text == json.dumps({"a": [1, 2]}, indent=2) + "\n"
    assert saved["bytes"] == len(text.encode())
    assert "Output file:" in result.text
