"""Result classifiers: map a finished call to its contract category (pure, no I/O).

`classify_failure` walks the contract's single ordered chain; the first matching step wins.
Each step is a small named predicate whose docstring says why it sits where it does, so a
reordering shows up as a docstring that no longer makes sense. Text predicates match the
engine's own phrasing (captured from engine 0.39.4 in `tests/fixtures/engine_errors-0.39.4.json`)
and the wrapper's own messages; they deliberately avoid bare words such as "timeout", "denied"
or "not found" because accessible names, URLs and file paths routinely contain them.

`getter_hint` builds the unknown-command getter hint (`title` -> `get title`, ...).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from agent_browser_tools import taxonomy
from agent_browser_tools.results.categories import FailureCategory, SuccessCategory
from agent_browser_tools.results.next_actions import NextAction, getter_action

__all__ = [
    "FAILURE_CHAIN_ORDER",
    "GETTER_TOKENS",
    "HINT_HEADER",
    "GetterHint",
    "classify_failure",
    "classify_success",
    "getter_hint",
]

_I = re.IGNORECASE

# --- evidence ---------------------------------------------------------------------------


@dataclass(frozen=True)
class _Evidence:
    """Everything a chain step may look at: the error text, the command and wrapper flags."""

    text: str
    tokens: tuple[str, ...]  # command tokens with global flags removed
    confirmation_required: bool
    validation_error: bool
    timed_out: bool
    missing_binary: bool
    parse_failure: bool
    aborted: bool

    @property
    def primary(self) -> str:
        """The command word (`click`, `find`, ...), lower-cased; empty when unknown."""
        return self.tokens[0].lower() if self.tokens else ""


def _command_tokens(command: Sequence[str]) -> tuple[str, ...]:
    """Drop global flags (`--session s`, `--json`, ...) so the command word comes first."""
    if not command:
        return ()
    _globals, rest = taxonomy.split_global_flags(command)
    return tuple(rest)


def _search(pattern: re.Pattern[str], text: str) -> bool:
    return pattern.search(text) is not None


# --- patterns ---------------------------------------------------------------------------

_TAB_GONE = re.compile(r"\btab_gone:")

# Upstream locator misses carry this fixed advice suffix on every miss shape (CSS, text,
# label, role, nth) since 0.32.4; the heads below pin it to a miss rather than free prose.
_LOCATOR_SUFFIX = re.compile(r"\bVerify the selector, role, or name\b", _I)
_LOCATOR_HEAD = re.compile(r"\b(?:Element not found:|No element found\b|No element at index\b)", _I)
_GET_BY_MISS = re.compile(r"\bNo element found:\s*getBy[A-Za-z]+\(", _I)
_NAMES_SEEN = re.compile(r"\bNames seen:", _I)
_ROLE_NAME_MISS = re.compile(
    r"\bnone match name\b|\belements? (?:has|have) role\b|\bgetByRole\(", _I
)

_CONFIRMATION_TEXT = re.compile(
    r"\bconfirmation[ _]required\b|\brequires confirmation\b|\bawaiting confirmation\b"
    r"|(?<!\bno )\bpending confirmation\b",
    _I,
)
_TIMEOUT_TEXT = re.compile(
    r"\btimed\s+out\b|\btimeout (?:exceeded|expired|elapsed)\b|\bdeadline (?:expired|exceeded)\b"
    r"|\bdid not finish within \d+\s*ms\b",
    _I,
)
_MISSING_BINARY_TEXT = re.compile(
    r"\b(?:engine|agent-browser) (?:binary|executable)\b[^\n]*"
    r"\b(?:not found|missing|could not be (?:found|executed)|is not installed)\b"
    r"|\bagent-browser\b[^\n]*\bnot found on PATH\b"
    r"|\bFileNotFoundError\b[^\n]*\bagent-browser",
    _I,
)
_PARSE_FAILURE_TEXT = re.compile(r"\bcould not parse agent-browser output\b", _I)
_ABORTED_TEXT = re.compile(
    r"\b(?:aborted|cancell?ed)\b(?: [a-z]+)? by (?:the )?(?:caller|host|client|signal)\b"
    r"|\b(?:tool call|call|command|run) (?:was )?(?:aborted|cancell?ed)\b",
    _I,
)
_POLICY_TEXT = re.compile(
    r"\bdenied by (?:the )?(?:action )?policy\b|\bdefault policy is deny\b"
    r"|\bpolicy[- ]blocked\b|\bblocked by (?:the )?(?:caller|wrapper|prompt) (?:policy|guard)\b"
    r"|\bnot in the allowed domains list\b",
    _I,
)
_CLEANUP_TEXT = re.compile(
    r"\bcleanup (?:failed|was partial|(?:is )?incomplete)\b|\bpartial cleanup\b"
    r"|\bfailed to clean ?up\b|\bremaining (?:processes|resources)\b",
    _I,
)
_TAB_DRIFT_TEXT = re.compile(
    r"\btab[- ]drift\b|\bre-?select the intended tab\b|\b(?:selected|active) tab looks wrong\b"
    r"|\blanded on about:blank\b|\bunexpected(?:ly)? about:blank\b"
    r"|\b(?:page|app|process) target (?:was )?lost\b",
    _I,
)
_STALE_REF_TEXT = re.compile(
    r"\bunknown ref\b|\bstale (?:@?ref|reference)\b|\bref(?:erence)? (?:is |may be )?stale\b"
    r"|@e\d+ (?:is |may be )?stale\b",
    _I,
)
_REF_IN_TEXT = re.compile(r"(?:@|\bref=)e\d+\b")
_REF_TOKEN = re.compile(r"(?:@|ref=)e\d+")
_ELEMENT_MISS = re.compile(r"\belement not found\b|\bcould not locate element\b|\bno element\b", _I)
_UNSUPPORTED_SELECTOR = re.compile(
    r"\b(?:invalid|unsupported|unknown) (?:css )?(?:selector|locator)\b"
    r"|\bis not a valid selector\b|\bfailed to parse (?:selector|locator)\b"
    r"|\bselector (?:syntax|dialect) (?:is )?(?:not supported|unsupported)\b",
    _I,
)
# Playwright-only selector spellings that the engine's CSS/XPath resolver does not speak.
_PLAYWRIGHT_DIALECT = re.compile(
    r"(?:^|[\s'\"(:])text=|:has-text\(|\bgetBy(?:Role|Text|Label)\b|\s>>\s|\binternal:", _I
)
_SELECTOR_MISS = re.compile(
    r"\b(?:could not|unable to|failed to) (?:find|locate)\b[^\n]*\b(?:selector|locator|element)\b"
    r"|\b(?:selector|locator)\b[^\n]*\b(?:not found|matched no|did not match|no match)\b"
    r"|\bno elements? (?:found|matched?)\b|\belement not found\b|\bcould not locate element\b",
    _I,
)
_DOWNLOAD_WORD = re.compile(r"\bdownload", _I)
_DOWNLOAD_FAILURE = re.compile(
    r"\bfail(?:ed|ure|s)?\b|\bnot (?:verified|saved|completed?|found)\b|\bno download\b"
    r"|\b(?:was|were) (?:cancell?ed|interrupted)\b|\bdid not (?:start|complete|finish)\b"
    r"|\b(?:file|download) (?:is )?missing\b",
    _I,
)


# --- the chain, in contract order ---------------------------------------------------------


def _confirmation_flag(ev: _Evidence) -> bool:
    """First: the envelope said `confirmation_required`, a fact no text can outrank."""
    return ev.confirmation_required


def _tab_gone(ev: _Evidence) -> bool:
    """Before all text: a gone pinned tab's `lastUrl` could otherwise match later heuristics."""
    return _search(_TAB_GONE, ev.text)


