"""The environment every engine child gets, built explicitly from the parent's.

Rules (contract, `timeoutMs` section):

- `AGENT_BROWSER_DEFAULT_TIMEOUT` is clamped to 25 s so an engine action always ends before our
  35 s watchdog; an unset value becomes 25 s for the same reason.
- `AGENT_BROWSER_IDLE_TIMEOUT_MS` is the same on every spawn for the wrapper's managed
  sessions: the engine treats launch settings as part of a daemon's identity, so a changing
  value would restart browsers. A caller-owned session (`--session NAME`) keeps the caller's
  own value when the server's environment defines one (the caller's explicit choice, so their
  terminal `agent-browser --session NAME` sees the same daemon settings); when it does not,
  the configured value applies too, as a leak guard: such a browser lives in the
  conversation's private socket dir, nothing closes it when a stdio conversation ends, and
  the engine's own default does not stop a headed browser.
- `AGENT_BROWSER_SOCKET_DIR` is the socket dir of the call's browser: the conversation's own
  dir, or the shared one for an operator-shared session (`engine.isolation`). `socket_dir_for`
  says which base the engine would use without the wrapper (`doctor` smokes there): a short
  private directory when the native default would push socket paths past the Unix limit, or
  the user's configured wrapper socket dir.
- Our own knobs (`AGENT_BROWSER_TOOLS_*`) and web-search credentials are not passed on: the
  engine does not need them.
- The operator's `[browser]` launch settings (`launch_options`) become engine variables, so
  every spawn launches the same browser the operator configured.
- On a server several conversations share, a conversation's own browsers save downloads in
  its workspace (`AGENT_BROWSER_DOWNLOAD_PATH=<workspace>/downloads`), and default
  screenshots there too when the operator set a screenshot dir: otherwise a download nobody
  asked for lands in one folder for every conversation (Chromium's `~/Downloads`, or the
  operator's dir) where the others could read or replace it. Operator-shared sessions keep
  the operator's values.
- `AGENT_BROWSER_ENCRYPTION_KEY` is always set, so `state save` files are encrypted: the
  operator's own key, else the engine's own key file's; on a server several conversations
  share, a key of the conversation's own (`key_scope`, see `engine.state_key`).
- `AGENT_BROWSER_CONFIG` always names the one config file the engine reads: the operator's own
  `AGENT_BROWSER_CONFIG`, else the user's `~/.agent-browser/config.json` when it exists, else
  a private empty `{}` under the state dir. Without it the engine also loads
  `./agent-browser.json` from its working dir (the workspace), where a downloaded or
  checked-out file could set proxies, extensions or file access for every browser.
- `AGENT_BROWSER_NO_VERSION_CHECK=1` always (`OFFLINE_ENV`): from 0.41 the engine fetches a
  Chrome release feed from the internet when it starts unless told not to, and nothing may
  leave the machine but the pages the model opens. Set on every child, the quick ones
  (`--version`, `doctor`) included, whatever the operator's environment says.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Mapping
from pathlib import Path

from agent_browser_tools.engine.state_key import KEY_ENV, child_key
from agent_browser_tools.launch_options import cleared_by_isolation, operator_launch_env
from agent_browser_tools.private_fs import ensure_private_dir, write_private_file
from agent_browser_tools.settings import ENGINE_ACTION_TIMEOUT_CAP_MS, ENV_PREFIX, Settings

UNIX_SOCKET_PATH_LIMIT = 104
"""The smaller of Linux (108) and macOS (104) `sun_path` sizes, minus nothing: be conservative."""

SESSION_NAME_BUDGET = 48
"""Room reserved for `<session>.sock` (and a namespace) when judging a socket dir's length."""

_WITHHELD = ("EXA_API_KEY", "BRAVE_API_KEY")

ENGINE_CONFIG_ENV = "AGENT_BROWSER_CONFIG"
EMPTY_ENGINE_CONFIG = "engine-config.json"
"""The private empty config (under the state dir) the engine reads when the operator has none."""


def clamp_default_timeout(raw: str | None) -> str:
    """Return the engine action timeout to pass: at most 25 s, 25 s when unset or invalid."""
    if raw is None:
        return str(ENGINE_ACTION_TIMEOUT_CAP_MS)
    try:
        value = int(raw.strip())
    except ValueError:
        return str(ENGINE_ACTION_TIMEOUT_CAP_MS)
    if value <= 0:
        return str(ENGINE_ACTION_TIMEOUT_CAP_MS)
    return str(min(value, ENGINE_ACTION_TIMEOUT_CAP_MS))


