"""Operand spellings and usage lines (`taxonomy.usage`), held against every command row: the
counts the rules check come from the spelling the refusal shows, for every supported release."""

from __future__ import annotations

import pytest

from agent_browser_tools import taxonomy
from agent_browser_tools.planning.arity import arity_problem
from agent_browser_tools.taxonomy import CommandSpec
from agent_browser_tools.taxonomy.releases import SUPPORTED_ENGINE_VERSIONS
from agent_browser_tools.taxonomy.usage import missing_operands, operand_shape, usage


def test_an_operand_spelling_gives_the_counts() -> None:
    assert operand_shape("") == (0, 0, ())
    assert operand_shape("<selector> <text>") == (2, 2, ("<selector>", "<text>"))
    assert operand_shape("[direction] [px]")[:2] == (0, 2)
    assert operand_shape("<selector> <value...>")[:2] == (1 + 1, None)
    assert operand_shape("[name...]")[:2] == (0, None)
    assert operand_shape("<dy> [dx]")[:2] == (1, 2)
    # A flag may stand in for the operand: not counted as required.
    assert operand_shape("<script|--stdin>")[:2] == (0, 1)
    assert operand_shape("<name|--curl> <value|--curl>")[:2] == (0, 2)


@pytest.mark.parametrize(
    "spelling", ["selector", "[url] <path>", "<value...> <more>", "<a", "[a]>", "(a)"]
)
def test_a_spelling_no_command_line_could_follow_is_refused(spelling: str) -> None:
    with pytest.raises(ValueError):
        operand_shape(spelling)


def _argv(spec: CommandSpec, operands: list[str]) -> list[str]:
    words = list(spec.path[:-1] if spec.synthetic else spec.path)
    return [*words, *operands]


def _rows() -> list[tuple[str, CommandSpec]]:
    found: list[tuple[str, CommandSpec]] = []
    for version in SUPPORTED_ENGINE_VERSIONS:
        with taxonomy.surface(version):
            found.extend((version, spec) for spec in taxonomy.all_commands())
    return found


@pytest.mark.parametrize(("version", "spec"), _rows(), ids=lambda v: getattr(v, "name", v))
def test_every_command_has_a_usage_and_its_counts(version: str, spec: CommandSpec) -> None:
    """Usage printed for each row; a sample with one value per operand passes, one fewer
    required operand and one more than the most are refused, naming that usage."""
    line = usage(spec)
    print(f"{version} {line}")
    assert line.startswith(" ".join(spec.path[:-1] if spec.synthetic else spec.path))
    assert all(name in line for name in spec.operand_names)
    assert operand_shape(" ".join(spec.operand_names)) == (
        spec.min_operands,
        spec.max_operands,
        spec.operand_names,
    )
    sample = [f"v{i}" for i, name in enumerate(spec.operand_names) if name.startswith("<")]
    with taxonomy.surface(version):
        match = taxonomy.resolve_command(_argv(spec, sample))
        assert match is not None and match.spec == spec, sample
        assert arity_problem(match) is None
        if sample:
            short = taxonomy.resolve_command(_argv(spec, sample[:-1]))
            assert short is not None
            if spec.path == ("tab", "select"):  # `tab` alone is `tab list`
                assert short.spec.path == ("tab", "list")
            else:
                assert short.spec == spec and missing_operands(short)
                problem = arity_problem(short)
                assert problem is not None and f"Usage: `{line}`." in problem
        if spec.max_operands is not None:
            extra = ["v"] * (spec.max_operands + 1)
            long = taxonomy.resolve_command(_argv(spec, extra))
            assert long is not None and long.spec == spec
            problem = arity_problem(long)
            assert problem is not None and "so nothing ran" in problem and line in problem
        else:
            many = taxonomy.resolve_command(_argv(spec, [*sample, *["v"] * 5]))
            assert many is not None and arity_problem(many) is None


def test_a_synthetic_row_is_spelled_as_the_engine_spells_it() -> None:
    spec = taxonomy.command(["tab", "select"])
    assert spec is not None and usage(spec) == "tab <tab>"


def test_flags_show_their_values() -> None:
    spec = taxonomy.command(["click"])
    assert spec is not None and usage(spec) == "click <selector> [--new-tab] [--human]"
    wait = taxonomy.command(["wait"])
    assert wait is not None and "[--download [value]]" in usage(wait)
    assert "[--timeout <value>]" in usage(wait)