def _locator_detail_miss(ev: _Evidence) -> bool:
    """Before confirmation/timeout text: `Names seen:` lists page names, which may say anything."""
    if _search(_LOCATOR_SUFFIX, ev.text) and _search(_LOCATOR_HEAD, ev.text):
        return True
    if _search(_GET_BY_MISS, ev.text):
        return True
    return _search(_NAMES_SEEN, ev.text) and (
        ev.primary == "find" or _search(_ROLE_NAME_MISS, ev.text)
    )


def _confirmation_text(ev: _Evidence) -> bool:
    """After locator misses: only then is a confirmation phrase the engine's, not a page name."""
    return _search(_CONFIRMATION_TEXT, ev.text)


def _timeout(ev: _Evidence) -> bool:
    """Ahead of process/artifact steps: a timed-out call needs timeout recovery, not a retry."""
    return ev.timed_out or _search(_TIMEOUT_TEXT, ev.text)


def _missing_binary(ev: _Evidence) -> bool:
    """Process-level: nothing ran, so no later (browser-derived) category can apply."""
    return ev.missing_binary or _search(_MISSING_BINARY_TEXT, ev.text)


def _parse_failure(ev: _Evidence) -> bool:
    """Process-level: unparseable output hides the real outcome, so text below is unreliable."""
    return ev.parse_failure or _search(_PARSE_FAILURE_TEXT, ev.text)


