"""The types of the command taxonomy: what one table row says about a command or a global flag,
and what a resolved call looks like.

Kept apart from the rows (`commands.py`, `global_flags.py`) and the lookups (`lookup.py`) so
the rows import only these types and the lookups import the rows, with no cycle. Pure: no I/O.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from agent_browser_tools.taxonomy.vocabulary import (
    ArtifactKind,
    ConfirmationRole,
    Diagnostic,
    FieldEdit,
    FlagValue,
    ModelAccess,
    PageEffect,
    PathUse,
    RecordingStep,
    SessionNeed,
    TimeoutFamily,
)

__all__ = [
    "ArtifactSlot",
    "CommandMatch",
    "CommandSpec",
    "FieldValue",
    "FileSlots",
    "GlobalFlag",
    "LocalFlag",
    "RefSlots",
    "looks_like_path",
]


@dataclass(frozen=True, slots=True)
class RefSlots:
    """Where a command resolves page-scoped refs (`@eN`, `eN`, `ref=eN`).

    Only these slots are checked for stale refs: literal text (`fill`'s value), key names,
    mouse data and CSS-only selectors (`get count`, `diff snapshot --selector`) are not refs.
    """

    positions: tuple[int, ...] = ()
    """Operand indexes (after flags are removed) that take a selector or ref."""
    flags: tuple[str, ...] = ()
    """Local flags whose value is resolved as a ref (none in 0.39.4 by contract)."""


@dataclass(frozen=True, slots=True)
class ArtifactSlot:
    """One file a command writes, where its path is requested and where the engine reports it."""

    kind: ArtifactKind
    path_operand: int | None = None
    """Operand index of the requested path; negative counts from the end."""
    path_flag: str | None = None
    """Local flag whose value is the requested path."""
    data_fields: tuple[str, ...] = ("path",)
    """Envelope `data` keys that report the saved path."""
    pending_until: tuple[str, ...] | None = None
    """The file only exists after this command runs (a recording is pending until stop)."""
    leading_selector: bool = False
    """Operands are `[selector] [path]`: a lone operand is the path only if it looks like one
    (the engine's own screenshot rule)."""
    only_with_flag: bool = False
    """Written only when `path_flag` is present (`wait --download [path]`)."""
    also_written: tuple[str, ...] = ()
    """Suffixes the engine may append to the requested path (`state save` encrypts into
    `<path>.enc`): each spelling is judged as a write too. (Reads need no column: every read
    path's `.enc` sibling is judged, since `state load` and `--state` fall back to it.)"""
    unwritten_when: tuple[tuple[str, object], ...] = ()
    """Answer fields and values that, all present together, say the engine wrote no file
    though it may still name one (`diff screenshot` whose images match); any other answer
    is verified on disk as usual (a contradictory one fails closed)."""


@dataclass(frozen=True, slots=True)
class FileSlots:
    """Operands and local flags that name local files or URLs the command reads.

    Written files are the command's `ArtifactSlot`s. Both are confined to the file roots; URL
    operands and flags are checked only when they reach local files (`file:` URLs in any
    spelling).
    """

    reads: tuple[int, ...] = ()
    """Operand indexes that are files the engine reads (`state load <path>`)."""
    reads_from: int | None = None
    """Every operand from this index is a file the engine reads (`upload <sel> <files...>`)."""
    read_flags: tuple[str, ...] = ()
    """Local flags whose value is a file the engine reads (`diff screenshot --baseline`)."""
    urls: tuple[int, ...] = ()
    """Operand indexes that are URLs the browser navigates to (`open <url>`)."""
    at_file_flags: tuple[str, ...] = ()
    """Local flags whose value, when it starts with `@`, names a file the engine reads
    (`webmcp invoke --params @file`)."""
    url_flags: tuple[str, ...] = ()
    """Local flags whose value is a URL the browser navigates to, now or later (`auth save
    --url`, which `auth login` opens)."""
    must_exist: bool = False
    """The operand files must exist: the engine reports success for one that does not
    (`upload` answers `uploaded: 1` and the page gets an empty file)."""


@dataclass(frozen=True, slots=True)
class FieldValue:
    """How a command types into, or reads, the value of a form field.

    Why: a value typed into a password or other credential field must never be echoed, and
    reading such a field back must be redacted; the wrapper reads the target field's
    attributes before dispatch (`tools/agent_browser/safety/secret_fields.py`).
    """

    target: int | None = 0
    """Operand naming the field (a selector or ref); None: the focused element."""
    text: int | None = None
    """Operand typed into the field; None: the command reads the field's value."""
    locator: bool = False
    """`target` starts a `find` locator, judged by its words only (not read from the page)."""
    action: tuple[int, tuple[str, ...]] | None = None
    """Only when this operand is one of these words (`find <locator> <value> fill <text>`)."""
    edit: FieldEdit = FieldEdit.INSERT
    """How the text changes the value: the wrapper plays a key-by-key or inserted password
    forward from the field's value to know what the field will hold."""


@dataclass(frozen=True, slots=True)
class PageScript:
    """Where a command carries caller-written page script, read the way engine 0.39.4 reads it.

    Why: script on a browser's own DevTools origin can drive every browser over CDP, so the
    wrapper puts a guard statement in front of each such script at dispatch
    (`planning/script_guard.py`); it must find the script exactly where the engine does.
    """

    flag: str | None = None
    """The script is the word after this local flag (its short form too): `wait --fn`. None:
    the words after the command, joined by a space, unless the first of them is `base64_flag`
    (the rest is base64 of the script) or the command's `stdin_flag` (stdin is the script)."""
    base64_flag: str | None = None
    polled: bool = False
    """An expression the engine polls until truthy (`!!(expr)`): a thrown error reads as
    not-yet-true, so a guard that throws there ends in a timeout, not in its message."""


@dataclass(frozen=True, slots=True)
class Fulfilment:
    """A route that answers matching requests itself (`network route <pattern> --body X`).

    Why: a fulfilled document takes the origin of the URL it answers, so a body served for
    `http://127.0.0.1:<a browser's DevTools port>/...` runs the page's script on that origin.
    How engine 0.39.4 reads the row: the pattern is the first word after the command, the body
    the word after the first `body_flag`, `abort_flag` anywhere wins over a body, and the word
    after the first of `types_flags` is a comma list of CDP resource types (none: all types).
    """

    body_flag: str = "--body"
    abort_flag: str = "--abort"
    types_flags: tuple[str, ...] = ("--resource-type", "--resource-types")


@dataclass(frozen=True, slots=True)
class LocalFlag:
    """A command-local option (global options live in `GlobalFlag`)."""

    name: str
    short: str | None = None
    value: FlagValue = FlagValue.NONE
    sensitive: bool = False
    """Its value is a secret and must be redacted wherever argv is echoed."""
    since: str | None = None
    """The first supported engine release that has it (None: every supported release)."""
    shadows_global: bool = False
    """Shares its name with a global flag, and after the command word the engine reads it as
    the command's (`wait ... --state visible` on 0.41; before the command it is still the
    global one)."""


@dataclass(frozen=True, slots=True)
class CommandSpec:
    """Everything the wrapper's rules need to know about one upstream command path."""

    path: tuple[str, ...]
    summary: str
    session: SessionNeed = SessionNeed.BROWSER
    ref_slots: RefSlots = RefSlots()
    guards_refs: bool = False
    """`isRefGuardedCommand`: a mutation-prone command whose refs are preflighted for
    staleness, because a recycled ref would silently act on the wrong element."""
    sets_checked: bool | None = None
    """`check` (True) / `uncheck` (False): the box state the command leaves. The engine clicks
    and then clicks again if the node does not show that state, which double-clicks when the
    first click re-sorted the list in place; the wrapper sends a single click instead."""
    produces_refs: bool = False
    """The command's answer is a ref map (a snapshot): refs after it are new, and it records
    the session's latest refs."""
    invalidates_batch_refs: bool = False
    """`isRefInvalidatingBatchCommand`: in a batch, later guarded steps using refs are blocked
    until a `snapshot` step, because this step can swap or re-render the page."""
    latch_exempt_roles: frozenset[str] = frozenset()
    """A step whose refs all have these roles in the latest snapshot does not set the latch
    (same-snapshot form controls: ticking a checkbox does not re-render the form)."""
    latch_min_operands: int = 0
    """The latch applies only with at least this many operands (`record restart <path> <url>`)."""
    retires_refs: bool = False
    """Every dispatched attempt retires the session's refs (`page-transition`) with a
    `Page state:` warning, success or not: recording can swap the page it captures (older
    natives), and a WebMCP call runs page code that can replace what the refs named. Subject
    to `latch_min_operands` like the latch (a plain `record restart` keeps the page)."""
    page_effect: PageEffect = PageEffect.NONE
    navigation_summary: bool = False
    """Probe url/title after success so the model sees where the action landed."""
    failure_probe: bool = False
    """Also probe the url after a failure: a failed transition may still have moved the page."""
    page_change_summary: bool = False
    """`isPageChangeSummaryCommand`: emit a mutation summary even without navigation data."""
    artifacts: tuple[ArtifactSlot, ...] = ()
    timeout_family: TimeoutFamily = TimeoutFamily.DEFAULT
    timeout_flag: str | None = None
    """Local flag carrying a duration in ms that extends the watchdog."""
    duration_operand: int | None = None
    """Operand that is a duration in ms when it is all digits (`wait 2000`)."""
    paired_stop: tuple[str, ...] | None = None
    """The command that ends what this one starts (cleanup guidance)."""
    read_only: bool = False
    """Changes neither the page nor saved state; safe to repeat."""
    daemon_diagnostic: bool = False
    """Reads the daemon's own record (`session info`), not the page: a timeout says nothing
    about the browser or its page, so it leaves their state untouched and the only recovery
    offered is the same read again (`retry-session-info`), never a liveness claim."""
    stdin_flag: str | None = None
    """Stdin is read only when this flag is present (`eval --stdin`, `--password-stdin`)."""
    stdin_without_flag: bool = False
    """Stdin is read without a flag (`batch`)."""
    aliases: tuple[tuple[str, ...], ...] = ()
    min_operands: int = 0
    max_operands: int | None = 0
    """None: variadic."""
    operand_names: tuple[str, ...] = ()
    """The operands as usage spells them (`<selector>`, `[url]`, `<value...>`): the source of
    `min_operands`/`max_operands` (`taxonomy.usage`)."""
    flags: tuple[LocalFlag, ...] = ()
    sensitive_operands: tuple[int, ...] = ()
    """Operands that are secrets (cookie/storage values, credentials, header JSON)."""
    synthetic: bool = False
    """The path is a wrapper name: upstream spells it as the group head plus an operand
    (`tab t2` is `tab select`), so it is reachable only through its group's fallback."""
    cli_available: bool = True
    """False when the skills reference documents it but the 0.39.4 CLI rejects it."""
    wrapper_only: bool = False
    """The wrapper answers it itself and never sends it to the engine (`spill`, which reads a
    saved output back): no engine release documents it, and a batch row may not carry it."""
    access: ModelAccess = ModelAccess.MODEL
    """Whether the model may run it (see `ModelAccess`)."""
    attaches_browser: bool = False
    """Attaches the session to a browser it names (`connect`): the wrapper gets it none of its
    own (a grid browser, `grid_browsers`)."""
    files: FileSlots = FileSlots()
    """Local files and URLs the command reads (written files are `artifacts`)."""
    page_script: PageScript | None = None
    """The command runs caller-written script in the page (`eval`, `wait --fn`): guarded at
    dispatch, since script on a browser's own DevTools origin can drive any browser."""
    fulfils: Fulfilment | None = None
    """It can answer requests with a body of the caller's (`network route --body`)."""
    field_value: FieldValue | None = None
    """It types into or reads a form field's value (credential fields are judged by it)."""
    moves_focus: bool | None = False
    """True: focuses the element of operand 0; None: may move focus anywhere (a `Tab`)."""
    recording: RecordingStep | None = None
    """Its place in a video recording's lifecycle (reservation, restart, stop receipts)."""
    detached_page_work: bool = False
    """Page code it starts can outlive the call (WebMCP invoke/result/cancel): a `pending`
    answer, or a failed settlement while the target is unknown, leaves the page target unknown
    until `get url` observes it; an immediate probe or snapshot is not proof."""
    settles_detached_work: bool = False
    """It settles a detached page call (`webmcp result|cancel <id>`), so it stays allowed while
    the page target is unknown: that is how the unknown state can end."""
    diagnostic: Diagnostic = Diagnostic.NONE
    """The wrapper's own read of the answer (route tracker, eval/get-text/stream hints)."""
    moves_tab: bool = False
    """Moves the session to another tab or window, or closes a tab: the tab it leaves keeps
    its refs for the session's return (`state.tab_refs`)."""
    click_probes: bool = False
    """A standalone direct click: the wrapper checks a DOM event reached its target
    (`clickDispatch`) and, when it stays on the same URL, looks for a covering dialog
    (`overlayBlockers`). Batch, QA and `find` clicks are the engine's own."""
    confirmation: ConfirmationRole | None = None
    """Its part in the `--confirm-actions` handshake (see `ConfirmationRole`)."""
    prose: tuple[str, ...] = ()
    """What its success says, as `str.format` templates over the answer's fields (`Went back
    to {url}.`): the first whose fields are all present wins. Empty: the presenter's shaped
    body, an element action sentence or one line per field (`results/answer_prose.py`); never
    the engine's JSON."""
    since: str | None = None
    """The first supported engine release that has it (None: every supported release)."""

    @property
    def name(self) -> str:
        return " ".join(self.path)

    @property
    def accepts_stdin(self) -> bool:
        return self.stdin_without_flag or self.stdin_flag is not None

    def local_flag(self, token: str) -> LocalFlag | None:
        """The local flag spelled `token` (long or short form), if this command has one."""
        for flag in self.flags:
            if token == flag.name or token == flag.short:
                return flag
        return None


@dataclass(frozen=True, slots=True)
class GlobalFlag:
    """One global option from `agent-browser --help`."""

    name: str
    summary: str
    short: str | None = None
    value: FlagValue = FlagValue.REQUIRED
    launch_scoped: bool = False
    """Applies only when a browser launches; a running managed session ignores it, so the
    wrapper requires a fresh launch (the contract's exact list)."""
    sensitive: bool = False
    session_selecting: bool = False
    """Picks the browser session (`--session`): the caller's choice beats injection."""
    inspection: bool = False
    """Turns the call into plain-text help/version output that must stay sessionless."""
    access: ModelAccess = ModelAccess.MODEL
    """Whether the model may pass it (see `ModelAccess`)."""
    path_use: PathUse | None = None
    """Its value is a local path, confined to the file roots."""
    daemon_setting: bool = False
    """Part of the running daemon's identity (engine 0.39.4): a call on the session without
    it, or with another value, replaces the daemon and its browser (blank page, lost
    confirmations), so once set it is repeated on every call and helper of that session."""
    since: str | None = None
    """The first supported engine release that has it (None: every supported release)."""


@dataclass(frozen=True, slots=True)
class CommandMatch:
    """A resolved command: its spec, the words as written, operands and local flags."""

    spec: CommandSpec
    tokens: tuple[str, ...]
    operands: tuple[str, ...] = ()
    flags: tuple[tuple[str, str | None], ...] = ()
    unknown_flags: tuple[str, ...] = ()
    missing_values: tuple[str, ...] = ()
    """Local flags given without their required value."""

    @property
    def path(self) -> tuple[str, ...]:
        return self.spec.path

    @property
    def well_formed(self) -> bool:
        """Known flags, values present and operand count in range: syntactic shape rules (such
        as 'this local command stays sessionless') only apply to well-formed calls."""
        count = len(self.operands)
        upper = self.spec.max_operands
        return (
            not self.unknown_flags
            and not self.missing_values
            and count >= self.spec.min_operands
            and (upper is None or count <= upper)
        )

    def has_flag(self, name: str) -> bool:
        return any(flag == name for flag, _ in self.flags)

    def flag_value(self, name: str) -> str | None:
        """Value of the last occurrence of local flag `name` (canonical long name)."""
        return next((value for flag, value in reversed(self.flags) if flag == name), None)

    @property
    def runs_page_script(self) -> bool:
        script = self.spec.page_script
        return script is not None and (script.flag is None or self.has_flag(script.flag))

    @property
    def reads_stdin(self) -> bool:
        flag = self.spec.stdin_flag
        return self.spec.stdin_without_flag or (flag is not None and self.has_flag(flag))

    @property
    def retires_refs(self) -> bool:
        """Whether this attempt retires the session's refs (see `CommandSpec.retires_refs`)."""
        spec = self.spec
        return spec.retires_refs and len(self.operands) >= spec.latch_min_operands

    @property
    def sets_batch_latch(self) -> bool:
        """Whether this step sets the batch ref latch, before any role-based exemption."""
        spec = self.spec
        return spec.invalidates_batch_refs and len(self.operands) >= spec.latch_min_operands

    def _lone_operand_is_path(self) -> bool:
        leading = any(slot.leading_selector for slot in self.spec.artifacts)
        return leading and len(self.operands) == 1 and looks_like_path(self.operands[0])

    def ref_values(self) -> tuple[str, ...]:
        """Tokens in ref-resolving slots; callers decide which of them are ref spellings."""
        if self._lone_operand_is_path():
            return ()
        spec, operands = self.spec, self.operands
        values = [
            operands[i]
            for i in spec.ref_slots.positions
            if i < len(operands) and not (i == spec.duration_operand and operands[i].isdigit())
        ]
        for flag, value in self.flags:
            if flag in spec.ref_slots.flags and value is not None:
                values.append(value)
        return tuple(values)

    def artifact_requests(self) -> tuple[tuple[ArtifactSlot, str | None], ...]:
        """Each artifact slot this call can write, with the path the caller asked for (None: the
        engine picks one). Flag-gated slots are left out when their flag is absent."""
        requests: list[tuple[ArtifactSlot, str | None]] = []
        for slot in self.spec.artifacts:
            if slot.only_with_flag and not (slot.path_flag and self.has_flag(slot.path_flag)):
                continue
            path: str | None = None
            if slot.path_flag is not None:
                path = self.flag_value(slot.path_flag)
            elif slot.path_operand is not None:
                if slot.leading_selector and len(self.operands) == 1:
                    path = self.operands[0] if self._lone_operand_is_path() else None
                elif -len(self.operands) <= slot.path_operand < len(self.operands):
                    path = self.operands[slot.path_operand]
            requests.append((slot, path))
        return tuple(requests)

    def requested_duration_ms(self) -> int | None:
        """The explicit duration (ms) the caller asked this command to wait, if any."""
        spec, operands = self.spec, self.operands
        candidates = [self.flag_value(spec.timeout_flag) if spec.timeout_flag else None]
        if spec.duration_operand is not None and spec.duration_operand < len(operands):
            candidates.append(operands[spec.duration_operand])
        durations = [int(text) for text in candidates if text is not None and text.isdigit()]
        return max(durations) if durations else None


_PATH_SUFFIX = re.compile(r"\.(png|jpe?g|webp)$", re.IGNORECASE)


def looks_like_path(token: str) -> bool:
    """The engine's screenshot rule for telling a lone path from a selector, plus the paths it
    misreads: a hidden-dir path such as `.dogfood/run/foo.png` starts like a class selector,
    so the engine ignores it and saves to its temp dir. With an unescaped `/` and an image
    suffix it cannot be a CSS selector, so it is read as the path it is (and made absolute
    before launch, which the engine then reads as a path)."""
    relative = token.startswith(("./", "../"))
    if ambiguous_screenshot_path(token):
        return True
    if not relative and token.startswith((".", "#", "@")):
        return False
    return relative or "/" in token or _PATH_SUFFIX.search(token) is not None


def ambiguous_screenshot_path(token: str) -> bool:
    """A path the engine would take for a selector: `.dir/.../name.png`."""
    return (
        token.startswith(".")
        and not token.startswith(("./", "../"))
        and "/" in token
        and "\\" not in token
        and not any(ch.isspace() for ch in token)
        and _PATH_SUFFIX.search(token) is not None
    )


@dataclass(frozen=True, slots=True)
class GroupDefault:
    """How a group head resolves when no literal subcommand follows it."""

    head: tuple[str, ...]
    bare: tuple[str, ...] | None = None
    """Row used when nothing (or only flags) follows: `cookies` is `cookies get`."""
    operand: tuple[str, ...] | None = None
    """Row used when an operand follows: `tab t2` selects, `storage local k` gets `k`."""
