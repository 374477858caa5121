"""`serve` operator flags become one config layer above the config files."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent_browser_tools.hosts.cli.main import _parser, main
from agent_browser_tools.hosts.mcp.operator_flags import operator_layer
from agent_browser_tools.launch_options import operator_launch_env
from agent_browser_tools.planning.policy import ModelPolicy
from agent_browser_tools.settings import Settings, image_responses


def _layer(*argv: str) -> dict[str, object]:
    return operator_layer(_parser().parse_args(["serve", *argv]))


def test_no_flags_no_layer() -> None:
    assert _layer() == {}
    assert _layer("--http", "--port", "0") == {}


def test_flags_become_browser_and_policy_sections(tmp_path: Path) -> None:
    layer = _layer(
        "--headed",
        "--executable-path", "/opt/chrome",
        "--init-script", "a.js", "--init-script", "b.js",
        "--viewport", "800x600",
        "--allow-model-flag=--args",
        "--max-timeout-ms", "9000",
    )  # fmt: skip
    assert layer == {
        "browser": {
            "headed": True,
            "executable_path": "/opt/chrome",
            "init_script": ["a.js", "b.js"],
            "viewport": "800x600",
        },
        "policy": {"allow_model_flags": ["--args"], "max_timeout_ms": 9000},
    }
    config = tmp_path / "c.toml"
    config.write_text('[browser]\nexecutable_path = "/from/config"\nuser_agent = "Cfg"\n')
    settings = Settings.load(
        env={"HOME": str(tmp_path), "AGENT_BROWSER_TOOLS_CONFIG": str(config)}, cwd=tmp_path
    ).with_layer("serve flags", layer)
    env = operator_launch_env(settings)
    assert env["AGENT_BROWSER_EXECUTABLE_PATH"] == "/opt/chrome"  # the flag beats the file
    assert env["AGENT_BROWSER_USER_AGENT"] == "Cfg"
    policy = ModelPolicy.from_settings(settings)
    assert policy.allowed_flags == {"--args"} and policy.max_timeout_ms == 9000


@pytest.mark.parametrize(
    ("argv", "needle"),
    [
        (["--viewport", "huge"], "1280x720"),
        (["--allow-model-flag=--nope"], "--nope"),
        (["--isolated", "--profile", "Work"], "exclude each other"),
    ],
)
def test_serve_refuses_to_start_with_unusable_operator_flags(
    argv: list[str],
    needle: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("AGENT_BROWSER_TOOLS_STATE_DIR", str(tmp_path / "state"))
    monkeypatch.setenv("HOME", str(tmp_path))
    assert main(["serve", *argv]) == 2
    assert needle in capsys.readouterr().err


def test_image_responses_flag_becomes_the_tools_key(tmp_path: Path) -> None:
    assert _layer("--image-responses", "omit") == {"tools": {"image_responses": "omit"}}
    assert _layer("--image-responses", "include") == {"tools": {"image_responses": "include"}}
    assert "tools" not in _layer("--tools", "agent_browser")  # `--tools` is no config key
    config = tmp_path / "c.toml"
    config.write_text('[tools]\nimage_responses = "include"\n')
    settings = Settings.load(
        env={"HOME": str(tmp_path), "AGENT_BROWSER_TOOLS_CONFIG": str(config)}, cwd=tmp_path
    ).with_layer("serve flags", _layer("--image-responses", "omit"))
    assert image_responses(settings) == "omit"  # the flag beats the file


def test_serve_refuses_an_image_responses_value_outside_the_modes(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with pytest.raises(SystemExit) as caught:
        _parser().parse_args(["serve", "--image-responses", "none"])
    assert caught.value.code == 2
    err = capsys.readouterr().err
    assert "--image-responses: invalid choice: 'none'" in err and "'include', 'omit'" in err


@pytest.mark.parametrize(
    ("config", "env", "needle"),
    [
        ("", {"AGENT_BROWSER_TOOLS_IMAGE_RESPONSES": "bogus"}, "IMAGE_RESPONSES = 'bogus'"),
        ("[tools]\nimage_responses = 0\n", {}, "config [tools] image_responses = 0"),
    ],
)
def test_serve_refuses_to_start_with_an_unusable_image_responses_setting(
    config: str,
    env: dict[str, str],
    needle: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("AGENT_BROWSER_TOOLS_STATE_DIR", str(tmp_path / "state"))
    monkeypatch.setenv("HOME", str(tmp_path))
    override = tmp_path / "override.toml"
    override.write_text(config)
    monkeypatch.setenv("AGENT_BROWSER_TOOLS_CONFIG", str(override))
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    assert main(["serve"]) == 2
    err = capsys.readouterr().err
    assert needle in err and "must be include" in err, err
