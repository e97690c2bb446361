"""Search across memory documents and the store, with an index that never touches agent.db."""

from __future__ import annotations

import hashlib
import os
import sqlite3
import subprocess
import sys
import textwrap

import pytest
from memory_workspace import FILES, make_store, make_workspace, record_store, store_clock

from memtui.core.atomic import forbid_writes
from memtui.core.memory import SearchIndex, search_workspace
from memtui.core.memory.search import excerpt
from memtui.core.store import AgentStore


@pytest.fixture
def ws(tmp_path):
    root = make_workspace(tmp_path / "ws")
    make_store(root)
    return root


def test_hits_in_files_carry_file_and_line(tmp_path):
    root = make_workspace(tmp_path / "ws")
    hits = search_workspace(root, "flaky")
    found = {(h.kind, h.file, h.line) for h in hits}
    assert ("file", "PROJECT_MEMORY.md", 7) in found
    assert ("file", "SESSION.jsonl", 1) in found
    assert all(h.task is None for h in hits)
    assert hits[0].to_json().keys() == {"kind", "file", "line", "text"}


@pytest.fixture(params=["sqlite", "postgresql"])
def ws_store(request, ws):
    """`open(readonly)`: the store of `ws` (SQLite), or a team store on the test PostgreSQL
    cluster holding the same records; memory documents are read from `ws` for both."""
    if request.param == "sqlite":
        return lambda readonly=True: AgentStore.open(ws, readonly=readonly)
    from memtui.core.store.team import TeamStore

    url = request.getfixturevalue("team_url")
    with TeamStore.open(url, clock=store_clock()) as team:
        record_store(team)
    return lambda readonly=True: TeamStore.open(url, readonly=readonly)


def test_hits_in_the_store(ws, ws_store):
    with ws_store() as store:
        def one(query):
            hits = search_workspace(ws, query, store)
            assert len(hits) == 1, hits
            return hits[0]

        title = one("zebra race")  # task title (HISTORY.jsonl says "zebra project": not both words)
        assert (title.kind, title.task) == ("task", "1")
        assert one("platypus").kind == "task"  # the summary, not again as its message
        step = one("quokka")
        assert (step.kind, step.task, step.line, step.step) == ("step", "1", 1, "1")
        assert step.to_json() == {"kind": "step", "task": 1, "step": 1, "line": 1, "text": step.text}
        message = one("narwhal")
        assert (message.kind, message.task) == ("message", "1")


def test_search_is_case_insensitive_and_matches_substrings_and_short_words(tmp_path):
    root = make_workspace(tmp_path / "ws")
    assert {h.file for h in search_workspace(root, "SQLITE")} >= {"MEMORY.md"}
    assert any(h.file == "SESSION_SUMMARY.md" for h in search_workspace(root, "unfinish"))
    assert any(h.file == "SESSION_SUMMARY.md" for h in search_workspace(root, "io"))  # < 3 chars: scan
    assert any(h.line == 9 for h in search_workspace(root, '"lock around"'))
    assert search_workspace(root, "   ") == []


def test_the_index_lives_beside_the_store_and_agent_db_is_never_written(ws):
    db = ws / ".agent/agent.db"
    digest = hashlib.sha256(db.read_bytes()).hexdigest()
    mtime = os.stat(db).st_mtime_ns
    with AgentStore.open(ws, readonly=True) as store:
        with SearchIndex(ws, store) as index:
            index.refresh()
            assert index.path == str(ws / ".agent/.memtui/search.db")
            assert index.search("zebra")
    assert (ws / ".agent/.memtui/search.db").is_file()
    assert hashlib.sha256(db.read_bytes()).hexdigest() == digest and os.stat(db).st_mtime_ns == mtime


def test_changed_files_are_reindexed(tmp_path):
    root = make_workspace(tmp_path / "ws")
    assert search_workspace(root, "wombat") == []
    (root / "MEMORY.md").write_text("# Memory\nthe wombat rule\n")
    assert [(h.file, h.line) for h in search_workspace(root, "wombat")] == [("MEMORY.md", 2)]
    (root / "MEMORY.md").unlink()
    assert search_workspace(root, "wombat") == []


