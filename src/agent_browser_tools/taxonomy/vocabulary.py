"""The vocabulary of the command taxonomy: how a command needs a session, touches the page,
times out, names its artifacts, and how its flags take values.

Split from the specs (`spec.py`; the package re-exports these names) so the specs and the
argv parser read on their own; nothing here depends on anything else in the package.
"""

from __future__ import annotations

from enum import StrEnum


class SessionNeed(StrEnum):
    """Whether the wrapper may inject its implicit `--session`.

    SESSIONLESS commands are local inspection/setup: injecting a session would consume the
    managed-session slot that a later profile, CDP, provider or state launch needs.
    """

    BROWSER = "browser"
    SESSIONLESS = "sessionless"


class PageEffect(StrEnum):
    """What a command can do to the page the session is looking at.

    NAVIGATES: explicit URL navigation. MAY_NAVIGATE: an action that can navigate or replace the
    document (clicks, keys, eval). HISTORY: back/forward/reload and `state load` (same
    tab, a new document or, for a load without site storage, the same one).
    TARGET_SWITCH: another target becomes active; unless a probe observes it the session's tab
    target is unknown (`sessionTabTargetUnknown`) and old refs are retired. CLOSE: session ends.
    """

    NONE = "none"
    NAVIGATES = "navigates"
    MAY_NAVIGATE = "may-navigate"
    HISTORY = "history"
    TARGET_SWITCH = "target-switch"
    CLOSE = "close"


class TimeoutFamily(StrEnum):
    """Which watchdog budget applies, so legitimate long waits are not killed by the default.

    WAIT (`wait <ms>`, `--timeout`) and WEBMCP (`invoke|result --timeout`) derive the budget from
    the requested duration; DIALOG uses the short dialog budget so a blocked page fails fast;
    LONG_RUNNING (servers, recorders, installers) passes through thinly but stays bounded.
    """

    DEFAULT = "default"
    WAIT = "wait"
    WEBMCP = "webmcp"
    DIALOG = "dialog"
    LONG_RUNNING = "long-running"


class ArtifactKind(StrEnum):
    IMAGE = "image"
    PDF = "pdf"
    DOWNLOAD = "download"
    TRACE = "trace"
    PROFILE = "profile"
    HAR = "har"
    VIDEO = "video"
    CONTACT_SHEET = "contact-sheet"
    DIFF_IMAGE = "diff-image"
    STATE = "state"


class FieldEdit(StrEnum):
    """How a command's text changes a form field's value (`FieldValue.edit`).

    FILL: the text replaces the value (`fill`). INSERT: the text is typed at the caret, so the
    field ends up holding more than the text (`type`, `keyboard type`). KEY: the operand is a
    key name whose effect depends on the key (`press a`, `press Backspace`).
    """

    FILL = "fill"
    INSERT = "insert"
    KEY = "key"


class RecordingStep(StrEnum):
    """What a command does to the session's video recording (its reservation, see
    `tools/agent_browser/files/recording`).

    OPENS: starts a take (`record start`). REOPENS: finalizes the current take and starts a new
    one (`record restart`). FINALIZES: ends the take and writes its file (`record stop`).
    """

    OPENS = "opens"
    REOPENS = "reopens"
    FINALIZES = "finalizes"


class FlagValue(StrEnum):
    """How a flag consumes the token after it.

    REQUIRED always takes the next token, whatever it looks like; OPTIONAL_BOOL takes a
    following literal `true`/`false` only (last occurrence wins); OPTIONAL takes the next token
    when it is not flag-like (`--restore [name]`, `wait --download [path]`).
    """

    NONE = "none"
    REQUIRED = "required"
    OPTIONAL_BOOL = "optional-bool"
    OPTIONAL = "optional"


class ModelAccess(StrEnum):
    """Who may ask for a command or a global flag: the security model's one list.

    The model reads untrusted pages, so a page can make it ask for anything it may ask for.
    MODEL: the model may use it. OPERATOR: it decides how browsers launch or reaches the host,
    the user's own browsers or another network path (executable, browser args, CDP, profiles,
    proxies, installers, servers); only operator config may use it unless the operator allows
    the flag or command by name. SHARED_STORE: it reads or changes the engine's per-user store
    that every conversation of a shared server sees (saved states, the auth vault); refused
    while conversations are isolated from each other.
    """

    MODEL = "model"
    OPERATOR = "operator"
    SHARED_STORE = "shared-store"


class PathUse(StrEnum):
    """How a flag's value or an operand names a local path (confined to the file roots)."""

    READ_FILE = "read-file"
    WRITE_FILE = "write-file"
    WRITE_DIR = "write-dir"


class Diagnostic(StrEnum):
    """The wrapper's own read of a command's answer (`tools/agent_browser/command_followups`).

    A column and not a list of command names, so an alias or an engine upgrade keeps the rule.
    """

    NONE = "none"
    ROUTE_ADD = "route-add"
    """`network route`: the session's route tracker gains a pattern."""
    ROUTE_REMOVE = "route-remove"
    """`network unroute`: a pattern (or, without one, every pattern) leaves the tracker."""
    REQUEST_LIST = "request-list"
    """`network requests`: rows an active route may hold or break get diagnosed."""
    SCRIPT_RESULT = "script-result"
    """`eval`: a function-shaped snippet answering `{}` gets `evalStdinHint`."""
    SELECTOR_TEXT = "selector-text"
    """`get text`: a CSS selector whose first match is hidden gets `selectorTextVisibility`."""
    IDEMPOTENT_START = "idempotent-start"
    """`stream enable`: "already enabled" is the requested state, an idempotent success."""
    SAVED_STATE = "saved-state"
    """`state load`: a file encrypted with another key gets `stateKeyHint` (whose it is)."""


class ConfirmationRole(StrEnum):
    """How a command takes part in the engine's `--confirm-actions` handshake.

    APPROVE / DENY decide the session's one pending native action (`confirm` / `deny`); their
    answer wraps the approved action's own response, which may fail or ask again. URL_READ: an
    explicit-URL `read` whose pending control is `native-explicit-url-read` provenance.
    OPENS_TAB: `tab new`, whose genuine control may pair `after_confirmation: ["open", url]`
    with `guidance` (shown, never run).
    """

    APPROVE = "approve"
    DENY = "deny"
    URL_READ = "url-read"
    OPENS_TAB = "opens-tab"
