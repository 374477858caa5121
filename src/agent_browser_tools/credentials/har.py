"""Scrubbing rules for recorded network files: HAR documents and JSON trace text (pure).

Why: a HAR written by `network har stop` holds every request as sent, so URL tokens, basic-auth
userinfo, `Authorization`/`Cookie` headers and login form posts land on disk in clear. The
rules, applied to every entry of `log.entries` (and `log.pages`):

- URLs (`url`, `redirectURL`, and URL-valued headers): userinfo is masked, and query
  parameters with credential-like names (token, access_token, key, api_key, secret, password,
  auth, code, sig, session, ...) get `[REDACTED]` values;
- `queryString` / form `params` / JSON body fields with credential-like names;
- credential headers (`Authorization`, `Proxy-Authorization`, `Cookie`, `Set-Cookie`,
  `X-API-Key`, `X-Auth-Token`, ... and any header whose name marks a credential); every
  cookie value;
- bearer/basic credentials, JWTs and key-shaped tokens in other header values and bodies;
- finally every string goes through the caller's `scrub` (registered secret values).

Traces and profiles are not HAR: their JSON text gets the URL and `scrub` rules textually.
"""

from __future__ import annotations

import base64
import binascii
import json
import re
from collections.abc import Callable, Mapping
from typing import Any
from urllib.parse import parse_qsl, urlencode

from agent_browser_tools.credentials.fields import marks_credential, words
from agent_browser_tools.redaction import REDACTED, URL_USERINFO_REDACTED, redact_text

Scrub = Callable[[str], str]

CREDENTIAL_HEADERS = frozenset(
    {
        "authorization",
        "proxy-authorization",
        "cookie",
        "set-cookie",
        "x-api-key",
        "x-auth-token",
        "x-access-token",
        "x-csrf-token",
        "x-xsrf-token",
        "x-amz-security-token",
        "x-goog-api-key",
        "api-key",
        "apikey",
    }
)
_PARAM_WORDS = frozenset(
    {"key", "sig", "signature", "code", "auth", "session", "sid", "jwt", "credential", "hmac"}
)
_PARAM_WORDS |= {"credentials", "authorization", "csrf", "xsrf"}
_PARAM_STEMS = ("token", "session", "sessid")
_URL = re.compile(r"\b[a-zA-Z][a-zA-Z0-9+.-]*:(?:\\?/){2}(?:[^\s\"'<>\\]|\\/)+")
_USERINFO = re.compile(r"^([a-zA-Z][a-zA-Z0-9+.-]*:(?:\\?/){2})([^/@?#]*)@")
_QUERY_PAIR = re.compile(r"([?&;])([^=&#;]+)=([^&#;]*)")
_URL_KEYS = frozenset({"url", "redirectURL"})
_URL_HEADERS = frozenset({"referer", "location", "origin", "content-location", "link"})


def credential_param(name: str) -> bool:
    """A query, form or JSON field name that carries a credential."""
    found = words(name)
    if marks_credential(name) or any(word in _PARAM_WORDS for word in found):
        return True
    return any(stem in word for word in found for stem in _PARAM_STEMS)


def scrub_url(url: str) -> str:
    """Mask URL userinfo and credential query values, keeping the rest of the text as is."""
    out = _USERINFO.sub(lambda m: _userinfo(m.group(1), m.group(2)), url)
    return _QUERY_PAIR.sub(
        lambda m: (
            f"{m.group(1)}{m.group(2)}={REDACTED}"
            if credential_param(m.group(2)) and m.group(3)
            else m.group(0)
        ),
        out,
    )


def _userinfo(prefix: str, info: str) -> str:
    user, sep, _password = info.partition(":")
    return (
        f"{prefix}{user}:{URL_USERINFO_REDACTED}@" if sep else f"{prefix}{URL_USERINFO_REDACTED}@"
    )


def scrub_urls_in_text(text: str) -> str:
    """Every URL inside free or JSON text, scrubbed with `scrub_url`."""
    return _URL.sub(lambda m: scrub_url(m.group(0)), text)


def scrub_json_text(text: str, scrub: Scrub) -> str:
    """Trace/profile JSON text: registered values and URL credentials, textually."""
    return scrub_urls_in_text(scrub(text))


def scrub_har(doc: Any, scrub: Scrub) -> Any:
    """A scrubbed copy of a parsed HAR document (see the module docstring)."""
    if not isinstance(doc, Mapping):
        raise ValueError("not a HAR document (no top-level object)")
    log = doc.get("log")
    if not isinstance(log, Mapping) or not isinstance(log.get("entries"), list):
        raise ValueError("not a HAR document (no log.entries list)")
    entries = [_entry(entry, scrub) for entry in log["entries"]]
    out = {**doc, "log": {**log, "entries": entries}}
    return _strings(out, scrub)


