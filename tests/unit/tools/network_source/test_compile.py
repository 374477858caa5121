"""`agent_browser_network_source` input -> one read-only native batch (pure)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from agent_browser_tools.tools.network_source.compile import (
    NetworkSourceRejected,
    compile_lookup,
    url_filter,
)
from agent_browser_tools.tools.network_source.schema import NetworkSourceInput


def _compile(**fields: Any) -> Any:
    return compile_lookup(NetworkSourceInput(**fields))


def test_a_request_id_reads_native_network_request() -> None:
    compiled = _compile(requestId="31848.2")
    assert compiled.args == ["batch"]
    assert json.loads(compiled.stdin) == [["network", "request", "31848.2"]]


def test_filter_and_url_add_a_filtered_list_and_an_explicit_filter_wins() -> None:
    compiled = _compile(requestId="r-1", filter="orders", url="/api/other")
    assert json.loads(compiled.stdin) == [
        ["network", "request", "r-1"],
        ["network", "requests", "--filter", "orders"],
    ]
    assert compiled.query == {
        "requestId": "r-1",
        "filter": "orders",
        "url": "/api/other",
        "maxWorkspaceFiles": 2000,
    }


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        ("http://u:pw@127.0.0.1:80/api/v1/orders?token=abc#x", "127.0.0.1:80/api/v1/orders"),
        ("https://api.example.com/", "api.example.com"),
        ("/api/v1/orders/missing?token=abc", "/api/v1/orders/missing"),
        ("http://u:pw@[::1/api?token=abc", "[::1/api"),
    ],
)  # fmt: skip
def test_a_url_filters_by_host_and_path_without_credentials_or_query(
    url: str, expected: str
) -> None:
    assert url_filter(url) == expected


def test_the_compiled_plan_echoes_the_url_redacted() -> None:
    compiled = _compile(url="https://me:hunter2pw@a.example.com/api/x?token=SECRETTOKEN1")
    shown = json.dumps(compiled.details())
    assert "hunter2pw" not in shown and "SECRETTOKEN1" not in shown
    plan = compiled.details()["compiledNetworkSourceLookup"]
    assert plan["steps"] == [["network", "requests", "--filter", "a.example.com/api/x"]]
    assert plan["args"] == ["batch"]


def test_session_and_namespace_prefix_the_batch_and_an_empty_namespace_is_kept() -> None:
    compiled = _compile(filter="orders", session="work", namespace="")
    assert compiled.args == ["--namespace", "", "--session", "work", "batch"]


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({}, "at least one of requestId, filter or url"),
        ({"filter": "orders", "sessionMode": "fresh"}, "empty request buffer"),
        ({"requestId": "--help"}, "must not start with '-'"),
        ({"requestId": "a b"}, "requestId must be an id"),
        ({"filter": "   "}, "filter must not be empty"),
        ({"filter": "-x"}, "must not start with '-'"),
        ({"url": "/a\nb"}, "control characters"),
        ({"filter": "x" * 501}, "limited to 500"),
        ({"url": "?token=abc"}, "no host or path"),
        ({"filter": "a", "namespace": "--x"}, "namespace must not start"),
    ],
)
def test_inputs_the_lookup_cannot_run_are_rejected(fields: dict[str, Any], message: str) -> None:
    with pytest.raises(NetworkSourceRejected, match=message):
        _compile(**fields)
