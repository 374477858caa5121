"""A guard in front of every caller-written page script, added at dispatch (pure).

Why: Chromium accepts a DevTools WebSocket from a page whose origin is its own DevTools server,
so script running on `http://127.0.0.1:<a browser's port>/` drives any browser: every
conversation's on a shared server. A page can get there on its own after the wrapper looked
(a redirect inside a batch, a timer), so a check before the call is not enough. Instead every
script the model wrote (`eval` in its three forms, `wait --fn`, in direct calls and in batch
rows, where the taxonomy's `page_script` column says) starts with a statement that throws when
the realm it runs in (main frame or a frame) is on this machine, on a port that no ordinary
server held when the call was sent: browsers' and engine daemons' ports, and any port that
opened since (a browser this very call launched). The check and the script are one
evaluation, so nothing can move the page between them.

The statement, `let{}=(...)();`, binds no name and has no completion value, so the script's
result is exactly what it was; it sits on the script's first line (line numbers in errors do
not move) after a `"use strict"` prologue (strictness is kept). `wait --fn` gets the same
check as an expression in front of the condition.
"""

from __future__ import annotations

import base64
import binascii
import json
import re
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

from agent_browser_tools.planning.grid_endpoints import GridEndpoints
from agent_browser_tools.planning.local_origins import local_port
from agent_browser_tools.taxonomy import (
    CommandMatch,
    PageScript,
    join_batch_row,
    resolve_command,
    split_global_flags,
)

if TYPE_CHECKING:  # the envelope module loads the process runner; input checks must not
    from agent_browser_tools.engine.envelope import BatchRow, Envelope

RULE = "browser-endpoint"
_LOCAL_HOST = (
    r"/^(localhost|.*\.localhost|127(\.\d+){3}|0\.0\.0\.0|\[::1?\]"
    r"|\[::(ffff:)?(7f[0-9a-f]{2}:[0-9a-f]{1,4}|0:0)\])\.*$/"
)
_SPACE = r"(?:\s|//[^\n]*|/\*[\s\S]*?\*/)*"
_DIRECTIVE = re.compile(
    _SPACE + r"""('(?:[^'\\\n]|\\.)*'|"(?:[^"\\\n]|\\.)*")[ \t]*(;|(?=\n|$|//|/\*))"""
)
_STRICT = ("'use strict'", '"use strict"')


