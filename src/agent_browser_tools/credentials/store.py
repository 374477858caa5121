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
- A value typed key by key grows in the field: registering the field's new value may retire
  the shorter value it extends (`replaces`), so the typed set does not fill with prefixes.
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
        self._provisional: set[str] = set()
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

    def register_typed(
        self, value: str, *, replaces: str | None = None, provisional: bool = False
    ) -> bool:
        """Keep a value typed into a credential field out of every later output.

        Returns False when it is shorter than `MIN_SCRUB_LENGTH` (then masked only where a
        whole token or string equals it). Placeholders in it are resolved first; an operator
        secret typed by name is already covered by its own placeholder.

        `provisional`: a value the field holds part-way through typing (key by key). It is
        retired when the same field's next value, registered with `replaces` naming it,
        contains it: outputs so far were scrubbed of it, and the longer value covers it from
        now on. A value typed as one piece (`fill`, `type`) is never retired.
        """
        real = self.resolve(value)
        if real in self._operator.values():
            return True
        if not real:
            return False
        changed = self._retire(real, replaces)
        if not provisional:
            self._provisional.discard(real)
        elif real not in self._typed and real not in self._short:
            self._provisional.add(real)
        if len(real) < MIN_SCRUB_LENGTH:
            self._short.add(real)
        elif real not in self._typed:
            self._typed.add(real)
            changed = True
        if changed:
            self._rebuild()
        return len(real) >= MIN_SCRUB_LENGTH

    def _retire(self, real: str, replaces: str | None) -> bool:
        """Drop the provisional value `real` grew from (see `register_typed`)."""
        if replaces is None or replaces == real or replaces not in self._provisional:
            return False
        if replaces not in real:
            return False
        self._provisional.discard(replaces)
        self._short.discard(replaces)
        if replaces in self._typed:
            self._typed.discard(replaces)
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
