"""The operator's remote browser endpoint (`[browser] cdp_url`): checked, and shown redacted.

A remote CDP endpoint is a network path to a browser the wrapper did not start, and hosted
farms put access tokens in its userinfo or query string. So the value must be a port or an
http/https/ws/wss URL with a host (anything else is a typo or a different transport the engine
would misread), and wherever it is shown (doctor, errors) its credentials are masked.
"""

from __future__ import annotations

from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from agent_browser_tools.settings import SettingsError

SCHEMES = frozenset({"http", "https", "ws", "wss"})
MASK = "REDACTED"


def check_cdp_url(value: object, where: str = "[browser] cdp_url (--cdp-url)") -> str:
    """`value` as the engine's `--cdp` value, or `SettingsError` saying what is accepted."""
    if not isinstance(value, str | int) or isinstance(value, bool):
        raise SettingsError(f"{where} must be a port or a URL, not {value!r}.")
    text = str(value).strip()
    if text.isdigit():
        if not 0 < int(text) < 65536:
            raise SettingsError(f"{where} port {text} is out of range (1-65535).")
        return text
    try:
        parts = urlsplit(text)
        parts.port  # noqa: B018 - raises ValueError for a bad port
    except ValueError:
        raise SettingsError(f"{where} is not a valid URL: {redact_endpoint(text)!r}.") from None
    if parts.scheme.lower() not in SCHEMES or not parts.hostname:
        raise SettingsError(
            f"{where} must be a port or an http, https, ws or wss URL with a host, not "
            f"{redact_endpoint(text)!r}."
        )
    return text


def redact_endpoint(value: str) -> str:
    """`value` with a userinfo password and every query value masked."""
    try:
        parts = urlsplit(value)
    except ValueError:
        return MASK
    netloc = parts.netloc
    if "@" in netloc:
        userinfo, _, host = netloc.rpartition("@")
        user = userinfo.partition(":")[0]
        netloc = f"{user}:{MASK}@{host}" if user else f"{MASK}@{host}"
    query = urlencode([(k, MASK) for k, _ in parse_qsl(parts.query, keep_blank_values=True)])
    if parts.query and not query:
        query = MASK
    return urlunsplit((parts.scheme, netloc, parts.path, query, ""))


def endpoint_secrets(value: str) -> list[str]:
    """The credential parts of `value` (userinfo password, query values), so a conversation
    scrubs them from every engine output even if an engine error quotes the URL."""
    try:
        parts = urlsplit(value)
        password = parts.password
    except ValueError:
        return []
    found = [v for _, v in parse_qsl(parts.query, keep_blank_values=True) if v]
    return [*([password] if password else []), *found]