def native_socket_dir(env: Mapping[str, str]) -> Path:
    """Where the engine puts its sockets when `AGENT_BROWSER_SOCKET_DIR` is unset."""
    runtime = env.get("XDG_RUNTIME_DIR")
    if runtime:
        return Path(runtime) / "agent-browser"
    return Path(env.get("HOME", "~")).expanduser() / ".agent-browser"


def short_private_socket_dir(env: Mapping[str, str]) -> Path:
    """A short per-user directory under /tmp (mode 0700) for engine sockets."""
    home = env.get("HOME", "")
    digest = hashlib.sha256(f"{os.getuid()}:{home}".encode()).hexdigest()[:10]
    return Path("/tmp") / f"abt-{os.getuid()}-{digest}"


def socket_dir_for(settings: Settings) -> Path | None:
    """The socket dir the wrapper must set, or None to keep the engine's own choice.

    An explicit wrapper socket dir wins; a native `AGENT_BROWSER_SOCKET_DIR` is honoured as the
    user's choice; otherwise the native default is kept unless it is too long for socket paths.
    """
    if settings.socket_dir is not None:
        return ensure_private_dir(settings.socket_dir)
    if settings.env.get("AGENT_BROWSER_SOCKET_DIR"):
        return None
    default = native_socket_dir(settings.env)
    if len(str(default)) + SESSION_NAME_BUDGET <= UNIX_SOCKET_PATH_LIMIT:
        return None
    return ensure_private_dir(short_private_socket_dir(settings.env))


DOWNLOAD_PATH_ENV = "AGENT_BROWSER_DOWNLOAD_PATH"
SCREENSHOT_DIR_ENV = "AGENT_BROWSER_SCREENSHOT_DIR"


OFFLINE_ENV = {"AGENT_BROWSER_NO_VERSION_CHECK": "1"}
"""What keeps the engine itself off the internet (see the module docstring)."""


def offline(env: Mapping[str, str] | None = None) -> dict[str, str]:
    """`env` (default: this process's) with the engine kept off the internet: for the quick
    children that do not get `build_child_env`'s environment (`--version`)."""
    return {**(os.environ if env is None else env), **OFFLINE_ENV}


def build_child_env(
    settings: Settings,
    socket_dir: Path | None,
    *,
    caller_owned: bool = False,
    workspace: Path | None = None,
    key_scope: str | None = None,
) -> dict[str, str]:
    """The complete environment for one engine child process (`caller_owned`: a session the
    caller named, whose idle timeout stays the caller's when the environment defines one;
    `workspace`: the conversation's own workspace on a shared server, for its own browsers;
    `key_scope`: whose state key the browser gets on a shared server, None for the single
    user's)."""
    dropped = {*_WITHHELD, *cleared_by_isolation(settings)}
    env = {
        key: value
        for key, value in settings.env.items()
        if not key.startswith(ENV_PREFIX) and key not in dropped
    }
    env.update(operator_launch_env(settings))
    env["AGENT_BROWSER_DEFAULT_TIMEOUT"] = clamp_default_timeout(
        settings.env.get("AGENT_BROWSER_DEFAULT_TIMEOUT")
    )
    if not caller_owned or "AGENT_BROWSER_IDLE_TIMEOUT_MS" not in settings.env:
        env["AGENT_BROWSER_IDLE_TIMEOUT_MS"] = str(settings.idle_timeout_ms)
    if socket_dir is not None:
        env["AGENT_BROWSER_SOCKET_DIR"] = str(socket_dir)
    if workspace is not None:
        env[DOWNLOAD_PATH_ENV] = str(workspace / "downloads")
        if env.get(SCREENSHOT_DIR_ENV):
            env[SCREENSHOT_DIR_ENV] = str(workspace / "screenshots")
    env[ENGINE_CONFIG_ENV] = engine_config_path(settings)
    env.update(OFFLINE_ENV)
    key = child_key(env, settings.state_dir, key_scope)
    if key is not None:
        env[KEY_ENV] = key
    return env


def engine_config_path(settings: Settings) -> str:
    """The only config file the engine may read (see the module docstring)."""
    explicit = settings.env.get(ENGINE_CONFIG_ENV)
    if explicit:
        return explicit
    user = Path(settings.env.get("HOME", "~")).expanduser() / ".agent-browser" / "config.json"
    if user.is_file():
        return str(user)
    path = ensure_private_dir(settings.state_dir) / EMPTY_ENGINE_CONFIG
    if not path.is_file() or path.read_bytes() != b"{}\n":
        write_private_file(path, b"{}\n")
    return str(path)
