"""The captured envelope fixtures still match what the live engine prints, shape for shape.

`scripts/capture_envelopes.py` stored one file per command of its `SCENARIO`. This module
replays the same scenario (setup steps included, so every command sees the same page state)
in one browser session, then checks each stored file against the live answer: same envelope
kind (object or batch array), same exit code and `success`, and the same keys all the way
down (`shape_signature`). Values are not compared; they are page content or volatile.

When this fails after an engine upgrade, re-run the capture script and review the diff.
"""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from tests.support.fixture_server import FixtureServer
from tests.support.real_engine import CLOSE_TIMEOUT_S, ENGINE_CALL_TIMEOUT_S, EngineEnv, RealSession

pytestmark = pytest.mark.real_engine

REPO = Path(__file__).resolve().parents[3]
ENVELOPES = REPO / "tests" / "fixtures" / "envelopes"
CAPTURE_SCRIPT = REPO / "scripts" / "capture_envelopes.py"


def _load_capture_module() -> ModuleType:
    """Import the capture script (not a package) to share its scenario and helpers."""
    name = "_capture_envelopes_for_tests"
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, CAPTURE_SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # dataclasses resolve annotations through sys.modules
    spec.loader.exec_module(module)
    return module


capture = _load_capture_module()

FIXTURE_NAMES = sorted(path.stem for path in ENVELOPES.glob("*.json"))


# --- shape signatures ------------------------------------------------------------------


def shape_signature(value: Any) -> Any:
    """The structure of a JSON value without its content.

    Objects keep their keys (recursively), lists are represented by the shape of their first
    element (`[]` when empty), and every scalar, `null` included, becomes `None`.
    """
    if isinstance(value, dict):
        return {key: shape_signature(item) for key, item in sorted(value.items())}
    if isinstance(value, list):
        return [shape_signature(value[0])] if value else []
    return None


def envelope_signature(stdout: Any) -> dict[str, Any]:
    """Kind, verdict and shape of one engine answer (an object envelope or a batch array)."""
    if isinstance(stdout, list):
        return {
            "kind": "batch",
            "rows": [
                {
                    "keys": sorted(row),
                    "success": row.get("success"),
                    "result": shape_signature(row.get("result")),
                }
                for row in stdout
            ],
        }
    if isinstance(stdout, dict):
        return {
            "kind": "object",
            "keys": sorted(stdout),
            "success": stdout.get("success"),
            "data": shape_signature(stdout.get("data")),
        }
    return {"kind": type(stdout).__name__}


def test_shape_signature_keeps_keys_and_first_list_element_only() -> None:
    value = {"b": [{"x": 1, "y": {"z": None}}, {"other": 2}], "a": "text", "c": []}
    assert shape_signature(value) == {"a": None, "b": [{"x": None, "y": {"z": None}}], "c": []}
    assert envelope_signature([{"command": ["get", "url"], "success": True, "result": None}]) == {
        "kind": "batch",
        "rows": [{"keys": ["command", "result", "success"], "success": True, "result": None}],
    }


# --- replay ----------------------------------------------------------------------------


@pytest.fixture(scope="module")
def replay_session(engine_env: EngineEnv) -> Iterator[RealSession]:
    """The module's single browser session; closed at module teardown even on failure."""
    session = RealSession(name=f"shape-{uuid.uuid4().hex[:8]}", engine=engine_env)
    try:
        yield session
    finally:
        try:
            session.run("--json", "close", timeout=CLOSE_TIMEOUT_S)
        except (subprocess.TimeoutExpired, OSError) as exc:  # engine_env's close --all follows
            pytest.fail(f"closing {session.name} failed: {exc}")


@pytest.fixture(scope="module")
def replayed(
    replay_session: RealSession,
    fixture_site: FixtureServer,
    tmp_path_factory: pytest.TempPathFactory,
) -> dict[str, dict[str, Any]]:
    """Run the capture scenario once; return the live answer of every named step."""
    engine = replay_session.engine
    tmp = tmp_path_factory.mktemp("envelopes")
    refs: dict[str, Any] = {}
    answers: dict[str, dict[str, Any]] = {}
    for step in capture.SCENARIO:
        args = capture.resolve_args(step.args, base_url=fixture_site.base_url, tmp=tmp, refs=refs)
        proc = subprocess.run(
            [str(engine.binary), "--json", "--session", replay_session.name, *args],
            env=engine.env,
            input=step.stdin,
            stdin=None if step.stdin is not None else subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=ENGINE_CALL_TIMEOUT_S,
            check=False,
        )
        try:
            stdout = json.loads(proc.stdout)
        except json.JSONDecodeError:
            pytest.fail(f"{args!r} printed no JSON (rc={proc.returncode}): {proc.stderr[:2000]}")
        if args and args[0] == "snapshot":
            refs = capture.snapshot_refs(stdout) or refs
        if step.name is None:
            assert isinstance(stdout, dict) and stdout.get("success") is True, (
                f"setup step {args!r} failed: {proc.stdout[:2000]}"
            )
            continue
        normalized = [capture.normalize_text(a, port=fixture_site.port, tmp=tmp) for a in args]
        answers[step.name] = {"args": normalized, "exit_code": proc.returncode, "stdout": stdout}
    return answers


def test_every_named_step_has_a_fixture_and_vice_versa() -> None:
    named = sorted(step.name for step in capture.SCENARIO if step.name is not None)
    assert named == FIXTURE_NAMES, "re-run scripts/capture_envelopes.py"


@pytest.mark.parametrize("name", FIXTURE_NAMES)
def test_live_envelope_has_the_captured_shape(
    name: str, replayed: dict[str, dict[str, Any]]
) -> None:
    record = json.loads((ENVELOPES / f"{name}.json").read_text(encoding="utf-8"))
    live = replayed.get(name)
    assert live is not None, f"{name} is not a step of the capture scenario"

    # The stored argv is `--json --session S <command...>`; the command must be the same one.
    assert record["argv"][:2] == ["--json", "--session"]
    assert record["argv"][3:] == live["args"]
    assert live["exit_code"] == record["exit_code"], json.dumps(live["stdout"])[:2000]
    assert envelope_signature(live["stdout"]) == envelope_signature(record["stdout"])
