"""The generated docs (README's tools table, `serve` options and client snippets, and
docs/tools.md) are generated from the code and must be in sync: `--check` fails on drift."""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "gen_tool_reference.py"


def _check(*extra: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(SCRIPT), "--check", *extra],
        capture_output=True,
        text=True,
        check=False,
    )


@pytest.fixture
def gen(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> ModuleType:
    """The generator, writing to copies of README.md and docs/tools.md under `tmp_path`."""
    monkeypatch.syspath_prepend(str(SCRIPT.parent))
    import gen_tool_reference

    for attr, name in (("README", "README.md"), ("TOOLS_DOC", "tools.md")):
        copy = tmp_path / name
        copy.write_text(getattr(gen_tool_reference, attr).read_text(encoding="utf-8"))
        monkeypatch.setattr(gen_tool_reference, attr, copy)
    return gen_tool_reference


def test_generated_docs_are_in_sync() -> None:
    done = _check()
    assert done.returncode == 0, done.stdout + done.stderr


def _stale_then_fixed(
    gen: ModuleType, attr: str, old: str, new: str, capsys: pytest.CaptureFixture[str]
) -> None:
    path: Path = getattr(gen, attr)
    text = path.read_text(encoding="utf-8")
    assert old in text
    path.write_text(text.replace(old, new, 1), encoding="utf-8")
    assert gen.main(["--check"]) == 1
    out = capsys.readouterr().out
    assert any(line.startswith("-") and new in line for line in out.splitlines()), out
    assert gen.main([]) == 0 and path.read_text(encoding="utf-8") == text
    assert gen.main(["--check"]) == 0


def test_a_stale_tools_table_fails_the_check_with_a_diff(
    gen: ModuleType, capsys: pytest.CaptureFixture[str]
) -> None:
    _stale_then_fixed(
        gen, "README", "| `agent_browser` | Browser |", "| `agent_browser` | Old |", capsys
    )


def test_a_stale_options_table_fails_the_check(
    gen: ModuleType, capsys: pytest.CaptureFixture[str]
) -> None:
    _stale_then_fixed(
        gen, "README", "| `--http` | Streamable HTTP", "| `--http` | Old HTTP", capsys
    )


def test_a_stale_client_snippet_fails_the_check(
    gen: ModuleType, capsys: pytest.CaptureFixture[str]
) -> None:
    _stale_then_fixed(gen, "README", "cmd: agent-browser-tools", "cmd: old-tools", capsys)


def test_a_stale_tool_reference_fails_the_check(
    gen: ModuleType, capsys: pytest.CaptureFixture[str]
) -> None:
    _stale_then_fixed(gen, "TOOLS_DOC", "## `agent_browser`: Browser", "## Old", capsys)


def test_a_new_serve_flag_changes_the_options_table(
    gen: ModuleType, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The table is read from the parser, so a flag added there is a stale README."""
    import serve_options

    real = serve_options.serve_parser()
    real.add_argument("--brand-new", metavar="X", help="a flag the README has not seen")
    monkeypatch.setattr(serve_options, "serve_parser", lambda: real)
    assert gen.main(["--check"]) == 1
    assert gen.main([]) == 0
    assert "| `--brand-new X` | a flag the README has not seen |" in gen.README.read_text()


def test_every_serve_flag_is_in_the_table() -> None:
    sys.path.insert(0, str(SCRIPT.parent))
    import serve_options

    table = "\n".join(serve_options.options_table())
    flags = [
        a.option_strings[0]
        for a in serve_options.serve_parser()._actions
        if a.option_strings and not isinstance(a, argparse._HelpAction)
    ]
    assert len(flags) >= 20
    for flag in flags:
        assert f"`{flag}" in table, flag


def test_the_tool_reference_lists_every_field_of_every_tool() -> None:
    sys.path.insert(0, str(SCRIPT.parent))
    import tool_docs

    from agent_browser_tools.tools.catalog import declared

    reference = tool_docs.reference()
    for spec in declared():
        assert f"## `{spec.name}`: {spec.title}" in reference
        section = reference.split(f"## `{spec.name}`")[1].split("\n## ")[0]
        for field in spec.input_schema.get("properties", {}):
            assert f"| `{field}` |" in section, (spec.name, field)


@pytest.mark.parametrize(
    ("schema", "expected"),
    [
        ({"type": "integer", "exclusiveMinimum": 0}, "integer (> 0)"),
        ({"enum": ["auto", "fresh"], "type": "string"}, '"auto" / "fresh"'),
        ({"type": "array", "items": {"type": "string"}}, "array of string"),
        ({"anyOf": [{"type": "string"}, {"type": "null"}]}, "string or null"),
        ({"const": True, "type": "boolean"}, "true"),
    ],
)
def test_field_types_read_as_written(schema: dict[str, object], expected: str) -> None:
    sys.path.insert(0, str(SCRIPT.parent))
    import tool_docs

    assert tool_docs.type_of(schema) == expected
