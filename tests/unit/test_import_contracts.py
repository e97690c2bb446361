"""The import contracts of pyproject.toml ([tool.importlinter]), checked on the real import
graph (import-linter, as harlequin does): the core runs without a UI, widgets never import
a screen, agent packages never import each other, and the layers hold (porcelain, engines, agents, memory, sources, cleanup, store). A broken contract names the import chain that breaks it."""

from __future__ import annotations

from pathlib import Path

from importlinter.cli import lint_imports

PYPROJECT = Path(__file__).resolve().parents[2] / "pyproject.toml"


def test_the_import_contracts_hold(tmp_path, capsys) -> None:
    status = lint_imports(config_filename=str(PYPROJECT), cache_dir=str(tmp_path), no_logo=True)
    out = capsys.readouterr().out
    assert status == 0, out
    assert "4 kept, 0 broken" in out
