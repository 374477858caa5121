"""Redaction applied before anything leaves the process (content, details, journal, files).

Three layers, each with one job:

- `redact_argv`: echoed invocation args. Values of sensitive flags and operands (from the
  command taxonomy) are masked; every other token is scrubbed for URL credentials and tokens.
- `redact_text`: free text. Bearer/basic credentials, JWTs, URL userinfo and secret-looking
  query parameters are masked.
- `redact_data`: structured results. Sensitive key names are masked; cookie values always;
  storage values when the key or value looks like a credential (`valueRedacted`).
"""

from __future__ import annotations

import json
import math
import re
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from agent_browser_tools import taxonomy
from agent_browser_tools.input_limits import loads_json_text
from agent_browser_tools.redaction_scan import (
    TABLE_SIZE,
    maybe_secret,
    plain_table,
    sensitive_key,
)

REDACTED = "[REDACTED]"
# `[` in URL userinfo makes `urlsplit` read a bracketed IPv6 host and raise; percent-encoded,
# as a WHATWG URL setter would store it, the masked URL stays parseable.
URL_USERINFO_REDACTED = "%5BREDACTED%5D"

SENSITIVE_KEY = re.compile(
    r"(pass(word|wd)?|secret|token|api[-_]?key|apikey|authorization|auth|cookie|credential|"
    r"session[-_]?id|sessid|jwt|bearer|private[-_]?key|signature|sig)$|^(x-api-key|set-cookie)$",
    re.IGNORECASE,
)
SENSITIVE_QUERY = re.compile(
    r"^(.*token.*|.*secret.*|.*password.*|.*api[-_]?key.*|key|sig|signature|code|auth|"
    r"access[-_]?key|session|sessionid|jwt|credential.*)$",
    re.IGNORECASE,
)
_BEARER = re.compile(r"\b(Bearer|Basic|Token)\s+[A-Za-z0-9._~+/=-]{6,}", re.IGNORECASE)
_BEARER_PARTS = re.compile(r"\b(Bearer|Basic|Token)\s+([A-Za-z0-9._~+/=-]{6,})", re.IGNORECASE)
_JWT = re.compile(r"\beyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]{5,}\b")
_KEY_PREFIX = re.compile(
    r"\b(sk|pk|rk|ghp|gho|ghu|ghs|xox[abpr]|AKIA|AIza|glpat|npm)[-_][A-Za-z0-9_-]{10,}\b"
)
_URL = re.compile(r"\b[a-zA-Z][a-zA-Z0-9+.-]*://[^\s\"'<>]+")
SECRET_PLACEHOLDER = re.compile(r"\{\{secret:([A-Za-z_][A-Za-z0-9_]*)\}\}")
"""An operator secret used by name (`credentials.store`): a name, never a value, so the text
rules below must not mask it (`{{secret:API_TOKEN}}` looks like a `secret: value` pair)."""
_ASSIGNMENT = re.compile(
    r"\b([A-Za-z0-9_-]*(?:password|passwd|secret|token|api[_-]?key|apikey)[A-Za-z0-9_-]*)"
    r"([\"']?\s*[=:]\s*[\"']?)([^\s\"',;&]{6,})",
    re.IGNORECASE,
)


