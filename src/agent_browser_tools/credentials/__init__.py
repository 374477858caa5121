"""Secrets stay secret: credential fields, operator secrets by name, recorded-file scrubbing.

- `fields`: is a form field a credential (pure);
- `store`: the conversation's `SecretStore` (resolve `{{secret:NAME}}`, scrub values out);
- `operator`: the operator's named secrets from config and dotenv files;
- `har`: scrubbing rules for HAR documents and JSON trace text (pure);
- `files`: rewriting recorded files in place, atomically.
"""

from agent_browser_tools.credentials.store import (
    MIN_SCRUB_LENGTH,
    READ_PLACEHOLDER,
    TYPED_PLACEHOLDER,
    SecretStore,
    placeholder,
)

__all__ = [
    "MIN_SCRUB_LENGTH",
    "READ_PLACEHOLDER",
    "TYPED_PLACEHOLDER",
    "SecretStore",
    "placeholder",
]
