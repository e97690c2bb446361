"""A usage report over a home read before comes from each session's kept rows, and equals a
cold read of the transcripts exactly, for every grouping; a session whose files change is read
again, one that goes is dropped, and nothing is written in the agent's home."""

from __future__ import annotations

import json
import os
import pickle
import sqlite3
from pathlib import Path

import pytest

from memtui.cli import main
from memtui.core.discovery import discover_given
from memtui.core.usage import GROUPINGS, ORIGIN_GROUPINGS, kept_priced, price, source_replies, summarise
from memtui.core.usage.kept import FOLDER
from tests.unit.real_support import REAL, many_sessions, real_home

HOMES = sorted(p.name for p in REAL.iterdir() if (p / "projects").is_dir() or (p / "sessions").is_dir())


@pytest.fixture
def scratch(tmp_path, monkeypatch):
    for name in ("HOME", "CLAUDE_CONFIG_DIR", "CODEX_HOME"):
        monkeypatch.setenv(name, str(tmp_path / f"no-{name.lower()}"))
    return tmp_path


def _opened(home: Path):
    """The one agent store of a real home, opened as `memtui usage` opens it."""
    found = [s for s in discover_given(home) if s.kind != "memory-files"]
    assert len(found) == 1, found
    return found[0]


def _cold(home: Path) -> list:
    entry = _opened(home)
    try:
        return price(source_replies(entry.open()))
    finally:
        entry.close()


def _kept(home: Path):
    entry = _opened(home)
    try:
        return kept_priced(entry.open())
    finally:
        entry.close()


def _files(home: Path) -> dict[str, tuple[int, int]]:
    return {str(p): (p.stat().st_size, p.stat().st_mtime_ns) for p in home.rglob("*") if p.is_file()}


@pytest.mark.parametrize("name", HOMES)
def test_kept_rows_equal_a_cold_read_for_every_grouping(name, scratch):
    home = real_home(name, scratch)
    before = _files(home)
    cold = _cold(home)
    first, second = _kept(home), _kept(home)
    assert cold, f"{name}: no reply with usage"
    assert first.kept == 0 and first.read > 0  # nothing kept yet: every session read, then kept
    assert second.read == 0 and second.kept == first.read  # all from the kept rows
    assert first.items == cold and second.items == cold  # every reply, its tokens, its cost, in order
    for by in GROUPINGS:
        expected = summarise(cold, by).as_dict()
        assert summarise(second.items, by, table=second.table).as_dict() == expected, by
    assert _files(home) == before  # nothing written in the agent's home
    kept = list((Path(os.environ["XDG_CACHE_HOME"]) / "memtui" / FOLDER).glob("*.db"))
    assert len(kept) == 1


def test_the_cli_prints_the_same_report_warm_as_cold(scratch, capsys):
    home = real_home("claude-2.1.38-spotter-small", scratch)
    for by in (by for by in GROUPINGS if by not in ORIGIN_GROUPINGS):  # --by machine: a team store's
        outputs = []
        for _ in range(2):
            assert main(["usage", str(home), "--by", by, "--json"]) == 0
            outputs.append(json.loads(capsys.readouterr().out))
        assert outputs[0] == outputs[1], by
        assert outputs[0]["prices"]["dated"] is not None


def _reply_line(session_id: str, template: dict) -> str:
    """A new reply in a Claude Code transcript: a copy of one with its own ids and usage."""
    record = dict(template, uuid="f0000000-0000-4000-8000-000000000001", parentUuid=template["uuid"],
                  requestId="req_kept_test", timestamp="2026-02-11T09:00:00.000Z")
    record["message"] = dict(template["message"], id="msg_kept_test",
                             usage={"input_tokens": 1000, "output_tokens": 2000, "cache_read_input_tokens": 0,
                                    "cache_creation_input_tokens": 0})
    return json.dumps(record) + "\n"


def test_a_session_whose_transcript_grew_is_read_again_and_one_removed_is_dropped(scratch):
    home = real_home("claude-2.1.38-spotter-small", scratch)
    _kept(home)
    transcripts = sorted(home.glob("projects/*/*.jsonl"), key=lambda p: p.stat().st_size)
    grown, removed = transcripts[-1], transcripts[0]
    lines = [json.loads(line) for line in grown.read_text().splitlines() if line.strip()]
    last = next(r for r in reversed(lines) if r.get("type") == "assistant" and r.get("message", {}).get("usage"))
    with grown.open("a") as out:
        out.write(_reply_line(grown.stem, last))
    removed.unlink()
    cold = _cold(home)
    again = _kept(home)
    assert again.read == 1  # the grown one; the others from their kept rows
    assert again.items == cold
    assert any(item.reply.tokens.output == 2000 and item.reply.at.day == 11 for item in again.items)
    assert removed.stem not in {item.reply.session_id for item in again.items}
    with sqlite3.connect(next((Path(os.environ["XDG_CACHE_HOME"]) / "memtui" / FOLDER).glob("*.db"))) as db:
        kept_ids = {row[0] for row in db.execute("SELECT id FROM sessions")}
    assert removed.stem not in kept_ids and grown.stem in kept_ids


