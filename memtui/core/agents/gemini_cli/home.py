"""Where Gemini CLI keeps its chats: the Gemini home (`$GEMINI_CLI_HOME/.gemini`, else
`~/.gemini`) holds `tmp/<project>/chats/session-*.jsonl` (older: `session-*.json`), one folder
per project named in `projects.json` (project path → folder name; older versions named the
folder by the sha256 of the project path). `tmp/<project>/.project_root` holds the project's
path. Nothing here writes, and nothing here imports the chats' reader: discovery asks this module
alone whether a path holds chats.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import Callable, Mapping

from memtui.core.sources.fields import loads


def project_hash(project: str | Path) -> str:
    """The folder name older Gemini CLI versions gave a project under tmp/: sha256 of its path."""
    return hashlib.sha256(str(project).encode()).hexdigest()


def is_chat_file(path: Path) -> bool:
    """A chat file by its name and place: chats/session-*.jsonl (or .json)."""
    return path.name.startswith("session-") and path.suffix in (".jsonl", ".json") and path.parent.name == "chats"


def looks_like_chat(path: Path) -> bool:
    """A chat file whose opening is a Gemini CLI chat's: a header with sessionId and projectHash
    (JSONL), or a document with sessionId and messages (JSON)."""
    if not is_chat_file(path):
        return False
    try:
        with open(path, "rb") as f:
            head = f.read(65536) if path.suffix == ".jsonl" else f.read()
    except OSError:
        return False
    try:
        first = loads(head.split(b"\n", 1)[0] if path.suffix == ".jsonl" else head)
    except (ValueError, RecursionError):
        return False
    return isinstance(first, dict) and "sessionId" in first and ("projectHash" in first or "messages" in first)


def gemini_home(env: Mapping[str, str]) -> Path | None:
    """The Gemini home for this environment (None without HOME or GEMINI_CLI_HOME)."""
    base = env.get("GEMINI_CLI_HOME") or env.get("HOME")
    if not base:
        return None
    return Path(base).expanduser() / ".gemini"


def is_gemini_home(path: Path) -> bool:
    """A folder laid out as a Gemini home: a tmp/ folder holding at least one project's chat."""
    tmp = path / "tmp"
    if not tmp.is_dir():
        return False
    try:
        return any(chats_in(p) for p in tmp.iterdir() if p.is_dir())
    except OSError:
        return False


def chats_in(folder: Path) -> list[Path]:
    """The chat files of one project folder (tmp/<project>), or of its chats/ folder."""
    chats = folder if folder.name == "chats" else folder / "chats"
    try:
        return sorted(p for p in chats.iterdir() if p.is_file() and is_chat_file(p))
    except OSError:
        return []


def home_lister(home: Path) -> Callable[[], list[Path]]:
    """Lists every chat of a Gemini home (again at each call)."""
    def relist() -> list[Path]:
        try:
            projects = sorted(p for p in (home / "tmp").iterdir() if p.is_dir())
        except OSError:
            return []
        return [c for p in projects for c in chats_in(p)]
    return relist


def folder_lister(folder: Path) -> Callable[[], list[Path]]:
    return lambda: chats_in(folder)


def project_folders(home: Path, workspace: Path, need: str = "chats") -> list[Path]:
    """The tmp/ folders holding `workspace`'s chats (or another folder `need` of the project's:
    its memory/): the one projects.json names, the one whose .project_root names it, and the
    sha256-named one older versions wrote."""
    tmp = home / "tmp"
    target = os.path.realpath(workspace)
    names: list[str] = []
    try:
        mapping = json.loads((home / "projects.json").read_text(encoding="utf-8")).get("projects")
    except (OSError, ValueError, AttributeError, RecursionError):
        mapping = None
    if isinstance(mapping, dict):
        names += [str(v) for k, v in mapping.items() if isinstance(v, str) and os.path.realpath(k) == target]
    names.append(project_hash(workspace))
    try:
        for folder in tmp.iterdir():
            root = project_root_of(folder)
            if root is not None and os.path.realpath(root) == target:
                names.append(folder.name)
    except OSError:
        pass
    found: list[Path] = []
    for name in dict.fromkeys(names):
        folder = tmp / name
        if "/" not in name and name not in ("", ".", "..") and (folder / need).is_dir() and folder not in found:
            found.append(folder)
    return found


def project_root_of(folder: Path) -> Path | None:
    """The project a tmp/<project> folder belongs to, from its .project_root (None if absent)."""
    try:
        text = (folder / ".project_root").read_text(encoding="utf-8").strip()
    except (OSError, UnicodeDecodeError):
        return None
    return Path(text) if text and os.path.isabs(text) else None


def home_of(path: Path) -> Path | None:
    """The Gemini home above a tmp/<project> folder, chats folder or chat file."""
    for parent in [path, *path.parents]:
        if parent.name == "tmp" and parent.parent != parent:
            return parent.parent
    return None


def workspace_lister(workspace: Path, home: Path) -> Callable[[], list[Path]]:
    def relist() -> list[Path]:
        return [c for f in project_folders(home, workspace) for c in chats_in(f)]
    return relist
