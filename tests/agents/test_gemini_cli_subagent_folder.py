"""Gemini CLI keeps a chat's sub-agent chats in a folder named by its session id: memtui looks
there only when the recorded session id is a plain name, so a chat whose header names
`../../../elsewhere` never pulls another folder's chats into its session."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from memtui.core.discovery import discover

from .live_support import LIVE

FIXTURE = LIVE / "gemini-cli-0.61.0" / "subagent"
pytestmark = pytest.mark.skipif(not FIXTURE.is_dir(), reason="no Gemini CLI live fixture")


def _home(tmp_path: Path, session_id: str | None) -> Path:
    """A copy of the fixture's home; its sub-agent folder moved to `<home>/elsewhere` and the
    main chat's header naming `session_id` (None: the folder left out)."""
    home = tmp_path / ".gemini"
    shutil.copytree(FIXTURE / "home" / ".gemini", home)
    [chat] = sorted(home.glob("tmp/*/chats/session-*.jsonl"))
    [folder] = [p for p in chat.parent.iterdir() if p.is_dir()]
    if session_id is None:
        shutil.rmtree(folder)
        return home
    folder.rename(home / "elsewhere")  # chats/../../../elsewhere
    lines = chat.read_text().splitlines()
    header = json.loads(lines[0])
    header["sessionId"] = session_id
    chat.write_text("\n".join([json.dumps(header), *lines[1:]]) + "\n")
    return home


def _turns(home: Path) -> list[str]:
    [found] = discover(home, env={"HOME": str(home.parent / "nohome")})
    source = found.open()
    return [t.title for s in source.sessions() for t in source.tasks(s.id)]


def test_a_session_id_leading_out_of_the_chats_folder_reads_no_sub_agent_chats(tmp_path):
    without = _turns(_home(tmp_path / "a", None))
    assert _turns(_home(tmp_path / "b", "../../../elsewhere")) == without
