"""The undo log of rollbacks into a Claude Code/Codex workspace (kept in memtui's state
folder) reads only its own whole manifests: a hand-edited or foreign file there is left out,
and the rollbacks recorded beside it stay listed and undoable."""

from __future__ import annotations

from memtui.core.sources.transcript_undo import UndoLog


def test_a_manifest_without_an_id_or_with_odd_entries_is_left_out(tmp_path):
    log = UndoLog("claude-code", tmp_path / "ws", folder=tmp_path / "state")
    kept = log.record("task-1", {"a.txt": (b"new\n", b"old\n")}, "rollback")
    (log.folder / "undo-noid.json").write_text('{"entries": [], "created_at": "2026-01-01T00:00:00Z"}')
    (log.folder / "undo-odd.json").write_text('{"id": "undo-odd", "entries": ["a.txt", 3]}')
    (log.folder / "undo-other.json").write_text('{"id": "undo-elsewhere", "entries": []}')
    assert [c.id for c in log.newest(10)] == [kept]
    assert [e.path for e in log.entries(kept)] == ["a.txt"]
