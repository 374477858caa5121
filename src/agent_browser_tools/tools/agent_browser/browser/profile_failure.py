"""Direct tool: a launch that failed on its Chrome profile says what to check next.

Which profile a browser uses is the operator's setting here (`[browser] profile`,
`AGENT_BROWSER_PROFILE`, or an operator-allowed `--profile`), and `Default` is common but not
guaranteed, so a retry with another guess is useless. A failed call whose error is about the
profile or the user data directory gets `doctor` as its next action (the model may run it;
`profiles` is the operator's command) and one sentence to pass on: which setting to fix, and
that `agent-browser profiles` on the host lists the names that exist.
"""

from __future__ import annotations

import re

from agent_browser_tools.results.next_actions import NextAction
from agent_browser_tools.results.observation import Observation
from agent_browser_tools.tools.agent_browser.call import DirectCall

PROFILE_ENV = "AGENT_BROWSER_PROFILE"
_PROFILE_ERROR = re.compile(r"profile|user[ -]data[ -]dir", re.IGNORECASE)

GUIDANCE = (
    "The browser could not start with Chrome profile {profile}: this profile is the operator's "
    "setting ([browser] profile, AGENT_BROWSER_PROFILE or an allowed --profile). Tell the user "
    "which profile name or path to configure; `agent-browser profiles` on the host lists the "
    "names that exist (Default is not guaranteed). Do not retry with guessed names."
)


def _profile(call: DirectCall) -> str | None:
    for flag in call.plan.session.launch_flags:
        name, _, value = flag.partition("=")
        if name == "--profile":
            return value or "(given)"
    env = call.rt.env_for(call.key) if call.key is not None else call.rt.child_env
    return env.get(PROFILE_ENV) or None


def add_recovery(call: DirectCall, obs: Observation) -> None:
    """`doctor` and the profile guidance after a profile/user-data-dir launch failure."""
    if obs.success or not obs.error or not _PROFILE_ERROR.search(obs.error):
        return
    profile = _profile(call)
    if profile is None:
        return
    obs.warnings.append(GUIDANCE.format(profile=repr(profile)))
    obs.next_actions.append(
        NextAction(
            id="diagnose-browser-profile",
            reason="Check the engine, the browser and its launch settings before the user "
            "changes the profile setting.",
            params={"args": ["doctor"]},
        )
    )
