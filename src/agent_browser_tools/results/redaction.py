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

import math
import re
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from agent_browser_tools import taxonomy

REDACTED = "[REDACTED]"

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
_JWT = re.compile(r"\beyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]{5,}\b")
_KEY_PREFIX = re.compile(
    r"\b(sk|pk|rk|ghp|gho|ghu|ghs|xox[abpr]|AKIA|AIza|glpat|npm)[-_][A-Za-z0-9_-]{10,}\b"
)
_URL = re.compile(r"\b[a-zA-Z][a-zA-Z0-9+.-]*://[^\s\"'<>]+")
_ASSIGNMENT = re.compile(
    r"\b([A-Za-z0-9_-]*(?:password|passwd|secret|token|api[_-]?key|apikey)[A-Za-z0-9_-]*)"
    r"(\s*[=:]\s*)([^\s\"',;&]{6,})",
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
        netloc = f"{user}:{REDACTED}@{host}" if ":" in userinfo else f"{REDACTED}@{host}"
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
    """Scrub credentials out of free text."""
    if not text:
        return text
    out = _URL.sub(lambda m: redact_url(m.group(0)), text)
    out = _BEARER.sub(lambda m: f"{m.group(1)} {REDACTED}", out)
    out = _JWT.sub(REDACTED, out)
    out = _KEY_PREFIX.sub(REDACTED, out)
    return _ASSIGNMENT.sub(lambda m: f"{m.group(1)}{m.group(2)}{REDACTED}", out)


def redact_argv(argv: Sequence[str]) -> list[str]:
    """Echo-safe argv: sensitive flag values and operands masked, other tokens scrubbed."""
    out: list[str] = []
    tokens = list(argv)
    mask_next = False
    for token in tokens:
        if mask_next:
            out.append(REDACTED)
            mask_next = False
            continue
        name = token.split("=", 1)[0]
        flag = taxonomy.global_flag(name)
        if flag is not None and flag.sensitive:
            if "=" in token:
                out.append(f"{name}={REDACTED}")
            else:
                out.append(token)
                mask_next = True
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
    if not secrets:
        return argv
    return [REDACTED if token in secrets else token for token in argv]


def redact_data(value: Any, *, path: Sequence[str] = ()) -> Any:
    """Recursively scrub structured data; cookie and storage payloads get their own rules."""
    head = tuple(path[:1])
    if head == ("cookies",):
        return _redact_cookies(value)
    if head == ("storage",):
        return _redact_storage(value)
    return _redact_generic(value)


def _redact_generic(value: Any, key: str | None = None) -> Any:
    if isinstance(value, Mapping):
        return {k: _redact_generic(v, str(k)) for k, v in value.items()}
    if isinstance(value, list):
        return [_redact_generic(item, key) for item in value]
    if isinstance(value, str):
        if key is not None and SENSITIVE_KEY.search(key) and value:
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


def redact_native_text(text: str, path: Sequence[str], *, single_key: bool = False) -> str:
    """Native (`--json false`) cookie and storage output: `name=value` / `key: value` lines.

    Cookie values are always hidden; storage values follow the same benign-value policy as
    JSON results. A single-key storage read hides the whole value, embedded newlines included.
    Text cannot prove which line belongs to which entry, so this is conservative, and JSON
    mode remains the unambiguous boundary for sensitive storage.
    """
    head = tuple(path[:1])
    if head == ("cookies",):
        return "\n".join(_cookie_line(line) for line in text.split("\n"))
    if head != ("storage",) or not text:
        return redact_text(text)
    if single_key and ": " in text:
        key, _, value = text.partition(": ")
        if storage_value_verdict(key, value.rstrip("\n")):
            return f"{key}: {REDACTED}" + ("\n" if text.endswith("\n") else "")
        return text
    return "\n".join(_storage_line(line) for line in text.split("\n"))


def _cookie_line(line: str) -> str:
    name, sep, value = line.partition("=")
    if not sep or not value.strip():
        return redact_text(line)
    return f"{name}={REDACTED}"


def _storage_line(line: str) -> str:
    key, sep, value = line.partition(": ")
    if not sep:
        return redact_text(line)
    return f"{key}: {REDACTED}" if storage_value_verdict(key, value) else f"{key}: {value}"


def scrub_exact(text: str, literals: Sequence[str]) -> str:
    """Remove exact secret literals (taken from argv) from error text."""
    for literal in sorted((item for item in literals if len(item) >= 4), key=len, reverse=True):
        text = text.replace(literal, REDACTED)
    return text


def argv_secrets(argv: Sequence[str]) -> list[str]:
    """The literal values `redact_argv` would mask in `argv` (for exact scrubbing)."""
    masked = redact_argv(argv)
    return [orig for orig, shown in zip(argv, masked, strict=True) if shown == REDACTED]
