"""The persistent index of an agent's home (memtui.core.sources.part_store, kept_parts): what a
user reads through it is what a full read of the home gives, and a run after the first reads
only the files that changed.

Homes: the real transcripts (tests/fixtures/real, PROVENANCE.md) and the live fixtures the
agents wrote (tests/fixtures/live). "Without the index" is the same source opened in a process
that may not write (memtui --read-only): it keeps no index and reads every file.
"""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import stat
from pathlib import Path

import pytest
from real_support import many_sessions, real_home

from memtui.core.atomic import forbid_writes
from memtui.core.discovery import discover
from memtui.core.memory_source import Capability, MemorySource

LIVE = Path(__file__).resolve().parents[1] / "fixtures" / "live"
REAL_HOMES = ["claude-2.1.39-spotter", "claude-2.1.38-spotter-small", "claude-2.1.38-orphan-subagents",
              "claude-2.0.28-agtrace", "claude-2.1.2-pai", "codex-0.66.0-agtrace", "codex-0.104-localpush"]
LIVE_HOMES = sorted(str(p.relative_to(LIVE)) for pattern in ("claude-code-*/*/home/.claude", "codex-*/*/home/.codex")
                    for p in LIVE.glob(pattern))


def _open(home: Path) -> MemorySource:
    [found] = [s for s in discover(home) if s.kind in ("claude-code", "codex")]
    return found.open()


def _live(source: MemorySource):
    """The agent's own adapter (a home's source lists memtui's archived sessions beside it)."""
    return getattr(source, "live", source)


def everything(source: MemorySource) -> dict:
    """Every count, row and id a user can read of the store: sessions, tasks, steps, messages,
    checkpoints and their entries, references, the usage of each task, counts and problems."""
    out: dict = {"counts": source.counts(), "problems": sorted(map(repr, source.problems())),
                 "sessions": [repr(s) for s in source.sessions()], "tasks": {}}
    for session in source.sessions():
        for task in source.tasks(session.id):
            checkpoints = source.checkpoints(task.id)
            out["tasks"][str(task.id)] = {
                "task": repr(task), "again": repr(source.task(task.id)),
                "steps": [repr(s) for s in source.steps(task.id)],
                "messages": [repr(m) for m in source.messages(task.id)],
                "references": [repr(r) for r in source.references(task.id)],
                "usage": [repr(s) for s in source.step_usage(task.id)],
                "checkpoints": [repr(c) for c in checkpoints],
                "entries": [repr(e) for c in checkpoints for e in source.checkpoint_entries(c.id)],
            }
    if source.has_part(Capability.RESUME):
        resume = source.part(Capability.RESUME)
        out["resume"] = [repr(resume.resume_command(s.id)) for s in source.sessions() if s.status != "archived"]
    return out


def without_index(home: Path) -> dict:
    forbid_writes("reading without the index")
    try:
        with _open(home) as source:
            return everything(source)
    finally:
        forbid_writes(None)


def index_files() -> list[Path]:
    folder = Path(os.environ["XDG_CACHE_HOME"]) / "memtui" / "index"
    return sorted(folder.iterdir()) if folder.is_dir() else []


def tree(folder: Path) -> dict[str, tuple[int, int]]:
    return {str(p.relative_to(folder)): (p.stat().st_size, p.stat().st_mtime_ns) for p in sorted(folder.rglob("*"))}


def _compare(home: Path) -> None:
    before = tree(home)
    expected = without_index(home)
    assert not index_files(), "a process that may not write keeps no index"
    with _open(home) as cold:
        assert everything(cold) == expected
        read_cold = _live(cold).files_read
    assert read_cold > 0
    [db] = [p for p in index_files() if p.suffix == ".db"]
    assert stat.S_IMODE(db.parent.stat().st_mode) == 0o700
    with _open(home) as warm:
        assert everything(warm) == expected
        assert _live(warm).files_read == 0  # nothing changed: no transcript parsed
    assert tree(home) == before  # nothing written in the agent's home


