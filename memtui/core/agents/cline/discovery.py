"""Where Cline keeps its tasks: the `cline` CLI's data folder (`$CLINE_DIR/data`, else
`~/.cline/data`) and the VS Code extension's globalStorage folder
(`<editor>/User/globalStorage/saoudrizwan.claude-dev` under `~/.config` on Linux,
`~/Library/Application Support` on macOS, `%APPDATA%` on Windows, and the remote servers'
`~/.vscode-server/data`), each with `tasks/<taskId>/`; a data folder, its `tasks/` folder or one
task folder given as PATH; and, for a workspace, the tasks whose recorded working directory it
is."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Callable

from memtui.core.agents.cline.folders import is_session_folder, is_task_folder, task_folders, task_history
from memtui.core.sources.folders import recorded_in
from memtui.core.sources.found import Looking, Source

KIND = "cline"
EXTENSION = "saoudrizwan.claude-dev"
EDITORS = ("Code", "Code - Insiders", "VSCodium", "Cursor", "Windsurf")


def data_folders(env) -> list[Path]:
    """Every Cline data folder of the user's (the CLI's, then each editor's extension storage)."""
    home = Path(env["HOME"]) if env.get("HOME") else None
    bases: list[Path] = []
    if env.get("XDG_CONFIG_HOME"):
        bases.append(Path(env["XDG_CONFIG_HOME"]))
    if home is not None:
        bases += [home / ".config", home / "Library" / "Application Support"]
    if env.get("APPDATA"):
        bases.append(Path(env["APPDATA"]))
    found = [Path(env["CLINE_DIR"]).expanduser() / "data"] if env.get("CLINE_DIR") else []
    found += [home / ".cline" / "data"] if home is not None else []
    found += [b / editor / "User" / "globalStorage" / EXTENSION for b in bases for editor in EDITORS]
    if home is not None:
        found += [home / server / "data" / "User" / "globalStorage" / EXTENSION for server in (".vscode-server", ".vscode-remote")]
    return [f for f in dict.fromkeys(found) if (f / "tasks").is_dir() or (f / "sessions").is_dir()]


def _is_cli(data: Path | None) -> bool:
    """The `cline` CLI's data folder (`$CLINE_DIR/data`, `~/.cline/data`: its settings beside its
    tasks), not the extension's storage."""
    return data is not None and data.name == "data" and (
        data.parent.name == ".cline" or (data / "globalState.json").is_file() or (data / "sessions").is_dir())


def _store(path: Path, data: Path | None, folders: list[Path] | None = None,
           lister: Callable[[], list[Path]] | None = None) -> Source:
    """A store of the task folders `folders`, else of those `lister` lists at each reload, else of
    every task folder of `data` (or `path`)."""
    def every() -> list[Path]:
        return folders if folders is not None else task_folders(data if data is not None else path)

    def opener():
        from memtui.core.agents.cline.source import ClineSource  # the reader: once a store is opened

        return ClineSource(path, lister or every, data=data, cli=_is_cli(data))
    return Source(KIND, path, opener, label="Cline")


def _workspace_lister(data: Path, workspace: Path) -> Callable[[], list[Path]]:
    """The task folders of `data` that ran in `workspace`, at each call; each folder's recorded
    directory read once."""
    cwds: dict[Path, str] = {}

    def lister() -> list[Path]:
        history = task_history(data)
        return recorded_in(workspace, task_folders(data), lambda folder: _cwd(folder, history), cwds)
    return lister


def _cwd(folder: Path, history: dict[str, dict]) -> str | None:
    cwd = history.get(folder.name, {}).get("cwdOnTaskInitialization")
    if is_session_folder(folder):  # 3.x: the session file names it; its messages need no reading
        from memtui.core.agents.cline.tasks import load_json

        meta = load_json(folder / f"{folder.name}.json", [])
        cwd = meta.get("cwd") if isinstance(meta, dict) and isinstance(meta.get("cwd"), str) else None
    elif not isinstance(cwd, str) or not cwd:  # recorded in its messages alone: the folder is read
        from memtui.core.agents.cline.source import read_folder

        task = read_folder(folder, [])
        cwd = task.cwd if task is not None else None
    return os.path.realpath(cwd) if cwd else None


def store_at(path: Path, looking: Looking) -> list[Source] | None:
    """A task folder, a `tasks/` folder of them, or a data folder holding `tasks/`; None else."""
    if path.is_file():
        one = path.name == "ui_messages.json" and is_task_folder(path.parent) or \
            path.name == f"{path.parent.name}.messages.json"
        return [_store(path.parent, _data_of(path.parent), [path.parent])] if one else None
    if (is_task_folder(path) and path.parent.name == "tasks") or (is_session_folder(path) and path.parent.name == "sessions"):
        return [_store(path, path.parent.parent, [path])]
    if path.name in ("tasks", "sessions") and task_folders(path.parent):
        return [_store(path, path.parent)]
    if ((path / "tasks").is_dir() or (path / "sessions").is_dir()) and \
            (path.name == EXTENSION or _is_cli(path) or (path / "state" / "taskHistory.json").is_file()):
        return [_store(path, path)]
    return None


def _data_of(folder: Path) -> Path | None:
    return folder.parent.parent if folder.parent.name in ("tasks", "sessions") else None


def for_workspace(workspace: Path, looking: Looking) -> list[Source]:
    """The Cline tasks that ran in `workspace` (every task when it is the user's home folder)."""
    out = []
    for data in data_folders(looking.env):
        if looking.user_home:
            out.append(_store(data, data))
            continue
        lister = _workspace_lister(data, workspace)
        if not lister():
            continue  # no task ran there: its reader is not imported
        source = _store(data, data, lister=lister)
        if source.open().sessions():
            out.append(source)
        source.close()
    return out
