"""Operator secrets: named values the model may use (`{{secret:NAME}}`) but never see.

Sources, later ones winning for the same name:

1. the dotenv file named by `[secrets] file = "..."` (relative to the config file that says
   so);
2. the dotenv file named by the `AGENT_BROWSER_TOOLS_SECRETS_FILE` env variable;
3. the other keys of the `[secrets]` table (`NAME = "value"`).

Why the rules below: a secret that cannot be scrubbed back out of output must not be usable,
so values shorter than `MIN_SCRUB_LENGTH` are refused at startup, and errors name the file,
line and secret, never the value.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path

from agent_browser_tools.credentials.store import MIN_SCRUB_LENGTH, NAME_PATTERN
from agent_browser_tools.settings import ENV_PREFIX, Settings, SettingsError

SECRETS_FILE_ENV = ENV_PREFIX + "SECRETS_FILE"
FILE_KEY = "file"
_NAME = re.compile(f"^{NAME_PATTERN}$")
_LINE = re.compile(r"^\s*(?:export\s+)?(" + NAME_PATTERN + r")\s*=\s*(.*?)\s*$")
_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", '"': '"', "\\": "\\"}


def load_operator_secrets(settings: Settings) -> dict[str, str]:
    """The operator's secrets by name; raises `SettingsError` for a broken definition."""
    section = settings.merged_config.get("secrets", {})
    if not isinstance(section, Mapping):
        raise SettingsError('config [secrets] must be a table of NAME = "value"; fix it.')
    found: dict[str, str] = {}
    config_file = section.get(FILE_KEY)
    if config_file is not None:
        if not isinstance(config_file, str) or not config_file.strip():
            raise SettingsError("config [secrets] file must be a path string; fix it.")
        found.update(read_dotenv(_config_relative(settings, config_file)))
    env_file = settings.env.get(SECRETS_FILE_ENV, "").strip()
    if env_file:
        found.update(read_dotenv(Path(env_file).expanduser()))
    for name, value in section.items():
        if name == FILE_KEY:
            continue
        if not isinstance(value, str):
            raise SettingsError(f"config [secrets] {name} must be a string value; fix it.")
        found[str(name)] = value
    for name, value in found.items():
        _check(name, value, "config [secrets]")
    return found


def secrets_files(settings: Settings) -> list[Path]:
    """The dotenv files that hold operator secrets (never reachable from a tool call)."""
    files: list[Path] = []
    section = settings.merged_config.get("secrets", {})
    config_file = section.get(FILE_KEY) if isinstance(section, Mapping) else None
    if isinstance(config_file, str) and config_file.strip():
        files.append(_config_relative(settings, config_file))
    env_file = settings.env.get(SECRETS_FILE_ENV, "").strip()
    if env_file:
        files.append(Path(env_file).expanduser())
    return files


def _config_relative(settings: Settings, raw: str) -> Path:
    """`[secrets] file` resolves against the directory of the last config layer naming it."""
    path = Path(raw).expanduser()
    if path.is_absolute():
        return path
    for layer in reversed(settings.layers):
        section = layer.data.get("secrets")
        if isinstance(section, Mapping) and section.get(FILE_KEY) == raw:
            return layer.path.parent / path
    return path


def _check(name: str, value: str, where: str) -> None:
    if not _NAME.match(name):
        raise SettingsError(
            f"{where}: secret name {name!r} must be letters, digits and underscores "
            "(not starting with a digit)."
        )
    if len(value) < MIN_SCRUB_LENGTH:
        raise SettingsError(
            f"{where}: secret {name} is shorter than {MIN_SCRUB_LENGTH} characters, so it "
            "could not be kept out of output; use a longer value or remove it."
        )


def read_dotenv(path: Path) -> dict[str, str]:
    """`NAME=value` lines (optional `export`, `#` comments, single or double quotes)."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise SettingsError(f"cannot read secrets file {path}: {exc.strerror or exc}.") from None
    found: dict[str, str] = {}
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        match = _LINE.match(line)
        if match is None:
            raise SettingsError(
                f"secrets file {path} line {number} is not NAME=value; fix it (the line is "
                "not shown because it may hold a secret)."
            )
        name, raw = match.groups()
        found[name] = _value(raw, f"secrets file {path} line {number}")
        _check(name, found[name], f"secrets file {path}")
    return found


def _value(raw: str, where: str) -> str:
    """A dotenv value: quoted (double quotes know `\\n`-style escapes) or bare (a ` #`
    starts a comment)."""
    if raw[:1] in ('"', "'"):
        quote = raw[0]
        end = raw.rfind(quote)
        if end == 0 or raw[end + 1 :].strip()[:1] not in ("", "#"):
            raise SettingsError(f"{where}: unbalanced {quote} quote; fix it.")
        inner = raw[1:end]
        if quote == "'":
            return inner
        return re.sub(r"\\(.)", lambda m: _ESCAPES.get(m.group(1), m.group(0)), inner)
    return re.split(r"\s+#", raw, maxsplit=1)[0]
