"""Typed page/session state and the events it is folded from.

State is never mutated in place: `reducers.apply_event` returns a new `ConversationState`.
Events are pydantic models so the same values can be written to (and validated when read
back from) the persistent journal of the hosts layer.

Identity: a browser is addressed by (socket dir, namespace, session). Page state is kept per
(namespace, session) within one conversation; the socket dir is fixed per process.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal, NamedTuple

from pydantic import BaseModel, ConfigDict, Field

from agent_browser_tools.state.grid_sessions import GridBrowser, GridSessionEvent


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)


class SessionKey(_Frozen):
    """Which browser session a state entry or event is about."""

    session: str
    namespace: str | None = None

    @property
    def label(self) -> str:
        return f"{self.namespace}/{self.session}" if self.namespace else self.session


class Anchor(NamedTuple):
    """A twin's nearest unique ref on one side: its id (`^`/`$`: the page's end) and how it
    read (`button 'Details A'`)."""

    ref: str
    text: str


class RefInfo(NamedTuple):
    """What a snapshot said about one `@eN` ref.

    `context` and `anchors` are set only when another ref of the snapshot has the same role
    and name (a twin: three "Edit" buttons): role and name alone cannot tell the rows apart,
    so its anchors do, the nearest refs before and after it whose role and name are unique in
    the snapshot (`anchors`; `context` reads them for messages). See `state.ref_identity`.

    A named tuple, not a model: a page can show thousands of refs, each snapshot builds them
    all, and tuples of strings cost little to make and nothing to the garbage collector.
    Models holding them still validate them from the journal (a mapping or a list).
    """

    role: str | None = None
    name: str | None = None
    context: str | None = None
    engine: str | None = None
    """The engine's own id for this ref, when the wrapper shows it under another number."""
    anchors: tuple[Anchor, Anchor] | None = None
    nth: int | None = None
    """A twin's place among its look-alikes in document order (0-based), a hint for the
    page-side check (`page_watch`), never part of its identity."""

    def as_data(self) -> dict[str, Any]:
        """The fields that are set, as plain data (`details.refSnapshot`)."""
        if self[2:] == _UNSET and self.role is not None and self.name is not None:
            return {"role": self.role, "name": self.name}  # nearly every ref: no twin
        out: dict[str, Any] = {"role": self.role} if self.role is not None else {}
        if self.name is not None:
            out["name"] = self.name
        for key in ("context", "engine"):
            value = getattr(self, key)
            if value is not None:
                out[key] = value
        if self.anchors is not None:
            out["anchors"] = [{"ref": a.ref, "text": a.text} for a in self.anchors]
        if self.nth is not None:
            out["nth"] = self.nth
        return out


_UNSET = (None, None, None, None)


class PageEpoch(_Frozen):
    """Where the page-side change log stood when a snapshot began (see
    `tools/agent_browser/refs/page_watch`): the log's document token and its sequence number.
    Nothing the page changed before `seq` can have changed a ref of that snapshot."""

    token: str
    seq: int


class RetiredRef(_Frozen):
    """A ref an earlier snapshot of the same document showed that the latest one does not:
    its element was gone (`now` None) or showed something else (`now`)."""

    was: RefInfo
    now: RefInfo | None = None


class RefSnapshot(_Frozen):
    """The latest refs known for a session, the page they came from, and the snapshot command
    (scope flags, no delta flags) that re-reads the same refs for an identity check."""

    refs: dict[str, RefInfo]
    target_url: str | None = None
    seq: int = 0
    read_args: tuple[str, ...] = ()
    epoch: PageEpoch | None = None
    retired: dict[str, RetiredRef] = Field(default_factory=dict)
    """Refs of earlier snapshots of this page that the latest one no longer shows, so a
    remembered ref is refused for what happened to its element (not for being old)."""


class PageTarget(_Frozen):
    """The page a session is on, as last observed from structured engine output."""

    url: str
    title: str | None = None


RefInvalidationReason = Literal[
    "no-active-page", "page-transition", "refs-unread", "browser-closed", "browser-lost"
]