@pytest.mark.parametrize("name", REAL_HOMES)
def test_every_count_of_a_real_home_is_the_same_with_and_without_the_index(tmp_path: Path, name: str) -> None:
    _compare(real_home(name, tmp_path))


@pytest.mark.parametrize("name", LIVE_HOMES)
def test_every_count_of_a_live_fixture_is_the_same_with_and_without_the_index(tmp_path: Path, name: str) -> None:
    home = tmp_path / "home"
    shutil.copytree(LIVE / name, home)
    _compare(home)


def _prompt_appended(transcript: Path, text: str) -> None:
    """A new typed prompt at the end of a session, as Claude Code appends one (its own uuid,
    parented to the last record)."""
    records = [json.loads(line) for line in transcript.read_text(encoding="utf-8").splitlines() if line.strip()]
    prompt = next(r for r in records if r.get("type") == "user" and isinstance(r.get("message", {}).get("content"), str))
    last = next(r for r in reversed(records) if r.get("uuid"))
    grown = {**prompt, "uuid": "0b1f0000-0000-4000-8000-000000000001", "parentUuid": last["uuid"],
             "timestamp": "2031-01-01T00:00:00.000Z", "message": {"role": "user", "content": text}}
    with transcript.open("a", encoding="utf-8") as out:
        out.write(json.dumps(grown) + "\n")


def test_a_grown_session_is_the_one_file_read_again_and_reads_as_a_full_read_does(tmp_path: Path) -> None:
    home = many_sessions("claude-2.1.38-spotter-small", tmp_path, 4)
    with _open(home) as first:
        sessions = len(first.sessions())
    grown = max(home.glob("projects/*/*.jsonl"), key=lambda p: p.stat().st_size)
    _prompt_appended(grown, "one more prompt, kept across runs")
    with _open(home) as warm:
        assert len(warm.sessions()) == sessions
        assert _live(warm).files_read == 1
        listed = everything(warm)
        [newest] = [s for s in warm.sessions() if s.id == grown.stem]
        assert warm.tasks(newest.id)[-1].title == "one more prompt, kept across runs"
    assert listed == without_index(home)


def test_a_removed_session_leaves_the_index_and_a_new_one_joins_it(tmp_path: Path) -> None:
    home = many_sessions("claude-2.1.38-spotter-small", tmp_path, 3)
    with _open(home) as first:
        ids = {s.id for s in first.sessions()}
    removed = sorted(home.glob("projects/*/*.jsonl"))[0]
    removed.unlink()
    with _open(home) as warm:
        assert {s.id for s in warm.sessions()} == ids - {removed.stem}
        assert _live(warm).files_read == 0
    [db] = [p for p in index_files() if p.suffix == ".db"]
    with sqlite3.connect(db) as conn:
        kept = {row[0] for row in conn.execute("SELECT path FROM parts")}
    assert str(removed) not in kept and len(kept) == len(ids) - 1
    added = removed.with_name("0b1f0000-0000-4000-8000-0000000000aa.jsonl")
    shutil.copyfile(sorted(home.glob("projects/*/*.jsonl"))[0], added)
    with _open(home) as warm:
        assert added.stem in {s.id for s in warm.sessions()}
        assert _live(warm).files_read == 1
    assert everything(_open(home)) == without_index(home)


