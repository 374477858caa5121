"""`serve` token rules and the HTTP read deadlines / connection cap: where each value comes
from, and the values that must refuse to start (too short a token off loopback, a token a
header cannot carry, a timeout of zero, a cap the open-file limit cannot hold)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from agent_browser_tools.hosts.mcp.http_limits import HttpLimits, resolve_limits
from agent_browser_tools.hosts.mcp.options import (
    MAKE_TOKEN,
    ServeOptions,
    ServeRefused,
    resolve_options,
)
from agent_browser_tools.settings import Settings

STRONG = "k3HJx0_vTq-9sPz2"  # 16 characters


def _resolve(**kw: Any) -> ServeOptions:
    args: dict[str, Any] = dict(
        http=True, host=None, port=None, token=None, tools=None, conversation=None, env={}
    )
    args.update(kw)
    return resolve_options(**args)


# --- the token ----------------------------------------------------------------------------


@pytest.mark.parametrize("host", ["0.0.0.0", "::", "192.168.1.5", "box.lan"])
def test_a_public_bind_needs_16_characters(host: str) -> None:
    for short in ("Zq9", "Zq9" * 5):  # 3 and 15 characters
        with pytest.raises(ServeRefused) as refused:
            _resolve(host=host, token=short)
        assert "at least 16" in str(refused.value) and MAKE_TOKEN in str(refused.value)
        assert short not in str(refused.value)  # never echo the secret
    with pytest.raises(ServeRefused, match="at least 16"):
        _resolve(host=host, env={"AGENT_BROWSER_TOOLS_HTTP_TOKEN": "a" * 15})
    assert _resolve(host=host, token=STRONG).token == STRONG


def test_loopback_accepts_a_short_token() -> None:
    assert _resolve(token="t").token == "t"


@pytest.mark.parametrize(
    "token",
    [
        STRONG + "\n",
        STRONG + " ",
        " " + STRONG,
        "two words and enough",
        STRONG + "\t",
        STRONG + "\x00",
        STRONG + "\x7f",
        STRONG + "é",
        STRONG + "\r\nX-Injected: 1",
    ],
)
def test_a_token_a_header_cannot_carry_is_refused_everywhere(token: str) -> None:
    for host in (None, "0.0.0.0"):
        with pytest.raises(ServeRefused, match="whitespace, control or non-ASCII"):
            _resolve(host=host, token=token)
    with pytest.raises(ServeRefused, match="whitespace"):
        _resolve(env={"AGENT_BROWSER_TOOLS_HTTP_TOKEN": token})


def test_an_explicitly_empty_token_is_refused() -> None:
    with pytest.raises(ServeRefused, match="--token is empty"):
        _resolve(token="")
    assert _resolve(env={"AGENT_BROWSER_TOOLS_HTTP_TOKEN": ""}).token is None  # unset


def test_limit_flags_need_http() -> None:
    for flag in ("header_timeout", "body_timeout", "max_connections"):
        with pytest.raises(ServeRefused, match="only apply with --http"):
            _resolve(http=False, **{flag: 5})


# --- limits -------------------------------------------------------------------------------


def _settings(tmp_path: Path, config: str = "", **env: str) -> Settings:
    path = tmp_path / "override.toml"
    path.write_text(config)
    environ = {
        "HOME": str(tmp_path),
        "AGENT_BROWSER_TOOLS_STATE_DIR": str(tmp_path / "state"),
        "AGENT_BROWSER_TOOLS_CONFIG": str(path),
        **env,
    }
    return Settings.load(env=environ, cwd=tmp_path, trust_project=False)


def _limits(
    tmp_path: Path,
    config: str = "",
    flags: dict[str, Any] | None = None,
    env: dict[str, str] | None = None,
) -> HttpLimits:
    settings = _settings(tmp_path, config, **(env or {}))
    return resolve_limits(_resolve(**(flags or {})), settings, fd_limit=1024)


def test_defaults(tmp_path: Path) -> None:
    assert _limits(tmp_path) == HttpLimits(10.0, 30.0, 128)


def test_flag_beats_env_beats_config(tmp_path: Path) -> None:
    config = "[http]\nheader_timeout = 3\nbody_timeout = 4.5\nmax_connections = 40\n"
    assert _limits(tmp_path, config) == HttpLimits(3.0, 4.5, 40)
    env = {
        "AGENT_BROWSER_TOOLS_HTTP_HEADER_TIMEOUT": "2",
        "AGENT_BROWSER_TOOLS_HTTP_MAX_CONNECTIONS": "50",
    }
    assert _limits(tmp_path, config, env=env) == HttpLimits(2.0, 4.5, 50)
    flags = {"header_timeout": 1.5, "max_connections": 60}
    assert _limits(tmp_path, config, flags, env) == HttpLimits(1.5, 4.5, 60)


@pytest.mark.parametrize(
    ("config", "origin"),
    [
        ("header_timeout = 0", "[http] header_timeout"),
        ("header_timeout = -1", "[http] header_timeout"),
        ("header_timeout = 100000", "[http] header_timeout"),
        ("body_timeout = 'soon'", "[http] body_timeout"),
        ("body_timeout = true", "[http] body_timeout"),
        ("body_timeout = nan", "[http] body_timeout"),
        ("body_timeout = inf", "[http] body_timeout"),
        ("max_connections = 2", "[http] max_connections"),
        ("max_connections = 64.5", "[http] max_connections"),
        ("max_connections = '64'", None),  # a digit string is fine, as in env
    ],
)
def test_bad_config_values_refuse_to_start(tmp_path: Path, config: str, origin: str | None) -> None:
    if origin is None:
        assert _limits(tmp_path, f"[http]\n{config}\n").max_connections == 64
        return
    with pytest.raises(ServeRefused, match=origin.replace("[", r"\[").replace("]", r"\]")):
        _limits(tmp_path, f"[http]\n{config}\n")


@pytest.mark.parametrize("raw", ["0", "-5", "abc", "1e9", "12.5"])
def test_bad_env_and_flag_values_refuse_to_start(tmp_path: Path, raw: str) -> None:
    with pytest.raises(ServeRefused, match="AGENT_BROWSER_TOOLS_HTTP_MAX_CONNECTIONS"):
        _limits(tmp_path, env={"AGENT_BROWSER_TOOLS_HTTP_MAX_CONNECTIONS": raw})
    with pytest.raises(ServeRefused, match="--body-timeout"):
        _limits(tmp_path, flags={"body_timeout": 0.0})


def test_unknown_keys_and_a_non_table_are_refused(tmp_path: Path) -> None:
    with pytest.raises(ServeRefused, match="unknown \\[http\\] keys read_timeout"):
        _limits(tmp_path, "[http]\nread_timeout = 3\n")
    with pytest.raises(ServeRefused, match="must be a table"):
        _limits(tmp_path, "http = 3\n")


def test_the_cap_must_fit_under_the_open_file_limit(tmp_path: Path) -> None:
    settings = _settings(tmp_path)
    with pytest.raises(ServeRefused, match="ulimit -n"):
        resolve_limits(_resolve(max_connections=1000), settings, fd_limit=1024)
    fits = resolve_limits(_resolve(max_connections=960), settings, fd_limit=1024)
    assert fits.max_connections == 960
    assert resolve_limits(_resolve(max_connections=10**6), settings, fd_limit=-1)
