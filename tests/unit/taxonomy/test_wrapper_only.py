"""The wrapper's own command (`spill`) is a taxonomy row no engine claims and the engine never
gets: listed for the model, skipped by every baseline, refused as a batch row."""

from __future__ import annotations

import json

import pytest

from agent_browser_tools.engine.target import SUPPORTED_ENGINE_VERSIONS
from agent_browser_tools.planning.argv_rules import ArgvRejected, check_argv
from agent_browser_tools.planning.known_surface import check_known
from agent_browser_tools.playbook import command_reference
from agent_browser_tools.taxonomy import SessionNeed, all_commands, command, surface
from agent_browser_tools.taxonomy.baseline import disagreements, stored
from agent_browser_tools.taxonomy.usage import usage


def test_spill_is_the_one_wrapper_only_row_sessionless_and_read_only() -> None:
    assert [spec.name for spec in all_commands() if spec.wrapper_only] == ["spill"]
    spec = command(["spill"])
    assert spec is not None and spec.read_only and spec.session is SessionNeed.SESSIONLESS
    assert usage(spec) == "spill <name> [--offset <value>]"


@pytest.mark.parametrize("version", SUPPORTED_ENGINE_VERSIONS)
def test_no_engine_baseline_claims_it_and_none_is_asked_to(version: str) -> None:
    baseline = stored(version)
    assert ("spill",) not in baseline.commands
    with surface(version):
        assert command(["spill"]) is not None, "every release's taxonomy has the wrapper row"
    assert disagreements(baseline) == [], "a wrapper-only row is not 'undocumented'"


@pytest.mark.parametrize(
    "rows",
    [
        [["open", "https://a.test/"], ["spill", "snapshot-0123456789ab.txt"]],
        [["--session", "s", "spill", "snapshot-0123456789ab.txt", "--offset", "5"]],
    ],
)
def test_a_batch_row_never_carries_it_to_the_engine(rows: list[list[str]]) -> None:
    with pytest.raises(ArgvRejected) as caught:
        check_known(check_argv(["batch"], json.dumps(rows)))
    message = str(caught.value)
    assert f"batch row {len(rows)}: `spill` is answered by the wrapper" in message
    assert 'send it alone: {"args": ["spill", "<name>"]}' in message


def test_a_direct_call_that_reached_planning_is_refused_not_dispatched() -> None:
    """`execute.run` answers `spill` before planning; if anything ever planned it, the
    allowlist still stops it short of the engine."""
    with pytest.raises(ArgvRejected, match="answered by the wrapper"):
        check_known(check_argv(["spill", "snapshot-0123456789ab.txt"], None))


def test_the_command_list_shows_it_apart_from_the_engine_commands() -> None:
    listing = command_reference()
    engine, wrapper = listing.split("Answered by the wrapper itself", 1)
    assert "`spill" not in engine
    assert "- `spill <name> [--offset <value>]`: Read a saved output" in wrapper
    assert "- `snapshot`" in engine and "- `snapshot`" not in wrapper