def _aborted(ev: _Evidence) -> bool:
    """Caller cancellation outranks whatever partial error the interrupted call produced."""
    return ev.aborted or _search(_ABORTED_TEXT, ev.text)


def _policy_blocked(ev: _Evidence) -> bool:
    """A deliberate refusal (engine policy, allowlist, prompt guard) is not a page problem."""
    return _search(_POLICY_TEXT, ev.text)


def _cleanup_failed(ev: _Evidence) -> bool:
    """Cleanup failures leave resources behind; say so before generic page-level buckets."""
    return _search(_CLEANUP_TEXT, ev.text)


def _validation_flag(ev: _Evidence) -> bool:
    """Wrapper-side rejection, after the stronger process/policy facts above."""
    return ev.validation_error


def _tab_drift(ev: _Evidence) -> bool:
    """Wrong/lost tab beats element-level misses: refs and selectors were read off another page."""
    return _search(_TAB_DRIFT_TEXT, ev.text)


def _stale_ref(ev: _Evidence) -> bool:
    """Before selector steps: a ref miss needs a fresh snapshot, not a different selector."""
    if _search(_STALE_REF_TEXT, ev.text):
        return True
    mentions_ref = _search(_REF_IN_TEXT, ev.text) or any(
        _REF_TOKEN.fullmatch(token) for token in ev.tokens[1:]
    )
    return mentions_ref and _search(_ELEMENT_MISS, ev.text)


def _selector_unsupported(ev: _Evidence) -> bool:
    """Before generic misses: a dialect the engine cannot parse never matches, so say why."""
    if _search(_UNSUPPORTED_SELECTOR, ev.text):
        return True
    return _search(_PLAYWRIGHT_DIALECT, ev.text) and _search(_SELECTOR_MISS, ev.text)


def _selector_not_found(ev: _Evidence) -> bool:
    """Remaining miss shapes, once refs and unsupported dialects have been ruled out."""
    return _search(_SELECTOR_MISS, ev.text)


def _is_download_command(ev: _Evidence) -> bool:
    return ev.primary == "download" or (
        ev.primary == "wait" and any(t in ("--download", "-d") for t in ev.tokens[1:])
    )


def _download_not_verified(ev: _Evidence) -> bool:
    """Last specific step: download failures that were not timeouts, selectors or policy."""
    about_download = _is_download_command(ev) or _search(_DOWNLOAD_WORD, ev.text)
    return about_download and _search(_DOWNLOAD_FAILURE, ev.text)


_Step = tuple[Callable[[_Evidence], bool], FailureCategory]

_CHAIN: tuple[_Step, ...] = (
    (_confirmation_flag, FailureCategory.CONFIRMATION_REQUIRED),
    (_tab_gone, FailureCategory.TAB_GONE),
    (_locator_detail_miss, FailureCategory.SELECTOR_NOT_FOUND),
    (_confirmation_text, FailureCategory.CONFIRMATION_REQUIRED),
    (_timeout, FailureCategory.TIMEOUT),
    (_missing_binary, FailureCategory.MISSING_BINARY),
    (_parse_failure, FailureCategory.PARSE_FAILURE),
    (_aborted, FailureCategory.ABORTED),
    (_policy_blocked, FailureCategory.POLICY_BLOCKED),
    (_cleanup_failed, FailureCategory.CLEANUP_FAILED),
    (_validation_flag, FailureCategory.VALIDATION_ERROR),
    (_tab_drift, FailureCategory.TAB_DRIFT),
    (_stale_ref, FailureCategory.STALE_REF),
    (_selector_unsupported, FailureCategory.SELECTOR_UNSUPPORTED),
    (_selector_not_found, FailureCategory.SELECTOR_NOT_FOUND),
    (_download_not_verified, FailureCategory.DOWNLOAD_NOT_VERIFIED),
)

#: The categories in the order the chain tries them (after `explicit`, before the default).
FAILURE_CHAIN_ORDER: tuple[FailureCategory, ...] = tuple(category for _, category in _CHAIN)


