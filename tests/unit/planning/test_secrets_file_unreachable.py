"""The operator's secrets file is never reachable, even when it sits in the workspace."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent_browser_tools.planning.argv_rules import check_argv
from agent_browser_tools.planning.file_config import FileAccess, file_roots
from agent_browser_tools.planning.file_policy import confine
from agent_browser_tools.planning.inputs import AgentBrowserInput
from agent_browser_tools.planning.policy import PolicyBlocked
from agent_browser_tools.settings import Settings


def test_upload_or_open_of_the_secrets_file_is_refused(tmp_path: Path) -> None:
    secrets = tmp_path / "secrets.env"
    secrets.write_text("PW=correct-horse-battery\n")
    settings = Settings.load(
        env={"HOME": str(tmp_path), "AGENT_BROWSER_TOOLS_SECRETS_FILE": str(secrets)},
        cwd=tmp_path,
    )
    roots = file_roots(settings, FileAccess(unrestricted=True), cwd=tmp_path)
    for args in (["upload", "#f", "secrets.env"], ["open", secrets.as_uri()]):
        inp = AgentBrowserInput(args=args)
        with pytest.raises(PolicyBlocked) as caught:
            confine(inp, check_argv(inp.args, None), roots)
        assert caught.value.rule == "file-root", args
