"""Resume a Claude Code or Codex session in its agent, in the directory it recorded."""

from __future__ import annotations

import os

import pytest

from memtui.core.memory_source import Unsupported
from memtui.core.resume import plan_resume, run_resume
from memtui.core.store import AgentStore

from resume_support import path_with, recorded, stub_agent
from sources_support import agent_homes, discovered

SESSIONS = {"claude-code": ("claude", ["--resume", "5b2c1f9e-7d3a-4c8e-9f10-2a6b8c4d1e21"]),
            "codex": ("codex", ["resume", "0196f1c2-8a4b-7c3d-9e8f-1a2b3c4d5e6f"])}


@pytest.mark.parametrize("kind", sorted(SESSIONS))
def test_the_agent_runs_with_the_session_in_its_recorded_directory(tmp_path, kind):
    workspace, env = agent_homes(tmp_path)
    binary, args = SESSIONS[kind]
    record = stub_agent(tmp_path / "bin", binary)
    entry = discovered(workspace, env, kind)
    source = entry.open()
    try:
        plan = plan_resume(source, args[-1], path=str(tmp_path / "bin"))
        assert plan.problem == "" and plan.cwd == workspace
        assert plan.shell_line == f"cd {workspace} && {binary} {' '.join(args)}"
        assert run_resume(plan, env={**os.environ, "PATH": path_with(tmp_path / "bin")}) == 0
    finally:
        entry.close()
    assert recorded(record)["argv"] == args and recorded(record)["cwd"] == str(workspace)


def test_a_missing_binary_is_named_and_the_command_shown(tmp_path):
    workspace, env = agent_homes(tmp_path)
    (tmp_path / "empty").mkdir()
    entry = discovered(workspace, env, "claude-code")
    try:
        plan = plan_resume(entry.open(), SESSIONS["claude-code"][1][-1], path=str(tmp_path / "empty"))
    finally:
        entry.close()
    assert plan.executable is None
    assert plan.problem == "claude is not on PATH: install it, or run the command yourself"
    assert plan.shell_line.endswith("claude --resume 5b2c1f9e-7d3a-4c8e-9f10-2a6b8c4d1e21")
    with pytest.raises(ValueError, match="not on PATH"):
        run_resume(plan)


def test_memtuis_own_store_cannot_resume(tmp_path):
    with AgentStore.open(tmp_path) as store:
        sid = store.start_session("x")
        with pytest.raises(Unsupported, match="can't resume a session in its agent: only Claude Code, Codex"):
            plan_resume(store, sid)
