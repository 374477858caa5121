"""The public Python API: `BrowserTools` (async) and `SyncBrowserTools`.

```python
async with BrowserTools() as tools:
    result = await tools.call("agent_browser", {"args": ["open", "https://example.com"]})
    print(result.text)
```

One `BrowserTools` is one conversation: it owns its implicit managed browser and closes it on
`aclose()` (unless `close_on_exit=False`). Caller-owned sessions are never closed, except on a
shared server (`shared_server=True`), where every browser in the conversation's own socket dir
is closed with it: nobody can reach them once the conversation has ended.

On a shared server each conversation also works in its own workspace dir (`workspaces`),
which keeps its files when it ends (an empty one is removed).
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Iterable, Mapping
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agent_browser_tools.planning.file_config import FileAccess
from agent_browser_tools.planning.file_urls import root_uri_path
from agent_browser_tools.planning.policy import ModelPolicy
from agent_browser_tools.results.tool_result import ToolResult
from agent_browser_tools.runtime import Runtime
from agent_browser_tools.settings import Settings
from agent_browser_tools.settings_check import check_settings
from agent_browser_tools.state.journal import ConversationLog
from agent_browser_tools.state.sqlite_journal import SqliteJournal
from agent_browser_tools.tools.agent_browser import close_own_dir, close_owned, host_call
from agent_browser_tools.tools.catalog import build_toolkit
from agent_browser_tools.tools.electron import cleanup_owned as cleanup_owned_apps
from agent_browser_tools.tools.flavors import SpecFlavor, function_tools
from agent_browser_tools.tools.registry import ToolSpec
from agent_browser_tools.workspaces import open_workspace, release_workspace, workspaces_dir

if TYPE_CHECKING:
    from agent_browser_tools.tools.agent_browser import BeforeExecute


def _file_access(settings: Settings, extra: Iterable[Path], unrestricted: bool) -> FileAccess:
    """The configured file access plus the host's own roots and choice (`serve` flags)."""
    access = FileAccess.from_settings(settings)
    return replace(
        access, roots=(*access.roots, *extra), unrestricted=access.unrestricted or unrestricted
    )


def _checked_dir(cwd: Path | None) -> Path | None:
    if cwd is not None and not cwd.is_dir():
        raise ValueError(
            f"execution directory {cwd} does not exist; create it or change "
            "AGENT_BROWSER_TOOLS_CWD / [tools] cwd"
        )
    return cwd


