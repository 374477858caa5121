"""`docs/contract-coverage.md` may only claim what the test suite proves.

A row marked done names the tests that prove it; a renamed or deleted test would otherwise leave
a claim standing with nothing behind it. A proof that can xfail, or skip in CI, proves nothing
there either, so one is refused too (`proof_escapes`).
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.architecture.proof_escapes import ACCEPTED_SKIPS, Escape, Reach

PROJECT = Path(__file__).resolve().parents[2]
DOC = PROJECT / "docs" / "contract-coverage.md"
ROW_COUNT = 250
STATUSES = {"done", "deviation", "not-applicable", "partial", "missing"}
NEEDS_PROOF = {"done", "deviation"}
NEEDS_NOTE = {"deviation", "not-applicable", "partial", "missing"}
CELL_SPLIT = re.compile(r"(?<!\\)\|")  # requirement texts escape a literal pipe as `\|`
TEST_ID = re.compile(r"^tests/[\w/]+\.py(::\w+){1,2}$")


@dataclass(frozen=True)
class Row:
    number: int
    requirement: str
    status: str
    proof: tuple[str, ...]
    note: str


def parse(text: str) -> list[Row]:
    rows = []
    for line in text.splitlines():
        cells = [cell.strip() for cell in CELL_SPLIT.split(line.strip())]
        if len(cells) != 7 or cells[0] or cells[-1] or not cells[1].isdigit():
            continue
        number, requirement, status, proof, note = cells[1:6]
        ids = tuple(p.strip() for p in proof.split(";") if p.strip())
        rows.append(Row(int(number), requirement, status, ids, note))
    return rows


def defined_tests(test_file: Path) -> set[str]:
    """`name` and `Class::name` for every test function the file defines."""
    tree = ast.parse(test_file.read_text(encoding="utf-8"))
    found: set[str] = set()
    for node in tree.body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            found.add(node.name)
        elif isinstance(node, ast.ClassDef):
            for inner in node.body:
                if isinstance(inner, ast.FunctionDef | ast.AsyncFunctionDef):
                    found.add(f"{node.name}::{inner.name}")
    return found


def problems(rows: list[Row], root: Path) -> list[str]:
    found: list[str] = []
    reach = Reach(root)
    numbers = [row.number for row in rows]
    missing = sorted(set(range(1, ROW_COUNT + 1)) - set(numbers))
    duplicated = sorted({n for n in numbers if numbers.count(n) > 1})
    if missing:
        found.append(f"rows missing: {missing}")
    if duplicated:
        found.append(f"rows listed twice: {duplicated}")
    for row in rows:
        where = f"row {row.number}"
        if row.status not in STATUSES:
            found.append(f"{where}: unknown status {row.status!r}")
        if row.status in NEEDS_PROOF and not row.proof:
            found.append(f"{where}: {row.status} but names no test")
        if row.status in NEEDS_NOTE and not row.note:
            found.append(f"{where}: {row.status} needs a note saying why")
        for test_id in row.proof:
            found.extend(f"{where}: {p}" for p in _proof_problems(test_id, root, reach))
    return found


def _proof_problems(test_id: str, root: Path, reach: Reach) -> list[str]:
    if TEST_ID.match(test_id) is None:
        return [f"{test_id!r} is not a tests/...py::test id"]
    path, _, name = test_id.partition("::")
    test_file = root / path
    if not test_file.is_file():
        return [f"{path} does not exist"]
    if name not in defined_tests(test_file):
        return [f"{path} defines no test {name!r}"]
    return [
        f"{test_id} can {escape.what} instead of failing ({escape.where}, line {escape.line})"
        for escape in reach.escapes(path, name)
        if not escape.accepted
    ]


def test_every_row_is_listed_once_and_every_claim_names_an_existing_test() -> None:
    assert problems(parse(DOC.read_text(encoding="utf-8")), PROJECT) == []


def test_the_summary_counts_match_the_rows() -> None:
    """The summary line counts must match the rows, so the headline cannot drift."""
    text = DOC.read_text(encoding="utf-8")
    rows = parse(text)
    for status in STATUSES:
        count = sum(row.status == status for row in rows)
        assert f"| {status} | {count} |" in text, f"summary count for {status} is stale"


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("| 1 | r | done |  |  |", "row 1: done but names no test"),
        ("| 1 | r | done | tests/nope.py::test_x |  |", "row 1: tests/nope.py does not exist"),
        (
            "| 1 | r | done | tests/architecture/test_contract_coverage.py::test_gone |  |",
            "row 1: tests/architecture/test_contract_coverage.py defines no test 'test_gone'",
        ),
        ("| 1 | r | missing |  |  |", "row 1: missing needs a note saying why"),
        ("| 1 | r | finished |  |  |", "row 1: unknown status 'finished'"),
        ("| 1 | r | done | src/x.py:f |  |", "row 1: 'src/x.py:f' is not a tests/...py::test id"),
    ],
)
def test_the_checker_catches_each_kind_of_false_claim(line: str, expected: str) -> None:
    rows = parse(line)
    assert expected in problems(rows, PROJECT)


def test_the_checker_reports_absent_and_repeated_rows() -> None:
    rows = parse("| 2 | r | missing |  | n |\n| 2 | r | missing |  | n |")
    found = problems(rows, PROJECT)
    assert any(p.startswith("rows missing: [1, 3,") for p in found)
    assert "rows listed twice: [2]" in found


PLANTED = {
    "tests/helpers.py": (
        "import pytest\n\n"
        "def hatch(ok):\n    if not ok:\n        pytest.xfail('not built yet')\n\n"
        "def deeper():\n    hatch(False)\n"
    ),
    "tests/conftest.py": (
        "import pytest\n\n@pytest.fixture\ndef engine():\n    pytest.skip('no engine')\n"
    ),
    "tests/unit/test_planted.py": (
        "import pytest\n\nfrom tests import helpers\nfrom tests.helpers import deeper\n\n"
        "def test_plain():\n    assert True\n\n"
        "@pytest.mark.xfail(reason='later')\ndef test_marked():\n    assert False\n\n"
        "@pytest.mark.skipif(True, reason='never here')\ndef test_skipif():\n    assert True\n\n"
        "def test_inline_skip():\n    pytest.skip('later')\n\n"
        "def test_helper_hatch():\n    helpers.hatch(True)\n\n"
        "def test_deep_hatch():\n    deeper()\n\n"
        "def test_fixture_skip(engine):\n    assert engine\n\n"
        "@pytest.mark.skip\nclass TestSkipped:\n    def test_in_class(self):\n        assert True\n"
    ),
    "tests/unit/auto/conftest.py": (
        "import pytest\n\n@pytest.fixture(autouse=True)\ndef gate(request):\n"
        "    request.node.add_marker(pytest.mark.xfail(reason='flaky'))\n"
    ),
    "tests/unit/auto/test_auto.py": "def test_any():\n    assert True\n",
    "tests/unit/test_import_skip.py": (
        "import pytest\n\nsdk = pytest.importorskip('sdk')\n\ndef test_any():\n    assert sdk\n"
    ),
    "tests/unit/test_module_mark.py": (
        "import pytest\n\npytestmark = [pytest.mark.skipif(True, reason='x')]\n\n"
        "def test_any():\n    assert True\n"
    ),
}


@pytest.fixture
def planted(tmp_path: Path) -> Path:
    for path, text in PLANTED.items():
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path).write_text(text, encoding="utf-8")
    return tmp_path


P = "tests/unit/test_planted.py"


@pytest.mark.parametrize(
    ("test_id", "escape", "place"),
    [
        (f"{P}::test_marked", "@pytest.mark.xfail", f"{P}::test_marked"),
        (f"{P}::test_skipif", "@pytest.mark.skipif", f"{P}::test_skipif"),
        (f"{P}::test_inline_skip", "pytest.skip(", f"{P}::test_inline_skip"),
        (f"{P}::test_helper_hatch", "pytest.xfail(", "tests/helpers.py::hatch"),
        (f"{P}::test_deep_hatch", "pytest.xfail(", "tests/helpers.py::hatch"),
        (f"{P}::test_fixture_skip", "pytest.skip(", "tests/conftest.py::engine"),
        (f"{P}::TestSkipped::test_in_class", "@pytest.mark.skip", f"{P}::TestSkipped"),
        (
            "tests/unit/test_import_skip.py::test_any",
            "pytest.importorskip(",
            "tests/unit/test_import_skip.py::<module>",
        ),
        (
            "tests/unit/auto/test_auto.py::test_any",
            "@pytest.mark.xfail",
            "tests/unit/auto/conftest.py::gate",
        ),
    ],
)
def test_the_checker_fails_a_proof_that_can_xfail_or_skip(
    planted: Path, test_id: str, escape: str, place: str
) -> None:
    found = problems(parse(f"| 1 | r | done | {test_id} |  |"), planted)
    expected = f"row 1: {test_id} can {escape} instead of failing ({place}, line "
    assert any(p.startswith(expected) for p in found), found


def test_the_checker_reads_the_modules_pytestmark_and_passes_a_plain_proof(planted: Path) -> None:
    marked = "tests/unit/test_module_mark.py::test_any"
    found = problems(parse(f"| 1 | r | deviation | {marked} | n |"), planted)
    assert any(
        "skipif instead of failing (tests/unit/test_module_mark.py::pytestmark" in p for p in found
    ), found
    plain = "tests/unit/test_planted.py::test_plain"
    assert [
        p for p in problems(parse(f"| 1 | r | done | {plain} |  |"), planted) if "can" in p
    ] == []


def test_an_accepted_skip_is_named_with_its_reason_and_never_covers_an_xfail() -> None:
    assert all(reason.strip() for reason in ACCEPTED_SKIPS.values())
    assert not Escape(next(iter(ACCEPTED_SKIPS)), 1, "pytest.xfail(").accepted
    assert Escape(next(iter(ACCEPTED_SKIPS)), 1, "pytest.skip(").accepted
    assert not Escape("tests/x.py::f", 1, "pytest.skip(").accepted
