"""Search over memtui's store on both engines, with the same assertions: agent.db (its records
kept in the SQLite index beside it) and the team store on a real PostgreSQL server (its records
found by the server itself: memtui.core.store.team_search). What a user sees — which hits, in
which order, how many more — is the same; only where the matching happens differs."""

from __future__ import annotations

import random
from contextlib import contextmanager
from pathlib import Path

import pytest
from memory_workspace import FILES, make_workspace

from memtui.cli import main
from memtui.core.demo import DemoClock
from memtui.core.memory import SearchIndex
from memtui.core.memory.search_records import store_batches, task_rows
from memtui.core.store import AgentStore


class Engine:
    """One store for a test: `writing()` opens it for recording, `index()` a search index over
    it opened read-only, as `memtui search` and the app's search open them."""

    def __init__(self, name: str, root: Path, url: str | None) -> None:
        self.name, self.root, self.url = name, root, url

    def _open(self, readonly: bool):
        if self.url is None:
            return AgentStore.open(self.root, readonly=readonly, clock=None if readonly else DemoClock())
        from memtui.core.store.team import TeamStore

        return TeamStore.open(self.url, readonly=readonly, clock=None if readonly else DemoClock())

    def writing(self):
        return self._open(readonly=False)

    @contextmanager
    def index(self):
        with self._open(readonly=True) as store, SearchIndex(self.root, store) as index:
            index.refresh()
            yield index

    @property
    def target(self) -> str:
        """What `memtui search` is given for this store."""
        return self.url or str(self.root)


@pytest.fixture(params=["sqlite", "postgresql"])
def engine(request, tmp_path) -> Engine:
    root = tmp_path / "ws"
    (root / ".agent").mkdir(parents=True)  # a workspace without memory documents: only the store is searched
    url = request.getfixturevalue("team_url") if request.param == "postgresql" else None
    return Engine(request.param, root, url)


def test_terms_match_inside_words_identifiers_paths_and_punctuation(engine):
    with engine.writing() as store:
        session = store.start_session("words")
        task = store.start_task(session, "call getConfig then parse_config")
        store.record_step(task, "read_file", {"path": "core/store/reads.py"}, "def flush(): -> None\n数据库连接")
        store.add_message(task, "user", "Über die Brücke, lock, around the io loop")
        other = store.start_task(session, "nothing to see")
        store.record_step(other, "bash", {"command": "ls"}, "xylophone")
    with engine.index() as index:
        def kinds(query):
            return [h.kind for h in index.search(query)]

        assert kinds("Config") == ["task"] and kinds("onfi") == ["task"] and kinds("getconfig") == ["task"]
        assert kinds("parse_config") == ["task"] and kinds("se_con") == ["task"]
        assert kinds("store/reads.p") == ["step"] and kinds("e/reads") == ["step"]
        assert kinds("->") == ["step"] and kinds("flush()") == ["step"]
        assert kinds("数据库") == ["step"] and kinds("连接") == ["step"]
        assert kinds("io") == ["message"] and kinds("ke") == ["message"]  # 2 characters: inside words too
        assert kinds('"lock, around"') == ["message"] and kinds('"lock around"') == []
        assert kinds("brücke") == ["message"]
        assert kinds("getConfig xylophone") == []  # every term must match, in one record
        assert kinds("xylophone") == ["step"] and kinds("   ") == []


def test_hits_come_newest_first_by_kind_and_are_counted_and_paged(engine):
    """Titles, messages, then steps, each newest first (a task's steps the last first); the
    matches after a page are counted on from its last hit, and page after page lists each hit once."""
    with engine.writing() as store:
        session = store.start_session("herons")
        for number in range(1, 7):
            task = store.start_task(session, f"heron {number}" if number % 2 else f"task {number}")
            for step in range(number % 3 + 1):
                store.record_step(task, "bash", {"command": f"count heron {number}.{step}"}, "ok")
            if number % 3 == 0:
                store.add_message(task, "user", f"the heron of task {number}")
    with engine.index() as index:
        everything = index.search("heron", None)
        assert [h.task for h in everything if h.kind == "task"] == ["5", "3", "1"]
        assert [h.task for h in everything if h.kind == "message"] == ["6", "3"]
        steps = [(h.task, h.line) for h in everything if h.kind == "step"]
        assert steps == sorted(steps, key=lambda s: (-int(s[0]), -s[1])) and len(steps) == 2 + 3 + 1 + 2 + 3 + 1
        assert [h.kind for h in everything] == ["task"] * 3 + ["message"] * 2 + ["step"] * 12
        for shown, cap in ((1, 5), (4, 100), (17, 18), (3, 3)):
            hits, found = index.search_counted("heron", shown, cap)
            assert hits == everything[:shown] and found == min(17, max(cap, shown)), (shown, cap)
        for size in (1, 2, 5):
            listed, after = [], None
            while True:
                page = index.page("heron", size, 3, after=after)
                assert page.more == min(3, 17 - len(listed) - len(page.hits))
                if not page.hits:
                    break
                listed += page.hits
                after = page.after
            assert listed == everything, size
        assert index.search("heron", kinds=["message"]) == everything[3:5]
        assert [(h.kind, h.task, h.line) for h in index.search("heron 4.1")] == [("step", "4", 2)]


