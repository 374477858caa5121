"""The architecture checks themselves, on small packages planted in tmp_path.

Why: a check over the real tree that passes proves nothing if the check cannot fail. Each rule
here is shown to catch a planted violation (and to let the matching allowed shape through).
"""

from __future__ import annotations

import textwrap
from collections import Counter
from pathlib import Path

from tests.architecture.checks import (
    command_path_literals,
    forbidden_imports,
    oversized,
    participant_crossings,
    tool_crossings,
    unexpected_cycles,
    unlisted_imports,
)
from tests.architecture.imports import ImportGraph, Kind, build_graph, cycles, functions


def plant(tmp_path: Path, files: dict[str, str]) -> ImportGraph:
    """Write package `pkg` (relative path -> source; `__init__.py` files are added) and graph it."""
    root = tmp_path / "pkg"
    for relative, source in files.items():
        path = root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(source), encoding="utf-8")
    for folder in [root, *(path for path in root.rglob("*") if path.is_dir())]:
        (folder / "__init__.py").touch()
    return build_graph(root, "pkg")


def relative_cycles(graph: ImportGraph) -> list[tuple[str, ...]]:
    return [tuple(graph.relative(name) for name in cycle) for cycle in cycles(graph.edges())]


def test_a_cycle_through_a_deferred_import_is_found(tmp_path: Path) -> None:
    graph = plant(
        tmp_path,
        {
            "a.py": "def later():\n    from pkg import b\n",
            "b.py": "import pkg.a\n",
        },
    )
    assert relative_cycles(graph) == [("a", "b")]
    assert {imp.kind for imp in graph.imports} == {Kind.DEFERRED, Kind.MODULE}


def test_a_cycle_through_type_checking_is_found(tmp_path: Path) -> None:
    graph = plant(
        tmp_path,
        {
            "a.py": """
                from typing import TYPE_CHECKING
                if TYPE_CHECKING:
                    from pkg.b import Thing
            """,
            "b.py": "from . import a\nThing = int\n",
        },
    )
    assert relative_cycles(graph) == [("a", "b")]
    assert Kind.TYPE_CHECKING in {imp.kind for imp in graph.imports}


def test_a_self_import_is_a_cycle(tmp_path: Path) -> None:
    graph = plant(tmp_path, {"a.py": "def f():\n    import pkg.a\n"})
    assert relative_cycles(graph) == [("a",)]


def test_a_dotted_import_does_not_depend_on_the_parent_init(tmp_path: Path) -> None:
    """`import pkg.sub.mod` loads `pkg/sub/__init__` at run time, but the graph (like a
    reader) follows only the module named; so this is not a cycle."""
    graph = plant(
        tmp_path,
        {
            "sub/__init__.py": "from pkg import low\n",
            "sub/mod.py": "",
            "low.py": "import pkg.sub.mod\n",
        },
    )
    assert relative_cycles(graph) == []


def test_naming_a_package_depends_on_its_init(tmp_path: Path) -> None:
    graph = plant(
        tmp_path,
        {
            "sub/__init__.py": "from pkg.low import VALUE\n",
            "low.py": "from pkg.sub import helper\nVALUE = 1\n",
        },
    )
    assert relative_cycles(graph) == [("low", "sub")]


def test_relative_imports_resolve_from_modules_and_inits(tmp_path: Path) -> None:
    graph = plant(
        tmp_path,
        {
            "sub/__init__.py": "from .mod import x\nfrom .. import top\n",
            "sub/mod.py": "from ..top import y\nfrom . import other\nx = 1\n",
            "sub/other.py": "",
            "top.py": "y = 1\n",
        },
    )
    edges = {(graph.relative(imp.importer), graph.relative(imp.target)) for imp in graph.imports}
    assert edges == {
        ("sub", "sub.mod"),
        ("sub", "top"),
        ("sub.mod", "top"),
        ("sub.mod", "sub.other"),
    }


def test_known_cycles_are_matched_by_exact_module_set(tmp_path: Path) -> None:
    graph = plant(
        tmp_path,
        {
            "a.py": "import pkg.b\n",
            "b.py": "import pkg.c\n",
            "c.py": "def f():\n    import pkg.a\n",
        },
    )
    assert unexpected_cycles(graph, {frozenset({"a", "b", "c"})}) == ([], [])
    # A known cycle that grew, or one that is gone, no longer matches.
    new, gone = unexpected_cycles(graph, {frozenset({"a", "b"})})
    assert new == [("a", "b", "c")]
    assert gone == [frozenset({"a", "b"})]


