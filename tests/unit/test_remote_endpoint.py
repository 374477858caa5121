"""The operator's remote browser setting: checked, exclusive with local launches, redacted."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent_browser_tools.engine.environment import build_child_env
from agent_browser_tools.launch_options import operator_launch_env, remote_cdp
from agent_browser_tools.remote_endpoint import check_cdp_url, redact_endpoint
from agent_browser_tools.settings import Settings, SettingsError


def _settings(tmp_path: Path, config: str, **env: str) -> Settings:
    path = tmp_path / "config.toml"
    path.write_text(config)
    base = {"HOME": str(tmp_path), "AGENT_BROWSER_TOOLS_CONFIG": str(path), **env}
    return Settings.load(env=base, cwd=tmp_path)


@pytest.mark.parametrize(
    "value",
    [
        "9222",
        "http://10.0.0.5:9222",
        "https://farm.test/",
        "ws://h:1/devtools/browser/x",
        "wss://farm.test/cdp?token=t",
    ],
)
def test_ports_and_the_four_schemes_are_accepted(value: str) -> None:
    assert check_cdp_url(value) == value


@pytest.mark.parametrize(
    ("value", "needle"),
    [
        ("file:///etc/passwd", "http, https, ws or wss"),
        ("javascript:alert(1)", "http, https, ws or wss"),
        ("ws://", "with a host"),
        ("70000", "out of range"),
        ("http://h:99999", "not a valid URL"),
        (True, "port or a URL"),
        (["ws://h"], "port or a URL"),
    ],
)
def test_other_values_are_refused_by_name(value: object, needle: str) -> None:
    with pytest.raises(SettingsError) as caught:
        check_cdp_url(value)
    assert needle in str(caught.value) and "cdp_url" in str(caught.value)


def test_a_refused_url_does_not_echo_its_token() -> None:
    with pytest.raises(SettingsError) as caught:
        check_cdp_url("ftp://user:hunter2@farm.test/?token=s3cr3t")
    assert "hunter2" not in str(caught.value) and "s3cr3t" not in str(caught.value)


def test_redaction_masks_passwords_and_query_values() -> None:
    shown = redact_endpoint("wss://me:pw@farm.test/cdp?token=abc&region=eu")
    assert shown == "wss://me:REDACTED@farm.test/cdp?token=REDACTED&region=REDACTED"
    assert redact_endpoint("http://127.0.0.1:9222") == "http://127.0.0.1:9222"


def test_the_setting_becomes_the_engine_endpoint_and_a_pinned_tab(tmp_path: Path) -> None:
    settings = _settings(tmp_path, '[browser]\ncdp_url = "ws://farm.test:9222"\n')
    assert operator_launch_env(settings) == {
        "AGENT_BROWSER_CDP": "ws://farm.test:9222",
        "AGENT_BROWSER_PIN_TAB": "true",
    }
    assert remote_cdp(settings)
    # Every spawn's environment carries it (managed and caller-named sessions alike).
    for caller_owned in (False, True):
        env = build_child_env(settings, None, caller_owned=caller_owned)
        assert env["AGENT_BROWSER_CDP"] == "ws://farm.test:9222"
        assert env["AGENT_BROWSER_PIN_TAB"] == "true"


def test_the_operators_setting_beats_an_inherited_endpoint(tmp_path: Path) -> None:
    settings = _settings(
        tmp_path, "[browser]\ncdp_url = 9333\n", AGENT_BROWSER_CDP="ws://elsewhere:1"
    )
    assert build_child_env(settings, None)["AGENT_BROWSER_CDP"] == "9333"


def test_a_provider_is_passed_without_a_pin(tmp_path: Path) -> None:
    settings = _settings(tmp_path, '[browser]\nprovider = "browserless"\n')
    assert operator_launch_env(settings) == {"AGENT_BROWSER_PROVIDER": "browserless"}
    assert not remote_cdp(settings)


@pytest.mark.parametrize(
    "extra",
    [
        'provider = "kernel"',
        "isolated = true",
        'profile = "Work"',
        'executable_path = "/c"',
        'extension = "ext"',
    ],
)
def test_a_remote_browser_excludes_local_launch_settings(tmp_path: Path, extra: str) -> None:
    settings = _settings(tmp_path, f'[browser]\ncdp_url = "9222"\n{extra}\n')
    with pytest.raises(SettingsError) as caught:
        operator_launch_env(settings)
    assert "exclude each other" in str(caught.value)
    assert not remote_cdp(settings)


def test_isolated_false_does_not_conflict(tmp_path: Path) -> None:
    settings = _settings(tmp_path, '[browser]\ncdp_url = "9222"\nisolated = false\n')
    assert operator_launch_env(settings)["AGENT_BROWSER_CDP"] == "9222"


def test_an_inherited_engine_endpoint_is_checked_and_pinned_too(tmp_path: Path) -> None:
    settings = _settings(tmp_path, "", AGENT_BROWSER_CDP="http://127.0.0.1:9222")
    assert operator_launch_env(settings)["AGENT_BROWSER_PIN_TAB"] == "true"
    assert remote_cdp(settings)
    bad = _settings(tmp_path, "", AGENT_BROWSER_CDP="file:///tmp/x")
    with pytest.raises(SettingsError) as caught:
        operator_launch_env(bad)
    assert "AGENT_BROWSER_CDP in the server's environment" in str(caught.value)
    isolated = _settings(tmp_path, "[browser]\nisolated = true\n", AGENT_BROWSER_CDP="9222")
    assert "AGENT_BROWSER_CDP" not in build_child_env(isolated, None)
    with pytest.raises(SettingsError):
        operator_launch_env(
            _settings(tmp_path, '[browser]\nprovider = "kernel"\n', AGENT_BROWSER_CDP="9222")
        )


def test_the_credential_parts_are_what_a_conversation_scrubs() -> None:
    from agent_browser_tools.remote_endpoint import endpoint_secrets

    assert endpoint_secrets("wss://me:pw-long-1@farm.test/cdp?token=abcdef&r=") == [
        "pw-long-1",
        "abcdef",
    ]
    assert endpoint_secrets("9222") == [] and endpoint_secrets("http://h:9222/") == []
