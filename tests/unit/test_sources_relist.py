"""A transcript store open while its agent works: a session started since the store was opened
shows up at the next reload, a removed one goes, and only new or changed files are read again.

Real files (tests/fixtures/real, PROVENANCE.md): a Claude Code home with the spotter-small
project's sessions, into which the agtrace sample's session is copied; a Codex home with the
agtrace rollout, into which a localpush rollout is copied (a new day, month and year folder).
"""

from __future__ import annotations

import shutil
from pathlib import Path

from real_support import real_home

from memtui.core.discovery import discover
from memtui.core.agents.jsonl.source import JsonlSessionsSource

AGTRACE_SESSION = "7f2abd2d-7cfc-4447-9ddd-3ca8d14e02e9"
SPOTTER_SESSIONS = {"491e126e-1e71-469c-ade2-fcc8af567c74", "55604662-cf2a-4331-851a-ec234028f8ca",
                    "d6e0bada-1959-4eec-a9d2-0bfade768d8f"}
LOCALPUSH_ROLLOUT = "rollout-2026-02-23T12-40-23-019c8a4c-ed82-79a1-aa28-7738fc5ab61a.jsonl"


def _ids(source) -> set[str]:
    return {str(s.id) for s in source.sessions()}


def _live(source):
    """The agent's own adapter (a home's source lists memtui's archived sessions beside it)."""
    return getattr(source, "live", source)


def _agtrace_into(home: Path, tmp: Path) -> Path:
    """The agtrace sample's session (and its 2.0.x sub-agents beside it) copied into `home`,
    as Claude Code writes a new session: a new project folder and its files."""
    unpacked = real_home("claude-2.0.28-agtrace", tmp / "unpacked")
    shutil.copytree(unpacked / "projects" / "-Users-zawakin-agent-sample", home / "projects" / "-Users-zawakin-agent-sample")
    return home / "projects" / "-Users-zawakin-agent-sample" / f"{AGTRACE_SESSION}.jsonl"


def _localpush_into(home: Path, tmp: Path) -> Path:
    """A localpush rollout copied into the Codex `home`, in a new day's (month's, year's) folder."""
    day = home / "sessions" / "2026" / "02" / "23"
    day.mkdir(parents=True)
    unpacked = real_home("codex-0.104-localpush", tmp / "unpacked-codex")
    return Path(shutil.copyfile(unpacked / "sessions" / "2026" / "02" / "23" / LOCALPUSH_ROLLOUT, day / LOCALPUSH_ROLLOUT))


def test_a_claude_session_started_while_open_shows_up_at_reload_and_a_removed_one_goes(tmp_path: Path) -> None:
    home = real_home("claude-2.1.38-spotter-small", tmp_path)
    [found] = discover(home)
    source = found.open()
    assert _ids(source) == SPOTTER_SESSIONS
    read = _live(source).files_read

    added = _agtrace_into(home, tmp_path)
    assert _ids(source) == SPOTTER_SESSIONS  # nothing changes until a reload
    source.reload()
    assert _ids(source) == SPOTTER_SESSIONS | {AGTRACE_SESSION}
    titles = {str(s.id): s.title for s in source.sessions()}
    assert titles[AGTRACE_SESSION]  # read like any other session: its prompts, its title
    assert any(t.agent_id for t in _live(source).index().turns.values() if t.session_id == AGTRACE_SESSION)  # its sub-agents too
    assert _live(source).files_read == read + 1  # the three unchanged transcripts were not read again

    added.unlink()
    source.reload()
    assert _ids(source) == SPOTTER_SESSIONS
    assert _live(source).files_read == read + 1


