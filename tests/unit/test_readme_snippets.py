"""Every config snippet a user copies from the README parses, and every client's snippet runs
the one command line `scripts/client_configs.py` states (`agent-browser-tools serve`)."""

from __future__ import annotations

import json
import shlex
import sys
import tomllib
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.support import mini_yaml
from tests.support.readme import fenced_blocks

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "scripts"))
import client_configs

PARSERS: dict[str, Callable[[str], Any]] = {
    "json": json.loads,
    "toml": tomllib.loads,
    "yaml": mini_yaml.parse,
}


def test_every_json_toml_and_yaml_block_in_the_readme_parses() -> None:
    parsed: Counter[str] = Counter()
    for block in fenced_blocks():
        parse = PARSERS.get(block.lang)
        if parse is None:
            continue
        try:
            parse(block.body)
        except ValueError as exc:  # JSONDecodeError, TOMLDecodeError, YamlSubsetError
            pytest.fail(f"README.md line {block.line}: {block.lang} block does not parse: {exc}")
        parsed[block.lang] += 1
    # The standard config plus the clients' own JSON, Codex and the config-file examples in
    # TOML, Goose and Continue in YAML: a README that lost them fails here.
    assert parsed["json"] >= 6 and parsed["toml"] >= 3 and parsed["yaml"] >= 2, parsed


def test_python_blocks_in_the_readme_compile() -> None:
    blocks = [b for b in fenced_blocks() if b.lang == "python"]
    assert len(blocks) >= 2
    for block in blocks:
        compile(block.body, f"README.md:{block.line}", "exec")


def _standard(config: Any) -> list[str]:
    entry = config["mcpServers"][client_configs.NAME]
    return [entry["command"], *entry["args"]]


def _after_dashes(line: str) -> list[str]:
    words = shlex.split(line)
    return words[words.index("--") + 1 :]


def _goose(config: Any) -> list[str]:
    entry = config["extensions"][client_configs.NAME]
    assert entry["type"] == "stdio" and entry["enabled"] is True
    return [entry["cmd"], *entry["args"]]


def _continue(config: Any) -> list[str]:
    assert config["schema"] == "v1"
    (entry,) = config["mcpServers"]
    return [entry["command"], *entry["args"]]


def _opencode(config: Any) -> list[str]:
    entry = config["mcp"][client_configs.NAME]
    assert entry["type"] == "local"
    return list(entry["command"])


def _vscode(config: Any) -> list[str]:
    entry = config["servers"][client_configs.NAME]
    assert entry["type"] == "stdio"
    return [entry["command"], *entry["args"]]


def _zed(config: Any) -> list[str]:
    entry = config["context_servers"][client_configs.NAME]
    return [entry["command"], *entry["args"]]


def _codex(config: Any) -> list[str]:
    entry = config["mcp_servers"][client_configs.NAME]
    return [entry["command"], *entry["args"]]


ARGV_OF: dict[str, Callable[[Any], list[str]]] = {
    "Claude Code": _after_dashes,
    "Amp": _after_dashes,
    "Codex": _codex,
    "VS Code (Copilot agent mode)": _vscode,
    "Copilot CLI": _standard,
    "opencode": _opencode,
    "Zed": _zed,
    "Goose": _goose,
    "Continue": _continue,
}
"""How each client's config names the command line (its own keys, from its docs)."""


def test_the_standard_config_runs_the_command_line() -> None:
    config = json.loads(client_configs.standard_config())
    assert _standard(config) == ["agent-browser-tools", "serve"] == client_configs.argv()


@pytest.mark.parametrize("client", client_configs.OWN_FORMAT, ids=lambda c: c.name)
def test_each_client_snippet_runs_the_command_line(client: client_configs.OwnFormatClient) -> None:
    assert client.name in ARGV_OF, f"add how {client.name}'s config names its command"
    text = client.render()
    config = text if client.lang == "bash" else PARSERS[client.lang](text)
    assert ARGV_OF[client.name](config) == client_configs.argv()


def test_the_command_line_is_one_fact(monkeypatch: pytest.MonkeyPatch) -> None:
    """Changing `ARGS` changes every snippet: none spells the command line itself."""
    monkeypatch.setattr(client_configs, "ARGS", ("serve", "--enable", "qa"))
    for client in client_configs.OWN_FORMAT:
        text = client.render()
        config = text if client.lang == "bash" else PARSERS[client.lang](text)
        assert ARGV_OF[client.name](config)[-2:] == ["--enable", "qa"], client.name
    assert "--enable" in client_configs.standard_config()
    assert client_configs.uvx_entry()["args"] == ["agent-browser-tools", "serve", "--enable", "qa"]


def test_at_least_twelve_clients_are_covered() -> None:
    names = [c.name for c in client_configs.STANDARD] + [c.name for c in client_configs.OWN_FORMAT]
    assert len(set(names)) == len(names) == client_configs.client_count() >= 12


@pytest.mark.parametrize(
    "text",
    [
        "a:\n  b: 1\n   c: 2",  # deeper indentation than its siblings
        "a 1",  # not key: value
        "a: 1\na: 2",  # duplicate key
        "a: [serve",  # broken flow list
        "a: {b: 1}",  # flow mapping: outside the subset
        "a:\n\tb: 1",  # tab
    ],
)
def test_the_yaml_checker_refuses_what_is_not_the_subset(text: str) -> None:
    with pytest.raises(mini_yaml.YamlSubsetError):
        mini_yaml.parse(text)


def test_the_yaml_checker_reads_nested_sequences_of_mappings() -> None:
    text = 'top:\n  - name: x\n    args: ["serve"]\n  - name: y\nflag: true\n'
    assert mini_yaml.parse(text) == {
        "top": [{"name": "x", "args": ["serve"]}, {"name": "y"}],
        "flag": True,
    }
