"""Which state key each browser of a conversation gets (`Runtime.env_for`).

On a server several conversations share, a key for all would let one conversation load a
state file another saved where both can name it; each conversation's own browsers get its
own key (the same for a resumed conversation), the operator-shared sessions one key of
their own, and the single user keeps the engine's key file (the vault and the terminal).
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from agent_browser_tools.engine.state_key import ENGINE_KEY_FILE, KEY_ENV
from agent_browser_tools.planning.policy import ModelPolicy
from agent_browser_tools.runtime import Runtime
from agent_browser_tools.settings import Settings
from agent_browser_tools.state.models import SessionKey

SHARED = ModelPolicy(isolated_conversations=True)


@pytest.fixture
def settings(tmp_path: Path) -> Iterator[Settings]:
    sockets = Path(tempfile.mkdtemp(prefix="abt-k", dir="/tmp"))
    env = {
        "HOME": str(tmp_path / "home"),
        "PATH": os.environ["PATH"],
        "AGENT_BROWSER_SOCKET_DIR": str(sockets),
        "AGENT_BROWSER_TOOLS_STATE_DIR": str(tmp_path / "state"),
    }
    try:
        yield Settings.load(env=env, cwd=tmp_path)
    finally:
        shutil.rmtree(sockets, ignore_errors=True)


def _key(rt: Runtime, session: str | None = None) -> str:
    key = SessionKey(session=session) if session is not None else None
    return rt.env_for(key)[KEY_ENV]


def test_each_conversation_of_a_shared_server_has_its_own_key(settings: Settings) -> None:
    def runtime(conversation: str) -> Runtime:
        return Runtime(
            settings, conversation_id=conversation, policy=SHARED, shared_sessions=["work"]
        )

    alice, bob = runtime("conv-alice"), runtime("conv-bob")
    assert _key(alice) != _key(bob)
    assert _key(alice, "my-named") == _key(alice), "a session it names is its own"
    assert _key(runtime("conv-alice")) == _key(alice), "resumed: the same key"
    assert _key(alice, "work") == _key(bob, "work") != _key(alice), "operator-shared sessions"
    assert not (Path(settings.env["HOME"]) / ENGINE_KEY_FILE).exists()


def test_the_single_user_keeps_the_engines_key_file(settings: Settings) -> None:
    one = Runtime(settings, conversation_id="conv-alice")
    two = Runtime(settings, conversation_id="conv-bob")
    home_key = Path(settings.env["HOME"]) / ENGINE_KEY_FILE
    assert _key(one) == _key(two) == home_key.read_text().strip()
