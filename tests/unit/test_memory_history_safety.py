"""The kept versions of a memory document are as private as the document, stay inside the
workspace, and pruning them removes only the copies memtui wrote."""

from __future__ import annotations

import os
import stat

import pytest

from memtui.core.errors import PathEscape
from memtui.core.memory import list_history, read_document, save_document
from memtui.core.memory.save import HISTORY_DIR, history_dir


@pytest.fixture
def ws(tmp_path):
    root = tmp_path / "ws"
    root.mkdir()
    (root / "CLAUDE.md").write_text("v1\n")
    return root


def _mode(path) -> int:
    return stat.S_IMODE(os.lstat(path).st_mode)


@pytest.mark.parametrize("mode", [0o600, 0o640])
def test_a_kept_copy_has_the_documents_mode_and_the_history_folders_are_private(ws, mode):
    doc = ws / "CLAUDE.md"
    os.chmod(doc, mode)
    old = os.umask(0o022)
    try:
        save_document(ws, doc, "v2\n", read_document(doc).version)
    finally:
        os.umask(old)

    [kept] = list_history(ws, doc)
    assert kept.read() == b"v1\n"
    assert _mode(kept.path) == mode
    assert _mode(doc) == mode
    assert [_mode(d) for d in (ws / ".agent" / ".memtui", ws / HISTORY_DIR, kept.path.parent)] == [0o700] * 3


def test_history_folders_made_by_an_older_memtui_are_made_private(ws):
    doc = ws / "CLAUDE.md"
    folder = history_dir(ws, doc)
    folder.mkdir(parents=True, mode=0o755)
    os.chmod(folder, 0o755)
    save_document(ws, doc, "v2\n", read_document(doc).version)
    assert _mode(folder) == 0o700


def test_a_history_folder_leading_out_of_the_workspace_is_refused(ws, tmp_path):
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    (ws / ".agent").symlink_to(outside, target_is_directory=True)
    doc = ws / "CLAUDE.md"

    with pytest.raises(PathEscape, match="outside the workspace") as caught:
        save_document(ws, doc, "v2\n", read_document(doc).version)

    assert "\n" not in str(caught.value)
    assert doc.read_text() == "v1\n"  # not saved either: its old version could not be kept
    assert list(outside.rglob("*")) == []
    with pytest.raises(PathEscape):
        list_history(ws, doc)


def test_the_cli_says_so_in_one_line(ws, tmp_path, capsys, monkeypatch):
    from memtui.cli import main

    for var in ("HOME", "CLAUDE_CONFIG_DIR", "CODEX_HOME"):
        monkeypatch.setenv(var, str(tmp_path / var.lower()))
    outside = tmp_path / "elsewhere" / ".memtui" / "history" / "CLAUDE.md"
    outside.mkdir(parents=True)
    (outside / "20260101T000000000000Z_save_0123456789abcdef.bak").write_text("planted\n")
    (ws / ".agent").symlink_to(tmp_path / "elsewhere", target_is_directory=True)

    code = main(["memory-history", str(ws), "CLAUDE.md", "--restore", "1"])

    err = capsys.readouterr().err
    assert code != 0 and "outside the workspace" in err and len(err.strip().splitlines()) == 1
    assert (ws / "CLAUDE.md").read_text() == "v1\n"


def test_pruning_removes_only_memtuis_own_copies(ws):
    doc = ws / "CLAUDE.md"
    folder = history_dir(ws, doc)
    folder.mkdir(parents=True)
    foreign = ["notes.bak", "my_old_copy.bak", "a_b_c_d.bak", "20260101_save_x.bak"]
    for name in foreign:
        (folder / name).write_text(f"kept by the user: {name}\n")

    for n in range(2, 8):
        save_document(ws, doc, f"v{n}\n", read_document(doc).version, keep=3)

    assert [e.read() for e in list_history(ws, doc)] == [b"v6\n", b"v5\n", b"v4\n"]
    assert sorted(p.name for p in folder.iterdir() if p.name in foreign) == sorted(foreign)
    for name in foreign:
        assert (folder / name).read_text() == f"kept by the user: {name}\n"
