"""Saving memory documents: atomic, conflict-checked, with history, restore and undo."""

from __future__ import annotations

import os

import pytest

from memtui.core.errors import NoHistory, PathEscape, SaveConflict
from memtui.core.memory import (
    ANY,
    conflict_diff,
    list_history,
    read_document,
    restore_version,
    save_document,
    undo_last_save,
)
from memtui.core.memory.save import HISTORY_DIR, documents_with_history, keep_discarded


@pytest.fixture
def ws(tmp_path):
    root = tmp_path / "ws"
    root.mkdir()
    (root / "MEMORY.md").write_text("v1\n")
    return root


def test_save_writes_new_content_and_keeps_the_old(ws):
    path = ws / "MEMORY.md"
    doc = read_document(path)
    version = save_document(ws, path, "v2\n", doc.version)
    assert path.read_text() == "v2\n"
    assert version == read_document(path).version
    history = list_history(ws, path)
    assert [(e.number, e.reason, e.read()) for e in history] == [(1, "save", b"v1\n")]
    assert history[0].path.is_relative_to(ws / HISTORY_DIR)
    assert documents_with_history(ws) == ["MEMORY.md"]


def test_save_is_atomic_and_preserves_mode(ws):
    path = ws / "MEMORY.md"
    path.chmod(0o640)
    inode_before = os.stat(path).st_ino
    save_document(ws, path, "v2\n", read_document(path).version)
    assert os.stat(path).st_mode & 0o777 == 0o640
    assert os.stat(path).st_ino != inode_before  # replaced by rename, not rewritten in place
    assert [p.name for p in ws.iterdir() if "memtui-tmp" in p.name] == []


def test_conflict_when_the_file_changed_on_disk_since_it_was_opened(ws):
    path = ws / "MEMORY.md"
    doc = read_document(path)
    path.write_text("agent wrote this\n")  # the agent writes meanwhile
    with pytest.raises(SaveConflict) as caught:
        save_document(ws, path, "my edit\n", doc.version)
    assert caught.value.disk == b"agent wrote this\n"
    assert caught.value.disk_version.sha256 == read_document(path).version.sha256
    assert path.read_text() == "agent wrote this\n"  # nothing overwritten
    assert list_history(ws, path) == []
    diff = conflict_diff(caught.value.disk, "my edit\n", "MEMORY.md")
    assert "-agent wrote this" in diff and "+my edit" in diff
    # explicit overwrite: the agent's version is kept in history
    save_document(ws, path, "my edit\n", ANY)
    assert path.read_text() == "my edit\n"
    assert list_history(ws, path)[0].read() == b"agent wrote this\n"


def test_same_content_rewritten_is_not_a_conflict(ws):
    path = ws / "MEMORY.md"
    doc = read_document(path)
    path.write_text("v1\n")  # touched, same bytes
    os.utime(path, (1, 1))
    save_document(ws, path, "v2\n", doc.version)
    assert path.read_text() == "v2\n"


def test_conflict_when_the_file_was_deleted_or_created(ws):
    path = ws / "MEMORY.md"
    doc = read_document(path)
    path.unlink()
    with pytest.raises(SaveConflict, match="deleted") as caught:
        save_document(ws, path, "mine\n", doc.version)
    assert caught.value.disk is None
    new = ws / "NEW.md"
    new.write_text("someone else\n")
    with pytest.raises(SaveConflict, match="created"):
        save_document(ws, new, "mine\n", None)


def test_new_file_is_created(ws):
    path = ws / "DECISIONS.md"
    save_document(ws, path, "# Decisions\n", None)
    assert path.read_text() == "# Decisions\n"
    assert os.stat(path).st_mode & 0o777 == 0o644
    assert list_history(ws, path) == []


def test_identical_save_is_a_no_op(ws):
    path = ws / "MEMORY.md"
    save_document(ws, path, "v1\n", read_document(path).version)
    assert list_history(ws, path) == []


def test_history_keeps_the_newest_versions_only(ws):
    path = ws / "MEMORY.md"
    for n in range(2, 8):
        save_document(ws, path, f"v{n}\n", read_document(path).version, keep=3)
    history = list_history(ws, path)
    assert [e.read() for e in history] == [b"v6\n", b"v5\n", b"v4\n"]
    assert [e.number for e in history] == [1, 2, 3]


def test_restore_a_version_and_undo_the_restore(ws):
    path = ws / "MEMORY.md"
    for n in (2, 3):
        save_document(ws, path, f"v{n}\n", read_document(path).version)
    restore_version(ws, path, 2)  # v1
    assert path.read_text() == "v1\n"
    assert list_history(ws, path)[0].reason == "restore"
    undo_last_save(ws, path)
    assert path.read_text() == "v3\n"
    with pytest.raises(NoHistory):
        restore_version(ws, path, 99)


def test_undo_last_save(ws):
    path = ws / "MEMORY.md"
    save_document(ws, path, "v2\n", read_document(path).version)
    undo_last_save(ws, path)
    assert path.read_text() == "v1\n"
    assert [e.reason for e in list_history(ws, path)] == ["undo", "save"]


def test_undo_refused_when_the_agent_wrote_after_the_save(ws):
    path = ws / "MEMORY.md"
    save_document(ws, path, "v2\n", read_document(path).version)
    path.write_text("agent v3\n")
    with pytest.raises(SaveConflict, match="since memtui's last save"):
        undo_last_save(ws, path)
    assert path.read_text() == "agent v3\n"


def test_undo_without_history(ws):
    with pytest.raises(NoHistory):
        undo_last_save(ws, ws / "MEMORY.md")


def test_paths_outside_the_workspace_are_refused(ws, tmp_path):
    outside = tmp_path / "outside.md"
    outside.write_text("x\n")
    with pytest.raises(PathEscape):
        save_document(ws, outside, "y\n", ANY)
    assert outside.read_text() == "x\n"


def test_symlinked_document_inside_the_workspace_keeps_its_link(ws):
    target = ws / "notes" / "real.md"
    target.parent.mkdir()
    target.write_text("real\n")
    link = ws / "CLAUDE.md"
    link.symlink_to(target)
    save_document(ws, link, "edited\n", read_document(link).version)
    assert link.is_symlink() and target.read_text() == "edited\n"


def test_non_utf8_bytes_can_be_restored_exactly(ws):
    path = ws / "MEMORY.md"
    raw = b"caf\xe9\n"
    path.write_bytes(raw)
    save_document(ws, path, "cafe\n", read_document(path).version)
    restore_version(ws, path, 1)
    assert path.read_bytes() == raw


def test_a_discarded_edit_is_kept_and_does_not_block_undo(ws):
    path = ws / "MEMORY.md"
    save_document(ws, path, "v2\n", read_document(path).version)
    entry = keep_discarded(ws, path, "my unsaved edit\n")
    assert (entry.number, entry.reason, entry.read()) == (1, "discarded", b"my unsaved edit\n")
    assert path.read_text() == "v2\n"
    undo_last_save(ws, path)
    assert path.read_text() == "v1\n"
