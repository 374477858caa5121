"""The conversation's secrets: operator secrets used by name, and values typed into credential
fields. Resolves `{{secret:NAME}}` placeholders for the engine and scrubs every value back out.

Why one store: the same values must be kept out of content, details, the journal, spills,
code cells and output files, and each of those writers only has to call `scrub`,
`scrub_data` or `scrub_argv`.

Rules:

- An operator secret is used by name as `{{secret:NAME}}` in any argv token or stdin; the
  value replaces the placeholder only in what is spawned, and any output that contains the
  value shows the placeholder again (so the model can pass it back).
- A value typed into a credential field is registered for the rest of the conversation and
  shown as `[redacted: typed into a credential field]`. Values shorter than
  `MIN_SCRUB_LENGTH` characters are not scrubbed out of free text (they would mangle ordinary
  text); they are masked only where a whole token or string equals them (argv echoes,
  batch rows, JSON string values).
- Each value is also searched for in every spelling a browser, a page or the engine prints
  it in (HTML-escaped, percent-encoded, JSON-escaped, base64 inside a longer blob, and mixes
  of them): `credentials.encodings`, one matcher per value, built when it is registered.
- A value typed key by key grows in the field, one prefix per key: `track_field` keeps each
  field's latest values (what was read from it, what its keys should make of it) and retires
  an older one only when a newer read of the same field contains it, so the typed set does
  not fill with prefixes, while the value the field really holds stays covered when a key
  changes nothing.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from agent_browser_tools.credentials.encodings import Matcher, Secrets
from agent_browser_tools.input_limits import loads_json_text
from agent_browser_tools.redaction import SECRET_PLACEHOLDER

NAME_PATTERN = r"[A-Za-z_][A-Za-z0-9_]*"
PLACEHOLDER = SECRET_PLACEHOLDER
TYPED_PLACEHOLDER = "[redacted: typed into a credential field]"
READ_PLACEHOLDER = "[redacted: credential field]"
MIN_SCRUB_LENGTH = 4


def placeholder(name: str) -> str:
    """`{{secret:NAME}}`: how a secret is named in input and shown in output."""
    return "{{secret:" + name + "}}"


class SecretStore:
    """One conversation's secrets (in memory only; nothing here is ever persisted)."""

    def __init__(self, operator: Mapping[str, str] | None = None) -> None:
        self._operator = dict(operator or {})
        self._typed: set[str] = set()
        self._short: set[str] = set()
        self._kept: set[str] = set()
        """Values registered for good (typed whole, or a field's value no read retired)."""
        self._fields: dict[str, set[str]] = {}
        """Per field typed key by key: its latest values, retirable (`track_field`)."""
        self._matchers: dict[str, Matcher] = {}
        self._secrets = Secrets(())
        self._rebuild()

    # -- names and placeholders ----------------------------------------------------------

    @property
    def names(self) -> tuple[str, ...]:
        """The operator's secret names (names are not secret)."""
        return tuple(sorted(self._operator))

    @property
    def active(self) -> bool:
        """Whether there is anything to resolve or scrub."""
        return bool(self._operator or self._typed or self._short)

    def unknown_names(self, texts: Iterable[str]) -> list[str]:
        """Placeholder names in `texts` that the operator did not define, in order."""
        found: list[str] = []
        for text in texts:
            for name in PLACEHOLDER.findall(text):
                if name not in self._operator and name not in found:
                    found.append(name)
        return found

    def unknown_message(self, unknown: Sequence[str]) -> str:
        """The validation error for placeholders naming no operator secret."""
        shown = ", ".join(placeholder(name) for name in unknown)
        if self._operator:
            known = ", ".join(self.names)
            return f"unknown secret {shown}; the operator defined: {known}."
        return (
            f"unknown secret {shown}; the operator defined no secrets (they are set in the "
            "[secrets] table of the config file or in a dotenv file named by "
            "AGENT_BROWSER_TOOLS_SECRETS_FILE)."
        )

    def resolve(self, text: str) -> str:
        """`text` with every known placeholder replaced by its value (unknown ones stay)."""
        if "{{secret:" not in text:
            return text
        return PLACEHOLDER.sub(lambda m: self._operator.get(m.group(1), m.group(0)), text)

    def resolve_stdin(self, stdin: str) -> str:
        """Resolve placeholders in stdin. JSON stdin (batch rows) is resolved value by value
        so a secret with quotes or backslashes stays valid JSON; any other text as is."""
        if "{{secret:" not in stdin:
            return stdin
        try:
            parsed = loads_json_text(stdin)
        except ValueError:
            return self.resolve(stdin)
        return json.dumps(_map_strings(parsed, self.resolve))

    # -- registering typed values --------------------------------------------------------

    def register_typed(self, value: str) -> bool:
        """Keep a value typed into a credential field out of every later output, for good.

        Returns False when it is shorter than `MIN_SCRUB_LENGTH` (then masked only where a
        whole token or string equals it). Placeholders in it are resolved first; an operator
        secret typed by name is already covered by its own placeholder.
        """
        real = self.resolve(value)
        if real in self._operator.values():
            return True
        if real:
            self._kept.add(real)
            if self._add(real):
                self._rebuild()
        return len(real) >= MIN_SCRUB_LENGTH

    def track_field(
        self, field: str | None, *, read: str | None = None, predicted: Iterable[str] = ()
    ) -> None:
        """Keep a credential field's value covered while it is typed key by key.

        `field` names the element (None: not known, then every value is kept for good);
        `read`: its value as just read from the page (None: not read); `predicted`: what the
        call's keys should make of it.

        Why: each key leaves a prefix behind, and keeping every prefix would redact ordinary
        text that repeats a short one; but a key can change nothing (a full field, a key the
        page cancels, an input filter), so what a key should make of the value is never proof
        of what the field holds: a prediction retires nothing. Only a newer read of the same
        field retires its older values that it contains (they were prefixes of what it holds
        now, which covers them from then on); an older value it does not contain was real
        once, or may have been, and is kept for good.
        """
        pending = self._fields.setdefault(field, set()) if field is not None else self._kept
        changed = False
        real_read = self.resolve(read) if read is not None else None
        if real_read is not None and pending is not self._kept:
            for old in sorted(pending - {real_read}):
                pending.discard(old)
                if old in real_read:
                    changed |= self._retire(old)
                else:
                    self._kept.add(old)
        for value in [real_read or "", *map(self.resolve, predicted)]:
            if value and value not in self._operator.values():
                pending.add(value)
                changed |= self._add(value)
        if changed:
            self._rebuild()

    def _add(self, real: str) -> bool:
        """Register `real`; True when the matchers must be rebuilt."""
        if len(real) < MIN_SCRUB_LENGTH:
            self._short.add(real)
            return False
        if real in self._typed:
            return False
        self._typed.add(real)
        return True

    def _retire(self, value: str) -> bool:
        """Unregister `value` unless it is kept for good or another field still holds it;
        True when the matchers must be rebuilt."""
        if value in self._kept or any(value in held for held in self._fields.values()):
            return False
        self._short.discard(value)
        if value in self._typed:
            self._typed.discard(value)
            return True
        return False

    def _rebuild(self) -> None:
        """Matchers for every value (built once per value), longest value first so a value
        that contains another is replaced whole; an operator secret wins a tie."""
        wanted = {value: TYPED_PLACEHOLDER for value in self._typed}
        wanted |= {value: placeholder(name) for name, value in self._operator.items()}
        matchers = {
            value: self._matchers.get(value) or Matcher.build(value, replacement)
            for value, replacement in wanted.items()
        }
        self._matchers = matchers
        self._secrets = Secrets(matchers.values())

    # -- scrubbing -------------------------------------------------------------------------

    def scrub(self, text: str) -> str:
        """Free text with every registered value (in any spelling) replaced."""
        return self._secrets.scrub(text)

    def _short_token(self, text: str) -> str | None:
        return TYPED_PLACEHOLDER if text in self._short else None

    def scrub_data(self, value: Any) -> Any:
        """Structured data with registered values replaced in every key and string.

        One test on the whole structure's JSON text first: JSON escaping keeps every
        spelling findable (the matchers know JSON escapes), and most data holds no secret,
        so this spares a test per string."""
        if not self.active:
            return value
        whole = _json_text(value)
        if whole is not None and not self._mentions(whole):
            return value
        return _map_strings(value, self._scrub_string, keys=True)

    def _scrub_string(self, text: str) -> str:
        return self._short_token(text) or self.scrub(text)

    def scrub_argv(self, tokens: Sequence[str]) -> list[str]:
        """An echoed argv: registered values replaced, short ones where a whole token (or a
        whole word of a batch row string) equals them."""
        out = [self._scrub_string(token) for token in tokens]
        for short in self._short:
            word = re.compile(r"(?<!\S)([\"']?)" + re.escape(short) + r"\1(?!\S)")
            out = [word.sub(TYPED_PLACEHOLDER, token) if " " in token else token for token in out]
        return out

    def scrub_output(self, text: str) -> str:
        """Engine output: JSON is scrubbed value by value (a value such as `true` or `1234`
        must not rewrite JSON syntax or numbers); other text as free text."""
        if not self.active or not text or not self._mentions(text):
            return text
        try:
            parsed = json.loads(text)
        except ValueError:
            return self.scrub(text)
        scrubbed = self.scrub_data(parsed)
        if scrubbed == parsed:
            return text
        return json.dumps(scrubbed, ensure_ascii=False)

    def _mentions(self, text: str) -> bool:
        if self._secrets.found(text):
            return True
        return any(short in text for short in self._short)


def _json_text(value: Any) -> str | None:
    """`value` as JSON text for a containment test (unserializable leaves as their `str`),
    or None when it cannot be written as JSON (then every string is tested)."""
    try:
        return json.dumps(value, ensure_ascii=False, default=str)
    except (TypeError, ValueError):
        return None


def _map_strings(value: Any, fn: Callable[[str], str], *, keys: bool = False) -> Any:
    """`value` with `fn` applied to every string (and, with `keys`, every mapping key)."""
    if isinstance(value, str):
        return fn(value)
    if isinstance(value, Mapping):
        return {
            (fn(k) if keys and isinstance(k, str) else k): _map_strings(v, fn, keys=keys)
            for k, v in value.items()
        }
    if isinstance(value, list | tuple):
        return [_map_strings(item, fn, keys=keys) for item in value]
    return value
