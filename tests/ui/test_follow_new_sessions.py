"""memtui open beside a running agent: a session the agent starts shows up in the sessions pane
on ctrl+r and by follow mode, and a removed one goes.

Real files (tests/fixtures/real, PROVENANCE.md): a Claude Code home with the spotter-small
project's sessions, into which the agtrace sample's session is copied; a Codex home with the
agtrace rollout, into which a localpush rollout is copied in a new day's folder. Follow mode is
driven by its own look (`Follower.poll`, what its timer calls), not by waiting on the clock.
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

from pilot_support import settle
from memtui.ui.widgets.sessions_table import SessionsTable

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "unit"))
from follow_support import look  # noqa: E402
from mixed_homes import SPOTTER, moved  # noqa: E402
from real_support import real_home  # noqa: E402
from conftest import notifications

AGTRACE_SESSION = "7f2abd2d-7cfc-4447-9ddd-3ca8d14e02e9"
AGTRACE_PROJECT = "-Users-zawakin-agent-sample"
CODEX_SESSION = "019b04ae-b1c6-7c72-a134-a4c2de66058c"
LOCALPUSH = "019c8a4c-ed82-79a1-aa28-7738fc5ab61a"
LOCALPUSH_ROLLOUT = f"rollout-2026-02-23T12-40-23-{LOCALPUSH}.jsonl"


def _listed(app) -> set[str]:
    return {str(getattr(r, "id", "")) for r in app.screen.query_one(SessionsTable).records}


async def test_a_new_claude_session_shows_up_on_ctrl_r_and_a_removed_one_goes(tmp_path: Path, app_for) -> None:
    home = real_home("claude-2.1.38-spotter-small", tmp_path)
    sample = real_home("claude-2.0.28-agtrace", tmp_path / "unpacked") / "projects" / AGTRACE_PROJECT
    app = app_for(home)
    app.follower.enabled = False  # only ctrl+r reloads here
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(pilot)
        before = _listed(app)
        assert len(before) == 3
        shutil.copytree(sample, home / "projects" / AGTRACE_PROJECT)  # the agent started a session
        await pilot.press("ctrl+r")
        await settle(pilot)
        assert _listed(app) == before | {AGTRACE_SESSION}
        assert [n.message for n in notifications(app) if n.title == "Reloaded"][-1].startswith("1 new session")
        (home / "projects" / AGTRACE_PROJECT / f"{AGTRACE_SESSION}.jsonl").unlink()
        await pilot.press("ctrl+r")
        await settle(pilot)
        assert _listed(app) == before


async def test_follow_mode_shows_a_new_codex_session_in_a_new_days_folder_and_drops_a_removed_one(
        tmp_path: Path, app_for) -> None:
    home = real_home("codex-0.66.0-agtrace", tmp_path)
    rollout = real_home("codex-0.104-localpush", tmp_path / "unpacked") / "sessions" / "2026" / "02" / "23" / LOCALPUSH_ROLLOUT
    app = app_for(home)
    app.follower.enabled = False  # no look but the test's own
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(pilot)
        assert _listed(app) == {CODEX_SESSION}
        await look(pilot)
        assert _listed(app) == {CODEX_SESSION}  # nothing written: nothing new
        day = home / "sessions" / "2026" / "02" / "23"
        day.mkdir(parents=True)
        shutil.copyfile(rollout, day / LOCALPUSH_ROLLOUT)
        await look(pilot)
        assert _listed(app) == {CODEX_SESSION, LOCALPUSH}
        (day / LOCALPUSH_ROLLOUT).unlink()
        await look(pilot)
        assert _listed(app) == {CODEX_SESSION}


async def test_follow_mode_shows_a_new_claude_session_of_the_project_opened(tmp_path: Path, app_for, monkeypatch) -> None:
    """Opened on a project folder: the agent starts a session there (a new transcript in the
    project's folder of the home); follow mode lists it."""
    home = real_home("claude-2.1.38-spotter-small", tmp_path / "home")
    project = tmp_path / "spotter"
    project.mkdir()
    moved(home, SPOTTER, project)
    sample = real_home("claude-2.0.28-agtrace", tmp_path / "unpacked") / "projects" / AGTRACE_PROJECT
    moved(sample, "/Users/zawakin/agent-sample", project)  # as if the sample had worked in this project
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(home))
    monkeypatch.setenv("CODEX_HOME", str(tmp_path / "no-codex"))
    app = app_for(project)
    app.follower.enabled = False
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(pilot)
        before = _listed(app)
        assert len(before) == 3
        [folder] = (home / "projects").iterdir()
        for f in sample.iterdir():
            shutil.copyfile(f, folder / f.name)
        await look(pilot)
        assert _listed(app) == before | {AGTRACE_SESSION}