@dataclass
class ScriptGuard:
    """The guard for one call: `ordinary` are the ports other servers held when it was sent."""

    ordinary: frozenset[int]
    nonce: str
    grid_hosts: frozenset[str] = frozenset()
    """`host:port` of the operator's Selenium Grid origins off this machine (`grid_endpoints`;
    a grid on this machine is kept out of `ordinary` instead)."""
    sent: dict[str, str] = field(default_factory=dict)
    """Guarded word -> the caller's word, so the engine's echo of a batch row shows the
    caller's own script."""

    @property
    def mark(self) -> str:
        return f"[abt:{self.nonce}]"

    def _check(self) -> str:
        ports = ",".join(str(port) for port in sorted(self.ordinary))
        message = json.dumps(f"policy-blocked ({RULE}) {self.mark} ")
        grid = ""
        if self.grid_hosts:
            hosts = json.dumps(sorted(self.grid_hosts))
            grid = (
                f"||{hosts}.includes(l.hostname.toLowerCase().replace(/\\.+$/,'')+':'+"
                "(l.port||(/^(https|wss):$/.test(l.protocol)?443:80)))"
            )
        return (
            "(()=>{const l=location;"
            f"if({_LOCAL_HOST}.test(l.hostname)&&![{ports}].includes("
            f"+(l.port||(/^(https|wss):$/.test(l.protocol)?443:80))){grid})"
            f"throw new Error({message}+l.origin);return 0}})()"
        )

    def script(self, text: str) -> str:
        """`text` with the guard statement first (after a hashbang line and a `"use strict"`
        prologue), on the same line."""
        at, glue = _insert_at(text)
        return f"{text[:at]}{glue}let{{}}={self._check()};{text[at:]}"

    def condition(self, text: str) -> str:
        """A `wait --fn` expression with the guard evaluated first (the engine wraps it in
        `!!(...)`)."""
        return f"{self._check()},({text})"

    def row(self, row: Sequence[str]) -> tuple[str, ...] | None:
        """One argv row with its page script guarded, or None when it carries none (or only
        through stdin: see `stdin_script`)."""
        globals_, command = split_global_flags(row)
        match = resolve_command(command) if command else None
        script = match.spec.page_script if match is not None else None
        if match is None or script is None:
            return None
        head, rest = command[: len(match.tokens)], list(command[len(match.tokens) :])
        guarded = self._flag_rest(match, script, rest) if script.flag else self._rest(match, rest)
        if guarded is None or guarded == rest:
            return None
        return (*_render(globals_), *head, *guarded)

    def stdin_script(self, row: Sequence[str], stdin: str | None) -> str | None:
        """The stdin to send when `row` reads its script from stdin (`eval --stdin`)."""
        match = _command(row)
        if match is None or stdin is None or match.spec.page_script is None:
            return stdin
        rest = split_global_flags(row)[1][len(match.tokens) :]
        flag = match.spec.local_flag(rest[0]) if rest else None
        if flag is None or flag.name != match.spec.stdin_flag:
            return stdin
        return self._note([self.script(stdin)], stdin)[0]

    def _rest(self, match: CommandMatch, rest: list[str]) -> list[str] | None:
        """The words after `eval`: the script, base64 of it, or the stdin flag."""
        if not rest:
            return None  # the engine refuses an empty script; nothing would run
        flag = match.spec.local_flag(rest[0])
        if flag is not None and flag.name == match.spec.stdin_flag:
            return None
        script = match.spec.page_script
        if flag is not None and script is not None and flag.name == script.base64_flag:
            decoded = decode_script(" ".join(rest[1:]))
            if decoded is None:
                raise ValueError("eval base64 was not checked before dispatch")
            encoded = base64.b64encode(self.script(decoded).encode()).decode()
            return self._note([rest[0], encoded], " ".join(rest[1:]))
        return self._note([self.script(" ".join(rest))], " ".join(rest))

    def _flag_rest(self, match: CommandMatch, script: PageScript, rest: list[str]) -> list[str]:
        """Every word after the script flag (the engine takes the first; all are guarded)."""
        flags = [_is(match, word, script.flag) for word in rest]
        out = list(rest)
        for index, is_flag in enumerate(flags[:-1]):
            if is_flag:
                out[index + 1] = self.condition(rest[index + 1])
                self.sent[out[index + 1]] = rest[index + 1]
        return out

    def _note(self, words: list[str], original: str) -> list[str]:
        self.sent[words[-1]] = original
        return words

    def settle(self, envelope: Envelope) -> Envelope:
        """The engine's answer with the caller's scripts in batch echoes and a guard refusal
        (found by this call's mark, which no page can know) as a `policy-blocked` error."""
        errors = [envelope.error, *(row.error for row in envelope.rows or ())]
        errors += [envelope.text, envelope.stderr]  # native text output (`--json false`)
        origin = next((o for e in errors if (o := self.refused_origin(e)) is not None), None)
        rows = envelope.rows
        if rows is not None:
            rows = tuple(self._settle_row(row) for row in rows)
        extra = dict(envelope.extra)
        if origin is not None:
            extra["policy"] = {"rule": RULE, "subject": origin, "allowWith": None}
        return replace(
            envelope,
            rows=rows,
            error=self._settle_error(envelope.error),
            text=self._settle_text(envelope.text),
            stderr=self._settle_text(envelope.stderr) or "",
            extra=extra,
        )

    def _settle_text(self, text: str | None) -> str | None:
        """Native text: the caller's scripts where the engine echoed the guarded ones, and a
        refusal without this call's mark."""
        if not text:
            return text
        for sent, original in self.sent.items():
            text = text.replace(sent, original)
        return text.replace(f"{self.mark} ", "")

    def _settle_row(self, row: BatchRow) -> BatchRow:
        command = tuple(self.sent.get(word, word) for word in row.command)
        return replace(row, command=command, error=self._settle_error(row.error))

    def refused_origin(self, error: str | None) -> str | None:
        """The page origin a guard refusal names, if `error` is one of this call's."""
        if not error or self.mark not in error:
            return None
        tail = error.split(self.mark, 1)[1].strip()
        return tail.split()[0] if tail else ""

    def _settle_error(self, error: str | None) -> str | None:
        origin = self.refused_origin(error)
        return error if origin is None else refusal_message(origin)


def refusal_message(origin: str) -> str:
    """What the model reads when the guard stopped its script."""
    return (
        f"policy-blocked ({RULE}): the page is on {origin}, a browser's own DevTools or stream "
        "endpoint (or a port that opened during this call); script there could drive browsers "
        "over CDP, so it did not run. Open another page first (browsers stay off these ports)."
    )


def decode_script(text: str) -> str | None:
    """Base64 text as the engine decodes an `eval -b` script (standard alphabet, padded,
    UTF-8), or None where the engine would refuse it."""
    try:
        return base64.b64decode(text, validate=True).decode("utf-8")
    except (binascii.Error, UnicodeDecodeError, ValueError):
        return None


def _insert_at(text: str) -> tuple[int, str]:
    """Where the guard goes, and the `;` it needs there: after a hashbang line and after the
    directive prologue when that holds `"use strict"`, else at the very start."""
    if text.startswith("#!"):
        if "\n" not in text:
            return len(text), "\n"  # a hashbang line and nothing else
        start = text.index("\n") + 1
    else:
        start = 0
    hits: list[re.Match[str]] = []
    while (hit := _DIRECTIVE.match(text, hits[-1].end() if hits else start)) is not None:
        hits.append(hit)
    if not any(hit.group(1) in _STRICT for hit in hits):
        return start, ""
    return hits[-1].end(), "" if hits[-1].group(2) == ";" else ";"