def test_the_store_part_is_rebuilt_when_the_store_changes(ws, ws_store):
    with ws_store() as store:
        assert search_workspace(ws, "axolotl", store) == []
    with ws_store(readonly=False) as store:
        store.add_message(2, "user", "what about the axolotl?")
    with ws_store() as store:
        assert [(h.kind, h.task) for h in search_workspace(ws, "axolotl", store)] == [("message", "2")]


def test_unwritable_store_folder_builds_a_private_index(ws, monkeypatch):
    # chmod does not stop root (CI containers), so the permission check itself is faked
    monkeypatch.setattr("memtui.core.memory.search.os.access", lambda path, mode: False)
    with AgentStore.open(ws, readonly=True) as store, SearchIndex(ws, store) as index:
        assert index.path == ""  # SQLite's private temporary database
        index.refresh()
        assert index.search("quokka")
    assert not (ws / ".agent/.memtui").exists()


def test_damaged_index_is_rebuilt(tmp_path):
    root = make_workspace(tmp_path / "ws")
    index_file = root / ".agent/.memtui/search.db"
    index_file.parent.mkdir(parents=True)
    index_file.write_bytes(b"not a database at all" * 100)
    assert search_workspace(root, "flaky")


def test_cancelled_refresh_stops_early(tmp_path):
    root = make_workspace(tmp_path / "ws")
    with SearchIndex(root, path=":memory:") as index:
        index.refresh(cancelled=lambda: True)
        assert index.search("flaky") == []


def test_only_changed_tasks_are_reindexed(ws):
    def rows_of(index, task):  # the rowids of a task's records in the index
        return index.conn.execute("SELECT rowid FROM records WHERE owner = ? OR owner LIKE ? ORDER BY rowid",
                                  (task, f"{task}:%")).fetchall()

    with AgentStore.open(ws, readonly=True) as store, SearchIndex(ws, store) as index:
        index.refresh()
        before = {task: rows_of(index, task) for task in ("1", "2")}
    with AgentStore.open(ws) as store:
        store.record_step(2, "bash", {"command": "make lock"}, "capybara ok")
    with AgentStore.open(ws, readonly=True) as store, SearchIndex(ws, store) as index:
        index.refresh()
        assert rows_of(index, "1") == before["1"]  # untouched: not written again
        assert rows_of(index, "2") != before["2"]
        assert [(h.kind, h.task, h.line) for h in index.search("capybara")] == [("step", "2", 1)]
        assert [h.task for h in index.search("quokka")] == ["1"]  # untouched task still indexed


WORDS = {
    "MEMORY.md": (
        "# Memory\n"
        "- call getConfig() before start\n"        # 2: camelCase identifier
        "- parse_config(path) reads the file\n"    # 3: snake_case identifier
        "- parse config by hand is slower\n"       # 4: the same words, not the identifier
        "- see core/store/reads.py for paging\n"   # 5: a path
        "- 数据库连接很慢\n"                          # 6: CJK without spaces
        "- lock, around the corner\n"              # 7: the words of a phrase, not the phrase
        "- Über die Brücke\n"                      # 8: non-ASCII letters
    ),
}


def lines(root, query):
    return sorted(h.line for h in search_workspace(root, query) if h.file == "MEMORY.md")


def test_terms_match_inside_words_identifiers_paths_and_cjk(tmp_path):
    root = make_workspace(tmp_path / "ws", {**FILES, **WORDS})
    assert lines(root, "Config") == [2, 3, 4]  # inside getConfig, parse_config and a word
    assert lines(root, "onfi") == [2, 3, 4]
    assert lines(root, "getconfig") == [2]
    assert lines(root, "config(") == [2, 3] and lines(root, "(path)") == [3]  # punctuation counts
    assert lines(root, "->") == [] and lines(root, "/") == [5]
    assert lines(root, "parse_config") == [3]  # the identifier, not "parse config"
    assert lines(root, "se_con") == [3]
    assert lines(root, "store/reads.p") == [5]
    assert lines(root, "e/reads") == [5]
    assert lines(root, "数据库") == [6] and lines(root, "连接") == [6]  # inside a run; 2 characters
    assert lines(root, '"lock around"') == []  # a phrase is the exact text
    assert lines(root, '"lock, around"') == [7]
    assert lines(root, "brücke") == [8] and lines(root, "über") == [8]
    assert lines(root, "ÜBER") == [8]  # a word: case folded for every letter
    assert lines(root, '"DIE BRÜCKE"') == []  # checked as text: LIKE folds ASCII letters only
    assert lines(root, '"DIE Brücke"') == [8]
    assert lines(root, "getConfig xylophone") == []  # every term must match


