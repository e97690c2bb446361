"""What only the team store's search does (the hits themselves are tested over both engines in
tests/unit/test_search_engines.py): its records are found by the server, through its trigram
indexes — nothing of them is copied to this machine — and without pg_trgm, through full-text
indexes, with the same hits."""

from __future__ import annotations

import psycopg
import pytest

from memtui.cli import main
from memtui.core.demo import DemoClock
from memtui.core.memory import SearchIndex
from memtui.core.store.models import build_models
from memtui.core.store.team import TeamStore, connect
from memtui.core.store.team_migrate import create_team
from memtui.core.store.team_search import KIND_SQL

QUERIES = ("heron", "ERON", "er", "parse_config", "se_con", "->", "50%", "C:\\dir", "wombat said", "zzz", "heron ->")


def _empty_root(tmp_path):
    """A workspace without memory documents: only the store's records are searched."""
    root = tmp_path / "ws"
    root.mkdir()
    return root


def _record(url: str) -> None:
    with TeamStore.open(url, clock=DemoClock()) as store:
        session = store.start_session("herons")
        for number in range(12):
            task = store.start_task(session, f"heron {number} parse_config" if number % 3 == 0 else f"task {number}")
            store.record_step(task, "bash", {"command": f"grep heron -> {number}"}, 'wombat said "50%"\nC:\\dir')
            if number % 4 == 0:
                store.add_message(task, "user", f"the heron number {number}")


def _hits(url: str, root) -> dict[str, list]:
    with TeamStore.open(url, readonly=True) as store, SearchIndex(root, store) as index:
        index.refresh()
        assert index.conn.execute("SELECT COUNT(*) FROM records").fetchone() == (0,)  # nothing copied here
        return {q: [(h.kind, h.task, h.line, h.text) for h in index.search(q, None)] for q in QUERIES}


def test_the_servers_trigram_index_answers_the_search_condition(team_url):
    """The condition a search sends is the trigram index's own expression (the text functions
    are inlined alike on both sides): the index can answer it. On a table this small the planner
    would rather scan, so scans are ruled out for the plan asked for."""
    _record(team_url)
    with TeamStore.open(team_url, readonly=True) as store:
        assert store.search_by == "trigrams"
        assert [row[2] for row in store.matching_records("step", ["wombat"], 100)] == list(range(12, 0, -1))
        source, order, place, _ = KIND_SQL["step"]
        where, params = store._where("step", ["wombat"], None)
    with psycopg.connect(team_url) as conn:
        conn.execute("SET enable_seqscan = off")
        conn.execute("SET enable_indexscan = off")  # the (task, seq) index read backwards, filtering
        plan = "\n".join(r[0] for r in conn.execute(
            f"EXPLAIN SELECT {place} FROM {source} AND {where.replace('?', '%s')} ORDER BY {order} LIMIT 200", params))
    assert "Bitmap Index Scan on step_search_trgm" in plan, plan


def test_without_pg_trgm_the_full_text_indexes_give_the_same_hits(pg_cluster, tmp_path):
    """A store made where pg_trgm could not be had searches through `to_tsvector` indexes: a word
    term matches where a word starts with it (not inside one, as with trigrams), a term with
    punctuation is checked on the rows: otherwise the same hits as with trigrams."""
    with_trigrams, without = pg_cluster.new_database(), pg_cluster.new_database()
    db = connect(without, readonly=False)
    try:
        with db.atomic():
            create_team(db, build_models(db), trigrams=False)
    finally:
        db.close()
    for url in (with_trigrams, without):
        _record(url)
    with TeamStore.open(without, readonly=True) as store:
        assert store.search_by == "words"
        assert store.query("SELECT COUNT(*) FROM pg_extension WHERE extname = 'pg_trgm'") == [(0,)]
        indexes = {name for (name,) in store.query("SELECT indexname FROM pg_indexes WHERE indexname LIKE '%_search_%'")}
        assert indexes == {"task_search_words", "message_search_words", "step_search_words"}
    root = _empty_root(tmp_path)
    expected = _hits(with_trigrams, root)
    assert expected["heron"] and expected["->"] and expected["heron ->"] and not expected["zzz"]
    found = _hits(without, root)
    assert found["ERON"] == found["er"] == []  # inside "heron": only trigrams find it
    assert {q: hits for q, hits in found.items() if q not in ("ERON", "er")} == {
        q: hits for q, hits in expected.items() if q not in ("ERON", "er")}
    assert expected["ERON"] and expected["er"]


def test_cli_search_team_url_finds_on_the_server(team_url, capsys, monkeypatch):
    _record(team_url)
    assert main(["search", "--team", team_url, "parse_config", "heron", "--kind", "task"]) == 0
    assert capsys.readouterr().out.splitlines() == [
        "task 10: heron 9 parse_config", "task 7: heron 6 parse_config", "task 4: heron 3 parse_config",
        "task 1: heron 0 parse_config"]
    monkeypatch.setenv("MEMTUI_TEAM_URL", team_url)
    assert main(["search", "wombat", "--team", "--limit", "1"]) == 0
    out = capsys.readouterr()
    assert out.out.startswith("task 12 step 1: bash") and "11 more matches" in out.err
    assert main(["search", "--team", "sqlite.db", "heron"]) == 2
    assert "--team takes a postgresql:// URL" in capsys.readouterr().err


@pytest.mark.parametrize("kind", ["task", "message", "step"])
def test_a_records_place_orders_it_newest_first(team_url, kind):
    _record(team_url)
    with TeamStore.open(team_url, readonly=True) as store:
        places = [row[0] for row in store.matching_records(kind, ["e"], None)]
        assert places == sorted(places, reverse=True) and len(places) == len(set(places)) > 1
        after = places[1]
        assert [row[0] for row in store.matching_records(kind, ["e"], None, after)] == places[2:]
        assert store.count_matching(kind, ["e"], 2, after) == min(2, len(places) - 2)


def test_a_page_is_the_same_read_in_order_or_found_in_no_order_and_ordered(team_url, tmp_path, monkeypatch):
    """A kind's matches, when few, are found through the index in no order and ordered after;
    when more, read in order: both give the same pages and counts."""
    from memtui.core.store import team_search

    _record(team_url)
    root = _empty_root(tmp_path)
    few = _hits(team_url, root)
    monkeypatch.setattr(team_search, "FEW", 0)  # every page read in order
    assert _hits(team_url, root) == few
    with TeamStore.open(team_url, readonly=True) as store, SearchIndex(root, store) as index:
        for size in (1, 3):
            listed, after = [], None
            while (page := index.page("heron", size, 2, after=after)).hits:
                listed, after = listed + page.hits, page.after
            assert [(h.kind, h.task, h.line, h.text) for h in listed] == few["heron"]