def test_a_changed_transcript_is_read_again_and_only_it(tmp_path: Path) -> None:
    home = real_home("claude-2.1.38-spotter-small", tmp_path)
    [found] = discover(home)
    source = found.open()
    before = {str(s.id): s.task_count for s in source.sessions()}
    read = _live(source).files_read
    longest = max(before, key=before.get)  # the session of most prompts
    [short] = [p for p in (home / "projects").rglob("*.jsonl") if p.stem == longest]
    lines = short.read_text(encoding="utf-8").splitlines(keepends=True)
    short.write_text("".join(lines[: len(lines) // 3]), encoding="utf-8")  # as it was a third of the way
    source.reload()
    half = {str(s.id): s.task_count for s in source.sessions()}
    short.write_text("".join(lines), encoding="utf-8")  # the agent wrote the rest
    source.reload()
    assert {str(s.id): s.task_count for s in source.sessions()} == before
    assert half[short.stem] < before[short.stem]
    assert {k: v for k, v in half.items() if k != short.stem} == {k: v for k, v in before.items() if k != short.stem}
    assert _live(source).files_read == read + 2


def test_a_workspace_source_lists_a_new_session_of_that_workspace_only(tmp_path: Path) -> None:
    """Opened on the project folder: a new transcript that recorded this folder shows up; one
    of another folder, copied into the same home, does not."""
    from mixed_homes import SPOTTER, moved

    home = real_home("claude-2.1.38-spotter-small", tmp_path)
    project = tmp_path / "spotter"
    project.mkdir()
    moved(home, SPOTTER, project)
    env = {"HOME": str(tmp_path / "nobody"), "CLAUDE_CONFIG_DIR": str(home), "CODEX_HOME": str(tmp_path / "none")}
    [found] = [s for s in discover(project, env=env) if s.kind == "claude-code"]
    source = found.open()
    assert _ids(source) == SPOTTER_SESSIONS
    other = _agtrace_into(home, tmp_path)  # recorded /Users/zawakin/agent-sample
    mine = home / "projects" / "-new-project-folder" / f"{AGTRACE_SESSION}.jsonl"
    source.reload()
    assert _ids(source) == SPOTTER_SESSIONS
    mine.parent.mkdir()
    shutil.move(other, mine)
    moved(mine.parent, "/Users/zawakin/agent-sample", project)
    source.reload()
    assert _ids(source) == SPOTTER_SESSIONS | {AGTRACE_SESSION}


def test_a_codex_rollout_written_in_new_folders_shows_up_at_reload_and_goes(tmp_path: Path) -> None:
    home = real_home("codex-0.66.0-agtrace", tmp_path)
    [found] = discover(home)
    source = found.open()
    assert _ids(source) == {"019b04ae-b1c6-7c72-a134-a4c2de66058c"}
    day = _localpush_into(home, tmp_path).parent
    source.reload()
    assert _ids(source) == {"019b04ae-b1c6-7c72-a134-a4c2de66058c", "019c8a4c-ed82-79a1-aa28-7738fc5ab61a"}
    assert _live(source).files_read == 2
    (day / LOCALPUSH_ROLLOUT).unlink()
    source.reload()
    assert _ids(source) == {"019b04ae-b1c6-7c72-a134-a4c2de66058c"}


def test_the_folders_a_new_session_lands_in_are_watched(tmp_path: Path) -> None:
    """Follow mode looks at what a source names as watched: the home's projects or sessions
    folder is among them (a new project folder, a new day's folder change its mtime)."""
    claude = real_home("claude-2.1.38-spotter-small", tmp_path)
    codex = real_home("codex-0.66.0-agtrace", tmp_path)
    assert claude / "projects" in discover(claude)[0].open().watched_files()
    assert codex / "sessions" in discover(codex)[0].open().watched_files()


def test_follow_mode_sees_a_new_session_once(tmp_path: Path) -> None:
    """The change watch (follow mode's look) reports a new session file once: the reload that
    reads it is not taken for another change at the next look."""
    from memtui.core.live import watch_source

    for name, add in (("claude-2.1.38-spotter-small", lambda home: _agtrace_into(home, tmp_path)),
                      ("codex-0.66.0-agtrace", lambda home: _localpush_into(home, tmp_path))):
        home = real_home(name, tmp_path)
        source = discover(home)[0].open()
        before = _ids(source)
        watch = watch_source(source)
        assert watch.poll() is False  # the baseline
        add(home)
        assert watch.poll() is True
        source.reload()
        assert len(_ids(source)) == len(before) + 1
        assert watch.poll() is False


def test_a_jsonl_session_store_lists_a_new_session_file_at_reload(tmp_path: Path) -> None:
    root = tmp_path / "store"
    (root / "sessions").mkdir(parents=True)
    (root / "sessions" / "a.jsonl").write_text('{"key": "a", "title": "first"}\n'
                                               '{"id": "1", "role": "user", "content": "hello"}\n', encoding="utf-8")
    source = JsonlSessionsSource(root)
    assert _ids(source) == {"a"}
    (root / "sessions" / "b.jsonl").write_text('{"key": "b", "title": "second"}\n'
                                               '{"id": "1", "role": "user", "content": "again"}\n', encoding="utf-8")
    source.reload()
    assert _ids(source) == {"a", "b"}
    (root / "sessions" / "a.jsonl").unlink()
    source.reload()
    assert _ids(source) == {"b"}


def test_a_session_restored_while_open_reads_live_and_archived_again_reads_archived(tmp_path: Path) -> None:
    """A session memtui's cleanup archived before the home was opened is restored while it is
    open (its transcript is back in the home: listed live at the reload), then archived again."""
    from datetime import datetime, timedelta, timezone

    from memtui.core.cleanup.apply import apply_cleanup
    from memtui.core.homes import take_inventory
    from memtui.core.places import archive_dir
    from memtui.core.cleanup.plan import plan_cleanup
    from memtui.core.cleanup.restore import restore_session

    home = real_home("claude-2.1.38-spotter-small", tmp_path)

    def archive_one() -> str:
        plan = plan_cleanup(take_inventory(home, "claude-code"), keep_days=0, keep_last=2,
                            now=datetime.now(timezone.utc) + timedelta(days=1))
        [going] = [s.id for s in plan.going()[0]]
        apply_cleanup(plan, archive_dir(), level=3)
        return going

    going = archive_one()
    [found] = discover(home)
    source = found.open()
    archived = {str(s.id): s.status for s in source.sessions()}
    assert archived[going] == "archived" and set(archived) == SPOTTER_SESSIONS
    restore_session(going, archive_dir())
    source.reload()
    assert {str(s.id): s.status for s in source.sessions()} == {**archived, going: "unknown"}
    assert archive_one() == going
    source.reload()
    assert {str(s.id): s.status for s in source.sessions()} == archived


def test_a_session_file_removed_since_the_index_is_not_listed_before_the_reload(tmp_path: Path) -> None:
    """A cleanup removes a session file between two reads of an index (no reload between): the
    sessions are listed without it, and without an error (Codex and JSONL stores raised
    FileNotFoundError reading its size)."""
    claude = real_home("claude-2.1.38-spotter-small", tmp_path)
    codex = real_home("codex-0.66.0-agtrace", tmp_path)
    removed = _localpush_into(codex, tmp_path)
    jsonl = tmp_path / "store" / "sessions"
    jsonl.mkdir(parents=True)
    for key in ("a", "b"):
        (jsonl / f"{key}.jsonl").write_text(f'{{"key": "{key}", "title": "{key}"}}\n', encoding="utf-8")
    for source, gone in ((discover(claude)[0].open(), next((claude / "projects").rglob("d6e0bada-*.jsonl"))),
                         (discover(codex)[0].open(), removed),
                         (JsonlSessionsSource(jsonl.parent), jsonl / "a.jsonl")):
        before = _ids(source)
        gone.unlink()
        assert len(_ids(source)) == len(before) - 1


def test_a_homes_rollback_is_offered_once_a_sessions_folder_is_there_after_reload(tmp_path: Path) -> None:
    """A home's capabilities are worked out once per listing (the footer asks at every key):
    a reload takes a folder made since — here the project one of its sessions worked in."""
    from mixed_homes import SPOTTER, claude_home, moved

    from memtui.core.memory_source import Capability

    home = claude_home(tmp_path)
    project = tmp_path / "spotter"
    moved(home, SPOTTER, project)
    [found] = discover(home)
    source = found.open()
    assert source is not _live(source)  # the home with memtui's archive beside it
    assert not source.can(Capability.ROLLBACK)  # no folder any session worked in is here
    project.mkdir()
    source.reload()
    assert source.can(Capability.ROLLBACK)
