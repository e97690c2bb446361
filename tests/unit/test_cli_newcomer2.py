"""What a developer meeting memtui for the first time met in the CLI: a search that ignored the
agent.db it was given, or read "no matches" for a folder that is no workspace; a pin of a
session that does not exist."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from memtui.cli import main
from memtui.core.demo import build_demo

from real_support import real_home


@pytest.fixture(scope="module")
def demo(tmp_path_factory):
    return build_demo(tmp_path_factory.mktemp("nc2") / "demo", seed=1)


def _run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_search_reads_an_agent_db_given_outside_its_workspace(demo, tmp_path, capsys):
    moved = tmp_path / "elsewhere" / "copy.db"
    moved.parent.mkdir()
    shutil.copyfile(demo / ".agent" / "agent.db", moved)
    code, out, _ = _run(capsys, "search", str(demo), "router", "--kind", "step", "--json")
    expected = json.loads(out)
    assert code == 0 and expected
    code, out, err = _run(capsys, "search", str(moved), "router", "--kind", "step", "--json")
    assert code == 0, err
    assert json.loads(out) == expected


def test_search_of_a_claude_code_home_says_it_cannot_search_it(tmp_path, capsys):
    home = real_home("claude-2.1.38-spotter-small", tmp_path)
    code, out, err = _run(capsys, "search", str(home), "spotter")
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and "Claude Code" in err and "can't" in err and "no matches" not in err


def test_search_of_a_folder_that_is_no_workspace_is_an_error(tmp_path, capsys):
    (tmp_path / "empty").mkdir()
    code, out, err = _run(capsys, "search", str(tmp_path / "empty"), "anything")
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and "not a workspace" in err


def test_search_of_a_folder_with_memory_documents_only_still_searches_them(tmp_path, capsys):
    (tmp_path / "MEMORY.md").write_text("# Memory\n- the quokka lives here\n")
    code, out, err = _run(capsys, "search", str(tmp_path), "quokka")
    assert code == 0, err
    assert "MEMORY.md:2" in out