def test_punctuation_and_substrings_find_what_a_plain_scan_of_the_records_finds(engine):
    """Every hit, and its count, is what scanning the records' text (as the SQLite index keeps
    it: search_records) for the term finds, in the same order."""
    chunks = ["a->b", "x => y", "std::vec", "<!-- c -->", "50%", "snake_case", "C:\\dir", "plain words", "é->ü",
              "'q'", "-", ">", 'say "hi"\nthere']
    rng = random.Random(7)
    with engine.writing() as store:
        session = store.start_session("punctuation")
        for number in range(30):
            task = store.start_task(session, f"task {number} {rng.choice(chunks)}")
            for _ in range(rng.randint(0, 3)):
                store.record_step(task, "bash", {"command": " ".join(rng.sample(chunks, 2))}, rng.choice(chunks))
            if number % 4 == 0:
                store.add_message(task, "user", rng.choice(chunks))
    with engine._open(readonly=True) as store:
        records = []
        tasks = task_rows(store)
        for _, by_kind in store_batches(store, tasks[::-1]):
            for kind in ("task", "message", "step"):
                records += [(kind, owner, text) for _, owner, text in by_kind[kind]]
    order = ["task", "message", "step"]
    with engine.index() as index:
        for term in ("->", "=>", "::", "-->", "%", "_", "\\", "'", "-", ">", "ü", "=>>", "ake_ca", "C:\\d", "ASK"):
            scanned = sorted(((kind, owner) for kind, owner, text in records if term.lower() in text.lower()),
                             key=lambda r: order.index(r[0]))  # stable: each kind newest first, as read
            hits, found = index.search_counted(term, 10_000, 10_000)
            assert [(h.kind, f"{h.task}:{h.step}:{h.line}" if h.kind == "step" else h.task) for h in hits] == scanned, term
            assert found == len(scanned), term


def test_step_text_is_searched_with_its_json_escapes_undone(engine):
    with engine.writing() as store:
        task = store.start_task(store.start_session("escapes"), "escapes")
        store.record_step(task, "read_file", {"path": "a.py"}, 'line one\nwombat said "hi"\tété 😀 C:\\dir')
    with engine.index() as index:
        hits = index.search("wombat")
        assert [h.text for h in hits] == ['read_file {"path": "a.py"} line one wombat said "hi" été 😀 C:\\dir']
        assert [h.kind for h in index.search('"wombat said" été')] == ["step"]
        assert [h.kind for h in index.search("\\dir")] == ["step"] and index.search("\\\\dir") == []


def test_memory_documents_come_first_then_the_stores_records(engine):
    make_workspace(engine.root, {**FILES, "MEMORY.md": FILES["MEMORY.md"] + "- the ibis notes\n- more ibis\n"})
    with engine.writing() as store:
        session = store.start_session("ibis")
        for number in (1, 2):
            store.record_step(store.start_task(session, f"ibis {number}"), "bash", {"command": "ibis"}, "ok")
    with engine.index() as index:
        everything = index.search("ibis", None)
        assert [h.kind for h in everything] == ["file", "file", "task", "task", "step", "step"]
        assert [h.task for h in everything[2:]] == ["2", "1", "2", "1"]
        for size in (1, 2, 3):
            listed, after = [], None
            while True:
                page = index.page("ibis", size, 2, after=after)
                if not page.hits:
                    break
                assert page.more == min(2, 6 - len(listed) - len(page.hits))
                listed, after = listed + page.hits, page.after
            assert listed == everything
        assert index.search_counted("ibis", 1, 100) == (everything[:1], 6)
        assert index.search("ibis", kinds=["step", "file"]) == [everything[i] for i in (0, 1, 4, 5)]


def test_records_written_after_a_search_are_found_by_the_next(engine):
    with engine.writing() as store:
        session = store.start_session("later")
        store.start_task(session, "first kiwi")
    with engine.index() as index:
        assert [h.task for h in index.search("kiwi")] == ["1"]
        with engine.writing() as store:
            store.start_task(session, "second kiwi")
        index.refresh()  # what the app does when its source changed (nothing to do on a server)
        assert [h.task for h in index.search("kiwi")] == ["2", "1"]


def test_cli_search_lists_the_same_hits(engine, capsys):
    with engine.writing() as store:
        task = store.start_task(store.start_session("cli"), "the okapi task")
        store.record_step(task, "bash", {"command": "grep okapi"}, "okapi found")
    assert main(["search", engine.target, "okapi"]) == 0
    assert capsys.readouterr().out.splitlines() == [
        "task 1: the okapi task", 'task 1 step 1: bash {"command": "grep okapi"} okapi found']
    assert main(["search", engine.target, "no-such-animal"]) == 1