def _entry(entry: Any, scrub: Scrub) -> Any:
    if not isinstance(entry, Mapping):
        return entry
    out = dict(entry)
    for side in ("request", "response"):
        message = out.get(side)
        if isinstance(message, Mapping):
            out[side] = _message(message, scrub)
    return out


def _message(message: Mapping[str, Any], scrub: Scrub) -> dict[str, Any]:
    out = dict(message)
    for key in _URL_KEYS & set(out):
        if isinstance(out[key], str):
            out[key] = scrub_url(out[key])
    if isinstance(out.get("headers"), list):
        out["headers"] = [_header(h) for h in out["headers"]]
    if isinstance(out.get("cookies"), list):
        out["cookies"] = [_masked(c, "value") for c in out["cookies"]]
    if isinstance(out.get("queryString"), list):
        out["queryString"] = [_pair(p) for p in out["queryString"]]
    if isinstance(out.get("postData"), Mapping):
        out["postData"] = _body(out["postData"], "text", scrub)
    if isinstance(out.get("content"), Mapping):
        out["content"] = _body(out["content"], "text", scrub)
    return out


def _masked(item: Any, field: str) -> Any:
    if isinstance(item, Mapping) and item.get(field) not in (None, ""):
        return {**item, field: REDACTED}
    return item


def _header(header: Any) -> Any:
    if not isinstance(header, Mapping) or not isinstance(header.get("value"), str):
        return header
    name = str(header.get("name", "")).lower()
    if name in CREDENTIAL_HEADERS or credential_param(name):
        return _masked(header, "value")
    value = header["value"]
    if name in _URL_HEADERS:
        value = scrub_urls_in_text(value)
    return {**header, "value": redact_text(value)}


def _pair(pair: Any) -> Any:
    if isinstance(pair, Mapping) and credential_param(str(pair.get("name", ""))):
        return _masked(pair, "value")
    return pair


def _body(body: Mapping[str, Any], field: str, scrub: Scrub) -> dict[str, Any]:
    out = dict(body)
    if isinstance(out.get("params"), list):
        out["params"] = [_pair(p) for p in out["params"]]
    text = out.get(field)
    if not isinstance(text, str) or not text:
        return out
    mime = str(out.get("mimeType", "")).lower()
    if out.get("encoding") == "base64":
        out[field] = _base64_text(text, mime, scrub)
    else:
        out[field] = body_text(text, mime)
    return out


def _base64_text(text: str, mime: str, scrub: Scrub) -> str:
    """A base64 body is decoded and scrubbed as text (registered values in any spelling
    included: the base64 of an HTML-escaped value matches nothing in the encoded text)."""
    try:
        decoded = base64.b64decode(text, validate=True).decode("utf-8")
    except (binascii.Error, UnicodeDecodeError):
        return text
    scrubbed = scrub(body_text(decoded, mime))
    return text if scrubbed == decoded else base64.b64encode(scrubbed.encode()).decode()


def body_text(text: str, mime: str) -> str:
    """A request or response body: form fields, JSON fields, multipart parts, then tokens."""
    if "x-www-form-urlencoded" in mime:
        pairs = parse_qsl(text, keep_blank_values=True)
        masked = [(k, REDACTED if credential_param(k) and v else v) for k, v in pairs]
        if masked != pairs:
            text = urlencode(masked, safe="[]")
    elif "multipart/" in mime:
        text = _MULTIPART.sub(_multipart_part, text)
    else:
        try:
            parsed = json.loads(text)
        except ValueError:
            parsed = None
        if isinstance(parsed, Mapping | list):
            masked_json = _json_fields(parsed)
            if masked_json != parsed:
                text = json.dumps(masked_json, ensure_ascii=False)
    return redact_text(scrub_urls_in_text(text))


_MULTIPART = re.compile(r'(name="([^"]+)"[^\r\n]*\r?\n(?:[^\r\n]+\r?\n)*\r?\n)([^\r\n]*)')


def _multipart_part(match: re.Match[str]) -> str:
    if credential_param(match.group(2)) and match.group(3):
        return match.group(1) + REDACTED
    return match.group(0)


def _json_fields(value: Any) -> Any:
    if isinstance(value, Mapping):
        return {
            k: REDACTED
            if credential_param(str(k)) and isinstance(v, str | int | float) and v != ""
            else _json_fields(v)
            for k, v in value.items()
        }
    if isinstance(value, list):
        return [_json_fields(item) for item in value]
    return value


def _strings(value: Any, scrub: Scrub) -> Any:
    if isinstance(value, str):
        return scrub(value)
    if isinstance(value, Mapping):
        return {k: _strings(v, scrub) for k, v in value.items()}
    if isinstance(value, list):
        return [_strings(item, scrub) for item in value]
    return value
