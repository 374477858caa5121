"""The taxonomy agrees with every supported engine's capability baseline, both ways.

The baselines are generated from each binary (`scripts/engine_baseline.py`); this test needs
no engine. A planted disagreement shows the check finds each kind.
"""

from __future__ import annotations

from dataclasses import replace

from agent_browser_tools.engine.target import SUPPORTED_ENGINE_VERSIONS
from agent_browser_tools.taxonomy import engine_surface, resolve_command, surface
from agent_browser_tools.taxonomy.baseline import (
    Baseline,
    all_disagreements,
    disagreements,
    stored,
)


def test_every_supported_release_has_a_baseline_the_taxonomy_agrees_with() -> None:
    assert [stored(v).engine for v in SUPPORTED_ENGINE_VERSIONS] == list(SUPPORTED_ENGINE_VERSIONS)
    assert all_disagreements() == []


def test_a_planted_mismatch_is_found_in_each_direction() -> None:
    real = stored("0.41.2")
    planted = replace(
        real,
        commands=(real.commands - {("mcp", "call")}) | {("teleport",)},
        global_flags=(real.global_flags - {"--cdp-headers"}) | {"--frobnicate"},
    )
    assert disagreements(planted) == [
        "0.41.2: documented command `teleport` has no taxonomy row",
        "0.41.2: taxonomy row `mcp call` is not documented",
        "0.41.2: documented global flag --frobnicate has no taxonomy row",
        "0.41.2: taxonomy global flag --cdp-headers is not documented",
    ]


def test_a_row_new_in_a_release_is_unknown_to_the_older_ones_taxonomy() -> None:
    before = engine_surface()
    with surface("0.39.4"):
        older = resolve_command(["mcp", "call", "x"])
        assert older is not None and older.spec.path == ("mcp",)  # `call` is an operand there
    with surface("0.41.2"):
        match = resolve_command(["mcp", "call", "x"])
        assert match is not None and match.spec.path == ("mcp", "call")
    assert engine_surface() == before


def test_the_baseline_round_trips_through_its_stored_form() -> None:
    made = Baseline("0.0.1", frozenset({("get", "url"), ("open",)}), frozenset({"--json"}))
    assert Baseline.from_data(made.to_data()) == made
