"""A Claude Code home written on Windows, as the real ones are laid out (generated here: the CLI
does not run on Windows on this machine): one folder recorded as `c:\\Users\\dev\\tally` by
one session and `C:\\Users\\dev\\tally` by another, so Claude Code keeps two project folders
for it (`c--Users-dev-tally`, `C--Users-dev-tally`), and a session whose records' cwd moves
(a `cd src` in a shell step; the drive letter's case flipping) while it works. memtui takes
them as one project — usage by project, cleanup's newest-per-project — and a session's project
is the folder it started in."""

from __future__ import annotations

import json
import os
from datetime import datetime, timedelta, timezone
from pathlib import Path

from memtui.cli import main
from memtui.core.agents.claude_code.source import ClaudeCodeSource
from memtui.core.cleanup.plan import plan_cleanup
from memtui.core.homes import take_inventory

TALLY, OTHER = "C:\\Users\\dev\\tally", "C:\\Users\\dev\\other"
LOWER = "9a1b2c3d-4e5f-4a6b-8c7d-0e1f2a3b4d01"  # recorded c:\...
UPPER = "9a1b2c3d-4e5f-4a6b-8c7d-0e1f2a3b4d02"  # recorded C:\..., then cd src, then c:\ again
ELSEWHERE = "9a1b2c3d-4e5f-4a6b-8c7d-0e1f2a3b4d03"


def _turn(session: str, n: int, cwds: list[str], prompt: str, output: int, day: int) -> list[dict]:
    """A prompt and its reply, each record carrying the cwd the CLI had then."""
    base = {"sessionId": session, "version": "2.1.86", "isSidechain": False, "userType": "external"}
    when = f"2026-01-{day:02d}T10:00:0{n}.000Z"
    return [
        {**base, "type": "user", "uuid": f"{session[:-4]}u{n:03d}", "parentUuid": None, "cwd": cwds[0],
         "timestamp": when, "message": {"role": "user", "content": prompt}},
        {**base, "type": "assistant", "uuid": f"{session[:-4]}a{n:03d}", "parentUuid": f"{session[:-4]}u{n:03d}",
         "cwd": cwds[-1], "timestamp": when, "requestId": f"req_{session[-4:]}{n}",
         "message": {"id": f"msg_{session[-4:]}{n}", "role": "assistant", "model": "claude-sonnet-4-5",
                     "content": [{"type": "text", "text": "Done."}],
                     "usage": {"input_tokens": 100, "output_tokens": output, "cache_read_input_tokens": 0,
                               "cache_creation_input_tokens": 0}}},
    ]


def windows_home(root: Path) -> Path:
    home = root / ".claude"
    sessions = {
        ("c--Users-dev-tally", LOWER): _turn(LOWER, 1, ["c:\\Users\\dev\\tally"], "Add a --verbose flag", 30, 2),
        ("C--Users-dev-tally", UPPER): _turn(UPPER, 1, [TALLY, TALLY + "\\src"], "Move into src and fix the parser", 20, 5)
                                       + _turn(UPPER, 2, [TALLY + "\\src", "c:\\Users\\dev\\tally"], "Now the tests", 10, 5),
        ("C--Users-dev-other", ELSEWHERE): _turn(ELSEWHERE, 1, [OTHER], "Tidy the README", 7, 3),
    }
    for (folder, session), records in sessions.items():
        path = home / "projects" / folder / f"{session}.jsonl"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("".join(json.dumps(r) + "\n" for r in records))
    return home


def test_one_folder_under_two_drive_spellings_is_one_project_in_usage(tmp_path, capsys):
    home = windows_home(tmp_path)
    assert main(["usage", str(home), "--by", "project", "--json"]) == 0
    rows = {row["key"]: row["output"] for row in json.loads(capsys.readouterr().out)["rows"]}
    assert rows == {TALLY: 60, OTHER: 7}


def test_cleanup_keeps_the_newest_session_of_the_one_project(tmp_path):
    """--keep-last 1: of the two tally sessions only the newer stays; the other project's one too."""
    home = windows_home(tmp_path)
    inventory = take_inventory(home, cache=tmp_path / "cache")
    assert {s.id: s.project for s in inventory.sessions} == {LOWER: TALLY, UPPER: TALLY, ELSEWHERE: OTHER}
    newest = max(os.stat(p).st_mtime for p in home.rglob("*.jsonl"))
    plan = plan_cleanup(inventory, keep_days=30, keep_last=1,
                        now=datetime.fromtimestamp(newest, tz=timezone.utc) + timedelta(days=400))
    decisions = {s.id: d.action for s, d in plan.sessions}
    assert decisions == {LOWER: "archive", UPPER: "keep", ELSEWHERE: "keep"}


def test_a_session_whose_cwd_moves_stays_one_session_of_the_folder_it_started_in(tmp_path):
    source = ClaudeCodeSource.from_path(windows_home(tmp_path))
    tasks = source.tasks(UPPER)
    assert [t.title for t in tasks] == ["Move into src and fix the parser", "Now the tests"]
    assert {str(source.workspace_root(t.id)) for t in tasks} == {TALLY}
    assert {str(source.workspace_root(t.id)) for t in source.tasks(LOWER)} == {TALLY}
    assert sum(s.tokens_out for t in tasks for s in source.steps(t.id)) == 30