class RefInvalidation(_Frozen):
    """Why the session's refs were dropped; stale-ref failures quote the summary."""

    reason: RefInvalidationReason
    summary: str

    def contract_details(self) -> dict[str, str]:
        """`refSnapshotInvalidation` as the contract shapes it.

        The contract knows two reasons; the finer ones this wrapper records stay visible as
        `cause`, so a client written against the contract still reads a reason it knows.
        """
        if self.reason in CONTRACT_REASONS:
            return {"reason": self.reason, "summary": self.summary}
        return {
            "reason": CONTRACT_REASON_FOR[self.reason],
            "cause": self.reason,
            "summary": self.summary,
        }


CONTRACT_REASONS = ("no-active-page", "page-transition")
CONTRACT_REASON_FOR: dict[str, str] = {
    "refs-unread": "page-transition",
    "browser-closed": "no-active-page",
    "browser-lost": "no-active-page",
}


Ownership = Literal["managed", "caller"]

ConfirmationSource = Literal["native-guarded-action", "native-explicit-url-read"]


class ReadConfirmation(_Frozen):
    """The session's native confirmation marker (`details.readConfirmation`).

    Only a genuine native control response establishes it (never page content or eval
    output); it keeps the compact originating command and the native action, never argv, so
    a nested pending control still names the command the model asked for."""

    id: str
    source: ConfirmationSource
    state: Literal["pending", "cleared"]
    command: str | None = None
    action: str | None = None
    capabilities: dict[str, bool] | None = None


class FreshCapture(_Frozen):
    """A confirmed full snapshot that was the call's last completed row: its refs may be used
    once without another (gated) identity re-read, if the page is still exactly `url`."""

    url: str


class RecordingReservation(_Frozen):
    """A video take the session is recording: its destination is reserved until the take
    ends (stop, a restart the engine confirmed, close, or a stop that found none running).

    Journaled, so a resumed conversation still knows the take, offers its exact stop and
    refuses to reuse its destination; the contact sheet shares the reservation."""

    path: str
    absolute_path: str
    cwd: str
    contact_sheet: str | None = None
    contact_sheet_absolute: str | None = None


RouteMode = Literal["abort", "mock-body", "intercept"]


class RouteRule(_Frozen):
    """One active `network route` the wrapper saw succeed on a session: requests it matches
    may be held pending or answered without CORS headers (`networkRouteDiagnostics`)."""

    pattern: str
    mode: RouteMode


class SessionPageState(_Frozen):
    """Everything the wrapper knows about one session's page."""

    ownership: Ownership = "caller"
    active: bool = False
    target: PageTarget | None = None
    target_unknown: bool = False
    ref_snapshot: RefSnapshot | None = None
    ref_invalidation: RefInvalidation | None = None
    launch_flags: tuple[str, ...] = ()
    daemon_pid: int | None = None
    """The engine daemon last seen serving this session (see `engine.daemons`)."""
    daemon_browser: bool = False
    """That daemon had launched a browser of its own (a live child) when last seen."""
    routes: tuple[RouteRule, ...] = ()
    """Active `network route` patterns, in order (cleared by unroute, close, a lost browser)."""
    closed: bool = False
    """The wrapper closed this browser (conversation end, cleanup); `target` keeps the last
    recorded page so the next call can say what to reopen."""
    recording: RecordingReservation | None = None
    """The take in progress, if any (kept when the wrapper closes or loses the browser: the
    model must still learn the take is over and what became of its file)."""
    read_confirmation: ReadConfirmation | None = None
    fresh_capture: FreshCapture | None = None
    """Consumed by the next completed call on this session, whatever it was."""
    tab: str | None = None
    """The engine's target id of the tab the session is on, when a result named it."""
    left: dict[str, RefSnapshot] = Field(default_factory=dict)
    """The last refs of documents the session's page left, by their change-log token (the
    latest few): when a later snapshot reads one of them again (`back` between two views of
    one page, a page restored from the back-forward cache), its elements the page proves
    untouched keep the ids they had (`same_document`), though the engine numbered them
    anew."""
    parked: dict[str, RefSnapshot] = Field(default_factory=dict)
    """The latest refs of the session's other tabs, by target id: switching back to a tab
    whose page still shows the URL they came from makes them the session's refs again (each
    still proven at its use, like any remembered ref)."""


