"""Looking for stores imports no agent's reader: discovery asks every agent of the registry
where its stores are, and each answers from names, places and first records (its package's
discovery module and the probes beside it); an agent's reader is imported when its store is
opened. Before, a folder holding no store imported all nine readers and the index machinery
to find nothing (a quarter of a second of every `memtui sources PATH`, `memtui PATH`)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from .six_home import make_six_agent_home

READERS = tuple(f"memtui.core.agents.{module}" for module in (
    "claude_code.source", "claude_code.transcripts", "codex.source", "codex.rollouts", "gemini_cli.source",
    "gemini_cli.chats", "opencode.source", "opencode.index", "aider.source", "cline.source", "cline.tasks",
    "cline.sessions", "ra_aid.source", "jsonl.source")) + ("memtui.core.sources.kept_parts",
                                                          "memtui.core.cleanup.archive_read")

PROBE = """
import json, sys
from memtui.core.discovery import discover
found = discover(sys.argv[1])
before = [m for m in READERS if m in sys.modules]
for source in found:
    source.open().sessions()
print(json.dumps({"kinds": [s.kind for s in found], "before": before,
                  "after": [m for m in READERS if m in sys.modules]}))
"""


def _discover(path: Path, home: Path) -> dict:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("XDG_", "CLAUDE_", "CODEX_", "GEMINI_", "CLINE_"))}
    env.update(HOME=str(home), XDG_CONFIG_HOME=str(home / ".config"), XDG_DATA_HOME=str(home / ".local/share"),
               XDG_CACHE_HOME=str(home.parent / "cache"), XDG_STATE_HOME=str(home.parent / "state"))
    proc = subprocess.run([sys.executable, "-c", f"READERS = {READERS!r}\n{PROBE}", str(path)], env=env,
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def test_a_folder_holding_no_store_is_looked_at_without_importing_any_reader(tmp_path: Path) -> None:
    """A project no agent ran in, in a home holding six agents' homes: each agent looks for the
    sessions that recorded it (first records, OpenCode's session table, Cline's task history)
    and finds none; no reader is imported."""
    home = make_six_agent_home(tmp_path, 1)
    project = home / "project"
    project.mkdir()
    (project / "notes.md").write_text("# a project no agent ran in\n")
    assert _discover(project, home) == {"kinds": [], "before": [], "after": []}


def test_a_repository_aider_ran_in_imports_aiders_reader_alone_when_opened(tmp_path: Path) -> None:
    home = make_six_agent_home(tmp_path, 1)
    [repo] = sorted(home.glob("src/aider-create-edit-*"))
    seen = _discover(repo, home)
    assert seen["kinds"] == ["aider"] and seen["before"] == []
    assert [m for m in seen["after"] if m.startswith("memtui.core.agents.")] == ["memtui.core.agents.aider.source"]


def test_the_six_agents_of_a_home_are_found_without_their_readers_which_come_when_opened(tmp_path: Path) -> None:
    """`memtui ~`: each of the six agents' stores found by its probes alone; opening them
    imports their readers (and the index kit), and only then."""
    home = make_six_agent_home(tmp_path, 1)
    seen = _discover(home, home)
    assert {"claude-code", "codex", "gemini-cli", "opencode", "aider", "cline"} <= set(seen["kinds"])
    assert seen["before"] == []
    opened = {"memtui.core.agents.claude_code.source", "memtui.core.agents.codex.source", "memtui.core.agents.gemini_cli.source",
              "memtui.core.agents.opencode.source", "memtui.core.agents.aider.source", "memtui.core.agents.cline.source",
              "memtui.core.sources.kept_parts"}
    assert opened <= set(seen["after"])
    assert "memtui.core.agents.ra_aid.source" not in seen["after"]  # no RA.Aid store here: its reader never loads
