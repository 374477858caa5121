"""Operator secrets from `[secrets]`, a dotenv file it names, and the env-named dotenv file."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent_browser_tools.credentials.operator import load_operator_secrets, read_dotenv
from agent_browser_tools.runtime import Runtime
from agent_browser_tools.settings import Settings, SettingsError


def _settings(tmp_path: Path, toml: str = "", **env: str) -> Settings:
    config = tmp_path / "cfg" / "config.toml"
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text(toml, encoding="utf-8")
    base = {"HOME": str(tmp_path / "home"), "AGENT_BROWSER_TOOLS_CONFIG": str(config)}
    return Settings.load(env={**base, **env}, cwd=tmp_path)


def test_no_secrets_by_default(tmp_path: Path) -> None:
    assert load_operator_secrets(_settings(tmp_path)) == {}


def test_table_file_and_env_file_merge_later_winning(tmp_path: Path) -> None:
    (tmp_path / "cfg").mkdir(parents=True, exist_ok=True)
    (tmp_path / "cfg" / "app.env").write_text("A=from-config-file\nB=from-config-file\n")
    env_file = tmp_path / "env.env"
    env_file.write_text("B=from-env-file\nC=from-env-file\n")
    toml = '[secrets]\nfile = "app.env"\nC = "from-table"\n'
    found = load_operator_secrets(
        _settings(tmp_path, toml, AGENT_BROWSER_TOOLS_SECRETS_FILE=str(env_file))
    )
    assert found == {"A": "from-config-file", "B": "from-env-file", "C": "from-table"}


def test_dotenv_syntax(tmp_path: Path) -> None:
    path = tmp_path / ".env"
    path.write_text(
        "# comment\n\n"
        "export PLAIN=plain-value # trailing comment\n"
        'DQ="double \\"quoted\\"\\nline"\n'
        "SQ='single #not-a-comment \\n'\n"
        "SPACED = spaced-value\n"
    )
    assert read_dotenv(path) == {
        "PLAIN": "plain-value",
        "DQ": 'double "quoted"\nline',
        "SQ": "single #not-a-comment \\n",
        "SPACED": "spaced-value",
    }


def test_a_broken_line_is_named_without_its_value(tmp_path: Path) -> None:
    path = tmp_path / ".env"
    path.write_text("GOOD=long-enough\nthis is hunter2-value\n")
    with pytest.raises(SettingsError) as caught:
        read_dotenv(path)
    assert "line 2" in str(caught.value) and "hunter2" not in str(caught.value)


@pytest.mark.parametrize(
    ("toml", "fragment"),
    [
        ('[secrets]\nPW = "abc"\n', "shorter than 4"),
        ('[secrets]\n"bad-name" = "long-enough"\n', "letters, digits and underscores"),
        ("[secrets]\nPW = 12345\n", "must be a string"),
        ('secrets = "x"\n', "must be a table"),
        ("[secrets]\nfile = 3\n", "path string"),
        ('[secrets]\nfile = "missing.env"\n', "cannot read secrets file"),
    ],
)
def test_broken_definitions_are_refused(tmp_path: Path, toml: str, fragment: str) -> None:
    with pytest.raises(SettingsError, match=fragment):
        load_operator_secrets(_settings(tmp_path, toml))


def test_a_runtime_loads_them(tmp_path: Path) -> None:
    rt = Runtime(_settings(tmp_path, '[secrets]\nPW = "hunter2-long"\n'), cwd=tmp_path)
    assert rt.secrets.names == ("PW",)
    assert rt.secrets.scrub("x hunter2-long") == "x {{secret:PW}}"