def test_hits_come_files_first_then_newest_records_and_are_counted(ws):
    with (ws / "MEMORY.md").open("a") as memory:
        memory.write("".join(f"- llama {i}\n" for i in range(1_100)))
    with AgentStore.open(ws) as store:
        session = store.start_session("llamas")
        older = store.start_task(session, "first llama task")
        newer = store.start_task(session, "second llama task")
    with AgentStore.open(ws, readonly=True) as store, SearchIndex(ws, store) as index:
        index.refresh()
        hits, found = index.search_counted("llama", 200, 1_001)
        assert (len(hits), found) == (200, 1_001)  # "200 of 1,000+"
        first = len(FILES["MEMORY.md"].splitlines()) + 1
        assert [(h.line, h.text) for h in hits[:2]] == [(first, "- llama 0"), (first + 1, "- llama 1")]
        hits, found = index.search_counted("llama", 2_000, 5_000)
        assert found == len(hits) == 1_102
        assert [h.task for h in hits if h.kind == "task"] == [str(newer), str(older)]
        assert index.search_counted("llama task", 1, 1_001) == (hits[-2:-1], 2)
        assert index.search("llama", kinds=["task"]) == hits[-2:]


def test_an_interrupted_first_index_is_rolled_back_and_rebuilt(tmp_path):
    """kill -9 in the middle of the first index: the next search finds everything and
    leaves only the index file."""
    root = make_workspace(tmp_path / "ws")
    with AgentStore.open(root) as store:
        session = store.start_session("many")
        for number in range(60):
            task = store.start_task(session, f"task {number}")
            store.record_step(task, "bash", {"command": f"echo step {number}"}, f"marmot{number}")
    child = textwrap.dedent(f"""
        import sys
        import memtui.core.memory.search as search
        import memtui.core.memory.search_records as records
        import memtui.core.memory.search_sessions as search_sessions
        from memtui.core.store import AgentStore
        records.BATCH = 5
        real = search_sessions.store_batches  # what the store's reader calls
        def held(store, tasks):
            for batch in real(store, tasks):
                yield batch
                print("batch", flush=True)
                sys.stdin.readline()  # held here, mid-build, until the test kills it
        search_sessions.store_batches = held
        with AgentStore.open({str(root)!r}, readonly=True) as store:
            search.search_workspace({str(root)!r}, "marmot", store)
    """)
    proc = subprocess.Popen([sys.executable, "-c", child], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout.readline() == "batch\n"  # indexing has begun, nothing committed
        assert (root / ".agent/.memtui/search.db-journal").exists()
    finally:
        proc.kill()
        proc.wait()
    with AgentStore.open(root, readonly=True) as store:
        assert len(search_workspace(root, "marmot", store, limit=100)) == 60
        assert [h.task for h in search_workspace(root, "marmot59", store)] == ["60"]
    assert sorted(os.listdir(root / ".agent/.memtui")) == ["search.db"]


def test_an_index_of_the_older_layout_is_replaced(tmp_path):
    root = make_workspace(tmp_path / "ws")
    index_file = root / ".agent/.memtui/search.db"
    index_file.parent.mkdir(parents=True)
    with sqlite3.connect(index_file) as old:
        old.execute("CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT)")
        old.execute("INSERT INTO meta VALUES ('schema', '2')")
        old.execute("CREATE VIRTUAL TABLE entries USING fts5(text, tokenize='trigram')")
    old.close()
    assert {h.file for h in search_workspace(root, "flaky")} >= {"PROJECT_MEMORY.md"}
    with sqlite3.connect(index_file) as conn:
        tables = {name for (name,) in conn.execute("SELECT name FROM sqlite_master")}
    conn.close()
    assert "entries" not in tables and "records" in tables


def test_read_only_and_foreign_workspaces_get_no_index_file(tmp_path):
    root = make_workspace(tmp_path / "ws")
    forbid_writes("memtui was started with --read-only")
    try:
        assert search_workspace(root, "flaky")
    finally:
        forbid_writes(None)
    assert not (root / ".agent/.memtui").exists()
    foreign = tmp_path / "project"  # a workspace some other agent keeps: no .agent folder
    foreign.mkdir()
    (foreign / "CLAUDE.md").write_text("# Notes\n- the flaky test\n")
    before = sorted(p.relative_to(foreign) for p in foreign.rglob("*"))
    assert [h.file for h in search_workspace(foreign, "flaky")] == ["CLAUDE.md"]
    assert sorted(p.relative_to(foreign) for p in foreign.rglob("*")) == before


def test_paths_identifiers_punctuation_and_substrings_are_counted_on_from_the_shown_hits(tmp_path):
    """Terms checked as text (a path, an identifier, `->`, a piece of a word) over several
    kinds: the shown hits are the first ones, and the count goes on from the last shown one
    (rows holding the words but not the text are not counted)."""
    notes = FILES["MEMORY.md"] + "- see src/app/main.py -> load_tasks\n- src app main py\n"
    root = make_workspace(tmp_path / "ws", {**FILES, "MEMORY.md": notes})
    with AgentStore.open(root) as store:
        session = store.start_session("paths")
        for number in range(12):
            task = store.start_task(session, f"task {number} src/app/main.py" if number % 3 == 0 else f"task {number}")
            store.record_step(task, "read_file", {"path": "src/app/main.py"}, f"def load_tasks(): -> {number}\nreloading")
            store.record_step(task, "bash", {"command": "ls src app main py"}, "load tasks, not the identifier")
    with AgentStore.open(root, readonly=True) as store, SearchIndex(root, store) as index:
        index.refresh()
        for query, total in (("src/app/main.py", 1 + 4 + 12), ("load_tasks", 1 + 12), ("->", 1 + 12),
                             ("eloadin", 12), ("LOAD_TASKS", 1 + 12)):
            everything, found = index.search_counted(query, 100, 1_000)
            assert found == len(everything) == total, query
            assert everything[0].kind == ("step" if query == "eloadin" else "file")
            assert [h.kind for h in everything] == sorted((h.kind for h in everything),
                                                          key=["file", "task", "message", "step"].index)
            for shown, cap in ((1, 5), (3, 10), (5, 1_000), (total, total + 1), (2, 2)):
                hits, counted = index.search_counted(query, shown, cap)
                assert hits == everything[:shown], (query, shown)
                assert counted == min(total, max(cap, len(hits))), (query, shown, cap)
            for size in (1, 2, 5):  # page after page (across kinds): every hit once, the rest counted
                listed, after = [], None
                while True:
                    page = index.page(query, size, 3, after=after)
                    assert page.more == min(3, total - len(listed) - len(page.hits)), (query, size, len(listed))
                    if not page.hits:
                        break
                    listed += page.hits
                    after = page.after
                assert listed == everything, (query, size)
            assert index.search(query, None) == everything


def test_an_excerpt_is_cut_around_the_first_match_of_any_term():
    text = "x" * 5_000 + " The Needle is here " + "y" * 5_000 + " hay"
    cut = excerpt(text, ["needle", "hay"])
    assert "The Needle is here" in cut and cut.startswith("…") and cut.endswith("…")
    assert excerpt("short  line\nof text", ["zzz"]) == "short line of text"


def test_step_text_is_indexed_with_its_json_escapes_undone(tmp_path):
    """A result kept as a JSON string is searched as the text it stands for: words after a
    `\\n` or a `\\"` are words, `\\u` escapes are the letters they name; a value that is not
    one JSON string (a lone surrogate escape) is indexed as stored, not an error."""
    from memtui.core.memory.search_records import json_text

    root = make_workspace(tmp_path / "ws")
    with AgentStore.open(root) as store:
        task = store.start_task(store.start_session("escapes"), "escapes")
        store.record_step(task, "read_file", {"path": "a.py"}, 'line one\nwombat said "hi"\tété 😀')
    with AgentStore.open(root, readonly=True) as store:
        hits = search_workspace(root, "wombat", store)
        assert [h.text for h in hits] == ['read_file {"path": "a.py"} line one wombat said "hi" été 😀']
        assert [h.kind for h in search_workspace(root, '"hi" été', store)] == ["step"]
    assert json_text('"a\\nb \\u00e9\\ud83d\\ude00"') == "a\nb é😀"
    assert json_text('"\\ud800 x"') == '"\\ud800 x"'  # not decodable to text SQLite takes: as stored
    assert json_text('{"k": "a\\nb \\"c\\""}') == '{"k": "a\nb "c""}'
    assert json_text("null") == "" and json_text('"' + "x" * 40_000 + '"') == "x" * 32_000


def test_batches_split_by_steps_index_the_same_records(tmp_path, monkeypatch):
    """A refresh reads the store a batch at a time (so many tasks or steps): however the
    batches fall, the same hits come in the same order."""
    import memtui.core.memory.search_records as records

    root = make_workspace(tmp_path / "ws")
    with AgentStore.open(root) as store:
        session = store.start_session("batches")
        for number in range(7):
            task = store.start_task(session, f"otter task {number}")
            for step in range(number):
                store.record_step(task, "bash", {"command": f"echo otter {number}.{step}"}, "ok")
    with AgentStore.open(root, readonly=True) as store:
        with SearchIndex(root, store, path=tmp_path / "whole.db") as index:
            index.refresh()
            whole = index.search("otter", limit=100)
        monkeypatch.setattr(records, "BATCH_STEPS", 4)
        monkeypatch.setattr(records, "BATCH", 3)
        with SearchIndex(root, store, path=tmp_path / "batched.db") as index:
            index.refresh()
            assert index.search("otter", limit=100) == whole
    assert len(whole) == 7 + sum(range(7))
    assert [h.task for h in whole if h.kind == "task"] == [str(n) for n in range(7, 0, -1)]


def test_a_first_index_cancelled_part_way_goes_on_to_the_same_hits(tmp_path, monkeypatch):
    """A first index goes newest task first; cancelled after a few batches and then finished,
    it finds the same hits in the same order as one built in one go (the older tasks go after
    the ones indexed, not before)."""
    import memtui.core.memory.search_records as records
    import memtui.core.memory.search_sessions as search_sessions

    root = make_workspace(tmp_path / "ws")
    with AgentStore.open(root) as store:
        session = store.start_session("resumed")
        for number in range(9):
            task = store.start_task(session, f"heron task {number}")
            store.add_message(task, "user", f"heron message {number}")
            for step in range(number % 3 + 1):
                store.record_step(task, "bash", {"command": f"echo heron {number}.{step}"}, f"heron out {number}")
    monkeypatch.setattr(records, "BATCH", 2)
    with AgentStore.open(root, readonly=True) as store:
        with SearchIndex(root, store, path=tmp_path / "whole.db") as index:
            index.refresh()
            whole = index.search("heron", limit=1_000)
        read = []
        real = records.store_batches

        def counted(*args, **options):
            for batch in real(*args, **options):
                yield batch
                read.append(batch)

        monkeypatch.setattr(search_sessions, "store_batches", counted)  # what the store's reader calls
        with SearchIndex(root, store, path=tmp_path / "resumed.db") as index:
            index.refresh(cancelled=lambda: len(read) >= 2)  # two batches, then cancelled
            part = index.search("heron", limit=1_000)
            assert 0 < len(part) < len(whole)
            assert {h.task for h in part} == {"9", "8", "7", "6"}  # the newest tasks, whole
            index.refresh()
            assert index.search("heron", limit=1_000) == whole
    assert [h.task for h in whole if h.kind == "task"] == [str(n) for n in range(9, 0, -1)]
    assert [h.line for h in whole if h.task == "9" and h.kind == "step"] == [3, 2, 1]


def test_tasks_indexed_later_come_first_newest_first(tmp_path):
    """Tasks recorded after the first index (one refresh, one batch) are listed before the
    older ones, the newest first, and a task's steps the last first."""
    root = make_workspace(tmp_path / "ws")
    with AgentStore.open(root) as store:
        session = store.start_session("later")
        store.record_step(store.start_task(session, "ibis 1"), "bash", {"command": "ibis"}, "ibis")
    with AgentStore.open(root, readonly=True) as store, SearchIndex(root, store) as index:
        index.refresh()
    with AgentStore.open(root) as store:
        for number in (2, 3):
            task = store.start_task(session, f"ibis {number}")
            for step in range(2):
                store.record_step(task, "bash", {"command": f"ibis {number}.{step}"}, "ibis")
    with AgentStore.open(root, readonly=True) as store, SearchIndex(root, store) as index:
        index.refresh()
        hits = index.search("ibis", limit=100)
    assert [h.task for h in hits if h.kind == "task"] == ["3", "2", "1"]
    assert [(h.task, h.line) for h in hits if h.kind == "step"] == [("3", 2), ("3", 1), ("2", 2), ("2", 1), ("1", 1)]


def test_punctuation_finds_what_a_plain_scan_of_the_records_finds(tmp_path):
    """Terms without a word (`->`, `%`, `_`…) are checked row by row: the hits and the count
    are those of a plain scan of every indexed text, in the index's order."""
    import random

    chunks = ["a->b", "x => y", "std::vec", "<!-- c -->", "50%", "snake_case", "C:\\dir", "plain words", "é->ü",
              "'q'", "-", ">"]
    rng = random.Random(7)
    notes = FILES["MEMORY.md"] + "".join(f"- {' '.join(rng.sample(chunks, 3))}\n" for _ in range(5))
    root = make_workspace(tmp_path / "ws", {**FILES, "MEMORY.md": notes})
    with AgentStore.open(root) as store:
        session = store.start_session("punctuation")
        for number in range(40):
            task = store.start_task(session, f"task {number} {rng.choice(chunks)}")
            for _ in range(rng.randint(0, 4)):
                store.record_step(task, "bash", {"command": " ".join(rng.sample(chunks, 2))}, rng.choice(chunks))
    with AgentStore.open(root, readonly=True) as store, SearchIndex(root, store) as index:
        index.refresh()
        kinds = {1: "file", 2: "task", 3: "message", 4: "step"}
        rows = index.conn.execute("SELECT rowid, owner, text FROM records ORDER BY rowid").fetchall()
        for term in ("->", "=>", "::", "-->", "%", "_", "\\", "'", "-", ">", "ü", "=>>"):
            scanned = [(kinds[rowid >> 40], owner) for rowid, owner, text in rows if term in text]
            hits, found = index.search_counted(term, 10_000, 10_000)
            assert [(h.kind, f"{h.line}:{h.file}" if h.kind == "file" else f"{h.task}:{h.step}:{h.line}"
                     if h.kind == "step" else h.task) for h in hits] == scanned, term
            assert found == len(scanned), term
            if len(scanned) > 6:
                assert index.search_counted(term, 3, 6) == (hits[:3], 6)


def test_an_index_another_process_is_updating_is_left_to_it(tmp_path, monkeypatch):
    """While one memtui refreshes the index (a long first build, say) another opening it must
    not take it for a damaged one: it used to wait, then delete the file and its journal
    from under the writer, whose commit then failed with a disk I/O error. Now the second one
    still searches what the index holds, its own refresh says the index is busy, and the
    first one's refresh is kept."""
    import memtui.core.memory.search as search
    from memtui.core.errors import StoreLocked

    monkeypatch.setattr(search, "BUSY_TIMEOUT", 0.1)
    root = make_workspace(tmp_path / "ws")
    path = tmp_path / "search.db"
    with SearchIndex(root, None, path=path) as index:
        index.refresh()
        found = index.search("pytest")
    assert found
    (root / "MEMORY.md").write_text(FILES["MEMORY.md"] + "- pytest -x first\n")  # the next refresh has work
    writer = sqlite3.connect(path)  # another process's refresh, under way
    writer.execute("BEGIN IMMEDIATE")
    writer.execute("INSERT INTO meta(key, value) VALUES ('other', 'refresh')")
    try:
        with SearchIndex(root, None, path=path) as index:
            assert index.search("pytest") == found
            with pytest.raises(StoreLocked, match="another memtui"):
                index.refresh()
        writer.commit()  # the other refresh ends well: its index was not taken away
    finally:
        writer.close()
    with SearchIndex(root, None, path=path) as index:
        assert index.conn.execute("SELECT value FROM meta WHERE key = 'other'").fetchone() == ("refresh",)
        index.refresh()
        assert sorted(h.text for h in index.search("pytest")) == sorted(["- pytest -x first", *(h.text for h in found)])


def test_an_open_search_keeps_no_lock_on_the_index(tmp_path):
    """A search screen left open after a search holds no lock on the index: another process
    refreshes it at once (it used to wait out the busy timeout, then give up). The other
    process does not wait at all here: a lock left open fails its refresh (StoreLocked)."""
    root = make_workspace(tmp_path / "ws")
    with SearchIndex(root) as shown:
        shown.refresh()
        assert shown.search("flaky")  # the screen's search: nothing stays open after it
        assert not shown.conn.in_transaction
        with open(root / "MEMORY.md", "a") as memory:
            memory.write("- the marmot line\n")
        child = textwrap.dedent(f"""
            import memtui.core.memory.search as search
            search.BUSY_TIMEOUT = 0  # no waiting: any lock the open search kept fails the refresh
            with search.SearchIndex({str(root)!r}) as index:
                index.refresh()
                print(len(index.search("marmot")))
        """)
        done = subprocess.run([sys.executable, "-c", child], capture_output=True, text=True)
        assert (done.returncode, done.stdout) == (0, "1\n"), done.stderr
        assert shown.search("marmot")


def test_a_search_cancelled_while_it_runs_stops_and_the_next_one_answers(tmp_path):
    """A scan of every row (`<=>`: no word to look up) is abandoned as soon as its caller
    says so (a newer query was typed), not run to the end; the index answers the next
    search as before."""
    root = make_workspace(tmp_path / "ws")
    (root / "MEMORY.md").write_text("".join(f"- rule {n}: a <=> b\n" for n in range(3_000)))
    with SearchIndex(root) as index:
        index.refresh()
        looks = []

        def cancelled() -> bool:
            looks.append(1)
            return len(looks) > 2  # a newer query comes while this one scans

        assert index.search_counted("<=>", 200, 1_001, cancelled=cancelled) == ([], 0)
        assert len(looks) >= 3
        hits, found = index.search_counted("<=>", 200, 1_001, cancelled=lambda: False)
        assert len(hits) == 200 and found == 1_001
        assert hits[0].text == "- rule 0: a <=> b" and hits[0].spans == ((12, 15),)
        assert index.search_counted("rule", 5, 10)[1] == 10


def test_a_refresh_leaves_the_cycle_collector_as_it_found_it(ws):
    """The collector pauses while the index is built (its passes only walk the rows being
    indexed), then is back on; one that was off (the app's start-up pause) stays off."""
    import gc

    assert gc.isenabled()
    with AgentStore.open(ws, readonly=True) as store, SearchIndex(ws, store, path=":memory:") as index:
        index.refresh()
        assert gc.isenabled() and [h.kind for h in index.search("quokka")] == ["step"]
        gc.disable()
        try:
            with SearchIndex(ws, store, path=":memory:") as again:
                again.refresh()
            assert not gc.isenabled()
        finally:
            gc.enable()


def test_the_store_is_mapped_only_while_a_refresh_reads_it(ws):
    """A refresh maps agent.db into memory for its reads (read-only or writable store), and
    leaves the store's connection reading as before."""
    for readonly in (True, False):
        with AgentStore.open(ws, readonly=readonly) as store, SearchIndex(ws, store, path=":memory:") as index:
            index.refresh()
            assert [h.kind for h in index.search("quokka")] == ["step"]
            assert store.query("PRAGMA mmap_size") == [(0,)]
