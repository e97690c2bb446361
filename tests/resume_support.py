"""A stub agent binary (or $EDITOR) for the tests that run memtui's children: records its
arguments, working directory and the TEXTUAL_FPS it inherited."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

STUB = """#!{python}
import json, os, sys
with open({record!r}, "w") as out:
    json.dump({{"argv": sys.argv[1:], "cwd": os.getcwd(), "TEXTUAL_FPS": os.environ.get("TEXTUAL_FPS")}}, out)
"""


def stub_agent(bin_dir: Path, name: str) -> Path:
    """An executable `name` in `bin_dir` writing {"argv", "cwd", "TEXTUAL_FPS"} to bin_dir/NAME.json
    when run."""
    bin_dir.mkdir(parents=True, exist_ok=True)
    record = bin_dir / f"{name}.json"
    stub = bin_dir / name
    stub.write_text(STUB.format(python=sys.executable, record=str(record)))
    stub.chmod(0o755)
    return record


def recorded(record: Path) -> dict:
    return json.loads(record.read_text())


def path_with(bin_dir: Path) -> str:
    return f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}"
