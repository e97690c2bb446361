"""kill -9 of memtui while it has files out in a scratch folder of its own (core.scratch; never
in /tmp at large, a workspace or an agent's home): the copy $EDITOR is editing, the temporary
demo workspace of `memtui demo`. The next memtui removes them once the killed one is gone;
the memory document is untouched."""

from __future__ import annotations

import hashlib
import json
import os
import signal
import sys
import time
from pathlib import Path

import pytest

from kill_points import stray_temps
from terminal_support import Terminal

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="needs a POSIX pseudo-terminal")

BLOCKING_EDITOR = """#!{python}
import json, os, sys, time
with open(sys.argv[1], "a") as doc:
    doc.write("- typed in the editor, never saved back\\n")
with open({record!r}, "w") as out:
    json.dump({{"path": sys.argv[1], "pid": os.getpid()}}, out)
time.sleep(600)
"""


def documents(workspace: Path) -> dict[str, tuple[str, int]]:
    """sha256 and mtime of every file but the store's database (the app may open it)."""
    return {p.relative_to(workspace).as_posix(): (hashlib.sha256(p.read_bytes()).hexdigest(), p.stat().st_mtime_ns)
            for p in workspace.rglob("*") if p.is_file() and not p.name.startswith("agent.db")}


def memtui_open(workspace: Path | None, env: dict[str, str], cwd: Path) -> Terminal:
    """memtui on a terminal, its main screen up: `memtui open WORKSPACE`, or `memtui demo`."""
    verb = ["open", str(workspace)] if workspace else ["demo"]
    term = Terminal([sys.executable, "-m", "memtui", *verb], env, cwd)
    term.wait_for(b"following")
    return term


def user_env(**more: str) -> dict[str, str]:
    return {**os.environ, "TERM": "xterm-256color", "TEXTUAL_ANIMATIONS": "none", **more}


def scratch_root() -> Path:
    return Path(os.environ["XDG_CACHE_HOME"]) / "memtui" / "scratch"  # the suite's own (conftest)


def test_kill_9_while_the_editor_runs_leaves_no_copy_after_the_next_start(demo_copy, tmp_path):
    editor, record = tmp_path / "bin" / "editor", tmp_path / "bin" / "editor.json"
    editor.parent.mkdir()
    editor.write_text(BLOCKING_EDITOR.format(python=sys.executable, record=str(record)))
    editor.chmod(0o755)
    env = user_env(VISUAL=str(editor))
    scratch = scratch_root()
    before = documents(demo_copy)
    term = memtui_open(demo_copy, env, tmp_path)
    editing = None
    try:
        term.run_editor(record)
        term.read_until(lambda: record.read_text().endswith("}"), 10)  # the editor's record written whole
        editing = json.loads(record.read_text())
        copy = Path(editing["path"])
        assert copy.parent.parent == scratch and f".{term.proc.pid}-" in copy.parent.name
        assert copy.read_text().endswith("- typed in the editor, never saved back\n")
        os.kill(term.proc.pid, signal.SIGKILL)
        term.proc.wait(30)
    finally:
        if editing is not None:  # the editor dies with the terminal it was using
            os.kill(editing["pid"], signal.SIGKILL)
        term.close()
    assert copy.exists()  # what the kill left: the next start's to remove

    again = memtui_open(demo_copy, env, tmp_path)
    try:
        deadline = time.monotonic() + 150  # a start on a loaded 2-core machine took over a minute
        while scratch.exists() and os.listdir(scratch):  # swept by the opening, after the first sessions draw
            assert time.monotonic() < deadline, f"never removed: {os.listdir(scratch)}"
            again.read(0.2)
        again.type("q")
    finally:
        assert again.close() == 0
    assert documents(demo_copy) == before
    assert stray_temps(demo_copy, scratch) == []


def test_the_temporary_demo_of_a_killed_memtui_goes_with_the_next(tmp_path):
    scratch = scratch_root()
    term = memtui_open(None, user_env(), tmp_path)
    try:
        [folder] = scratch.iterdir()
        assert f".{term.proc.pid}-" in folder.name and (folder / "demo" / ".agent" / "agent.db").is_file()
        os.kill(term.proc.pid, signal.SIGKILL)
        term.proc.wait(30)
    finally:
        term.close()
    assert folder.is_dir()  # what the kill left: the next memtui's to remove

    again = memtui_open(None, user_env(), tmp_path)
    try:
        assert not folder.exists() and len(list(scratch.iterdir())) == 1  # only the new one's demo
        again.type("q")
    finally:
        assert again.close() == 0
    assert list(scratch.iterdir()) == []  # and that goes when its app closes
