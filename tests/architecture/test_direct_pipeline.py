"""The direct tool's order of work is readable in one place: `execute.run`.

Why a test: the post-dispatch order used to live in one long function that called back into the
executor from below; a reader had to follow seven hops to learn it. `run` names every stage in at
most 30 lines, and no stage module imports the executor, so the order cannot hide elsewhere.
"""

from __future__ import annotations

from tests.architecture.checks import source_graph
from tests.architecture.imports import functions

EXECUTE = "tools.agent_browser.execute"
MAX_RUN_LINES = 30


def test_run_names_every_stage_in_at_most_30_lines() -> None:
    graph = source_graph()
    source = graph.modules[f"{graph.package}.{EXECUTE}"].read_text(encoding="utf-8")
    (run,) = [f for f in functions(source) if f.qualname == "run"]
    assert run.length <= MAX_RUN_LINES, f"execute.run is {run.length} lines"


def test_no_stage_module_imports_the_executor() -> None:
    graph = source_graph()
    package_init = f"{graph.package}.tools.agent_browser"
    callers = sorted(
        graph.relative(imp.importer)
        for imp in graph.imports
        if graph.relative(imp.target) == EXECUTE and imp.importer != package_init
    )
    assert not callers, f"modules importing the executor (use the package instead): {callers}"
