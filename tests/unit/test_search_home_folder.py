"""`memtui search ~`: the home folder searches every agent's sessions `memtui sources ~` lists
there (Claude Code and Codex), saying whose each hit is. It searched Claude Code's alone (and
before that refused ~ as "not a workspace")."""

from __future__ import annotations

import json

from memtui.cli import main

from real_support import user_home


def _run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_search_of_the_home_folder_searches_every_agent_memtui_sources_lists_there(tmp_path, monkeypatch, capsys):
    home = user_home(tmp_path, monkeypatch)
    alone = {}
    for agent, folder in (("claude-code", ".claude"), ("codex", ".codex")):
        code, out, err = _run(capsys, "search", str(home / folder), "print", "--all", "--json")
        assert code == 0, err
        alone[agent] = json.loads(out)
        assert alone[agent] and all("source" not in hit for hit in alone[agent])
    monkeypatch.chdir(home)
    code, out, err = _run(capsys, "search", str(home), "print", "--all", "--json")
    assert code == 0, err
    hits = json.loads(out)
    # Each agent's hits, as searching its own home finds them, each saying whose it is.
    for agent, expected in alone.items():
        assert [{k: v for k, v in hit.items() if k != "source"} for hit in hits if hit["source"] == agent] == expected
    assert {hit["source"] for hit in hits} == {"claude-code", "codex"}
    assert err == f"searched claude-code at {home / '.claude'}, codex at {home / '.codex'}\n"
    code, out, _ = _run(capsys, "search", str(home), "print", "--all")
    lines = out.splitlines()
    assert len(lines) == len(hits) and {line.split(" ", 1)[0] for line in lines} == {"claude-code", "codex"}


def test_log_of_the_home_folder_names_the_other_agents_home_it_does_not_list(tmp_path, monkeypatch, capsys):
    home = user_home(tmp_path, monkeypatch)
    code, out, err = _run(capsys, "log", str(home))
    assert code == 0 and out.startswith("session ")
    assert err == f"also here: codex at {home / '.codex'} (memtui log {home / '.codex'})\n"
    code, out, err = _run(capsys, "log", str(home / ".codex"))
    assert code == 0 and out.startswith("session ") and err == ""
