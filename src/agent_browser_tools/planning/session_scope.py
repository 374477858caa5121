"""What a call's session may name, and which socket dir the call acts on (pure).

Every conversation's browsers live in its own socket dir (`engine.isolation`). The engine
turns a session name into a path inside that dir (`NAME.sock`) without checking it: tried on
agent-browser 0.39.4, `--session ../work` and `--session /abs/dir/work` reached a browser in
another dir. So a model-supplied session name must be a plain name, or it would walk out of
the conversation's dir into the shared one or another conversation's.

A call whose command acts on a whole socket dir (`session list`, other sessionless commands,
`close --all`) always runs in the conversation's own dir, even when it names an
operator-shared session: in the shared dir it would list, or close, every browser there.
"""

from __future__ import annotations

from agent_browser_tools.planning.argv_rules import ArgvRejected, CheckedArgv
from agent_browser_tools.planning.plan import ExecutionPlan
from agent_browser_tools.planning.policy import PolicyBlocked, calls_of
from agent_browser_tools.taxonomy import PageEffect, SessionNeed

_PATH_CHARACTERS = ("/", "\\", "\0")
NAME_LIMIT = 64
"""Characters of a `--session` or `--namespace` value. The engine makes each one part of a
socket path (`NAME.sock`, at most 104 bytes in all on macOS, 108 on Linux); a longer value
cannot name a browser, and one over 255 bytes is not even a file name."""


def plain_session_name(name: str) -> bool:
    """A name the engine keeps inside its socket dir: no separators, not `.` or `..`."""
    return bool(name) and name not in (".", "..") and not any(c in name for c in _PATH_CHARACTERS)


def check_session_names(checked: CheckedArgv) -> None:
    """Raise `PolicyBlocked` for a `--session` value that is a path, and `ArgvRejected` for a
    `--session` or `--namespace` value too long to name a browser (call or batch row)."""
    for where, globals_, _match in calls_of(checked):
        for name, value in globals_:
            if name in ("--session", "--namespace") and value and len(value) > NAME_LIMIT:
                raise ArgvRejected(
                    f"{where}{name} is {len(value):,} characters; a name may have at most "
                    f"{NAME_LIMIT} (it becomes part of a socket path). Use a short name such "
                    "as `--session checkout`."
                )
            if name == "--session" and value is not None and not plain_session_name(value):
                raise PolicyBlocked(
                    f"{where}--session {value!r} is a path, not a session name: the engine "
                    "would look for that browser outside this conversation's own sessions. "
                    "Use a plain name such as `--session checkout` (letters, digits, '-', "
                    "'_', '.').",
                    rule="session-name",
                    subject=value,
                    allow_with=None,
                )


def acts_on_whole_dir(plan: ExecutionPlan) -> bool:
    """The command lists or closes every session of a socket dir, not one browser."""
    match = plan.match
    if match is None:
        return plan.session.key is None
    if match.spec.session is SessionNeed.SESSIONLESS:
        return True
    return match.spec.page_effect is PageEffect.CLOSE and match.has_flag("--all")
