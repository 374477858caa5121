"""No import cycles between the package's modules, deferred and `TYPE_CHECKING` imports included.

Why count those too: a function-level or type-only import that closes a loop still means two
modules cannot be read, tested or moved apart, and the runtime order only works by accident.
A failure lists each cycle's modules; `imports.py` says what counts as an import.
"""

from __future__ import annotations

from tests.architecture.checks import source_graph, unexpected_cycles


def test_no_import_cycles() -> None:
    new, _ = unexpected_cycles(source_graph(), frozenset())
    assert not new, "import cycles:\n" + "\n".join(" <-> ".join(cycle) for cycle in new)
