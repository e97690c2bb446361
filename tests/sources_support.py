"""Helpers shared by the source-adapter tests: fixture copies and byte-for-byte snapshots."""

from __future__ import annotations

import hashlib
import os
import shutil
import sqlite3
from pathlib import Path
from typing import Any

FIXTURES = Path(__file__).resolve().parent / "fixtures"
RECORDED_CWD = "/home/dev/tally"  # the cwd every transcript fixture records


def damaged(*_: Any, **__: Any) -> Any:
    """Stands in for a source's read (monkeypatched): fails as a damaged SQLite database does."""
    raise sqlite3.DatabaseError("database disk image is malformed")


def tree_state(root: Path) -> dict[str, tuple[str, int, int]]:
    """Every file under `root` (hidden ones too): sha256, size, mtime in ns."""
    state = {}
    for dirpath, _dirs, files in os.walk(root):
        for name in files:
            path = Path(dirpath) / name
            stat = path.stat()
            state[str(path.relative_to(root))] = (hashlib.sha256(path.read_bytes()).hexdigest(), stat.st_size, stat.st_mtime_ns)
    return state


def copy_fixture(name: str, dest: Path, workspace: Path | None = None) -> Path:
    """Copy fixtures/<name> to `dest`; with `workspace`, recorded cwds point at it."""
    shutil.copytree(FIXTURES / name, dest)
    if workspace is not None:
        for path in dest.rglob("*"):
            if path.is_file():
                data = path.read_bytes()
                if RECORDED_CWD.encode() in data:
                    path.write_bytes(data.replace(RECORDED_CWD.encode(), str(workspace).encode()))
    return dest


def agent_homes(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    """A workspace plus Claude Code and Codex homes whose transcripts record it as cwd."""
    workspace = tmp_path / "tally"
    workspace.mkdir()
    claude = copy_fixture("claude_home", tmp_path / "claude", workspace)
    codex = copy_fixture("codex_home", tmp_path / "codex", workspace)
    env = {"CLAUDE_CONFIG_DIR": str(claude), "CODEX_HOME": str(codex), "HOME": str(tmp_path / "nohome")}
    return workspace, env


def discovered(workspace: Path, env: dict[str, str], kind: str):
    """The one source of `kind` that discovery finds for `workspace` (fails on none or two)."""
    from memtui.core.discovery import discover

    [source] = [s for s in discover(workspace, env=env) if s.kind == kind]
    return source


def fixture_texts():
    """The file versions the transcript fixtures were generated from."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("make_agent_fixtures", FIXTURES / "make_agent_fixtures.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def left_workspace(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    """`agent_homes`, with the workspace's files as the Claude Code session left them."""
    texts = fixture_texts()
    workspace, env = agent_homes(tmp_path)
    (workspace / "tally").mkdir()
    (workspace / "tests").mkdir()
    (workspace / "tally" / "cli.py").write_text(texts.CLI_V3)
    (workspace / "tests" / "test_cli.py").write_text(texts.TEST_V1)
    return workspace, env
