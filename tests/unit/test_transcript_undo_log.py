"""The undo log of rollbacks into a Claude Code/Codex workspace (kept in memtui's state
folder) reads only its own whole manifests: a hand-edited or foreign file there is left out,
and the rollbacks recorded beside it stay listed and undoable."""

from __future__ import annotations

from hashlib import sha256

import pytest

from memtui.core.memory_source import UnknownId
from memtui.core.sources.transcript_undo import UndoLog


def test_a_manifest_without_an_id_or_with_odd_entries_is_left_out(tmp_path):
    log = UndoLog("claude-code", tmp_path / "ws", folder=tmp_path / "state")
    kept = log.record("task-1", {"a.txt": (b"new\n", b"old\n")}, "rollback")
    (log.folder / "undo-noid.json").write_text('{"entries": [], "created_at": "2026-01-01T00:00:00Z"}')
    (log.folder / "undo-odd.json").write_text('{"id": "undo-odd", "entries": ["a.txt", 3]}')
    (log.folder / "undo-other.json").write_text('{"id": "undo-elsewhere", "entries": []}')
    assert [c.id for c in log.newest(10)] == [kept]
    assert [e.path for e in log.entries(kept)] == ["a.txt"]


def blob_names(log: UndoLog) -> set[str]:
    return {p.name for p in (log.folder / "blobs").iterdir()}


def test_removing_entries_deletes_the_contents_no_entry_uses_any_more(tmp_path):
    """A rollback that could not write some files drops their entries from its undo: their
    kept contents go too, except those another entry (of any rollback) still uses."""
    log = UndoLog("claude-code", tmp_path / "ws", folder=tmp_path / "state")
    first = log.record("task-1", {"a.txt": (b"a now\n", b"a before\n"), "b.txt": (b"b now\n", b"shared\n")}, "rollback")
    second = log.record("task-2", {"c.txt": (b"shared\n", None)}, "rollback")
    assert len(blob_names(log)) == 4  # "shared" kept once
    assert log.remove_entries(first, ["b.txt"]) == 1
    assert blob_names(log) == {sha256(b).hexdigest() for b in (b"a now\n", b"a before\n", b"shared\n")}
    assert log.read(f"{second}:0") == (b"shared\n", None)  # still undoable
    assert log.remove_entries(second, ["c.txt"]) == 1
    assert log.remove_entries(first, ["a.txt"]) == 1
    assert blob_names(log) == set()
    assert not [p for p in log.folder.rglob("*") if p.name.endswith(".memtui-tmp")]


def test_removing_entries_of_an_unknown_rollback_writes_nothing(tmp_path):
    log = UndoLog("claude-code", tmp_path / "ws", folder=tmp_path / "state")
    for name in ("undo-0123456789ab", "../undo-x", "rollback-1"):
        with pytest.raises(UnknownId, match="no rollback checkpoint"):
            log.remove_entries(name, ["a.txt"])
    assert not (tmp_path / "state").exists()  # not even the log's folder
    kept = log.record("task-1", {"a.txt": (b"a now\n", b"a before\n")}, "rollback")
    assert log.remove_entries(kept, ["other.txt"]) == 0
    assert [e.path for e in log.entries(kept)] == ["a.txt"]


def test_contents_left_by_a_killed_write_go_with_the_next_write(tmp_path):
    """Killed after a manifest dropped its entries, or after a rollback's contents were
    written but before its manifest: those contents name no entry. The next write of the
    folder deletes them (and a dead writer's temp file); a content a manifest names stays,
    even in a manifest memtui cannot read as a whole."""
    log = UndoLog("claude-code", tmp_path / "ws", folder=tmp_path / "state")
    kept = log.record("task-1", {"a.txt": (b"a now\n", b"a before\n")}, "rollback")
    blobs = log.folder / "blobs"
    stray = blobs / sha256(b"never named\n").hexdigest()
    stray.write_bytes(b"never named\n")
    dead_temp = blobs / f".{stray.name}.999999999-0badc0de.memtui-tmp"
    dead_temp.write_bytes(b"half")
    edited = sha256(b"in an edited manifest\n").hexdigest()
    (blobs / edited).write_bytes(b"in an edited manifest\n")
    (log.folder / "undo-edited.json").write_text(f'{{"entries": "{edited}" }}')
    log.record("task-2", {"b.txt": (None, b"b\n")}, "rollback")
    assert not stray.exists() and not dead_temp.exists()
    assert (blobs / edited).exists()
    assert log.read(f"{kept}:0") == (b"a now\n", b"a before\n")


def test_kill_9_while_recording_and_removing_leaves_whole_undos_and_no_strays(tmp_path):
    """A fast slice of tests/reliability/test_undo_log_kill.py (50 trials)."""
    from tests.unit.undo_log_kill import kill_trial

    for seed in range(3):
        kill_trial(tmp_path / str(seed), seed)


def test_the_contents_kept_for_undo_are_this_users_alone(tmp_path):
    """The bytes a rollback replaced (a file's old contents) are as private as the archive:
    the folders memtui makes for them 0700, each content and manifest 0600."""
    import os
    import stat

    umask = os.umask(0o022)
    try:
        log = UndoLog("claude-code", tmp_path / "ws", folder=tmp_path / "state")
        kept = log.record("task-1", {"secret.env": (b"TOKEN=new\n", b"TOKEN=old\n")}, "rollback")
        log.remove_entries(kept, [])
    finally:
        os.umask(umask)
    folders = [tmp_path / "state", tmp_path / "state" / "undo", log.folder, log.folder / "blobs"]
    assert {oct(stat.S_IMODE(os.stat(p).st_mode)) for p in folders} == {oct(0o700)}
    files = [p for p in log.folder.rglob("*") if p.is_file()]
    assert len(files) == 3 and {oct(stat.S_IMODE(os.stat(p).st_mode)) for p in files} == {oct(0o600)}
