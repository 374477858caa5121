"""Each supported engine's capability baseline, and where the taxonomy disagrees with it.

A baseline (`baselines/engine-<version>.json`, written by `scripts/engine_baseline.py` from
that release's own `--help`, its commands' `--help`, `doctor --help` and its skills reference)
lists the command paths and global flags the release documents. The taxonomy must agree with
it both ways: every documented path resolves to a row of that release's taxonomy, every row
(not the wrapper's own synthetic or wrapper-only ones) is documented, and the global flags are
the same set.
A new release is added by generating its baseline and fixing rows (`since`) until this
module finds nothing (a test runs it for every supported release).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from importlib import resources
from typing import Any

from agent_browser_tools.taxonomy import inventory
from agent_browser_tools.taxonomy.lookup import all_commands, all_global_flags, surface
from agent_browser_tools.taxonomy.releases import SUPPORTED_ENGINE_VERSIONS


@dataclass(frozen=True)
class Baseline:
    """What one engine release documents."""

    engine: str
    commands: frozenset[tuple[str, ...]]
    global_flags: frozenset[str]

    @classmethod
    def from_data(cls, data: Mapping[str, Any]) -> Baseline:
        return cls(
            engine=str(data["engine"]),
            commands=frozenset(tuple(str(p).split()) for p in data["commands"]),
            global_flags=frozenset(str(f) for f in data["global_flags"]),
        )

    def to_data(self) -> dict[str, Any]:
        return {
            "engine": self.engine,
            "commands": sorted(" ".join(path) for path in self.commands),
            "global_flags": sorted(self.global_flags),
        }


def stored(version: str) -> Baseline:
    """The checked-in baseline of a supported release."""
    name = f"engine-{version}.json"
    text = resources.files(__package__).joinpath("baselines", name).read_text(encoding="utf-8")
    return Baseline.from_data(json.loads(text))


def disagreements(baseline: Baseline) -> list[str]:
    """Every way the taxonomy of `baseline.engine` and the baseline differ, one line each."""
    with surface(baseline.engine):
        found = [
            f"{baseline.engine}: documented command `{' '.join(path)}` has no taxonomy row"
            for path in inventory.uncovered(baseline.commands)
        ]
        for spec in all_commands():
            if spec.synthetic or spec.wrapper_only or not spec.cli_available:
                continue
            if not any(path in baseline.commands for path in (spec.path, *spec.aliases)):
                found.append(f"{baseline.engine}: taxonomy row `{spec.name}` is not documented")
        flags = {flag.name for flag in all_global_flags()}
    found += [
        f"{baseline.engine}: documented global flag {name} has no taxonomy row"
        for name in sorted(baseline.global_flags - flags)
    ]
    found += [
        f"{baseline.engine}: taxonomy global flag {name} is not documented"
        for name in sorted(flags - baseline.global_flags)
    ]
    return found


def all_disagreements() -> list[str]:
    """`disagreements` for every supported release's stored baseline."""
    return [
        line for version in SUPPORTED_ENGINE_VERSIONS for line in disagreements(stored(version))
    ]
