"""The README's Python examples, run verbatim as a user would paste them: recording into
memtui's store, reading it back through `memtui.open` (steps, a checkpoint diff, a rollback
dry run, a GC preview), memory documents, search and the one-line error. Taken from README.md
at test time, so the test fails when the README drifts from the library."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

README = Path(__file__).resolve().parents[2] / "README.md"


def python_blocks() -> list[str]:
    return re.findall(r"```python\n(.*?)```", README.read_text(encoding="utf-8"), re.S)


def test_the_readme_library_examples_run_as_written(tmp_path):
    blocks = python_blocks()
    assert len(blocks) == 3, "the recorder, reading and memory examples"
    env = {"HOME": str(tmp_path), "PATH": "/usr/bin:/bin", "XDG_STATE_HOME": str(tmp_path / "state"),
           "XDG_DATA_HOME": str(tmp_path / "data"), "XDG_CACHE_HOME": str(tmp_path / "cache")}
    out = ""
    for block in blocks:
        run = subprocess.run([sys.executable, "-c", block], cwd=tmp_path, env=env, capture_output=True, text=True,
                             timeout=120)
        assert run.returncode == 0, run.stderr
        out += run.stdout
    assert (tmp_path / "path/to/workspace/.agent/agent.db").is_file()
    assert "1 completed Investigate test_io ['edit_file']" in out
    assert "--- a/io.py\n+++ b/io.py\n@@ -1 +1 @@\n-old\n+new" in out
    assert "('io.py', 'conflict', 'conflict: the file is missing" in out  # the dry run saw io.py is not there
    assert "0 tasks to collect, 0 bytes" in out  # the open session's current task is a root
    assert "claude-code [(PosixPath(" in out and "CLAUDE.md'), 30)]" in out
    assert "[('task', 'Investigate test_io Fixed the race in io.py')]" in out
    assert out.rstrip().endswith("no/such/folder does not exist")
