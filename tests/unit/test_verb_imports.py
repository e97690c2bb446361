"""A verb over an agent's home loads only what it reads with: `memtui log|sources|search|usage
HOME --json` on a Claude Code home imports no database layer (peewee, psycopg: 0.3-1 s of a warm
command before they were loaded lazily) and no UI (textual, rich)."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
from real_support import real_home

NOT_NEEDED = ("peewee", "psycopg", "textual", "rich")


@pytest.mark.parametrize("verb", [["log"], ["sources"], ["search", "WORD"], ["usage"]], ids=lambda v: v[0])
def test_a_verb_over_an_agents_home_loads_no_database_layer_and_no_ui(tmp_path, verb):
    home = real_home("claude-2.1.39-spotter", tmp_path)
    argv = [verb[0], str(home), *verb[1:], "--json"]
    code = (
        "import sys\nfrom memtui.cli import main\n"
        f"status = main({argv!r})\n"
        f"print('LOADED', sorted({{m.split('.')[0] for m in sys.modules}} & set({NOT_NEEDED!r})), status)\n"
    )
    env = dict(os.environ, HOME=str(tmp_path / "user"), CLAUDE_CONFIG_DIR=str(home), CODEX_HOME=str(tmp_path / "none"))
    for run in ("cold", "warm"):  # the index built, then read
        proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env)
        assert proc.returncode == 0, proc.stderr
        assert proc.stdout.strip().splitlines()[-1] in ("LOADED [] 0", "LOADED [] 1"), (run, proc.stdout[-300:])


def test_the_apps_opening_of_an_agents_home_loads_no_database_layer(tmp_path):
    """The app's opening worker asks whether the source is memtui's own store: for an agent's
    home, that loads no peewee (0.3-1 s of the first paint before)."""
    home = real_home("claude-2.1.39-spotter", tmp_path)
    code = (
        "import sys\nfrom pathlib import Path\nfrom memtui.ui.opening import is_store, open_workspace\n"
        f"source, entry = open_workspace(Path({str(home)!r}))\n"
        "print('OWN', is_store(source), len(source.sessions()) > 0, "
        "sorted({m.split('.')[0] for m in sys.modules} & {'peewee', 'psycopg'}))\n"
    )
    env = dict(os.environ, HOME=str(tmp_path / "user"), CLAUDE_CONFIG_DIR=str(home), CODEX_HOME=str(tmp_path / "none"))
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip().splitlines()[-1] == "OWN False True []"
