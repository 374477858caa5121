"""The direct tool's participants: listed once, named uniquely, walked by runners that take
none of them by name."""

from __future__ import annotations

import ast
import inspect
from pathlib import Path

from agent_browser_tools.tools.agent_browser import (
    execute,
    followups,
    participants,
    pre_dispatch,
)
from agent_browser_tools.tools.agent_browser.participants import (
    AFTER_READ_BACK,
    BEFORE_DISPATCH,
    FOLLOW_UPS,
    ON_ANSWER,
    ON_OBSERVATION,
    POST_READERS,
    PRE_RIDERS,
)

FEATURES = Path(execute.__file__).parent


def test_each_participant_is_listed_once_under_its_own_name() -> None:
    after = [s.name for s in ON_ANSWER] + [s.name for s in ON_OBSERVATION]
    after += [s.name for s in (*AFTER_READ_BACK, *FOLLOW_UPS)]
    for names in (
        [step.name for step in BEFORE_DISPATCH],
        [rider.name for rider in PRE_RIDERS],
        [reader.name for reader in POST_READERS],
        after,
    ):
        assert len(names) == len(set(names)), names
    assert not {"settle", "page"} & {r.name for r in POST_READERS}, "the runner's own groups"
    assert not {"check", "reads", "unmark"} & {r.name for r in PRE_RIDERS}, "the check's groups"
    assert [r.name for r in POST_READERS if r.consumes] == ["click"]


def test_the_runners_take_no_participant_by_name() -> None:
    """`run_probe`, the pre-dispatch batch and the executor's guard walk the lists; no
    participant's rows, answers or steps are named there."""
    source = inspect.getsource(followups.run_probe) + inspect.getsource(followups._probe_batch)
    source += inspect.getsource(followups._probe_rows) + inspect.getsource(pre_dispatch)
    source += inspect.getsource(execute)
    for name in [r.name for r in POST_READERS] + [r.name for r in PRE_RIDERS]:
        assert f'"{name}"' not in source, name
    for module in ("click_probe", "action_readback", "focused_field", "secret_fields", "identity"):
        assert f"{module}." not in source, module


def _defines(path: Path, function: str) -> bool:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return any(isinstance(n, ast.FunctionDef) and n.name == function for n in tree.body)


def test_every_feature_with_batch_rows_is_registered() -> None:
    """A feature module that offers post-action rows (`post_rows`) or pre-dispatch rows
    (`pre_rows`, `install_rows`) is in the list that sends them: rows nobody sends are a
    feature that silently stopped working."""
    registered = {fn.__module__ for fn in [r.rows for r in POST_READERS]}
    listed = inspect.getsource(participants)
    for path in sorted(FEATURES.rglob("*.py")):
        module = path.stem
        if _defines(path, "post_rows"):
            assert any(m.endswith("." + module) for m in registered), module
        if _defines(path, "pre_rows") or _defines(path, "install_rows"):
            assert f"{module}." in listed, module
