"""Per-conversation runtime: settings, engine, state log, locks and the spawn entry point.

Tools receive a `Runtime` and never touch processes, env or locks themselves. Calls on one
browser identity (socket dir, namespace, session) are serialized by an asyncio lock, because
two interleaved commands on one page would make every observation ambiguous.

Each conversation's browsers live in its own socket dir (`engine.isolation`); only the sessions
the operator shared by name run in the shared base dir. The dir is chosen per spawn from the
session the call acts on, so tools never pick it.

On a server several conversations share, each has its own workspace (`workspaces`): `cwd`
(relative paths, the engine child's working dir, artifacts, `outputPath`, its browsers'
downloads) is that dir, while `execution_dir` stays the server's (project lookups, operator
commands).

`spawn` is also the secrets boundary: `{{secret:NAME}}` placeholders are resolved only in the
argv and stdin handed to the engine, and the engine's output (and the outcome's argv) comes back
with every registered secret value replaced, so nothing downstream ever holds a value.
"""

from __future__ import annotations

import itertools
import logging
import os
import uuid
from collections.abc import Collection, Iterable, Sequence
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass, replace
from pathlib import Path

from agent_browser_tools import taxonomy
from agent_browser_tools.credentials import SecretStore
from agent_browser_tools.credentials.fields import FieldRead
from agent_browser_tools.credentials.operator import load_operator_secrets
from agent_browser_tools.engine import state_key, stream_guard
from agent_browser_tools.engine.daemons import read_daemon_pid
from agent_browser_tools.engine.discovery import (
    EngineBinary,
    EngineNotFound,
    EngineTooOld,
    resolve_engine,
)
from agent_browser_tools.engine.environment import build_child_env
from agent_browser_tools.engine.isolation import (
    DAEMON_EXIT_WAIT_S,
    SocketScope,
    holds_browsers,
    namespaces_with_browsers,
    remove_if_idle,
    resolve_scope,
    shared_session_names,
)
from agent_browser_tools.engine.remote_tabs import RemoteTabs, Run
from agent_browser_tools.engine.runner import RawOutcome, run_engine
from agent_browser_tools.engine.session_close import answered_closed, may_close, wait_for_exit
from agent_browser_tools.grid_browsers import GridBrowsers
from agent_browser_tools.grid_settings import grid_config
from agent_browser_tools.launch_options import CDP_ENV, remote_cdp
from agent_browser_tools.planning import file_config
from agent_browser_tools.planning.file_access import FileRoots
from agent_browser_tools.planning.grid_endpoints import GridEndpoints
from agent_browser_tools.planning.policy import ModelPolicy
from agent_browser_tools.planning.sessions import is_managed_name, managed_base_name
from agent_browser_tools.private_fs import ensure_private_dir, write_private_file
from agent_browser_tools.remote_endpoint import endpoint_secrets
from agent_browser_tools.results.artifact_manifest import ArtifactManifest
from agent_browser_tools.results.tool_result import TextBlock, ToolResult
from agent_browser_tools.settings import Settings, SettingsError
from agent_browser_tools.state.journal import ConversationLog
from agent_browser_tools.state.locks import IdentityLocks
from agent_browser_tools.state.models import SessionKey

logger = logging.getLogger(__name__)

STREAM_OFF_TIMEOUT_MS = 15_000
"""Bound on `stream disable` (it may start the session's daemon, never a browser)."""

ROOT_ENV = "AGENT_BROWSER_TOOLS_ROOT"
"""Names the root conversation of a sub-agent group (shares its browser and socket dir)."""


@dataclass(frozen=True)
class FocusedRead:
    """A read of the focused field of `key`'s page, taken as engine call number `spawns`:
    still what the page holds while no engine call followed it."""

    key: SessionKey
    spawns: int
    read: FieldRead

    def current(self, rt: Runtime, key: SessionKey | None) -> FieldRead | None:
        """The read, if it is of `key` and nothing ran since."""
        return self.read if key == self.key and rt.spawns == self.spawns else None