def test_a_forbidden_import_is_found_even_when_deferred(tmp_path: Path) -> None:
    graph = plant(
        tmp_path,
        {
            "state/effects.py": "def f():\n    from pkg.results import render\n",
            "results/render.py": "from pkg.state import effects\n",
        },
    )
    found = forbidden_imports(graph, {"state": ("results",)})
    assert found == ["state/effects.py:2 imports results.render (deferred)"]
    assert forbidden_imports(graph, {"results": ("tools",)}) == []


def test_an_unlisted_import_is_found_and_narrower_rows_add(tmp_path: Path) -> None:
    graph = plant(
        tmp_path,
        {
            "hosts/cli/doctor.py": "from pkg.engine import runner\nfrom pkg import api\n",
            "hosts/cli/main.py": "from pkg.engine import runner\nfrom pkg.api import Tools\n",
            "engine/runner.py": "",
            "api.py": "Tools = object\n",
        },
    )
    rules = {"hosts": ("hosts", "api"), "hosts.cli.doctor": ("engine",)}
    assert unlisted_imports(graph, rules) == ["hosts/cli/main.py:1 imports engine.runner (module)"]


def test_a_tool_reaching_into_another_tools_internals_is_found(tmp_path: Path) -> None:
    graph = plant(
        tmp_path,
        {
            "tools/registry.py": "",
            "tools/catalog.py": "",
            "tools/direct/spec.py": "",
            "tools/direct/finish.py": "",
            "tools/other/run.py": """
                from pkg.tools import direct, registry
                from pkg.tools.direct import spec
                from pkg.tools.direct.finish import finish
                from pkg.tools import catalog
            """,
        },
    )
    assert tool_crossings(graph, "tools", ("tools.registry",)) == [
        ("tools.other.run", "tools.catalog"),
        ("tools.other.run", "tools.direct.finish"),
    ]


def test_participants_importing_each_other_are_found_and_services_are_shared(
    tmp_path: Path,
) -> None:
    graph = plant(
        tmp_path,
        {
            "direct/table.py": """
                from pkg.direct.a import one
                from pkg.direct.b import two
                from pkg.direct import call
            """,
            "direct/call.py": "",
            "direct/a/one.py": "from pkg.direct.a import shared",
            "direct/a/shared.py": "",
            "direct/b/two.py": """
                from pkg.direct.a import shared
                def later():
                    from pkg.direct.a import one
            """,
            "direct/b/helper.py": "from pkg.direct.b import two",
        },
    )
    found = participant_crossings(graph, "direct.table", "direct")
    assert [line.split(" imports ")[0] for line in found] == [
        "direct/b/helper.py:1",
        "direct/b/two.py:4",
    ]
    assert found[0].endswith("a service importing a participant")
    assert found[1].endswith("a participant importing a participant")


def test_a_61_line_function_is_too_long_and_decorators_do_not_count(tmp_path: Path) -> None:
    sixty = "".join(f"    x{i} = {i}\n" for i in range(58))
    sixty_one = "".join(f"        x{i} = {i}\n" for i in range(59))
    source = (
        "import functools\n\n\n"
        f"@functools.cache\n@functools.cache\ndef sixty():\n{sixty}    return 0\n\n\n"
        f"class Holder:\n    async def sixty_one(self):\n{sixty_one}        return 0\n"
    )
    assert [(f.qualname, f.length) for f in functions(source)] == [
        ("sixty", 60),
        ("Holder.sixty_one", 61),
    ]
    line = source.splitlines().index("    async def sixty_one(self):") + 1
    graph = plant(tmp_path, {"big.py": source})
    assert oversized(graph, 500, 60) == [
        f"big.py:Holder.sixty_one (line {line}): 61 lines (limit 60)"
    ]


def test_a_501_line_file_is_too_long(tmp_path: Path) -> None:
    graph = plant(tmp_path, {"long.py": "x = 1\n" * 501, "short.py": "x = 1\n" * 500})
    assert oversized(graph, 500, 60) == ["long.py: 501 lines (limit 500)"]


def test_a_command_path_literal_outside_the_taxonomy_is_found(tmp_path: Path) -> None:
    graph = plant(
        tmp_path,
        {
            "taxonomy/rows.py": 'def f(spec):\n    return spec.path == ("snapshot",)\n',
            "rules.py": """
                def f(plan, match, path):
                    a = plan.path == ("snapshot",)
                    b = ("network", "requests") == match.spec.path[:2]
                    c = path[0] != "find"
                    d = plan.name == "snapshot"
                    return plan.path[:1] == ("snapshot",) or a or b or c or d
            """,
        },
    )
    assert command_path_literals(graph, "taxonomy") == Counter(
        {("rules.py", "snapshot"): 2, ("rules.py", "network requests"): 1, ("rules.py", "find"): 1}
    )