@pytest.mark.parametrize("damage", ["garbage", "truncated", "other code", "other layout"])
def test_a_damaged_or_foreign_index_is_built_again(tmp_path: Path, damage: str) -> None:
    home = real_home("claude-2.1.38-spotter-small", tmp_path)
    with _open(home) as first:
        expected = everything(first)
        files = _live(first).files_read
    [db] = [p for p in index_files() if p.suffix == ".db"]
    if damage == "garbage":
        db.write_bytes(b"not an index\n" * 500)
    elif damage == "truncated":
        db.write_bytes(db.read_bytes()[:3000])
    else:
        key = "code" if damage == "other code" else "layout"
        with sqlite3.connect(db) as conn:
            conn.execute("UPDATE meta SET value = 'x' WHERE key = ?", (key,))
        conn.close()
    with _open(home) as again:
        assert everything(again) == expected
        assert _live(again).files_read == files  # every file read again
    with _open(home) as warm:
        assert warm.sessions()
        assert _live(warm).files_read == 0  # and kept again
    assert not [p for p in index_files() if p.name.endswith(".memtui-tmp")]


def test_a_process_that_may_not_write_keeps_no_index(tmp_path: Path) -> None:
    home = real_home("codex-0.66.0-agtrace", tmp_path)
    forbid_writes("read-only")
    try:
        with _open(home) as source:
            assert source.sessions()
    finally:
        forbid_writes(None)
    assert not (Path(os.environ["XDG_CACHE_HOME"]) / "memtui").exists()


