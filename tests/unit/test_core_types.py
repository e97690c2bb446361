"""memtui/core type-checks: mypy over the package with the settings of pyproject.toml
([tool.mypy]: every module checked, the per-module error codes not yet paid off turned off
there). A table read under a wrong name, a hook called with the wrong arguments, an index's
field of the wrong type fail here, not when that code path first runs."""

from __future__ import annotations

import os
from pathlib import Path

from mypy import api

ROOT = Path(__file__).resolve().parents[2]


def _mypy(*args: str) -> tuple[str, int]:
    cwd = os.getcwd()
    os.chdir(ROOT)  # pyproject.toml's files and cache_dir are relative to the project
    try:
        out, err, status = api.run(["--config-file", str(ROOT / "pyproject.toml"), *args])
    finally:
        os.chdir(cwd)
    return out + err, status


def test_memtui_core_type_checks_and_a_wrong_table_name_would_not(tmp_path) -> None:
    out, status = _mypy()
    assert status == 0, out
    # The same check over a module that reads an index table under its old private name:
    # one run after the other, so the second reuses the first's cache (one process: no race).
    (tmp_path / "bad.py").write_text(
        "from memtui.core.agents.codex.rollouts import Rollouts\n\n"
        "def turns(ix: Rollouts) -> int:\n    return len(ix._turns)\n")
    out, status = _mypy(str(tmp_path / "bad.py"))
    assert status == 1 and '"Rollouts" has no attribute "_turns"' in out, out