def test_rows_kept_for_another_price_table_are_read_again(scratch):
    home = real_home("codex-0.66.0-agtrace", scratch)
    first = _kept(home)
    db_path = next((Path(os.environ["XDG_CACHE_HOME"]) / "memtui" / FOLDER).glob("*.db"))
    with sqlite3.connect(db_path) as db:
        db.execute("UPDATE meta SET value = '0.0.0-other' WHERE key = 'prices'")
        db.execute("UPDATE sessions SET rows = ?", (pickle.dumps([]),))  # no replies, were they served
    again = _kept(home)
    assert again.kept == 0 and again.read == first.read
    assert again.items == first.items
    assert _kept(home).read == 0


def test_nothing_is_kept_when_writes_are_forbidden(scratch):
    from memtui.core.atomic import forbid_writes

    home = real_home("codex-0.66.0-agtrace", scratch)
    forbid_writes("--read-only")
    try:
        usage = _kept(home)
    finally:
        forbid_writes(None)
    assert usage.items == _cold(home) and usage.kept == 0
    assert not (Path(os.environ["XDG_CACHE_HOME"]) / "memtui" / FOLDER).exists()


@pytest.mark.parametrize("name", ["claude-2.1.39-spotter", "codex-0.104-localpush"])
def test_session_costs_keep_and_serve_the_same_rows(name, scratch):
    from memtui.core.usage import Group, session_costs, session_replies

    home = real_home(name, scratch)
    entry = _opened(home)
    try:
        source = entry.open()
        sessions = list(source.sessions())
        cold = {}
        for session in sessions:
            cold[session.id] = group = Group(str(session.id))
            for item in price(session_replies(source, session)):
                group.add(item)
        first = session_costs(source, sessions)  # nothing kept yet: read, then kept
        second = session_costs(source, sessions)
    finally:
        entry.close()
    assert first == cold and second == cold
    assert any(group.cost for group in cold.values())
    served = _kept(home)
    assert served.read == 0 and served.kept == len(sessions)  # what the Cost column kept serves a report


@pytest.mark.parametrize("zone", ["UTC", "Asia/Kolkata", "Asia/Kathmandu", "America/St_Johns", "Australia/Lord_Howe",
                                  "Pacific/Chatham", "Europe/Berlin", "America/New_York"])
def test_a_replys_local_day_is_its_own_conversions_in_any_zone(zone, monkeypatch):
    """The day a reply is counted on (worked out once per quarter of an hour) is the day of its
    own time in this machine's zone, across every change of offset of three years, in zones of
    half and quarter hours and of half-hour summer time, and after the zone is set again."""
    import random
    import time
    from datetime import datetime, timedelta, timezone

    from memtui.core.usage.report import local_day

    if not Path(f"/usr/share/zoneinfo/{zone}").exists():
        pytest.skip(f"no zone file for {zone}")
    try:
        for tz in ("UTC", zone):  # the day of the same instant, asked again in another zone
            monkeypatch.setenv("TZ", tz)
            time.tzset()
            rnd = random.Random(7)
            start = datetime(2024, 1, 1, tzinfo=timezone.utc)
            times = [start + timedelta(seconds=rnd.randrange(3 * 365 * 86400), microseconds=rnd.randrange(10**6))
                     for _ in range(20000)]
            times += [datetime(2025, 3, 30, 0, 59, 59, 999999, tzinfo=timezone(timedelta(hours=h, minutes=30)))
                      for h in range(-12, 14)]
            assert [local_day(at) for at in times] == [at.astimezone().date() for at in times]
    finally:
        monkeypatch.undo()
        time.tzset()


def test_costs_stopped_half_way_keep_the_sessions_priced_so_far(scratch, monkeypatch):
    """The Cost column of a home is priced session by session (after an upgrade: every one); an
    app that quits half-way (here: the pricing stops with an error after two sessions) has kept
    what it priced — every SAVE_EVERY sessions in one transaction — and the next run serves
    those and reads the rest, the same costs as a run never stopped."""
    from memtui.core.usage import kept, session_costs

    home = many_sessions("claude-2.1.38-spotter-small", scratch / "many", 3)
    monkeypatch.setattr(kept, "SAVE_EVERY", 2)
    entry = _opened(home)
    try:
        source = entry.open()
        sessions = list(source.sessions())
        assert len(sessions) >= 6
        asked = [0]

        def stopped() -> bool:
            asked[0] += 1
            if asked[0] > 5:
                raise KeyboardInterrupt  # the app quits: nothing after this is saved at the end
            return False

        with pytest.raises(KeyboardInterrupt):
            session_costs(source, sessions, cancelled=stopped)
        served = []
        monkeypatch.setattr(kept._Reader, "save", lambda self, listed: served.append(self.served))
        again = session_costs(source, sessions)
        monkeypatch.undo()
        whole = session_costs(source, sessions)
    finally:
        entry.close()
    assert served[-1] == 4  # two saves of two sessions each came before the stop; the fifth was lost
    assert again == whole and any(group.cost for group in whole.values())