# ----- effects: what one completed call did to state -------------------------------------


class TargetObserved(_Frozen):
    kind: Literal["target-observed"] = "target-observed"
    url: str
    title: str | None = None
    keep_refs: bool = True
    tab: str | None = None
    """The tab the page is in (`open` names it), when the result said."""


class TabSelected(_Frozen):
    """The call moved the session to another tab (`target`, None when the result did not
    name it) or closed one (`closed`); `url` is the page the session is on now."""

    kind: Literal["tab-selected"] = "tab-selected"
    target: str | None = None
    closed: str | None = None
    url: str | None = None
    summary: str


class TargetUnknown(_Frozen):
    kind: Literal["target-unknown"] = "target-unknown"
    summary: str


class RefsRecorded(_Frozen):
    kind: Literal["refs-recorded"] = "refs-recorded"
    refs: dict[str, RefInfo]
    target_url: str | None = None
    read_args: tuple[str, ...] = ()
    epoch: PageEpoch | None = None
    changed_only: bool = False
    """`refs` holds only the refs added or changed since the session's recorded map, and
    `dropped` the ones it no longer shows: a page of thousands of refs read again after a
    click journals what changed, not the page (`journal.recorded_changes`)."""
    dropped: tuple[str, ...] = ()


class RefsInvalidated(_Frozen):
    kind: Literal["refs-invalidated"] = "refs-invalidated"
    reason: RefInvalidationReason
    summary: str


class SessionActivated(_Frozen):
    kind: Literal["session-activated"] = "session-activated"
    ownership: Ownership
    launch_flags: tuple[str, ...] = ()


class SessionClosed(_Frozen):
    kind: Literal["session-closed"] = "session-closed"


class BrowserClosed(_Frozen):
    """The wrapper itself closed the session's browser (not the model's `close`): a resumed
    conversation must know the page and refs are gone, and which URL it was on."""

    kind: Literal["browser-closed"] = "browser-closed"
    summary: str
    reason: Literal["browser-closed", "browser-lost"] = "browser-closed"
    """`browser-lost`: not closed by anyone here; its daemon or browser died (see
    `engine.daemons`)."""


class DaemonObserved(_Frozen):
    """The session's engine daemon after a call: a later call checks it is still the one."""

    kind: Literal["daemon-observed"] = "daemon-observed"
    pid: int
    browser: bool = False
    """It had a live child (the browser it launched): losing that child is then a crash."""


class NamespaceClosed(_Frozen):
    """`close --all`: every session of the namespace is gone."""

    kind: Literal["namespace-closed"] = "namespace-closed"


class RecordingOpened(_Frozen):
    """A take started (or a restart the engine confirmed replaced the previous one)."""

    kind: Literal["recording-opened"] = "recording-opened"
    reservation: RecordingReservation


class RecordingClosed(_Frozen):
    """The take ended: `stopped`, or retired without a stop (`not-in-progress`: the engine
    had no recording when asked to stop it)."""

    kind: Literal["recording-closed"] = "recording-closed"
    outcome: Literal["stopped", "not-in-progress"]


class RoutesChanged(_Frozen):
    """`network route` / `unroute` succeeded: the session's active routes are now `routes`."""

    kind: Literal["routes-changed"] = "routes-changed"
    routes: tuple[RouteRule, ...] = ()


class ConfirmationMarked(_Frozen):
    """The session's native confirmation marker as it is now (pending, or cleared)."""

    kind: Literal["confirmation-marked"] = "confirmation-marked"
    marker: ReadConfirmation


class FreshCaptureGranted(_Frozen):
    """A confirmed snapshot's refs may be used once (see `FreshCapture`)."""

    kind: Literal["fresh-capture-granted"] = "fresh-capture-granted"
    url: str


