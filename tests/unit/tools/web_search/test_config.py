"""Web-search config: credential source syntax, layering, trust, availability, resolution."""

from __future__ import annotations

import json
import logging
import shlex
import sys
from pathlib import Path

import pytest

from agent_browser_tools.settings import Settings
from agent_browser_tools.tools.web_search import describe_sources, web_search_available
from agent_browser_tools.tools.web_search.config import (
    DEFAULT_BASE_URLS,
    CredentialError,
    CredentialSource,
    WebSearchConfigError,
    load_config,
    parse_source,
    resolve_credential,
)

PLANTED = "sk-exa-7f3Q9xK2mP8vL4nR6tY1wZ5"


def make_settings(
    tmp_path: Path,
    *,
    env: dict[str, str] | None = None,
    global_toml: str | None = None,
    project_toml: str | None = None,
    override_toml: str | None = None,
    trust_project: bool = True,
) -> Settings:
    home = tmp_path / "home"
    project = tmp_path / "project"
    (home / ".config" / "agent-browser-tools").mkdir(parents=True, exist_ok=True)
    project.mkdir(exist_ok=True)
    environ = {"HOME": str(home), "PATH": "/usr/bin:/bin", **(env or {})}
    if global_toml is not None:
        (home / ".config" / "agent-browser-tools" / "config.toml").write_text(global_toml)
    if project_toml is not None:
        (project / ".agent-browser-tools.toml").write_text(project_toml)
    if override_toml is not None:
        override = tmp_path / "override.toml"
        override.write_text(override_toml)
        environ["AGENT_BROWSER_TOOLS_CONFIG"] = str(override)
    return Settings.load(environ, cwd=project, trust_project=trust_project)


def _src(raw: str) -> CredentialSource:
    return parse_source(raw, provider="exa", origin="global", setting="web_search.exa_api_key")


@pytest.mark.parametrize(
    ("raw", "kind", "literal", "var"),
    [
        ("plain-key-123", "plain", "plain-key-123", ""),
        ("  padded  ", "plain", "padded", ""),
        ("$EXA_KEY", "env", "", "EXA_KEY"),
        ("${EXA_KEY}", "env", "", "EXA_KEY"),
        ("\\$literal", "plain", "$literal", ""),
        ("$$literal", "plain", "$literal", ""),
        ("\\!not-a-command", "plain", "!not-a-command", ""),
        ("\\\\starts-with-backslash", "plain", "\\starts-with-backslash", ""),
        ("", "plain", "", ""),
    ],
)
def test_source_syntax(raw: str, kind: str, literal: str, var: str) -> None:
    source = _src(raw)
    assert (source.kind, source.literal, source.var) == (kind, literal, var)


def test_command_source_is_split_with_shlex_not_a_shell() -> None:
    source = _src("!op read 'op://Private/Exa/API Key'")
    assert source.kind == "command"
    assert source.argv == ("op", "read", "op://Private/Exa/API Key")


@pytest.mark.parametrize("raw", ["$1abc", "${EXA_KEY", "$EXA-KEY", "$", "!", "!'unbalanced"])
def test_malformed_sources_are_config_errors_without_echoing_the_value(raw: str) -> None:
    with pytest.raises(WebSearchConfigError) as info:
        _src(raw)
    assert raw not in str(info.value) or raw in ("$", "!")
    assert "web_search.exa_api_key" in str(info.value)


def test_source_repr_and_status_never_hold_the_value() -> None:
    plain = _src(PLANTED)
    command = _src(f"!echo {PLANTED}")
    for source in (plain, command):
        assert PLANTED not in repr(source)
        assert PLANTED not in source.describe()


def test_no_credential_means_unavailable(tmp_path: Path) -> None:
    assert not web_search_available(make_settings(tmp_path))


@pytest.mark.parametrize("var", ["EXA_API_KEY", "BRAVE_API_KEY"])
def test_environment_fallbacks_make_it_available(tmp_path: Path, var: str) -> None:
    assert web_search_available(make_settings(tmp_path, env={var: PLANTED}))


def test_blank_environment_fallback_does_not_count(tmp_path: Path) -> None:
    assert not web_search_available(make_settings(tmp_path, env={"EXA_API_KEY": "  "}))