class Runtime:
    """Everything one conversation's tool calls share."""

    def __init__(
        self,
        settings: Settings,
        *,
        conversation_id: str | None = None,
        cwd: Path | None = None,
        log: ConversationLog | None = None,
        policy: ModelPolicy | None = None,
        shared_sessions: Iterable[str] = (),
        secrets: SecretStore | None = None,
        file_access: file_config.FileAccess | None = None,
        workspace: Path | None = None,
    ) -> None:
        """`shared_sessions` adds operator-shared session names (host flags) to the config's;
        `workspace` is the conversation's own dir on a shared server (inside `cwd`'s
        workspaces folder, see `workspaces`)."""
        self.settings = settings
        self.policy = policy or ModelPolicy.from_settings(settings)
        """What the operator lets the model ask for (checked before every dispatch)."""
        self.secrets = secrets or SecretStore(load_operator_secrets(settings))
        """Operator secrets and values typed into credential fields (in memory only)."""
        self.conversation_id = conversation_id or uuid.uuid4().hex
        # A sub-agent group named in the process env would merge every conversation of a shared
        # server into one group (one browser, one socket dir), so such a server ignores it.
        group = None if self.policy.isolated_conversations else settings.env.get(ROOT_ENV)
        self.root_id = group or self.conversation_id
        self.shared_sessions = shared_session_names(settings, shared_sessions)
        """Sessions the operator shares by name; they live in the shared socket dir."""
        self.execution_dir = cwd or Path.cwd()
        """The user's (stdio) or the server's execution dir: the project the tools look at."""
        self.workspace = workspace
        """This conversation's own dir on a shared server, else None."""
        self.file_access = file_access or file_config.FileAccess.from_settings(settings)
        """The operator's file roots and whether file access is unrestricted."""
        self.client_roots: tuple[Path, ...] = ()
        """The MCP client's roots for this conversation (set by the host)."""
        self.log = log or ConversationLog()
        self._engine: EngineBinary | None = None
        self._scope: SocketScope | None = None
        self._envs: dict[tuple[Path, bool], dict[str, str]] = {}
        self._locks: dict[Path, IdentityLocks] = {}
        self._calls = itertools.count(1)
        self._closing: dict[tuple[str, SessionKey], int] = {}
        """Daemons of sessions a call may have closed, by (socket dir, session)."""
        self.owned_sessions: set[SessionKey] = self._resumed_ownership()
        endpoint = remote_cdp(settings)
        self.remote_tabs = RemoteTabs() if endpoint else None
        """The tabs opened in the operator's remote browser (`[browser] cdp_url`), else None."""
        for value in endpoint_secrets(endpoint or ""):
            self.secrets.register_typed(value)
        self.grid = self._grid_browsers()
        """This conversation's browsers on the operator's Selenium Grid, else None."""
        self.artifact_manifest = ArtifactManifest()
        """This conversation's recent artifact rows (bounded metadata; files are never removed)."""
        self.spawns = 0
        """How many engine calls this conversation made (each may change a page)."""
        self.focused: FocusedRead | None = None
        """The focused field as read after the latest typing call (`focused_field`)."""

    def _resumed_ownership(self) -> set[SessionKey]:
        """Managed browsers a resumed conversation owns: active ones, and the managed session
        of a call that never completed (the server died mid-call, perhaps mid-launch).

        Ownership starts at the spawn, but a process that died before journaling the call's
        completion left only its intent; without this, a first call killed mid-launch would
        leave its browser to the engine's idle timeout."""
        state = self.log.state
        owned = {
            SessionKey(session=label.split("/", 1)[-1], namespace=_namespace(label))
            for label, entry in state.sessions.items()
            if entry.ownership == "managed" and entry.active
        }
        base = managed_base_name(self.root_id)
        root = self.root_id == self.conversation_id
        # A sub-agent shares its root's browser (only the root closes it) but owns its fresh
        # launches (`base-<suffix>`), as `own_at_spawn` does.
        owned |= {
            key
            for key in state.interrupted
            if key.session.startswith(base) and (root or key.session != base)
        }
        return owned

    def _grid_browsers(self) -> GridBrowsers | None:
        config = grid_config(self.settings, self.shared_sessions)
        if config is None:
            return None
        if self.root_id != self.conversation_id:
            raise SettingsError(
                f"[browser] grid_url does not serve sub-agent groups ({ROOT_ENV}): each grid "
                f"browser belongs to one conversation. Unset {ROOT_ENV} or the grid."
            )
        for value in config.secrets:
            self.secrets.register_typed(value)
        return GridBrowsers(config, self.log, self.settings.state_dir, self.conversation_id)

    @property
    def grid_endpoints(self) -> GridEndpoints:
        """The operator's grid origins pages and the model stay off (none without a grid)."""
        return GridEndpoints() if self.grid is None else self.grid.endpoints()

    @property
    def cwd(self) -> Path:
        """Where this conversation's relative paths resolve and its engine children run: its
        workspace on a shared server, else the execution dir."""
        return self.workspace or self.execution_dir

    def restore_workspace(self) -> None:
        """Recreate the conversation's workspace if it is gone (an operator cleaning up saved
        files while the server runs): its calls go on saving there, not failing."""
        if self.workspace is not None and not os.path.lexists(self.workspace):
            ensure_private_dir(self.workspace)

    def record_activation(self, capabilities: list[str]) -> None:
        """Remember enabled capabilities so a resumed conversation sees the same tools."""
        self.log.record_activation(tuple(capabilities))

    @property
    def engine(self) -> EngineBinary:
        """The resolved engine (raises `EngineNotFound` / `EngineTooOld` with the fix)."""
        if self._engine is None:
            self._engine = resolve_engine(self.settings)
        return self._engine

    @property
    def engine_known(self) -> bool:
        """Whether the engine's version was read already (no process is needed for it)."""
        return self._engine is not None

    def engine_surface(self) -> str:
        """The engine release whose taxonomy plans this conversation's calls, made the one
        the lookups use (`taxonomy.use_engine`): the engine's own when supported, the target
        release while none can be read (the call then fails as a missing engine)."""
        try:
            version = self.engine.version
        except (EngineNotFound, EngineTooOld):
            version = None
        return taxonomy.use_engine(version)

    @property
    def sockets(self) -> SocketScope:
        """The conversation's socket dirs, created and checked on first use."""
        if self._scope is None:
            self._scope = resolve_scope(self.settings, self.root_id, self.shared_sessions)
        return self._scope

    def socket_dir(self, key: SessionKey | None, *, whole_dir: bool = False) -> Path:
        """Where `key`'s browser lives. A command on a whole dir (`session list`,
        `close --all`) always acts on the conversation's own dir."""
        if whole_dir or key is None:
            return self.sockets.own
        return self.sockets.dir_for(key.session, key.namespace)

    def env_for(self, key: SessionKey | None, *, whole_dir: bool = False) -> dict[str, str]:
        """The engine child environment for a call on `key`.

        Decided by the session's name alone, so every spawn on one browser (the model's call,
        probes, follow-ups, closes, other tools) gets the same environment."""
        directory = self.socket_dir(key, whole_dir=whole_dir)
        caller = key is not None and not whole_dir and self.caller_owned(key)
        env = self._envs.get((directory, caller))
        if env is None:
            # A browser of the operator's shared dir is everyone's: it keeps the operator's
            # download dir rather than the workspace of whichever conversation launched it.
            mine = directory == self.sockets.own
            env = build_child_env(
                self.settings,
                directory,
                caller_owned=caller,
                workspace=self.workspace if mine else None,
                key_scope=self._key_scope(mine=mine),
            )
            self._envs[(directory, caller)] = env
        endpoint = None if self.grid is None else self.grid.endpoint(str(directory), key)
        return env if endpoint is None else {**env, CDP_ENV: endpoint}

    def _key_scope(self, *, mine: bool) -> str | None:
        """Whose state key a browser gets (`engine.state_key`): the single user's (None), or
        on a shared server the conversation's own (its browsers) or the operator-shared
        sessions' one, so no conversation loads a state file another saved."""
        if not self.policy.isolated_conversations:
            return None
        return (
            state_key.conversation_scope(self.root_id) if mine else state_key.SHARED_SESSIONS_SCOPE
        )

    def caller_owned(self, key: SessionKey) -> bool:
        """Not a browser of the wrapper's own managed slot (`abt-<root>` and its fresh
        rotations): a session the caller, the user or another tool named. The same test as
        planning's ownership (`is_managed_name`)."""
        return not is_managed_name(key.session, self.root_id)

    @property
    def child_env(self) -> dict[str, str]:
        """The environment of calls on the conversation's own socket dir."""
        return self.env_for(None)

    @property
    def file_roots(self) -> FileRoots:
        """Where this conversation's calls may read and write files (checked before dispatch)."""
        return file_config.file_roots(
            self.settings,
            self.file_access,
            cwd=self.cwd,
            client_roots=self.client_roots,
            socket_dir=self.sockets.base,  # every conversation's dir is under it
            server_dir=self.execution_dir if self.workspace is not None else None,
        )

    @property
    def spill_dir(self) -> Path:
        return ensure_private_dir(self.settings.state_dir / "spill" / self.conversation_id[:32])

    def next_call_id(self) -> str:
        return f"{self.conversation_id[:12]}-{next(self._calls)}"

    def lock_for(
        self, key: SessionKey | None, *, whole_namespace: bool = False, whole_dir: bool = False
    ) -> AbstractAsyncContextManager[None]:
        """Serialize calls on one browser identity, in-process and across processes.

        `whole_namespace` (for `close --all`) waits for every call in the namespace. The socket
        dir (`whole_dir`: see `socket_dir`) is part of the identity, so a shared session's calls
        are serialized with every other conversation's calls on it.
        """
        directory = self.socket_dir(key, whole_dir=whole_dir)
        locks = self._locks.get(directory)
        if locks is None:
            locks = self._locks[directory] = IdentityLocks(self.settings.state_dir, str(directory))
        namespace = key.namespace if key is not None else None
        session = key.session if key is not None else None
        return locks.hold(namespace, session, whole_namespace=whole_namespace)

    def has_browsers(self) -> bool:
        """Whether an engine daemon may still live in the conversation's own socket dir."""
        return self._scope is not None and holds_browsers(self._scope.own)

    def namespaces_in_use(self) -> list[str]:
        """Namespaces of the conversation's own dir that still hold a browser."""
        return [] if self._scope is None else namespaces_with_browsers(self._scope.own)

    async def release_socket_dir(self, closing: Collection[str] | None = ()) -> bool:
        """Remove the conversation's own socket dir when no browser lives in it any more.

        Only the group's root removes it (a sub-agent ends while its root may still launch
        there). The sessions just closed (`closing`; None: every one in the dir) get a moment
        to delete their files.
        """
        if self._scope is None or self.root_id != self.conversation_id:
            return False
        wait_s = DAEMON_EXIT_WAIT_S if closing is None or closing else 0.0
        return await remove_if_idle(self._scope.own, wait_s, closing)

    async def spawn(
        self,
        args: Sequence[str],
        *,
        timeout_ms: int,
        stdin: str | None = None,
        session: SessionKey | None = None,
        whole_dir: bool = False,
    ) -> RawOutcome:
        """Run the engine with `args` (everything after the binary name).

        `session` is the browser the argv acts on (its socket dir is chosen from it);
        `whole_dir` marks a command on every session of a dir (see `socket_dir`).
        Placeholders are resolved here and nowhere else; the outcome's argv keeps them, and
        its stdout/stderr come back scrubbed of every registered secret value.
        """
        shown = (self.engine.path, *args)
        self.spawns += 1
        directory = str(self.socket_dir(session, whole_dir=whole_dir))
        guarded = None if whole_dir else session
        if guarded is not None and (directory, guarded) in self._closing:
            await self._after_close(guarded, directory)
        if self.grid is not None and guarded is not None:
            await self.grid.before(args, directory, guarded)
        if guarded is not None:
            await self._stream_off(guarded, args, before=True)
        if self.remote_tabs is not None:
            await self.remote_tabs.before(args, directory, self._remote_run(timeout_ms))
        closing = guarded if guarded is not None and may_close(args, stdin) else None
        daemon = None if closing is None else self._daemon_pid(closing)
        raw = await run_engine(
            [self.engine.path, *(self.secrets.resolve(arg) for arg in args)],
            env=self.env_for(session, whole_dir=whole_dir),
            timeout_ms=timeout_ms,
            stdin=self.secrets.resolve_stdin(stdin) if stdin is not None else None,
            cwd=self.cwd,
            spill_dir=self.spill_dir,
        )
        if closing is not None and daemon is not None and answered_closed(raw):
            self._closing[(directory, closing)] = daemon
        if self.remote_tabs is not None:
            self.remote_tabs.after(args, directory, raw.stdout)
        if self.grid is not None:
            await self.grid.after(args, directory)
        if guarded is not None:
            await self._stream_off(guarded, args, before=False)
        return self._scrubbed(replace(raw, argv=shown))

    def _daemon_pid(self, key: SessionKey) -> int | None:
        return read_daemon_pid(self.socket_dir(key), key.session, key.namespace)

    async def _after_close(self, key: SessionKey, directory: str) -> None:
        """The previous call on `key` closed it (`close`, or a batch `close` row): wait for
        its daemon to be gone, because a call that reaches it meanwhile is accepted and
        dropped (0.39.4: "Invalid response: EOF"; the daemon outlives its pid file by ~1 s);
        and end its grid browser (the engine's `close` only detaches from one). Done at the
        next call on the session, so a close costs nothing unless the session is used again
        at once."""
        daemon = self._closing.pop((directory, key))
        await wait_for_exit(daemon, DAEMON_EXIT_WAIT_S)
        if self.grid is not None:
            await self.grid.ended_by_engine(directory, key)

    async def _stream_off(self, key: SessionKey, args: Sequence[str], *, before: bool) -> None:
        """Close the session's engine stream server when it may be listening
        (`engine.stream_guard`): before a call (`args`) that may start the daemon, after any
        call that left it streaming."""
        directory = self.socket_dir(key)
        if before:
            needed = stream_guard.off_before_call(directory, key.session, key.namespace)
        else:
            needed = stream_guard.streaming(directory, key.session, key.namespace)
        if not needed:
            return
        argv = stream_guard.stream_argv(args, key.session, key.namespace)
        raw = await run_engine(
            [self.engine.path, *(self.secrets.resolve(arg) for arg in argv)],
            env=self.env_for(key),
            timeout_ms=STREAM_OFF_TIMEOUT_MS,
            cwd=self.cwd,
            spill_dir=self.spill_dir,
        )
        raw.discard_stdout()
        if raw.exit_code != 0:
            # The call itself reports what is wrong with the engine; the operator learns here
            # that a stream may have stayed on (the next call tries again).
            logger.warning(
                "could not turn the engine's stream server off for session %s (exit %s): %s",
                key.session,
                raw.exit_code,
                self.secrets.scrub(raw.stderr or raw.spawn_error or "")[:300],
            )

    def _remote_run(self, timeout_ms: int) -> Run:
        """Run the remote-tab bookkeeping commands (`remote_tabs`) on one session."""

        async def run(args: Sequence[str], namespace: str | None, session: str) -> str:
            key = SessionKey(session=session, namespace=namespace)
            argv = [*args[:1], *(["--namespace", namespace] if namespace else [])]
            argv += ["--session", session, *args[1:]]
            raw = await run_engine(
                [self.engine.path, *argv],
                env=self.env_for(key),
                timeout_ms=timeout_ms,
                cwd=self.cwd,
                spill_dir=self.spill_dir,
            )
            try:  # raw engine output: read, then never kept
                return "" if raw.stdout_dropped else raw.read_stdout()
            finally:
                raw.discard_stdout()

        return run

    def _scrubbed(self, raw: RawOutcome) -> RawOutcome:
        """The outcome with secret values replaced in stdout (and its overflow file)."""
        if not self.secrets.active:
            return raw
        store = self.secrets
        if raw.stdout_path is not None and not raw.stdout_dropped:  # dropped: never read
            text = raw.stdout_path.read_text(encoding="utf-8", errors="replace")
            clean = store.scrub_output(text)
            if clean != text:
                write_private_file(raw.stdout_path, clean.encode("utf-8"))
        return replace(raw, stdout=store.scrub_output(raw.stdout), stderr=store.scrub(raw.stderr))

    def scrub_result(self, result: ToolResult) -> ToolResult:
        """A tool result with every registered secret value replaced in text and details."""
        if not self.secrets.active:
            return result
        content = tuple(
            TextBlock(text=self.secrets.scrub(block.text))
            if isinstance(block, TextBlock)
            else block
            for block in result.content
        )
        details = self.secrets.scrub_data(result.details)
        return replace(result, content=content, details=details)


def _namespace(label: str) -> str | None:
    return label.split("/", 1)[0] if "/" in label else None
