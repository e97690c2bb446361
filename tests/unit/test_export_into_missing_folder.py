"""`memtui export … -o PATH` whose folder is missing or is a file: one line naming PATH and
that folder, before anything is built — not the name of the temp file memtui would have made
beside PATH (".b.1322-de95f856.memtui-tmpdir does not exist")."""

from __future__ import annotations

from pathlib import Path

import pytest

from memtui.cli import main
from memtui.core.demo import build_demo


@pytest.fixture(scope="module")
def demo(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("export") / "workspace"
    build_demo(root, seed=1)
    return root


@pytest.mark.parametrize("what", [["--session", "1"], ["--all"]])
def test_an_output_in_a_missing_folder_or_under_a_file_is_named_in_one_line(demo, tmp_path, capsys, what):
    plain = tmp_path / "a-file"
    plain.write_text("not a folder\n")
    for output, parent, why in ((tmp_path / "nope" / "out", tmp_path / "nope", "does not exist"),
                                (plain / "out", plain, "is not a folder")):
        assert main(["export", str(demo), *what, "-o", str(output)]) == 2
        err = capsys.readouterr().err
        assert err == f"memtui: cannot write {output}: {parent} {why}\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a-file"]
    assert main(["export", str(demo), *what, "-o", str(tmp_path / "out")]) == 0  # an existing folder: written
    assert (tmp_path / "out").exists()