def test_plaintext_config_key_makes_it_available(tmp_path: Path) -> None:
    settings = make_settings(tmp_path, global_toml=f'[web_search]\nbrave_api_key = "{PLANTED}"\n')
    assert web_search_available(settings)
    assert load_config(settings).available_providers(settings.env) == ["brave"]


def test_unset_variable_source_is_not_a_credential(tmp_path: Path) -> None:
    toml = '[web_search]\nexa_api_key = "$MY_EXA"\n'
    assert not web_search_available(make_settings(tmp_path, global_toml=toml))
    assert web_search_available(make_settings(tmp_path, global_toml=toml, env={"MY_EXA": "k"}))


def test_unusable_config_source_falls_back_to_the_environment(tmp_path: Path) -> None:
    settings = make_settings(
        tmp_path, global_toml='[web_search]\nexa_api_key = "${MISSING}"\n', env={"EXA_API_KEY": "k"}
    )
    source = load_config(settings).source_for("exa", settings.env)
    assert source is not None
    assert (source.origin, source.setting) == ("environment", "EXA_API_KEY")


def test_command_source_counts_without_running(tmp_path: Path) -> None:
    marker = tmp_path / "ran"
    command = shlex.join([sys.executable, "-c", f"open({str(marker)!r}, 'w').write('x')"])
    toml = f"[web_search]\nexa_api_key = {json.dumps('!' + command)}\n"
    settings = make_settings(tmp_path, global_toml=toml)
    assert web_search_available(settings)
    assert describe_sources(settings)["available"] is True
    assert not marker.exists()


def test_global_disable_is_a_default(tmp_path: Path) -> None:
    settings = make_settings(
        tmp_path, env={"EXA_API_KEY": "k"}, global_toml="[web_search]\nenabled = false\n"
    )
    assert not web_search_available(settings)
    assert load_config(settings).enabled_origin == "global"


def test_project_can_enable_over_a_global_disable(tmp_path: Path) -> None:
    settings = make_settings(
        tmp_path,
        env={"EXA_API_KEY": "k"},
        global_toml="[web_search]\nenabled = false\n",
        project_toml="[web_search]\nenabled = true\n",
    )
    assert web_search_available(settings)


def test_project_disable_applies_to_that_repo(tmp_path: Path) -> None:
    settings = make_settings(
        tmp_path, env={"EXA_API_KEY": "k"}, project_toml="[web_search]\nenabled = false\n"
    )
    assert not web_search_available(settings)
    assert load_config(settings).enabled_origin == "project"


def test_override_disable_is_the_hard_disable(tmp_path: Path) -> None:
    settings = make_settings(
        tmp_path,
        env={"EXA_API_KEY": "k"},
        project_toml="[web_search]\nenabled = true\n",
        override_toml="[web_search]\nenabled = false\n",
    )
    assert not web_search_available(settings)
    assert load_config(settings).enabled_origin == "override"


def test_untrusted_project_layer_is_ignored_including_its_commands(tmp_path: Path) -> None:
    toml = "[web_search]\nexa_api_key = '!/bin/echo from-project'\n"
    assert web_search_available(make_settings(tmp_path, project_toml=toml))
    assert not web_search_available(make_settings(tmp_path, project_toml=toml, trust_project=False))


def test_highest_layer_source_wins(tmp_path: Path) -> None:
    settings = make_settings(
        tmp_path,
        global_toml='[web_search]\nexa_api_key = "global-key"\n',
        project_toml='[web_search]\nexa_api_key = "$PROJECT_KEY"\n',
        override_toml="[web_search]\nexa_api_key = '!/bin/echo override'\n",
    )
    source = load_config(settings).configured["exa"]
    assert (source.kind, source.origin) == ("command", "override")


def test_defaults(tmp_path: Path) -> None:
    config = load_config(make_settings(tmp_path))
    assert config.enabled is True
    assert config.preferred_provider is None and config.default_search_type is None
    assert dict(config.base_urls) == DEFAULT_BASE_URLS
    assert DEFAULT_BASE_URLS == {
        "exa": "https://api.exa.ai",
        "brave": "https://api.search.brave.com/res/v1",
    }


