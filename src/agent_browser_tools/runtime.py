"""Per-conversation runtime: settings, engine, state log, locks and the spawn entry point.

Tools receive a `Runtime` and never touch processes, env or locks themselves. Calls on one
browser identity (socket dir, namespace, session) are serialized by an asyncio lock, because
two interleaved commands on one page would make every observation ambiguous.
"""

from __future__ import annotations

import itertools
import uuid
from collections.abc import Sequence
from contextlib import AbstractAsyncContextManager
from pathlib import Path

from agent_browser_tools.engine.discovery import EngineBinary, resolve_engine
from agent_browser_tools.engine.environment import build_child_env, socket_dir_for
from agent_browser_tools.engine.runner import RawOutcome, run_engine
from agent_browser_tools.planning import file_config
from agent_browser_tools.planning.file_access import FileRoots
from agent_browser_tools.planning.policy import ModelPolicy
from agent_browser_tools.private_fs import ensure_private_dir
from agent_browser_tools.settings import Settings
from agent_browser_tools.state.journal import ConversationLog
from agent_browser_tools.state.locks import IdentityLocks
from agent_browser_tools.state.models import SessionKey


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
        file_access: file_config.FileAccess | None = None,
    ) -> None:
        self.settings = settings
        self.policy = policy or ModelPolicy.from_settings(settings)
        """What the operator lets the model ask for (checked before every dispatch)."""
        self.conversation_id = conversation_id or uuid.uuid4().hex
        self.root_id = settings.env.get("AGENT_BROWSER_TOOLS_ROOT") or self.conversation_id
        self.cwd = cwd or Path.cwd()
        self.file_access = file_access or file_config.FileAccess.from_settings(settings)
        """The operator's file roots and whether file access is unrestricted."""
        self.client_roots: tuple[Path, ...] = ()
        """The MCP client's roots for this conversation (set by the host)."""
        self.log = log or ConversationLog()
        self._engine: EngineBinary | None = None
        self._socket_dir: Path | None = None
        self._env: dict[str, str] | None = None
        self._locks: IdentityLocks | None = None
        self._calls = itertools.count(1)
        self.owned_sessions: set[SessionKey] = {
            SessionKey(session=label.split("/", 1)[-1], namespace=_namespace(label))
            for label, entry in self.log.state.sessions.items()
            if entry.ownership == "managed" and entry.active
        }

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
    def child_env(self) -> dict[str, str]:
        if self._env is None:
            self._socket_dir = socket_dir_for(self.settings)
            self._env = build_child_env(self.settings, self._socket_dir)
        return self._env

    @property
    def file_roots(self) -> FileRoots:
        """Where this conversation's calls may read and write files (checked before dispatch)."""
        _ = self.child_env  # resolves the socket dir, which is never reachable
        return file_config.file_roots(
            self.settings,
            self.file_access,
            cwd=self.cwd,
            client_roots=self.client_roots,
            socket_dir=self._socket_dir,
        )

    @property
    def spill_dir(self) -> Path:
        return ensure_private_dir(self.settings.state_dir / "spill" / self.conversation_id[:32])

    def next_call_id(self) -> str:
        return f"{self.conversation_id[:12]}-{next(self._calls)}"

    def lock_for(
        self, key: SessionKey | None, *, whole_namespace: bool = False
    ) -> AbstractAsyncContextManager[None]:
        """Serialize calls on one browser identity, in-process and across processes.

        `whole_namespace` (for `close --all`) waits for every call in the namespace.
        """
        if self._locks is None:
            _ = self.child_env  # resolves the socket dir that is part of the identity
            self._locks = IdentityLocks(self.settings.state_dir, str(self._socket_dir or ""))
        namespace = key.namespace if key is not None else None
        session = key.session if key is not None else None
        return self._locks.hold(namespace, session, whole_namespace=whole_namespace)

    async def spawn(
        self, args: Sequence[str], *, timeout_ms: int, stdin: str | None = None
    ) -> RawOutcome:
        """Run the engine with `args` (everything after the binary name)."""
        return await run_engine(
            [self.engine.path, *args],
            env=self.child_env,
            timeout_ms=timeout_ms,
            stdin=stdin,
            cwd=self.cwd,
            spill_dir=self.spill_dir,
        )


def _namespace(label: str) -> str | None:
    return label.split("/", 1)[0] if "/" in label else None
