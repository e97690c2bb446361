"""A warm `memtui search` of an agent's home (nothing changed since the last search) lists no
session: what the sessions are read from is only stat'ed (MemorySource.sessions_key, kept
with the search index), so neither the read model's index file (every session's part) nor a
transcript is read. Any change to what the sessions are read from — a grown transcript, a
file of a session's folder written in place, history.jsonl (titles) — lists them again,
so a search never answers from stale records. Observed from outside: the read model's index
file is removed after a search; a search that reads the read model makes it again."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

import memtui
from memtui.cli import main
from memtui.core.memory.search import SearchIndex
from memtui.core.resolve import resolve

from real_support import many_sessions

COPIES = 2  # of the 3 sessions of claude-2.1.38-spotter-small


@pytest.fixture
def home(tmp_path):
    return many_sessions("claude-2.1.38-spotter-small", tmp_path, COPIES)


def read_model() -> list[Path]:
    """The files of the homes' read-model index in memtui's cache folder."""
    folder = Path(os.environ["XDG_CACHE_HOME"]) / "memtui" / "index"
    return sorted(folder.iterdir()) if folder.is_dir() else []


def drop_read_model() -> None:
    for path in read_model():
        path.unlink()


def search(capsys, home: Path, word: str) -> tuple[int, list[dict]]:
    code = main(["search", str(home), word, "--json"])
    out, _err = capsys.readouterr()
    return code, json.loads(out) if out.strip() else []


def grow(transcript: Path, text: str) -> None:
    """The agent goes on in the session: a prompt more at its end."""
    line = json.loads(transcript.read_text(encoding="utf-8").splitlines()[0])
    prompt = {**line, "type": "user", "uuid": f"prompt-{text}", "message": {"role": "user", "content": text}}
    with transcript.open("a", encoding="utf-8") as out:
        out.write(json.dumps(prompt) + "\n")


def test_a_warm_search_reads_no_session_yet_sees_every_change(home, capsys):
    code, hits = search(capsys, home, "elixirforum")
    assert code == 0 and hits and read_model()
    drop_read_model()
    assert search(capsys, home, "elixirforum") == (0, hits)
    assert read_model() == []  # nothing changed: the sessions were not listed

    transcript = next(home.glob("projects/*/55604662-*.jsonl"))
    grow(transcript, "find the quetzalcoatl elixirforum thread")
    code, found = search(capsys, home, "quetzalcoatl")
    assert code == 0 and [h["text"] for h in found] == ["find the quetzalcoatl elixirforum thread"]
    assert read_model()  # listed again to find what changed
    drop_read_model()
    assert search(capsys, home, "quetzalcoatl") == (0, found)
    assert read_model() == []

    # A file of the session's folder (a persisted tool result) added, then written in place at
    # the same size: the session's size and files key change, so the sessions are listed again.
    result = transcript.with_suffix("") / "tool-results" / "toolu_1.txt"
    result.parent.mkdir(parents=True)
    result.write_text("first")
    assert search(capsys, home, "quetzalcoatl") == (0, found)
    assert read_model()
    drop_read_model()
    result.write_text("again")
    os.utime(result, ns=(result.stat().st_atime_ns, result.stat().st_mtime_ns + 10**9))
    assert search(capsys, home, "quetzalcoatl") == (0, found)
    assert read_model()
    drop_read_model()
    (home / "history.jsonl").write_text("")  # the titles of untitled sessions are read there
    assert search(capsys, home, "quetzalcoatl") == (0, found)
    assert read_model()


def test_a_source_kept_open_searches_its_sessions_as_they_are_after_a_reload(home):
    """The app's search: one source kept open, reloaded as its agent writes; the index it
    refreshes is never taken to be current by a key made before the reload."""
    with memtui.open(home) as source, SearchIndex(home, source) as index:
        index.refresh()
        assert index.search("zanzibar") == []
        transcript = next(home.glob("projects/*/55604662-*.jsonl"))
        grow(transcript, "zanzibar is where the thread went")
        source.reload()
        index.refresh()
        assert [h.text for h in index.search("zanzibar")] == ["zanzibar is where the thread went"]
    with memtui.open(home) as source, SearchIndex(home, source) as index:  # the next run: warm
        index.refresh()
        assert [h.text for h in index.search("zanzibar")] == ["zanzibar is where the thread went"]


def test_a_session_written_while_the_sessions_were_first_read_is_searched(home, capsys):
    """The sessions key is made before the source reads its index (the app asks its store's
    root first); an agent writing before that read is found by the search, not hidden by the
    key the last search kept (the state before that write)."""
    code, hits = search(capsys, home, "elixirforum")  # the search index keeps the key of the home as it is
    assert code == 0 and hits
    with resolve(home) as resolved:  # as `memtui search` opens it: the same search index
        source, root = resolved.source, resolved.root
        key = source.sessions_key()
        assert key is not None
        transcript = next(home.glob("projects/*/55604662-*.jsonl"))
        grow(transcript, "the ocelot thread")  # written before the index is read
        assert any(s.task_count for s in source.sessions())  # the index read: the grown session in it
        assert source.sessions_key() == key  # as old as the sessions or older: kept with them, found changed sooner
        with SearchIndex(root, source) as index:
            index.refresh()
            assert [h.text for h in index.search("ocelot")] == ["the ocelot thread"]
        assert source.sessions_key(again=True) is None  # the files changed since it was made