def redact_url(url: str) -> str:
    """Mask URL userinfo passwords and secret-looking query values."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return url
    netloc = parts.netloc
    if "@" in netloc:
        userinfo, host = netloc.rsplit("@", 1)
        user = userinfo.split(":", 1)[0]
        mask = URL_USERINFO_REDACTED
        netloc = f"{user}:{mask}@{host}" if ":" in userinfo else f"{mask}@{host}"
    query = parts.query
    if query:
        pairs = parse_qsl(query, keep_blank_values=True)
        if any(SENSITIVE_QUERY.match(k) for k, _ in pairs):
            query = urlencode(
                [(k, REDACTED if SENSITIVE_QUERY.match(k) else v) for k, v in pairs], safe="[]"
            )
    if netloc == parts.netloc and query == parts.query:
        return url
    return urlunsplit((parts.scheme, netloc, parts.path, query, parts.fragment))


def looks_token_like(value: str) -> bool:
    """A long, high-entropy, space-free string: probably a credential, not prose."""
    if len(value) < 20 or any(ch.isspace() for ch in value):
        return False
    if _JWT.search(value) or _KEY_PREFIX.search(value):
        return True
    counts = Counter(value)
    entropy = -sum(n / len(value) * math.log2(n / len(value)) for n in counts.values())
    classes = sum(
        bool(re.search(pattern, value)) for pattern in (r"[a-z]", r"[A-Z]", r"[0-9]", r"[_\-+/=.]")
    )
    return entropy >= 3.5 and classes >= 3


def redact_text(text: str) -> str:
    """Scrub credentials out of free text; `{{secret:NAME}}` placeholders are kept."""
    if not text:
        return text
    if "{{secret:" not in text:
        return _redact_plain(text)
    names: list[str] = []

    def hide(match: re.Match[str]) -> str:
        names.append(match.group(0))
        return f"\x00{len(names) - 1}\x00"

    out = _redact_plain(SECRET_PLACEHOLDER.sub(hide, text))
    for index, name in enumerate(names):
        out = out.replace(f"\x00{index}\x00", name).replace(f"%00{index}%00", name)
    return out


_MAYBE = re.compile(
    r"://|bearer|basic|token|eyj|sk[-_]|pk[-_]|rk[-_]|gh[opsu][-_]|xox|akia|aiza|glpat|npm[-_]"
    r"|passw|secret|api[_-]?key|apikey",
    re.IGNORECASE,
)
"""Every rule below needs one of these words: text without any (most names on a page) is
returned as it is, without running each rule over it (`redaction_scan.maybe_secret` is the
fast, exact yes/no of this pattern)."""


def _redact_plain(text: str) -> str:
    if not maybe_secret(text):
        return text
    out = _URL.sub(lambda m: redact_url(m.group(0)), text)
    out = _BEARER.sub(lambda m: f"{m.group(1)} {REDACTED}", out)
    out = _JWT.sub(REDACTED, out)
    out = _KEY_PREFIX.sub(REDACTED, out)
    return _ASSIGNMENT.sub(lambda m: f"{m.group(1)}{m.group(2)}{REDACTED}", out)


def redact_argv(argv: Sequence[str]) -> list[str]:
    """Echo-safe argv: sensitive flag values and operands masked, other tokens scrubbed.

    The command after a stray leading binary name gets the same rules, and so does each raw
    `batch` row string: its secret literals are masked inside that row's token.
    """
    tokens = list(argv)
    if tokens and _is_binary(tokens[0]):
        return [tokens[0], *redact_argv(tokens[1:])]
    out = _redact_flat(tokens)
    rows = set(_raw_batch_rows(tokens))
    for index, token in enumerate(tokens):
        if token in rows:
            out[index] = _redact_row(token)
    return out


def _redact_row(raw: str) -> str:
    """A raw batch row with each token replaced in place by its redacted form.

    Tokens are located left to right. When a masked token cannot be found verbatim (its
    quoting or escaping changed its spelling), the rest of the row is masked with it.
    """
    tokens = _split_row(raw)
    parts: list[str] = []
    position = 0
    for orig, shown in zip(tokens, _redact_flat(tokens), strict=True):
        at = raw.find(orig, position)
        if at < 0:
            if shown != orig:
                return " ".join(part for part in ("".join(parts), REDACTED) if part)
            continue
        parts += [raw[position:at], shown]
        position = at + len(orig)
    parts.append(raw[position:])
    return "".join(parts)


#: Flag names whose value is masked on every command, whether or not that command declares
#: them. Why: the engine's commands grow flags between releases, and a mistyped or undeclared
#: `--password` must not be echoed just because the taxonomy does not know it there. Whole
#: last words only, so `--no-auth`, `--bypass` or `--session-id` are not caught.
_SENSITIVE_FLAG_NAME = re.compile(
    r"^--(?:[a-z0-9]+-)*(?:password|passwd|passphrase|secrets?|tokens?|api-?keys?|apikey|"
    r"credentials?|headers|body|proxy|authorization|cookies?)$",
    re.IGNORECASE,
)


def _flag_rule(name: str, command: taxonomy.CommandMatch | None) -> str | None:
    """How to mask a flag token: "known" (a declared sensitive flag that takes a value: mask
    the next token whatever it looks like), "guessed" (an undeclared credential-like name: mask
    the next token unless it is a flag the engine knows), or None (not sensitive)."""
    flag = taxonomy.global_flag(name)
    if flag is not None:
        return "known" if flag.sensitive and flag.value is not taxonomy.FlagValue.NONE else None
    local = command.spec.local_flag(name) if command is not None else None
    if local is not None:
        if local.value is taxonomy.FlagValue.NONE:
            return None
        return "known" if local.sensitive else None
    return "guessed" if _SENSITIVE_FLAG_NAME.match(name) else None


def _known_flag(token: str, command: taxonomy.CommandMatch | None) -> bool:
    """Whether `token` is a flag the engine knows here (so it is not a guessed flag's value)."""
    name = token.split("=", 1)[0]
    if not name.startswith("-"):
        return False
    local = command.spec.local_flag(name) if command is not None else None
    return taxonomy.global_flag(name) is not None or local is not None


def _redact_flat(argv: Sequence[str]) -> list[str]:
    out: list[str] = []
    tokens = list(argv)
    _globals, rest = taxonomy.split_global_flags(tokens)
    command = taxonomy.resolve_command(rest) if rest else None
    mask_next: str | None = None
    for token in tokens:
        if mask_next == "known" or (mask_next == "guessed" and not _known_flag(token, command)):
            out.append(REDACTED)
            mask_next = None
            continue
        mask_next = None
        name = token.split("=", 1)[0]
        rule = _flag_rule(name, command) if name.startswith("--") else None
        if rule is not None:
            if "=" in token:
                out.append(f"{name}={REDACTED}")
            else:
                out.append(token)
                mask_next = rule
            continue
        out.append(redact_text(token))
    return _redact_operands(out)


def _redact_operands(argv: list[str]) -> list[str]:
    _globals, rest = taxonomy.split_global_flags(argv)
    match = taxonomy.resolve_command(rest) if rest else None
    if match is None:
        return argv
    secrets: set[str] = set()
    for index in match.spec.sensitive_operands:
        if index < len(match.operands):
            secrets.add(match.operands[index])
    for name, value in match.flags:
        local = match.spec.local_flag(name)
        if local is not None and local.sensitive and value:
            secrets.add(value)
    # `--password=<value>`: upstream rejects the form (quoting the token), so no flag pair.
    out = list(argv)
    for index, token in enumerate(argv):
        if _sensitive_local_assignment(match, token):
            out[index] = f"{token.split('=', 1)[0]}={REDACTED}"
        elif token in secrets:
            out[index] = REDACTED
    return out


def _sensitive_local_assignment(match: taxonomy.CommandMatch, token: str) -> bool:
    name, sep, value = token.partition("=")
    local = match.spec.local_flag(name) if sep and name.startswith("-") else None
    return local is not None and local.sensitive and bool(value)


def redact_data(value: Any, *, path: Sequence[str] = ()) -> Any:
    """Recursively scrub structured data; cookie and storage payloads get their own rules."""
    head = tuple(path[:1])
    if head == ("cookies",):
        return _redact_cookies(value)
    if head == ("storage",):
        return _redact_storage(value)
    if head == ("state",):
        return _redact_state(value)
    return _redact_generic(value)


def _redact_state(value: Any, key: str | None = None) -> Any:
    """A state file's contents (`state show` decrypts and prints one): every cookie value is
    hidden, storage values by the storage rule, the rest as generic data."""
    if isinstance(value, list):
        return [_redact_state(item, key) for item in value]
    if not isinstance(value, Mapping):
        return _redact_generic(value, key)
    out: dict[str, Any] = {}
    for name, item in value.items():
        if name == "cookies":
            out[name] = _redact_cookies(item)
        elif name in ("localStorage", "sessionStorage") and isinstance(item, list):
            out[name] = [_state_storage_entry(entry) for entry in item]
        else:
            out[name] = _redact_state(item, str(name))
    return out


def _state_storage_entry(entry: Any) -> Any:
    if not isinstance(entry, Mapping) or "value" not in entry:
        return _redact_generic(entry)
    reason = storage_value_verdict(str(entry.get("name", "")), entry["value"])
    if reason is None:
        return dict(entry)
    return {**entry, "value": REDACTED, "valueRedacted": True, "valueRedactionReason": reason}


def _redact_generic(value: Any, key: str | None = None) -> Any:
    if isinstance(value, Mapping):
        if len(value) > TABLE_SIZE:
            table = plain_table(value, SENSITIVE_KEY)
            if table is not None:
                return table
        return {k: _redact_generic(v, str(k)) for k, v in value.items()}
    if isinstance(value, list):
        return [_redact_generic(item, key) for item in value]
    if isinstance(value, str):
        if key is not None and sensitive_key(key, SENSITIVE_KEY) and value:
            return REDACTED
        return redact_text(value)
    return value


def _redact_cookies(value: Any) -> Any:
    if isinstance(value, Mapping):
        return {
            k: (
                REDACTED
                if str(k).lower() == "value" and v not in (None, "")
                else _redact_cookies(v)
            )
            for k, v in value.items()
        }
    if isinstance(value, list):
        return [_redact_cookies(item) for item in value]
    return _redact_generic(value)


def storage_value_verdict(key: str, value: Any) -> str | None:
    """Why a storage value must be hidden, or None when it is a low-risk primitive."""
    if isinstance(value, bool | int | float) or value is None:
        return None
    text = value if isinstance(value, str) else str(value)
    if SENSITIVE_KEY.search(key) or re.search(r"token|auth|secret|jwt|session|key", key, re.I):
        return "sensitive-key"
    if _JWT.search(text) or _BEARER.search(text):
        return "credential-value"
    if looks_token_like(text):
        return "token-like-value"
    if text.strip().startswith(("{", "[")) and redact_text(text) != text:
        return "nested-sensitive-json"
    return None


def _redact_storage(value: Any) -> Any:
    if not isinstance(value, Mapping):
        return _redact_generic(value)
    out: dict[str, Any] = {}
    for key, item in value.items():
        if key == "data" and isinstance(item, Mapping):
            out[key] = {k: _storage_entry(str(k), v) for k, v in item.items()}
        elif key == "value" and "key" in value:
            reason = storage_value_verdict(str(value.get("key")), item)
            out[key] = REDACTED if reason else item
            if reason:
                out["valueRedacted"] = True
                out["valueRedactionReason"] = reason
        else:
            out[key] = _redact_generic(item, str(key))
    return out


def _storage_entry(key: str, value: Any) -> Any:
    return REDACTED if storage_value_verdict(key, value) else value


def scrub_exact(text: str, literals: Sequence[str]) -> str:
    """Remove exact secret literals (taken from argv) from error text.

    A literal is also removed in its JSON-escaped spelling, since messages often quote argv
    with `json.dumps` (a headers object inside a quoted argv list, say).
    """
    variants = {form for item in literals for form in (item, json.dumps(item)[1:-1])}
    for literal in sorted((item for item in variants if len(item) >= 4), key=len, reverse=True):
        text = text.replace(literal, REDACTED)
    return text


def argv_secrets(argv: Sequence[str]) -> list[str]:
    """The literal values `redact_argv` masks in `argv` (for exact scrubbing of error text).

    Includes `--flag=value` values, literals of nested argv (raw batch rows, argv after a
    stray binary name), and the parts a message may quote on their own: string values of a
    JSON object (a headers map), bearer/basic credentials and URL userinfo passwords.
    """
    tokens = list(argv)
    if tokens and _is_binary(tokens[0]):
        tokens = tokens[1:]
    found = _flat_secrets(tokens)
    for row in _raw_batch_rows(tokens):
        found += _flat_secrets(_split_row(row))
    out: list[str] = []
    for literal in found:
        for item in (literal, *_embedded_secrets(literal)):
            if item and item not in out:
                out.append(item)
    return out


def _credential(value: str) -> bool:
    return bool(_BEARER.search(value) or _JWT.search(value)) or looks_token_like(value)


def _flat_secrets(argv: Sequence[str]) -> list[str]:
    found: list[str] = []
    for orig, shown in zip(argv, _redact_flat(argv), strict=True):
        if shown == REDACTED:
            found.append(orig)
        elif shown.endswith("=" + REDACTED) and orig != shown and "=" in orig:
            found.append(orig.split("=", 1)[1])
    return found


def _is_binary(token: str) -> bool:
    return token == "agent-browser" or token.endswith("/agent-browser")


def _raw_batch_rows(argv: Sequence[str]) -> list[str]:
    """The raw row strings of a `batch` argv (rows given as args rather than stdin)."""
    _globals, rest = taxonomy.split_global_flags(argv)
    match = taxonomy.resolve_command(rest) if rest else None
    if match is None or match.spec.path != ("batch",):
        return []
    return [raw for raw in match.operands if not raw.startswith("--")]


def _split_row(raw: str) -> list[str]:
    """A raw batch row as argv, split as the engine splits it."""
    return list(taxonomy.batch_row_words(raw))


def _embedded_secrets(literal: str) -> list[str]:
    parts: list[str] = []
    try:
        value = loads_json_text(literal)
    except ValueError:
        value = None
    if isinstance(value, Mapping):
        parts += [
            item
            for key, item in value.items()
            if isinstance(item, str) and (SENSITIVE_KEY.search(str(key)) or _credential(item))
        ]
    for text in (literal, *parts):
        parts += [m.group(2) for m in _BEARER_PARTS.finditer(text)]
        for url in _URL.findall(text):
            try:
                password = urlsplit(url).password
            except ValueError:
                password = None
            if password:
                parts.append(password)
    return parts
