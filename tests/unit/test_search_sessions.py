"""`memtui search` on an agent's own home: its sessions' steps are found, counted as the raw
transcripts say (read here with json, independently of memtui), and nothing is written into
the home."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from memtui.cli import main
from memtui.core.memory.search import SearchIndex, default_index_path
from memtui.core.memory.search_records import TaskRow, split_older
from memtui.core.resolve import open_source

from real_support import claude_results_holding, codex_outputs_holding, real_home


def tree_bytes(home: Path) -> dict[str, str]:
    """Every file and folder under `home`, files with a digest of their bytes."""
    return {str(p.relative_to(home)): hashlib.sha256(p.read_bytes()).hexdigest() if p.is_file() else "dir"
            for p in sorted(home.rglob("*"))}


def search_json(capsys, home: Path, *words: str) -> tuple[int, list[dict]]:
    code = main(["search", str(home), *words, "--json"])
    return code, json.loads(capsys.readouterr().out)


def test_search_on_a_claude_home_finds_its_steps_as_the_transcripts_count_them(tmp_path, capsys):
    home = real_home("claude-2.1.38-spotter-small", tmp_path)
    expected = claude_results_holding(home, "elixirforum")
    assert expected == 4  # the fixture as published (PROVENANCE.md)
    before = tree_bytes(home)
    code, hits = search_json(capsys, home, "elixirforum")
    assert code == 0
    assert len(hits) == expected and {h["kind"] for h in hits} == {"step"}
    assert all("elixirforum" in h["text"].lower() for h in hits)
    # Each hit names a task and step of the source, as its panes list them.
    with open_source(home) as source:
        for hit in hits:
            steps = source.steps(hit["task"])
            assert any(str(s.id) == hit["step"] and s.seq == hit["line"] for s in steps)
    code, again = search_json(capsys, home, "elixirforum")
    assert again == hits
    assert tree_bytes(home) == before  # nothing written into the agent's home


def test_search_on_a_codex_home_finds_its_command_output(tmp_path, capsys):
    home = real_home("codex-0.66.0-agtrace", tmp_path)
    expected = codex_outputs_holding(home, "shellenv")
    assert expected == 3
    before = tree_bytes(home)
    code, hits = search_json(capsys, home, "shellenv", "--kind", "step")
    assert code == 0 and len(hits) == expected
    assert all(h["task"].startswith("019b04ae-b1c6-7c72-a134-a4c2de66058c:") for h in hits)
    code = main(["search", str(home), "shellenv"])
    out = capsys.readouterr().out
    assert code == 0 and out.count(" step ") == expected
    assert tree_bytes(home) == before


def test_an_agents_sessions_are_indexed_outside_its_home_and_again_only_when_a_session_changed(tmp_path):
    import os

    home = real_home("codex-0.66.0-agtrace", tmp_path)
    rollout = next(home.rglob("rollout-*.jsonl"))
    with open_source(home) as source:
        kept = Path(default_index_path(home, source))
        assert kept.parent == Path(os.environ["XDG_CACHE_HOME"]) / "memtui" / "search"  # memtui's cache
        with SearchIndex(home, source, path=tmp_path / "index.db") as index:
            index.refresh()
            shellenv = codex_outputs_holding(home, "shellenv")
            assert shellenv and len(index.search("shellenv", kinds=["step"])) == shellenv
            assert index.search("quetzalcoatl") == []
            # The agent goes on: a new prompt and a command whose output holds a new word.
            lines = rollout.read_text(encoding="utf-8").splitlines()
            call = next(json.loads(x) for x in lines if json.loads(x).get("payload", {}).get("type") == "function_call")
            out = next(json.loads(x) for x in lines
                       if json.loads(x).get("payload", {}).get("type") == "function_call_output")
            out["payload"] = {**out["payload"], "call_id": "call_new", "output": "quetzalcoatl shellenv"}
            call["payload"] = {**call["payload"], "call_id": "call_new"}
            with rollout.open("a", encoding="utf-8") as f:
                f.write(json.dumps(call) + "\n" + json.dumps(out) + "\n")
            source.reload()
            index.refresh()
            assert len(index.search("quetzalcoatl")) == 1
            # the session's records once, not twice: the new output is one hit more
            assert len(index.search("shellenv", kinds=["step"])) == shellenv + 1 == codex_outputs_holding(home, "shellenv")


def test_split_older_leaves_session_keys_in_their_order():
    rows = [TaskRow("session:019b04ae-b1c6", "", "", "a"), TaskRow("session:d6e0bada", "", "", "b")]
    assert split_older(rows, {}) == ([], rows)
    assert split_older(rows, {"session:d6e0bada": "x"}) == ([], rows)


def _rewrite_in_place(path: Path, old: bytes, new: bytes) -> int:
    """Every `old` in the file overwritten by `new` (same length), in the same file (same inode,
    same size): an editor's or a tool's in-place fix. How many were rewritten."""
    assert len(old) == len(new)
    data = path.read_bytes()
    with path.open("r+b") as f:
        f.write(data.replace(old, new))
    return data.count(old)


def test_a_same_length_edit_of_a_transcript_is_indexed_again(tmp_path):
    """The session keeps its size, last activity, title and task count; the index still
    takes the edit (the search screen refreshes the same index when follow mode reloads)."""
    home = real_home("claude-2.1.38-spotter-small", tmp_path)
    with open_source(home) as source, SearchIndex(home, source, path=tmp_path / "index.db") as index:
        index.refresh()
        before = claude_results_holding(home, "elixirforum")
        assert len(index.search("elixirforum")) == before == 4
        edited = next(p for p in sorted(home.rglob("*.jsonl")) if b"elixirforum" in p.read_bytes())
        sizes = [(s.id, s.stored_bytes, s.updated_at, s.title, s.task_count) for s in source.sessions()]
        assert _rewrite_in_place(edited, b"elixirforum", b"quetzalcoat") > 0
        source.reload()
        assert [(s.id, s.stored_bytes, s.updated_at, s.title, s.task_count) for s in source.sessions()] == sizes
        index.refresh()
        assert len(index.search("quetzalcoat")) == claude_results_holding(home, "quetzalcoat") > 0
        assert len(index.search("elixirforum")) == claude_results_holding(home, "elixirforum") < before



def test_memtui_search_finds_a_transcript_line_rewritten_in_place(tmp_path, capsys):
    """`memtui search` keeps a home's index between runs (in the cache folder): a line of a
    transcript rewritten with a word of the same length is found by its new word, no longer by
    its old one."""
    home = real_home("claude-2.1.38-spotter-small", tmp_path)
    code, hits = search_json(capsys, home, "elixirforum")
    assert code == 0 and len(hits) == claude_results_holding(home, "elixirforum") == 4
    edited = next(p for p in sorted(home.rglob("*.jsonl")) if b"elixirforum" in p.read_bytes())
    assert _rewrite_in_place(edited, b"elixirforum", b"quetzalcoat") > 0
    code, hits = search_json(capsys, home, "quetzalcoat")
    assert code == 0 and len(hits) == claude_results_holding(home, "quetzalcoat") > 0
    code, hits = search_json(capsys, home, "elixirforum")
    assert len(hits) == claude_results_holding(home, "elixirforum") < 4


def test_a_steps_arguments_are_indexed_as_their_values_not_their_json(tmp_path, capsys):
    """A Read call's argument is found by its file path, and its record holds the path, not the
    JSON around it (`{"file_path": "…"}`: keys and quotes are no words anyone searches for)."""
    home = real_home("claude-2.1.38-spotter-small", tmp_path)
    code, hits = search_json(capsys, home, "assets/js/app.js", "--kind", "step")
    assert code == 0
    reads = [h for h in hits if h["text"].startswith("Read ")]
    assert reads, [h["text"][:80] for h in hits]
    assert all(h["text"].startswith("Read /home/marco/projects/spotter/assets/js/app.js ") and '"file_path"' not in h["text"]
               for h in reads), [h["text"][:80] for h in reads]


def _grow(transcript: Path, lines: int) -> None:
    """The session goes on: its last `lines` records again, under new uuids chained one after
    another, as the agent appends them (prompts start new tasks, tool calls add steps)."""
    import uuid

    records = [json.loads(x) for x in transcript.read_text(encoding="utf-8").splitlines()[-lines:] if x.strip()]
    parent = next((r.get("uuid") for r in reversed(records) if r.get("uuid")), None)
    with transcript.open("a", encoding="utf-8") as out:
        for record in records:
            if "uuid" in record:
                record["uuid"], record["parentUuid"], parent = str(uuid.uuid4()), parent, record["uuid"]
            out.write(json.dumps(record) + "\n")


def _records(index: SearchIndex) -> list[tuple[str, str]]:
    """Every record the index holds (its owner and text), whatever its place."""
    return sorted(index.conn.execute("SELECT owner, text FROM records").fetchall())


def test_a_session_that_grew_has_only_its_new_and_grown_tasks_indexed_again(tmp_path, monkeypatch):
    """Its tasks before the last are not read again; the index then holds exactly the records
    an index built from nothing over the grown home holds."""
    from memtui.core.memory import search_sessions

    home = real_home("claude-2.1.39-spotter", tmp_path)
    read: list[list[str]] = []
    real = search_sessions.session_records

    def counted(source, key, session_id, tasks=None):
        read.append([str(t.id) for t in (tasks if tasks is not None else source.tasks(session_id))])
        return real(source, key, session_id, tasks)

    monkeypatch.setattr(search_sessions, "session_records", counted)
    with open_source(home) as source, SearchIndex(home, source, path=tmp_path / "index.db") as index:
        index.refresh()
        session = max(source.sessions(), key=lambda s: s.task_count)
        tasks_before = [str(t.id) for t in source.tasks(session.id)]
        assert len(tasks_before) >= 3
        transcript = next(p for p in home.rglob(f"{session.id}.jsonl"))
        _grow(transcript, 60)
        first = json.loads(transcript.read_text(encoding="utf-8").splitlines()[0])
        last = [json.loads(x) for x in transcript.read_text(encoding="utf-8").splitlines() if x.strip()][-1]
        prompt = {**first, "type": "user", "uuid": "a-new-prompt", "parentUuid": last.get("uuid"),
                  "timestamp": "2031-01-01T00:00:00.000Z",
                  "message": {"role": "user", "content": "find the quetzalcoatl thread"}}
        with transcript.open("a", encoding="utf-8") as out:
            out.write(json.dumps(prompt) + "\n")  # and the user asks for more: a new task
        source.reload()
        tasks_after = [str(t.id) for t in source.tasks(session.id)]
        new = set(tasks_after) - set(tasks_before)
        assert new  # the new prompt's
        read.clear()
        index.refresh()
        [again] = read  # the one session that changed
        assert new <= set(again) and tasks_before[0] not in again  # the new tasks, not the first
        assert len(again) < len(tasks_after)
        grown = _records(index)
    with open_source(home) as source, SearchIndex(home, source, path=tmp_path / "fresh.db") as fresh:
        fresh.refresh()
        assert grown == _records(fresh)


def _words(index: SearchIndex) -> set[str]:
    """The vocabulary a search looks words up in (a term inside a word: its trigram index)."""
    return {term for (term,) in index.conn.execute("SELECT term FROM terms")}


def test_a_first_build_cancelled_part_way_and_finished_knows_every_word_of_one_built_at_once(tmp_path, monkeypatch):
    """The app cancels a search's refresh at each key typed; the next goes on from the records
    kept. Its new words are learnt from the whole word index when many records came (the
    rest of a first build) or by tokenising the new records (a few): either way the index
    then finds what an index built in one go finds, words inside words too."""
    from memtui.core.memory import search

    home = real_home("claude-2.1.39-spotter", tmp_path)
    with open_source(home) as source, SearchIndex(home, source, path=tmp_path / "whole.db") as whole:
        whole.refresh()
        words, hits = _words(whole), sorted((h.kind, h.task, h.step, h.text) for h in whole.search("ixtur", limit=None))
    assert len(words) > 1_000 and hits  # "fixture", inside words and alone
    for threshold in (1, 10**9):  # the rest learnt from the whole word index / from its new records alone
        monkeypatch.setattr(search, "WHOLE_VOCABULARY_ROWS", threshold)
        asked = [0]

        def cancelled() -> bool:
            asked[0] += 1
            return asked[0] > 3  # a few sessions in, then for good (as a worker's cancel)

        with open_source(home) as source, SearchIndex(home, source, path=tmp_path / f"{threshold}.db") as index:
            index.refresh(cancelled)
            part = _words(index)
            assert 0 < len(part) < len(words)  # the first sessions' words alone
            index.refresh()
            assert _words(index) == words
            assert sorted((h.kind, h.task, h.step, h.text) for h in index.search("ixtur", limit=None)) == hits