def script_problem(row: Sequence[str], where: str, *, in_batch: bool) -> str | None:
    """Why a page-script command cannot be guarded as written, else None: a batch row that
    reads its script from stdin (the batch's stdin is its rows), or base64 the engine would
    refuse too."""
    match = _command(row)
    script = match.spec.page_script if match is not None else None
    if match is None or script is None or script.flag is not None:
        return None
    rest = split_global_flags(row)[1][len(match.tokens) :]
    flag = match.spec.local_flag(rest[0]) if rest else None
    name = " ".join(match.spec.path)
    if flag is not None and flag.name == match.spec.stdin_flag and in_batch:
        return (
            f"{where}{name} {rest[0]} cannot read stdin inside a batch (the batch's stdin is its "
            f'rows); give the script as the row\'s operand: ["{name}", "document.title"].'
        )
    base64_flag = flag is not None and flag.name == script.base64_flag
    if base64_flag and decode_script(" ".join(rest[1:])) is None:
        return (
            f"{where}{name} {rest[0]} takes one word of standard, padded base64 of UTF-8 "
            f"script text; fix the encoding, or send the script as it is: "
            f'{{"args": ["{name}", "--stdin"], "stdin": "document.title"}}.'
        )
    return None


def _is(match: CommandMatch, word: str, name: str | None) -> bool:
    flag = match.spec.local_flag(word)
    return flag is not None and flag.name == name


def _command(row: Sequence[str]) -> CommandMatch | None:
    command = split_global_flags(row)[1]
    return resolve_command(command) if command else None


def _render(globals_: Sequence[tuple[str, str | None]]) -> list[str]:
    out: list[str] = []
    for name, value in globals_:
        out.append(name)
        if value is not None:
            out.append(value)
    return out


def guard_batch_word(guard: ScriptGuard, word: str, words: Sequence[str]) -> str:
    """An argument-row string (`batch "eval ..."`) with its script guarded, quoted so the
    engine splits it back into the guarded words."""
    guarded = guard.row(words)
    return word if guarded is None else join_batch_row(guarded)


SOURCE_FIELDS = ("finalUrl", "origin")
"""Answer fields that say where the content came from: `read` (its HTTP fetch follows
redirects), and page reads (`get text`, `snapshot`, `eval`) name the page they read."""


def endpoint_sources(envelope: Envelope) -> list[str]:
    """Local URLs the answer's content came from (candidates for `withhold`)."""
    return [url for url in content_sources(envelope) if local_port(url) is not None]


def content_sources(envelope: Envelope) -> list[str]:
    """Every URL the answer's content came from."""
    results = [envelope.data, *(row.result for row in envelope.rows or ())]
    return [url for data in results if (url := _source(data))]


def withhold(
    envelope: Envelope, ports: frozenset[int], grid: GridEndpoints | None = None
) -> Envelope:
    """The answer without content that came from a browser's own endpoint (`ports`, or the
    operator's Selenium Grid): a DevTools server's pages list every tab of its browser with
    the ids that open it, a grid's every session with the socket that drives it, so a
    redirect (or a page that moved itself) would show another conversation's browser."""

    def blocked(data: object) -> str | None:
        url = _source(data)
        port = local_port(url) if url else None
        if url and grid is not None and grid.matches(url):
            return url
        return url if port is not None and port in ports else None

    hits = [url for data in [envelope.data] if (url := blocked(data))]
    rows = envelope.rows
    if rows is not None:
        rows = tuple(
            replace(row, success=False, result=None, error=withheld_message(url))
            if (url := blocked(row.result))
            else row
            for row in rows
        )
        hits += [url for row in envelope.rows or () if (url := blocked(row.result))]
    if not hits:
        return envelope
    extra = {**envelope.extra, "policy": {"rule": RULE, "subject": hits[0], "allowWith": None}}
    if envelope.rows is None:
        return replace(
            envelope, success=False, data=None, error=withheld_message(hits[0]), extra=extra
        )
    return replace(envelope, success=False, rows=rows, extra=extra)


def withheld_message(url: str) -> str:
    return (
        f"policy-blocked ({RULE}): this answer came from {url}, a browser's own DevTools or "
        "stream endpoint (or the browser grid), which lists browsers and the ids that open them; "
        "it is withheld. "
        "Open another page first (browsers stay off these ports)."
    )


def _source(data: object) -> str | None:
    if not isinstance(data, dict):
        return None
    for name in SOURCE_FIELDS:
        value = data.get(name)
        if isinstance(value, str):
            return value
    return None
