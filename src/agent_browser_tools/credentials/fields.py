"""Is this form field a credential? (pure)

Why: a value typed into a password, one-time-code or card-security field must never come back
in any output, but the accessibility snapshot does not say which textbox is a password field
(engine 0.39.4 shows `<input type=password aria-label=Code>` as `textbox "Code"`). So the
wrapper reads a few attributes of the target before it types and applies these rules:

- `type=password`;
- an `autocomplete` token that names a credential (`current-password`, `one-time-code`,
  `cc-number`, `cc-csc`, ...);
- a name, id, aria-label, placeholder, label or selector whose words mark a credential
  (password, passcode, pwd, secret, token, api key, otp, pin, cvv/cvc, ...).

Words are split on case changes, digits and punctuation, so `userPassword`, `new_pwd` and
`api-key` match while `spinner`, `shipping` or `passport` do not. Over-matching only redacts a
harmless value; under-matching would leak one, so the lists lean wide.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

ATTRIBUTES: tuple[str, ...] = ("type", "autocomplete", "name", "id", "aria-label", "placeholder")
"""The attributes the pre-dispatch probe reads for each target."""

CREDENTIAL_AUTOCOMPLETE = frozenset(
    {
        "current-password",
        "new-password",
        "one-time-code",
        "cc-number",
        "cc-csc",
        "cc-exp",
        "cc-exp-month",
        "cc-exp-year",
        "webauthn",
    }
)

#: Whole words that mark a credential.
_WORDS = frozenset(
    {
        "password",
        "passwd",
        "passcode",
        "passphrase",
        "passwort",
        "pwd",
        "pw",
        "pass",
        "secret",
        "token",
        "apikey",
        "otp",
        "totp",
        "hotp",
        "mfa",
        "2fa",
        "pin",
        "cvv",
        "cvc",
        "csc",
        "ssn",
    }
)
#: Word pairs that mark a credential (`api key`, `one time code`, `security code`).
_PAIRS = frozenset(
    {
        ("api", "key"),
        ("access", "key"),
        ("secret", "key"),
        ("private", "key"),
        ("one", "time"),
        ("security", "code"),
        ("verification", "code"),
        ("auth", "code"),
        ("sms", "code"),
        ("card", "number"),
        ("credit", "card"),
        ("cc", "number"),
        ("client", "secret"),
        ("access", "token"),
    }
)
#: Stems that mark a credential even inside one word (`confirmpassword`, `cardnumber`).
_STEMS = (
    "password",
    "passwd",
    "passcode",
    "passphrase",
    "apikey",
    "secret",
    "cardnumber",
    "ccnumber",
    "securitycode",
    "onetimecode",
    "authtoken",
    "accesstoken",
    "cvv",
)


@dataclass(frozen=True)
class FieldRead:
    """What a read of one field found (before a call types into it, or after)."""

    attrs: dict[str, str | None] = field(default_factory=dict)
    labels: list[str] = field(default_factory=list)
    value: str | None = None
    """The field's value; None when not read, or read back scrubbed (so unknown)."""
    selection: tuple[int, int] | None = None
    element: str | None = None
    """Which element it is (its document and place in it), when the read can tell."""

    @property
    def credential(self) -> str | None:
        """Why its attributes or labels make it a credential field, or None."""
        return credential_reason(self.attrs, self.labels)


_WORD = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|\d+[a-z]*")


def words(text: str) -> list[str]:
    """Lower-case words of an identifier or label: `newPassword2` -> new, password, 2."""
    return [word.lower() for word in _WORD.findall(text)]


def marks_credential(text: str) -> bool:
    """Whether a name, id, label or selector names a credential (see the module docstring)."""
    if not text:
        return False
    found = words(text)
    if any(word in _WORDS for word in found):
        return True
    if any(pair in _PAIRS for pair in itertools.pairwise(found)):
        return True
    return any(stem in word for word in found for stem in _STEMS)


def credential_reason(
    attributes: Mapping[str, str | None], labels: Iterable[str | None] = ()
) -> str | None:
    """Why the field with these attributes (and accessible names) is a credential, or None."""
    kind = (attributes.get("type") or "").strip().lower()
    if kind == "password":
        return "input type=password"
    tokens = (attributes.get("autocomplete") or "").lower().split()
    hit = next((token for token in tokens if token in CREDENTIAL_AUTOCOMPLETE), None)
    if hit is not None:
        return f"autocomplete={hit}"
    for name in ("name", "id", "aria-label", "placeholder"):
        value = attributes.get(name)
        if value and marks_credential(value):
            return f"{name} {value!r} marks a credential"
    for label in labels:
        if label and marks_credential(label):
            return f"label {label!r} marks a credential"
    return None


def selector_reason(selector: str) -> str | None:
    """Why the selector text itself names a credential field (`#password`,
    `input[type=password]`, `[name=otp]`), or None. Used when the element could not be read
    before dispatch, e.g. a field that a step earlier in the same batch reveals."""
    if marks_credential(selector):
        return f"selector {selector!r} names a credential field"
    return None
