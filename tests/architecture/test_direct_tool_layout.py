"""The direct tool's folder shows the phases of a call at the top and the features below,
and the features are participants that do not know each other.

Why a test: the package once held 62 modules at one level, phases and features mixed, and a
stranger could not tell where a behaviour lives. The top level now holds the stages of a call
and the interfaces they hand to features; every feature lives in a subpackage named for what
it concerns, and calls back up only through those interfaces (`call`, `helpers`, `hooks`,
`named_rows`), never into a stage, so the order of a call stays readable in `execute.run`.
The features `participants` registers do not import one another: what two of them share is a
service module neither registers, so a registered behaviour changes in its own module only.
"""

from __future__ import annotations

from tests.architecture.checks import PACKAGE_ROOT, participant_crossings, source_graph, within

DIRECT = "tools.agent_browser"
TABLE = DIRECT + ".participants"
EXECUTOR = DIRECT + ".execute"
MAX_TOP_LEVEL_FILES = 20
SHARED_WITH_FEATURES = frozenset({"call", "helpers", "hooks", "named_rows"})
"""What a call carries, the helper-call runner, the extension points and the named batch rows."""


def _top_level_modules() -> set[str]:
    return {path.stem for path in (PACKAGE_ROOT / "tools" / "agent_browser").glob("*.py")}


def test_the_top_level_holds_at_most_twenty_files() -> None:
    top = sorted(_top_level_modules())
    assert len(top) <= MAX_TOP_LEVEL_FILES, f"{len(top)} files at the top: {top}"


def test_features_reach_the_stages_only_through_the_shared_interfaces() -> None:
    graph = source_graph()
    stages = _top_level_modules() - {"__init__"}
    assert stages >= SHARED_WITH_FEATURES, "a shared interface moved: update this rule"
    crossings = []
    for imp in graph.imports:
        importer, target = graph.relative(imp.importer), graph.relative(imp.target)
        if not within(importer, DIRECT) or not within(target, DIRECT):
            continue
        feature = importer[len(DIRECT) + 1 :]
        stage = target[len(DIRECT) + 1 :]
        if "." not in feature or stage not in stages:
            continue  # a stage importing anything, or a feature importing a feature
        if stage not in SHARED_WITH_FEATURES:
            crossings.append(f"{graph.path_of(imp.importer)}:{imp.line} imports {target}")
    assert not crossings, "features calling up into a stage:\n" + "\n".join(sorted(crossings))


def test_no_participant_imports_another_and_no_service_imports_a_participant() -> None:
    crossings = participant_crossings(source_graph(), TABLE, DIRECT)
    assert not crossings, "participants tied together:\n" + "\n".join(crossings)


def test_the_executor_names_no_feature() -> None:
    """`execute` walks the participants' lists and calls the stages; a feature it named
    would be a participant the table of contents does not show."""
    graph = source_graph()
    named = sorted(
        graph.relative(imp.target)
        for imp in graph.imports
        if graph.relative(imp.importer) == EXECUTOR
        and within(graph.relative(imp.target), DIRECT)
        and "." in graph.relative(imp.target)[len(DIRECT) + 1 :]
    )
    assert not named, f"the executor imports features: {named}"