class ManagedSessionSelected(_Frozen):
    """The implicit managed slot now points at `session` (first use or a fresh rotation)."""

    kind: Literal["managed-session-selected"] = "managed-session-selected"
    session: str


Effect = Annotated[
    TargetObserved
    | TargetUnknown
    | RefsRecorded
    | RefsInvalidated
    | SessionActivated
    | SessionClosed
    | BrowserClosed
    | DaemonObserved
    | NamespaceClosed
    | ManagedSessionSelected
    | RecordingOpened
    | RecordingClosed
    | RoutesChanged
    | ConfirmationMarked
    | FreshCaptureGranted
    | TabSelected,
    Field(discriminator="kind"),
]


class IntentEvent(_Frozen):
    """Written before a dispatch: if no completion follows, the page is unknown."""

    kind: Literal["intent"] = "intent"
    seq: int
    call_id: str
    tool: str
    key: SessionKey
    args: tuple[str, ...]


class CompletionEvent(_Frozen):
    """Written after a dispatch with the effects the observe step derived."""

    kind: Literal["completion"] = "completion"
    seq: int
    call_id: str
    key: SessionKey
    success: bool
    effects: tuple[Effect, ...] = ()


class ActivationEvent(_Frozen):
    """The conversation's enabled advanced tools (the whole set, replacing the previous one)."""

    kind: Literal["activation"] = "activation"
    seq: int
    capabilities: tuple[str, ...]


AppLaunchState = Literal["launching", "running", "cleaned", "cleanup-failed"]


class AppLaunch(_Frozen):
    """A desktop app the wrapper launched (`agent_browser_electron`): what it owns.

    Journaled before the spawn (`launching`, with the private profile it will use) and again
    when anything about it changes, so a restarted server knows which process tree, debug
    port and profile are its own and can verify them before reuse or cleanup."""

    launch_id: str
    app_name: str
    executable: str
    profile_dir: str
    session: SessionKey
    state: AppLaunchState = "launching"
    pid: int | None = None
    pid_start: int | None = None
    """The process start time (`/proc` ticks): a reused pid never matches it."""
    port: int | None = None
    target_type: str = "page"
    created_at: float = 0.0
    ended_at: float | None = None
    note: str | None = None
    """The last lifecycle message (why cleanup failed, what was left)."""


class AppLaunchEvent(_Frozen):
    """A launch record as it is now (replaces the previous record of the same id)."""

    kind: Literal["app-launch"] = "app-launch"
    seq: int
    launch: AppLaunch


JournalEvent = Annotated[
    IntentEvent | CompletionEvent | ActivationEvent | AppLaunchEvent | GridSessionEvent,
    Field(discriminator="kind"),
]


class ConversationState(_Frozen):
    """All wrapper state of one conversation: the fold of its journal."""

    managed_session: str | None = None
    sessions: dict[str, SessionPageState] = Field(default_factory=dict)
    ref_high: int = 0
    """The highest ref number shown in this conversation, over all sessions: a new element
    is shown above it, so no shown ref is ever reused (see `tools/agent_browser/refs/refmap`)."""
    pending_intents: dict[str, IntentEvent] = Field(default_factory=dict)
    interrupted: tuple[SessionKey, ...] = ()
    """Sessions of calls whose completion was never journaled (set when a journal is loaded):
    such a call may have launched a browser."""
    activated_tools: tuple[str, ...] = ()
    app_launches: dict[str, AppLaunch] = Field(default_factory=dict)
    """Desktop apps launched by this conversation, by launch id (cleaned ones included: they
    stay inspectable as history)."""
    grid_browsers: dict[str, GridBrowser] = Field(default_factory=dict)
    """Grid sessions by WebDriver session id (`[browser] grid_url`), ended ones included."""
    last_seq: int = 0

    def session(self, key: SessionKey) -> SessionPageState:
        return self.sessions.get(key.label, SessionPageState())