def test_a_cold_build_told_to_list_its_sessions_reads_the_newest_files_first_and_serves_what_a_full_read_does(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """As the app builds it (a watcher that lists the sessions read so far; its worker processes
    on, as on a heavy home): the sessions read so far are those of the most recently written
    files, more at each batch, each once; the index served after equals a full read's."""
    from memtui.core.sources import part_pool
    from memtui.core.sources.kept_parts import watch_builds

    home = many_sessions("claude-2.1.39-spotter", tmp_path, 8)
    files = sorted(home.glob("projects/*/*.jsonl"))
    for n, path in enumerate(files):  # written a minute apart, in an order that is not the names'
        written = 1_700_000_000 + (n * 7) % len(files) * 60
        os.utime(path, (written, written))
    newest = [p.stem for p in sorted(files, key=lambda p: p.stat().st_mtime_ns, reverse=True)]
    expected = without_index(home)
    seen: list[tuple[int, list[str]]] = []

    def watcher(_home: Path, read: int, _to_read: int, source) -> None:
        landed = source.sessions_so_far()
        if landed is not None and (not seen or len(landed) != len(seen[-1][1])):
            seen.append((read, [str(s.id) for s in landed]))

    monkeypatch.setattr(part_pool, "POOL_BYTES", 1)  # the worker processes, whatever the home's size
    watch_builds(watcher, sessions=True)
    try:
        with _open(home) as cold:
            assert everything(cold) == expected
            assert _live(cold).sessions_so_far() is None  # built: sessions() answers
            assert part_pool.last_workers > 0 or part_pool.cores() < 2
    finally:
        watch_builds(None)
    assert len(seen) >= 4 and seen[0][0] == 1  # the newest session first, then more at each batch
    for read, ids in seen:
        assert len(ids) == len(set(ids)) == read  # each once
        assert set(ids) == set(newest[:read])  # the newest files' sessions
    assert set(seen[-1][1]) == set(newest)


def test_the_index_kept_of_a_codex_home_holds_its_sessions_not_the_instructions_each_rollout_repeats(tmp_path: Path) -> None:
    """Codex 0.171 writes its whole system prompt (20 KB) into each rollout's header: the index
    a warm open reads of every session (its head) keeps the session's facts, not that text (it
    was nine tenths of what a warm open of a Codex home unpickled)."""
    from memtui.core.sources.part_store import loads

    home = tmp_path / "home"
    shutil.copytree(LIVE / "codex-0.171.0" / "resume" / "home" / ".codex", home)
    header = json.loads(next(home.rglob("rollout-*.jsonl")).read_text(encoding="utf-8").splitlines()[0])
    instructions = header["payload"]["base_instructions"]["text"]
    assert len(instructions) > 10_000
    with _open(home) as source:
        listed = everything(source)
    [db] = [p for p in index_files() if p.suffix == ".db"]
    blobs = [head for (head,) in sqlite3.connect(db).execute("SELECT head FROM parts")]
    assert blobs and all(len(blob) < 4_000 for blob in blobs)
    heads = [loads(blob) for blob in blobs]
    kept = [session for part in heads for session in part.sessions.values()]
    assert kept and all(instructions not in repr(session) for session in kept)
    assert all(session.cwd and session.meta.get("cli_version") == "0.171.0" for session in kept)
    assert listed == without_index(home)  # what a user reads is what a full read gives


@pytest.mark.parametrize("name", ["claude-2.1.39-spotter", "claude-2.1.38-orphan-subagents", "claude-2.0.28-agtrace"])
def test_each_sessions_bytes_and_files_key_counted_from_the_index_walk_are_a_fresh_counts(tmp_path: Path, name: str) -> None:
    """A session's bytes and files key (cleanup and the sessions pane show them) come from the
    walk the index makes of its folder at open: they equal a count made now of its files."""
    from memtui.core.paths import files_key

    home = real_home(name, tmp_path)
    with _open(home) as source:
        live = _live(source)
        index = live.index()
        listed = {s.id: s for s in source.sessions()}
        assert listed
        for session in index.sessions.values():
            if session.id in listed:
                if session.file.is_dir():  # an orphaned session: the files under its sub-agents folder
                    files = sorted(str(p) for p in session.file.rglob("*") if p.is_file())
                else:
                    folder = session.file.with_suffix("")
                    inside = {str(p) for p in folder.rglob("*") if p.is_file()} if folder.is_dir() else set()
                    files = sorted({str(session.file), *session.transcripts} - {f for f in session.transcripts
                                                                                if f.startswith(str(folder) + "/")} | inside)
                assert (listed[session.id].stored_bytes, listed[session.id].files_key) == files_key(files), session.id
                assert sum(Path(p).stat().st_size for p in files) == listed[session.id].stored_bytes


def _heads_blob(db: Path) -> bytes | None:
    with sqlite3.connect(db) as conn:
        row = conn.execute("SELECT blob FROM heads").fetchone()
    return row[0] if row else None


def test_a_warm_open_serves_every_head_from_the_one_blob_and_a_read_again_files_from_its_row(tmp_path: Path) -> None:
    """The index keeps every part's head in one blob beside the rows: a warm open serves the
    listing from it (the rows' heads spoiled, it is the same), a session read again since is
    served from its own row (the blob written again only once a tenth of the heads changed),
    and a damaged blob leaves the rows to serve every head."""
    home = many_sessions("claude-2.1.38-spotter-small", tmp_path, 4)
    expected = without_index(home)
    with _open(home) as cold:
        assert everything(cold) == expected
    [db] = [p for p in index_files() if p.suffix == ".db"]
    blob = _heads_blob(db)
    assert blob
    with sqlite3.connect(db) as conn:
        rows = conn.execute("SELECT path, sign, head FROM parts").fetchall()
        conn.execute("UPDATE parts SET head = x'00'")  # no row's head can be read now
    with _open(home) as warm:
        assert everything(warm) == expected and _live(warm).files_read == 0
    with sqlite3.connect(db) as conn:
        conn.executemany("UPDATE parts SET head = ? WHERE path = ? AND sign = ?", [(h, p, s) for p, s, h in rows])
    grown = max(home.glob("projects/*/*.jsonl"), key=lambda p: p.stat().st_size)
    _prompt_appended(grown, "one more prompt, kept across runs")
    with _open(home) as after:
        listed = everything(after)
        assert _live(after).files_read == 1
    assert _heads_blob(db) == blob  # one session of 16 changed: the blob is left as it was
    with _open(home) as again:  # the grown session's head from its row, the others' from the blob
        assert everything(again) == listed == without_index(home)
    with sqlite3.connect(db) as conn:
        conn.execute("UPDATE heads SET blob = x'0badb10b'")
    with _open(home) as damaged:
        assert everything(damaged) == listed