def classify_failure(
    error_text: str,
    *,
    command: tuple[str, ...] = (),
    explicit: FailureCategory | None = None,
    confirmation_required: bool = False,
    validation_error: bool = False,
    timed_out: bool = False,
    missing_binary: bool = False,
    parse_failure: bool = False,
    aborted: bool = False,
) -> FailureCategory:
    """The failed call's category: `explicit` if given, else the first matching chain step.

    `command` is the invoked argv (global flags may be included); `error_text` should combine
    the upstream error with any stderr/validation text. Falls back to `upstream-error`.
    """
    if explicit is not None:
        return explicit
    evidence = _Evidence(
        text=error_text,
        tokens=_command_tokens(command),
        confirmation_required=confirmation_required,
        validation_error=validation_error,
        timed_out=timed_out,
        missing_binary=missing_binary,
        parse_failure=parse_failure,
        aborted=aborted,
    )
    for predicate, category in _CHAIN:
        if predicate(evidence):
            return category
    return FailureCategory.UPSTREAM_ERROR


# --- success ---------------------------------------------------------------------------


def classify_success(
    *,
    inspection: bool,
    pending_artifacts: int,
    unverified_artifacts: int,
    saved_file: bool,
    artifact_count: int,
) -> SuccessCategory:
    """The successful call's category, strongest caveat first.

    Call after artifact verification: `unverified_artifacts` counts non-pending artifacts
    without confirmed on-disk presence that were not already failed as `artifact-missing`.
    """
    if inspection:
        return SuccessCategory.INSPECTION
    if pending_artifacts > 0:
        return SuccessCategory.ARTIFACT_PENDING
    if unverified_artifacts > 0:
        return SuccessCategory.ARTIFACT_UNVERIFIED
    if saved_file or artifact_count > 0:
        return SuccessCategory.ARTIFACT_SAVED
    return SuccessCategory.COMPLETED


# --- unknown-command getter hints ---------------------------------------------------------

#: Header that selector recovery also uses; a second stacked header would confuse readers.
HINT_HEADER = "Agent-browser hint:"

#: Bare getter words an agent types instead of `get <word>`, with the correct spelling.
GETTER_TOKENS: dict[str, str] = {
    "attr": "get attr <selector> <name>",
    "count": "get count <selector>",
    "html": "get html <selector>",
    "text": "get text <selector>",
    "title": "get title",
    "url": "get url",
    "value": "get value <selector>",
}

_UNKNOWN_COMMAND = re.compile(r"unknown command|unknown subcommand|unrecognized command", _I)
_GETTER_ACTION_IDS = {"title": "use-get-title", "url": "use-get-url"}


@dataclass(frozen=True)
class GetterHint:
    """Visible hint lines plus, for operand-free getters, one exact follow-up call."""

    lines: tuple[str, ...]
    action_id: str | None = None
    action_args: tuple[str, ...] | None = None

    @property
    def text(self) -> str:
        return "\n".join(self.lines)

    def next_action(self) -> NextAction | None:
        """The executable `use-get-title` / `use-get-url` action, when there is one."""
        if self.action_id is None or self.action_args is None:
            return None
        return getter_action(self.action_id, self.action_args)


def getter_hint(
    error_text: str, command: tuple[str, ...], session: str | None
) -> GetterHint | None:
    """Hint for `title`/`url`/`text`/... typed without `get`; None when it does not apply.

    `error_text` must already be redacted for the model. `session` is the named session the
    failed call targeted (None for the implicit one); it prefixes the follow-up args.
    """
    if HINT_HEADER.lower() in error_text.lower() or not _search(_UNKNOWN_COMMAND, error_text):
        return None
    tokens = _command_tokens(command)
    word = tokens[0].lower() if tokens else ""
    if word not in GETTER_TOKENS:
        return None
    lines = (
        f"{HINT_HEADER} page getters are subcommands of `get` "
        "(get text|html|value|attr|count|title|url).",
        f"Use `{GETTER_TOKENS[word]}` instead of `{word}`.",
    )
    action_id = _GETTER_ACTION_IDS.get(word)
    if action_id is None:
        return GetterHint(lines=lines)
    prefix = ("--session", session) if session else ()
    return GetterHint(lines=lines, action_id=action_id, action_args=(*prefix, "get", word))