def test_full_config_shape(tmp_path: Path) -> None:
    toml = """
[web_search]
enabled = true
preferred_provider = "brave"
default_search_type = "deep-lite"
exa_api_key = "$EXA_API_KEY"
brave_api_key = "$BRAVE_API_KEY"
exa_base_url = "http://127.0.0.1:9/exa/"
brave_base_url = "http://127.0.0.1:9/brave"
"""
    config = load_config(make_settings(tmp_path, global_toml=toml))
    assert config.preferred_provider == "brave"
    assert config.default_search_type == "deep-lite"
    assert dict(config.base_urls) == {
        "exa": "http://127.0.0.1:9/exa",
        "brave": "http://127.0.0.1:9/brave",
    }


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ('enabled = "no"', "enabled"),
        ('preferred_provider = "google"', "preferred_provider"),
        ('default_search_type = "neural"', "default_search_type"),
        ('exa_base_url = "ftp://x"', "exa_base_url"),
        ("exa_api_key = 5", "exa_api_key"),
        ('exaApiKey = "x"', "exaApiKey"),
    ],
)
def test_invalid_config_is_reported_and_unregisters(
    tmp_path: Path, caplog: pytest.LogCaptureFixture, body: str, field: str
) -> None:
    settings = make_settings(
        tmp_path, env={"EXA_API_KEY": "k"}, global_toml=f"[web_search]\n{body}\n"
    )
    with pytest.raises(WebSearchConfigError, match=field):
        load_config(settings)
    with caplog.at_level(logging.WARNING):
        assert not web_search_available(settings)
    assert field in caplog.text


def test_status_output_names_sources_but_not_values(tmp_path: Path) -> None:
    settings = make_settings(
        tmp_path,
        env={"BRAVE_API_KEY": PLANTED, "MY_EXA": PLANTED},
        global_toml='[web_search]\nexa_api_key = "$MY_EXA"\n',
    )
    status = describe_sources(settings)
    assert status["providers"] == {
        "exa": "$MY_EXA from global config (web_search.exa_api_key)",
        "brave": "$BRAVE_API_KEY from environment (BRAVE_API_KEY)",
    }
    assert PLANTED not in json.dumps(status)


async def test_resolve_variable_and_plain(tmp_path: Path) -> None:
    assert await resolve_credential(_src("$K"), {"K": " v1 "}) == "v1"
    assert await resolve_credential(_src("${K}"), {"K": "v2"}) == "v2"
    assert await resolve_credential(_src("$$lit"), {}) == "$lit"


async def test_command_runs_at_resolution_with_argv_and_no_shell(tmp_path: Path) -> None:
    marker = tmp_path / "ran"
    code = f"import sys; open({str(marker)!r}, 'w').write(sys.argv[1]); print('key-$HOME;')"
    source = _src("!" + shlex.join([sys.executable, "-c", code, "a b; echo no-shell"]))
    assert not marker.exists()
    assert await resolve_credential(source, {"PATH": "/usr/bin"}, cwd=tmp_path) == "key-$HOME;"
    assert marker.read_text() == "a b; echo no-shell"


async def test_command_timeout_is_bounded(tmp_path: Path) -> None:
    source = _src("!" + shlex.join([sys.executable, "-c", "import time; time.sleep(30)"]))
    with pytest.raises(CredentialError) as info:
        await resolve_credential(source, {}, timeout_s=0.3)
    assert info.value.timed_out


async def test_command_failure_does_not_leak_output() -> None:
    code = f"import sys; print({PLANTED!r}); print({PLANTED!r}, file=sys.stderr); sys.exit(3)"
    source = _src("!" + shlex.join([sys.executable, "-c", code]))
    with pytest.raises(CredentialError) as info:
        await resolve_credential(source, {})
    assert "status 3" in str(info.value)
    assert PLANTED not in str(info.value)


async def test_missing_program_and_empty_output_are_errors(tmp_path: Path) -> None:
    with pytest.raises(CredentialError, match="could not start"):
        await resolve_credential(_src("!/nonexistent/op read x"), {})
    with pytest.raises(CredentialError, match="empty"):
        await resolve_credential(_src("!/bin/true"), {})
    with pytest.raises(CredentialError, match="empty"):
        await resolve_credential(_src("$UNSET"), {})
