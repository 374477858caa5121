"""Code cells: identity resolution, inner-argv binding and scope checks (pure)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from pydantic import ValidationError

from agent_browser_tools.planning.sessions import managed_base_name
from agent_browser_tools.runtime import Runtime
from agent_browser_tools.settings import Settings
from agent_browser_tools.state.models import ManagedSessionSelected, SessionKey
from agent_browser_tools.tools.code.scope import (
    BrowserRequest,
    CellIdentity,
    inner_prefix,
    resolve_identity,
    scope_violation,
)

ROOT = "conv-scope"


def _runtime(tmp_path: Path, **env: str) -> Runtime:
    home = tmp_path / "home"
    home.mkdir(exist_ok=True)
    settings = Settings(env={"HOME": str(home), **env}, state_dir=tmp_path / "state")
    return Runtime(settings, conversation_id=ROOT, cwd=tmp_path)


def test_explicit_session_wins(tmp_path: Path) -> None:
    rt = _runtime(tmp_path, AGENT_BROWSER_SESSION="native")
    assert resolve_identity(rt, "mine", "ns") == CellIdentity("mine", "ns", "explicit")


def test_native_default_before_managed(tmp_path: Path) -> None:
    rt = _runtime(tmp_path, AGENT_BROWSER_SESSION="native")
    assert resolve_identity(rt, None, None) == CellIdentity("native", None, "native")
    config = tmp_path / "cfg.json"
    config.write_text(json.dumps({"session": "from-config"}))
    rt = _runtime(tmp_path, AGENT_BROWSER_CONFIG=str(config))
    assert resolve_identity(rt, None, None).session == "from-config"


def test_managed_default_and_empty_namespace(tmp_path: Path) -> None:
    rt = _runtime(tmp_path)
    ident = resolve_identity(rt, None, "")
    assert ident == CellIdentity(managed_base_name(ROOT), None, "managed")
    rt.log.complete("c1", SessionKey(session="abt-rotated"), True, (
        ManagedSessionSelected(session="abt-rotated"),
    ))  # fmt: skip
    assert resolve_identity(rt, None, None).session == "abt-rotated"


def test_inner_prefix(tmp_path: Path) -> None:
    rt = _runtime(tmp_path)
    assert inner_prefix(rt, CellIdentity("s", None, "explicit")) == ["--session", "s"]
    assert inner_prefix(rt, CellIdentity("s", "n", "native")) == [
        "--session",
        "s",
        "--namespace",
        "n",
    ]
    managed = resolve_identity(rt, None, "ns")
    # The executor injects the managed session itself (that path records ownership).
    assert inner_prefix(rt, managed) == ["--namespace", "ns"]
    rt.log.complete("c1", SessionKey(session="abt-new"), True, (
        ManagedSessionSelected(session="abt-new"),
    ))  # fmt: skip
    # The managed slot moved during the cell: keep the cell's fixed browser, explicitly.
    assert inner_prefix(rt, managed) == ["--session", managed.session, "--namespace", "ns"]


IDENT = CellIdentity("mine", None, "explicit")


@pytest.mark.parametrize(
    ("args", "stdin", "needle"),
    [
        (["--session", "other", "get", "url"], None, "selects another browser"),
        (["get", "url", "--session", "other"], None, "selects another browser"),
        (["--namespace", "x", "get", "url"], None, "selects another namespace"),
        (["close", "--all"], None, "close --all"),
        (["quit", "--all"], None, "close --all"),
        (["batch"], json.dumps([["get", "url"], ["--session", "b", "get", "url"]]), "batch row 2"),
        (["batch", "get url", "close --all"], None, "batch row 2"),
    ],
)
def test_scope_violations(args: list[str], stdin: str | None, needle: str) -> None:
    problem = scope_violation(args, stdin, IDENT)
    assert problem is not None and needle in problem


@pytest.mark.parametrize(
    ("args", "stdin"),
    [
        (["get", "url"], None),
        (["--session", "mine", "get", "url"], None),
        (["close"], None),
        (["batch"], json.dumps([["get", "url"], ["close"]])),
        (["batch"], "not json"),  # the executor rejects it with its own message
        (["--namespace", "", "get", "url"], None),
    ],
)
def test_scope_allows(args: list[str], stdin: str | None) -> None:
    assert scope_violation(args, stdin, IDENT) is None


def test_browser_request_shape() -> None:
    assert BrowserRequest.model_validate({"args": ["get", "url"], "timeoutMs": 5}).timeoutMs == 5
    bad_requests: tuple[dict[str, object], ...] = (
        {"args": "get url"},
        {"args": []},
        {"args": ["get"], "sessionMode": "fresh"},
        {"args": ["get"], "timeoutMs": 0},
        {"args": ["get", 1]},
        {},
    )
    for bad in bad_requests:
        with pytest.raises(ValidationError):
            BrowserRequest.model_validate(bad)