class BrowserTools:
    """The tools of one conversation, callable in-process."""

    def __init__(
        self,
        *,
        conversation_id: str | None = None,
        settings: Settings | None = None,
        cwd: Path | None = None,
        close_on_exit: bool = True,
        tools: Iterable[str] | None = None,
        persist: bool = True,
        shared_server: bool = False,
        shared_sessions: Iterable[str] = (),
        file_roots: Iterable[Path] = (),
        unrestricted_files: bool = False,
        before_execute: BeforeExecute | None = None,
    ) -> None:
        """`conversation_id` resumes that conversation from the journal (refs, page targets,
        enabled tools); without one a new conversation starts. `persist=False` keeps state in
        memory only: every dispatch (inner code calls too) still journals its intent first,
        but nothing survives the process to resume. `tools` is a host allowlist of tools.

        `shared_server=True` tells the tools that several conversations share this process
        (the HTTP server): the engine's per-user stores are refused to the model
        (`ModelPolicy.isolated_conversations`), a sub-agent group in the process env is
        ignored, and the conversation works in its own private workspace under
        `<execution dir>/agent-browser-workspaces/` that no other conversation can reach
        (`workspace`). Every host keeps each conversation's browsers in its own socket dir;
        `shared_sessions` names sessions the operator shares with every conversation, on top
        of `[isolation] shared_sessions` / `AGENT_BROWSER_TOOLS_SHARED_SESSIONS`.
        `file_roots` adds operator file roots to the configured ones (`serve --file-root`);
        `unrestricted_files` opens the whole filesystem except the server's and the engine's
        own dirs. `before_execute(tool_call_id, ctx)` (sync or async) is awaited before each
        engine dispatch, inner code calls included; raising blocks it (see `host_hook`)."""
        self.before_execute = before_execute
        self.settings = settings or Settings.load(cwd=cwd)
        self.check_settings(self.settings)
        self._cwd_chosen = cwd is not None or self.settings.execution_dir is not None
        self._default_cwd = cwd or self.settings.execution_dir or Path.cwd()
        cwd = _checked_dir(cwd or self.settings.execution_dir)
        conversation = conversation_id or uuid.uuid4().hex
        self.journal = SqliteJournal(self.settings.state_dir, conversation) if persist else None
        workspace = self._workspace(conversation) if shared_server else None
        log = ConversationLog(self.journal)
        policy = ModelPolicy.from_settings(self.settings, isolated_conversations=shared_server)
        access = _file_access(self.settings, file_roots, unrestricted_files)
        self.runtime = Runtime(
            self.settings,
            conversation_id=conversation,
            cwd=cwd,
            log=log,
            policy=policy,
            shared_sessions=shared_sessions,
            file_access=access,
            workspace=workspace,
        )
        self.shared_server = shared_server
        allowlist = frozenset(tools) if tools is not None else None
        self.toolkit = build_toolkit(self.settings, allowlist)
        self.toolkit.activated.update(self.runtime.log.state.activated_tools)
        self.close_on_exit = close_on_exit

    def _workspace(self, conversation: str) -> Path:
        """The conversation's own workspace on a shared server (see `workspaces`)."""
        try:
            return open_workspace(self.settings.state_dir, self._default_cwd, conversation)
        except BaseException:
            if self.journal is not None:
                self.journal.close()  # the conversation never started
            raise

    @staticmethod
    def workspaces_dir(settings: Settings, cwd: Path | None = None) -> Path:
        """Where a shared server keeps its conversations' workspaces (one dir each)."""
        return workspaces_dir(cwd or settings.execution_dir or Path.cwd())

    @staticmethod
    def check_settings(settings: Settings, *, shared_sessions: Iterable[str] = ()) -> None:
        """Raise `SettingsError` (with the fix) now for operator launch, policy or isolation
        settings every conversation would refuse later (see `settings_check`)."""
        check_settings(settings, shared_sessions=shared_sessions)

    @property
    def conversation_id(self) -> str:
        return self.runtime.conversation_id

    @property
    def workspace(self) -> Path | None:
        """This conversation's own dir on a shared server (None otherwise)."""
        return self.runtime.workspace

    def set_client_roots(self, uris: Iterable[str]) -> tuple[Path, ...]:
        """Use the MCP client's roots as file roots of this conversation, besides the execution
        dir and the configured roots; the first existing one becomes the execution dir unless
        the host or the operator chose one. Only `file://` URIs count, and none on a shared
        server; returns the roots in effect."""
        roots = tuple(Path(path) for uri in uris if (path := root_uri_path(uri)) is not None)
        if self.shared_server:
            # A client of a shared server names folders of its own machine, and one that
            # declared `file:///` would open this host's files to its conversation: only the
            # operator's roots (and the conversation's workspace) count there.
            self.runtime.client_roots = ()
            return ()
        self.runtime.client_roots = roots
        if not self._cwd_chosen:
            # The client's first root is its project: relative paths mean files there. Only
            # when neither the host nor the operator chose a dir, and only while it is offered.
            first = roots[0] if roots and roots[0].is_dir() else None
            self.runtime.execution_dir = first or self._default_cwd
        return roots

    async def call(
        self, tool: str, params: Mapping[str, Any], *, tool_call_id: str | None = None
    ) -> ToolResult:
        """Run one tool call; problems come back as `validation-error` results, never raise.
        `tool_call_id` (the host's id for this call) reaches `before_execute`."""
        with host_call(tool_call_id or uuid.uuid4().hex, tool, self.before_execute):
            return await self.toolkit.call(self.runtime, tool, params)

    def listed_tools(self) -> list[ToolSpec]:
        """The tools the model should see now (always-on plus enabled, within the allowlist)."""
        return self.toolkit.listed()

    def tool_specs(
        self, flavor: SpecFlavor = "generic", *, strict: bool = False
    ) -> list[dict[str, Any]]:
        """Listed tools as function-tool declarations for a model API.

        `flavor`: `"anthropic"` (or `"generic"`: name, description, input_schema), `"chat"`
        (or `"openai"`: Chat Completions, `{"type": "function", "function": {...}}`) or
        `"responses"` (the Responses API's flat function); anything else raises `ValueError`.
        `strict=True` gives schemas under OpenAI's strict rules (every field required,
        optional ones nullable) and `"strict": true` on the OpenAI shapes. Optional fields
        accept `null` in every flavour and the tools read it as absent.

        The list is a snapshot of the tools listed now: after `agent_browser_tools` enables a
        capability (`{"enable": ["qa"]}`), call `tool_specs()` again and hand the model the
        new list, or it cannot call the tool it just enabled."""
        return function_tools(self.listed_tools(), flavor, strict=strict)

    async def aclose(self) -> None:
        """Close the managed browsers this conversation launched (if configured to) and clean
        up the desktop apps it launched, every browser of its own socket dir on a shared
        server, then remove that dir if it is empty. The workspace of a shared server's
        conversation keeps its files; an empty one is removed."""
        try:
            closing: set[str] | None = set()
            grid = self.runtime.grid
            if self.close_on_exit or grid is not None:
                if self.runtime.log.state.app_launches:
                    await cleanup_owned_apps(self.runtime)
                closed = await close_owned(self.runtime)
                closing = {label.rsplit("/", 1)[-1] for label in closed}
                # A grid browser holds a slot of a shared grid: it never outlives its
                # conversation, whoever named its session.
                if self.shared_server or grid is not None:
                    await close_own_dir(self.runtime)
                    closing = None
            if grid is not None:
                await grid.end_all()
            await self.runtime.release_socket_dir(closing)
        finally:
            if self.runtime.workspace is not None:
                release_workspace(self.runtime.workspace)
            if self.journal is not None:
                self.journal.close()

    async def __aenter__(self) -> BrowserTools:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()


class SyncBrowserTools:
    """A blocking facade over `BrowserTools` for scripts without an event loop."""

    def __init__(self, **kwargs: Any) -> None:
        self._runner = asyncio.Runner()
        self._tools = BrowserTools(**kwargs)

    def call(
        self, tool: str, params: Mapping[str, Any], *, tool_call_id: str | None = None
    ) -> ToolResult:
        return self._runner.run(self._tools.call(tool, params, tool_call_id=tool_call_id))

    def tool_specs(
        self, flavor: SpecFlavor = "generic", *, strict: bool = False
    ) -> list[dict[str, Any]]:
        """`BrowserTools.tool_specs`: re-read it after an `enable`."""
        return self._tools.tool_specs(flavor, strict=strict)

    def close(self) -> None:
        try:
            self._runner.run(self._tools.aclose())
        finally:
            self._runner.close()

    def __enter__(self) -> SyncBrowserTools:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
