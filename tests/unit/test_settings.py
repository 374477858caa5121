"""Settings read once per process: here the operator's image-responses choice (whether
results carry screenshots as inline image content), from the env, config files and the
`serve` flag's layer, with a clear refusal for a value that is neither mode."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent_browser_tools.settings import (
    DEFAULT_INLINE_IMAGE_MAX_BYTES,
    IMAGE_RESPONSES_ENV,
    Settings,
    SettingsError,
    image_responses,
    inline_image_limit,
)
from agent_browser_tools.settings_check import check_settings
from agent_browser_tools.tools.catalog import declared


def _settings(tmp_path: Path, config: str | None = None, **env: str) -> Settings:
    environ = {"HOME": str(tmp_path), **env}
    if config is not None:
        path = tmp_path / "override.toml"
        path.write_text(config, encoding="utf-8")
        environ["AGENT_BROWSER_TOOLS_CONFIG"] = str(path)
    return Settings.load(env=environ, cwd=tmp_path)


def test_images_are_included_by_default(tmp_path: Path) -> None:
    settings = _settings(tmp_path)
    assert image_responses(settings) == "include"
    assert inline_image_limit(settings) == DEFAULT_INLINE_IMAGE_MAX_BYTES
    capped = _settings(tmp_path, AGENT_BROWSER_TOOLS_INLINE_IMAGE_MAX_BYTES="10")
    assert inline_image_limit(capped) == 10


@pytest.mark.parametrize("raw", ["omit", " OMIT ", "Omit"])
def test_omit_from_the_env_sends_no_image_at_any_size(tmp_path: Path, raw: str) -> None:
    settings = _settings(tmp_path, **{IMAGE_RESPONSES_ENV: raw})
    assert image_responses(settings) == "omit"
    assert inline_image_limit(settings) == -1  # no file is <= -1 bytes, not even an empty one


def test_the_config_key_and_the_flag_layer(tmp_path: Path) -> None:
    from_file = _settings(tmp_path, '[tools]\nimage_responses = "omit"\n')
    assert image_responses(from_file) == "omit"
    # `serve --image-responses include` is a layer above the files, so it wins over them.
    flagged = from_file.with_layer("serve flags", {"tools": {"image_responses": "include"}})
    assert image_responses(flagged) == "include"
    assert (
        image_responses(_settings(tmp_path).with_layer("f", {"tools": {"image_responses": "omit"}}))
        == "omit"
    )


def test_the_env_wins_over_the_config_as_for_the_other_operator_settings(tmp_path: Path) -> None:
    settings = _settings(
        tmp_path, '[tools]\nimage_responses = "omit"\n', **{IMAGE_RESPONSES_ENV: "include"}
    )
    assert image_responses(settings) == "include"
    empty = _settings(tmp_path, '[tools]\nimage_responses = "omit"\n', **{IMAGE_RESPONSES_ENV: " "})
    assert image_responses(empty) == "omit"  # an empty variable is unset, as for the int knobs


@pytest.mark.parametrize(
    ("config", "env", "named"),
    [
        (None, {IMAGE_RESPONSES_ENV: "none"}, f"{IMAGE_RESPONSES_ENV} = 'none'"),
        (None, {IMAGE_RESPONSES_ENV: "allow"}, f"{IMAGE_RESPONSES_ENV} = 'allow'"),
        ('[tools]\nimage_responses = "off"\n', {}, "config [tools] image_responses = 'off'"),
        ("[tools]\nimage_responses = false\n", {}, "config [tools] image_responses = False"),
        ('[tools]\nimage_responses = ""\n', {}, "config [tools] image_responses = ''"),
    ],
)
def test_a_value_that_is_neither_mode_is_refused_with_the_fix(
    tmp_path: Path, config: str | None, env: dict[str, str], named: str
) -> None:
    settings = _settings(tmp_path, config, **env)
    with pytest.raises(SettingsError) as caught:
        image_responses(settings)
    message = str(caught.value)
    assert message.startswith(named), message
    assert "must be include" in message and "or omit" in message and "fix or unset it" in message
    # The start-up check (serve, BrowserTools) refuses it before any conversation runs.
    with pytest.raises(SettingsError):
        check_settings(settings)


def test_a_tools_section_that_is_not_a_table_is_refused(tmp_path: Path) -> None:
    settings = _settings(tmp_path, 'tools = "omit"\n')
    with pytest.raises(SettingsError, match=r"config \[tools\] must be a table"):
        check_settings(settings)


def test_a_valid_choice_passes_the_start_up_check(tmp_path: Path) -> None:
    for mode in ("include", "omit"):
        check_settings(_settings(tmp_path, **{IMAGE_RESPONSES_ENV: mode}))


def test_tool_inputs_cannot_choose_it() -> None:
    """An operator setting only: no tool's input has a field for images or their mode."""
    for spec in declared():
        names = {name.lower() for name in spec.input_schema.get("properties", {})}
        assert not {n for n in names if "image" in n or "inline" in n}, (spec.name, names)
