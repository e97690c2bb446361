"""An exported checkpoint names a file whose before and after are the same bytes (a checkpoint
taken of a file the step did not change) as "no changes (N lines identical)", with no diff
block; it read "+0 −0" beside an empty diff. A changed file beside it keeps its counts and its
diff, in Markdown and HTML; the JSON keeps the numbers (0 and 0)."""

from __future__ import annotations

from memtui.core.export import build_export, render_export
from memtui.core.store import AgentStore


def test_an_unchanged_file_is_exported_as_no_changes_and_a_changed_one_with_its_counts(tmp_path) -> None:
    same = b"one\ntwo\nthree\n"
    with AgentStore.open(tmp_path / "ws") as store:
        sid = store.start_session("Tidy")
        tid = store.start_task(sid, "Tidy the notes")
        step = store.record_step(tid, "Edit", {"file_path": "notes.txt"})
        store.record_checkpoint(tid, step, {"kept.txt": (same, same), "notes.txt": (b"a\nb\n", b"a\nB\nc\n")})
        doc = build_export(store, task_id=tid)
    entries = {e["path"]: e for cp in doc["tasks"][0]["checkpoints"] for e in cp["entries"]}
    kept, notes = entries["kept.txt"], entries["notes.txt"]
    assert kept["note"] == "no changes (3 lines identical)" and kept["diff"] is None
    assert (kept["added"], kept["removed"]) == (0, 0)
    assert (notes["added"], notes["removed"]) == (2, 1) and "+B" in notes["diff"] and not notes["note"]
    for fmt in ("md", "html"):
        text = render_export(doc, fmt)
        assert "+0 −0" not in text, fmt
        assert "no changes (3 lines identical)" in text and "+2 −1" in text, fmt
        assert text.count("Diff (") == 1, fmt  # the changed file's alone
