"""Stable result categories: the machine-readable verdict agents branch on.

The enum values are the contract's exact strings; nothing else in the code spells them.
"""

from __future__ import annotations

from enum import StrEnum


class ResultCategory(StrEnum):
    SUCCESS = "success"
    FAILURE = "failure"


class SuccessCategory(StrEnum):
    COMPLETED = "completed"
    ARTIFACT_PENDING = "artifact-pending"
    ARTIFACT_SAVED = "artifact-saved"
    ARTIFACT_UNVERIFIED = "artifact-unverified"
    INSPECTION = "inspection"


class FailureCategory(StrEnum):
    ABORTED = "aborted"
    ARTIFACT_MISSING = "artifact-missing"
    CLEANUP_FAILED = "cleanup-failed"
    CONFIRMATION_REQUIRED = "confirmation-required"
    DOWNLOAD_NOT_VERIFIED = "download-not-verified"
    MISSING_BINARY = "missing-binary"
    PARSE_FAILURE = "parse-failure"
    POLICY_BLOCKED = "policy-blocked"
    QA_FAILURE = "qa-failure"
    SCRIPT_ERROR = "script-error"
    SELECTOR_NOT_FOUND = "selector-not-found"
    SELECTOR_UNSUPPORTED = "selector-unsupported"
    STALE_REF = "stale-ref"
    TAB_DRIFT = "tab-drift"
    TAB_GONE = "tab-gone"
    TIMEOUT = "timeout"
    UPSTREAM_ERROR = "upstream-error"
    VALIDATION_ERROR = "validation-error"


def category_line(success: bool, category: SuccessCategory | FailureCategory | None) -> str:
    """The prose line agents branch on, spelled here only (every result text uses it).

    What it says, and why no more: the category itself (`failureCategory: stale-ref`),
    because a model branches on it (snapshot again, do not retry a refusal, ...) and the
    structured fields that carry it travel in MCP `_meta`, which hosts do not show to a model;
    and "failure" in words, for a host that passes only the text on. Never `isError: true`:
    every host here carries that flag itself (MCP `isError`, `ToolResult.is_error`, the CLI's
    exit status). The reference contract appends it because the Pi host ignored a returned
    flag and patched it in (`Pi tool isError: true`); that is not the case here. Callers use
    it on every failure, and on a success only where the category is news (an artifact
    verdict).
    """
    value = category.value if category is not None else "?"
    if success:
        return f"Result category: success; successCategory: {value}."
    return f"Result category: failure; failureCategory: {value}."
