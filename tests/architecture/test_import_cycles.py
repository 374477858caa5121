"""No import cycles between the package's modules, deferred and `TYPE_CHECKING` imports included.

Why count those too: a function-level or type-only import that closes a loop still means two
modules cannot be read, tested or moved apart, and the runtime order only works by accident.
A failure lists each cycle's modules; `imports.py` says what counts as an import.
"""

from __future__ import annotations

from tests.architecture.checks import source_graph, unexpected_cycles

#: Cycles on the tree today, keyed by their exact module sets so any other cycle (or a change
#: in these) fails. Removed by the registry step of issue 13 (`Runtime.toolkit` types `runtime`
#: by the registry, which types its handlers by `Runtime`).
KNOWN_CYCLES = frozenset(
    {
        frozenset({"runtime", "tools.registry"}),
    }
)


def test_no_import_cycles() -> None:
    new, _ = unexpected_cycles(source_graph(), KNOWN_CYCLES)
    assert not new, "import cycles:\n" + "\n".join(" <-> ".join(cycle) for cycle in new)


def test_known_cycles_still_exist() -> None:
    """The allowance shrinks with the code: a cycle that is gone (or changed) must leave it."""
    _, gone = unexpected_cycles(source_graph(), KNOWN_CYCLES)
    assert not gone, "remove from KNOWN_CYCLES:\n" + "\n".join(str(sorted(c)) for c in gone)
