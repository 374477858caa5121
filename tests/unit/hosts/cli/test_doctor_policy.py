"""`doctor` says what the model may decide (no engine needed for this line)."""

from __future__ import annotations

from pathlib import Path

from agent_browser_tools.hosts.cli.doctor import _policy_check
from agent_browser_tools.settings import Settings


def _settings(tmp_path: Path, config: str = "", **env: str) -> Settings:
    base = {"HOME": str(tmp_path), **env}
    if config:
        path = tmp_path / "c.toml"
        path.write_text(config)
        base["AGENT_BROWSER_TOOLS_CONFIG"] = str(path)
    return Settings.load(env=base, cwd=tmp_path)


def test_default_policy_is_stated(tmp_path: Path) -> None:
    check = _policy_check(_settings(tmp_path))
    assert check.ok and not check.warn
    assert "engine defaults" in check.message and "nothing more" in check.message
    assert "timeoutMs <= 600000 ms" in check.message
    assert "screenshot images in results: include" in check.message


def test_widened_policy_is_a_note(tmp_path: Path) -> None:
    check = _policy_check(
        _settings(
            tmp_path,
            '[browser]\nuser_agent = "Op"\n',
            AGENT_BROWSER_TOOLS_ALLOW_MODEL_FLAGS="--args",
        )
    )
    assert check.ok and check.warn
    assert "user_agent" in check.message and "--args" in check.message


def test_unusable_policy_fails_with_the_fix(tmp_path: Path) -> None:
    check = _policy_check(_settings(tmp_path, '[browser]\nviewport = "wide"\n'))
    assert not check.ok and "1280x720" in check.message


def test_the_image_responses_choice_is_stated_and_checked(tmp_path: Path) -> None:
    omitted = _policy_check(_settings(tmp_path, '[tools]\nimage_responses = "omit"\n'))
    assert omitted.ok and "screenshot images in results: omit" in omitted.message
    bad = _policy_check(_settings(tmp_path, AGENT_BROWSER_TOOLS_IMAGE_RESPONSES="never"))
    assert not bad.ok and "must be include" in bad.message
