"""Where Gemini CLI keeps its stores: the Gemini home (`$GEMINI_CLI_HOME/.gemini`, else
`~/.gemini`) with `tmp/<project>/chats/session-*.jsonl`; a project's tmp folder, its chats folder
or one chat file given as PATH; and, for a workspace, the chats of the tmp folder projects.json
(or the folder's .project_root, or the older sha256 name) gives it."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Callable

from memtui.core.agents.gemini_cli import home as gh
from memtui.core.agents.gemini_cli.home import is_chat_file, looks_like_chat
from memtui.core.sources.found import Looking, Source

KIND = "gemini-cli"


def _store(path: Path, chats: list[Path], home: Path | None, relist: Callable[[], list[Path]] | None = None) -> Source:
    def opener():
        from memtui.core.agents.gemini_cli.source import GeminiCliSource  # the reader: once a store is opened

        return GeminiCliSource(chats, home=home, path=path, relist=relist)
    return Source(KIND, path, opener, label="Gemini CLI")


def store_at(path: Path, looking: Looking) -> list[Source] | None:
    """A chat file, a Gemini home holding chats, a project's tmp folder or its chats folder;
    None for anything else."""
    if path.is_file():
        return [_store(path, [path], gh.home_of(path))] if is_chat_file(path) and looks_like_chat(path) else None
    if gh.is_gemini_home(path):
        relist = gh.home_lister(path)
        return [_store(path, relist(), path, relist)]
    in_tmp = (path.name == "chats" and path.parent.parent.name == "tmp") or \
        (path.parent.name == "tmp" and (path / "chats").is_dir())
    if in_tmp:
        relist = gh.folder_lister(path)
        chats = relist()
        return [_store(path, chats, gh.home_of(path), relist)] if chats else None
    return None


def for_workspace(workspace: Path, looking: Looking) -> list[Source]:
    """The chats Gemini CLI kept of `workspace`; every chat of the home when `workspace` is the
    user's home folder."""
    home = gh.gemini_home(looking.env)
    if home is None or not home.is_dir():
        return []
    if looking.user_home:
        return store_at(home.resolve(), looking) or []
    relist = gh.workspace_lister(Path(os.path.realpath(workspace)), home)
    chats = relist()
    return [_store(home / "tmp", chats, home, relist)] if chats else []
