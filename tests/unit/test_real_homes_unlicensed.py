"""Claude Code homes published without a licence (PROVENANCE.md, "Looked at, not committed"):
not copied into the repository, so this test reads a checkout the runner names and skips,
saying so, when there is none.

    MEMTUI_REAL_HOMES=/path/to/checkouts pytest tests/unit/test_real_homes_unlicensed.py

where /path/to/checkouts/<owner>+<name> is `git clone https://github.com/<owner>/<name>` at
the commit below. Expected numbers come from real_support.claude_session_counts.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from memtui.core.agents.claude_code.source import ClaudeCodeSource

from real_support import claude_session_counts
from sources_support import tree_state

HOMES = {  # repository → (commit, the Claude home inside it)
    "Eduardodmb/ClaudeWork": ("7545331a078455343ab78654d834e8dbc55370d2", "."),
    "LeoDChen/claude-config": ("e6d4bae4b584dc4fefcf738a4642d076fd912549", "."),
    "hannibal8856/claude_backup": ("2e35e2520a2d1ec40b13fb931c06981bc7bb7453", ".claude"),
}
NOT_CALLS = {"reply", "thinking", "compaction", "checkpoint", "interrupt", "notification", "command output", "shell",
             "command", "api error", "notice"}


@pytest.mark.parametrize("repo", sorted(HOMES))
def test_each_session_counts_each_record_once(repo):
    commit, inside = HOMES[repo]
    root = os.environ.get("MEMTUI_REAL_HOMES")
    home = Path(root) / repo.replace("/", "+") / inside if root else None
    if home is None or not (home / "projects").is_dir():
        pytest.skip(f"{repo} has no licence, so it is not in the repository: clone it at {commit[:12]} into "
                    f"$MEMTUI_REAL_HOMES/{repo.replace('/', '+')} to run this")
    before = tree_state(home / "projects")
    truth = claude_session_counts(home)
    source = ClaudeCodeSource.from_path(home)
    for session in source.sessions():
        if session.id not in truth or session.title.startswith("(transcript missing)"):
            continue
        tasks = source.tasks(session.id)
        steps = [s for t in tasks for s in source.steps(t.id)]
        expected = truth[session.id]
        notes = [t.summary.split("; ") for t in tasks]
        prompts = [t for t, n in zip(tasks, notes)
                   if not any(x.startswith(("sub-agent", "side question")) for x in n) and not t.id.endswith(":start")]
        assert len(prompts) == expected["typed"] + expected["commands"], session.id
        assert sum(s.tool not in NOT_CALLS for s in steps) == expected["tool_calls"], session.id
        assert sum(1 for s in steps if s.checkpoint_id and s.tool != "checkpoint") == expected["file_changes"], session.id
        assert sum(s.tokens_out for s in steps) == expected["output_tokens"], session.id
        assert not session.title.startswith(("<ide_", "(before the first prompt)")) or not expected["typed"], session.id
    assert tree_state(home / "projects") == before
