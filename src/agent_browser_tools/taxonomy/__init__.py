"""The command taxonomy: one declarative table of upstream commands and its lookups.

`vocabulary` holds the enums, `spec` the row and match types, `commands` and `global_flags` the
rows, `lookup` the pure lookups over them, `inventory` the `--help` coverage check. Modules
inside the package import their siblings directly; everything else imports names from here.
"""

from __future__ import annotations

from agent_browser_tools.taxonomy.batch_words import batch_row_words, join_batch_row
from agent_browser_tools.taxonomy.lookup import (
    all_commands,
    all_global_flags,
    command,
    engine_surface,
    global_flag,
    is_command_word,
    resolve_command,
    split_global_flags,
    surface,
    use_engine,
)
from agent_browser_tools.taxonomy.spec import (
    ArtifactSlot,
    CommandMatch,
    CommandSpec,
    FieldValue,
    FileSlots,
    Fulfilment,
    GlobalFlag,
    LocalFlag,
    PageScript,
    RefSlots,
    looks_like_path,
)
from agent_browser_tools.taxonomy.vocabulary import (
    ArtifactKind,
    ConfirmationRole,
    Diagnostic,
    FieldEdit,
    FlagValue,
    ModelAccess,
    PageEffect,
    PathUse,
    RecordingStep,
    SessionNeed,
    TimeoutFamily,
)

__all__ = [
    "ArtifactKind",
    "ArtifactSlot",
    "CommandMatch",
    "CommandSpec",
    "ConfirmationRole",
    "Diagnostic",
    "FieldEdit",
    "FieldValue",
    "FileSlots",
    "FlagValue",
    "Fulfilment",
    "GlobalFlag",
    "LocalFlag",
    "ModelAccess",
    "PageEffect",
    "PageScript",
    "PathUse",
    "RecordingStep",
    "RefSlots",
    "SessionNeed",
    "TimeoutFamily",
    "all_commands",
    "all_global_flags",
    "batch_row_words",
    "command",
    "engine_surface",
    "global_flag",
    "is_command_word",
    "join_batch_row",
    "looks_like_path",
    "resolve_command",
    "split_global_flags",
    "surface",
    "use_engine",
]
