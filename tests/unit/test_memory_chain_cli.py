"""`memtui memory PATH --loaded`: the start-up chain of each agent, as JSON and as text."""

from __future__ import annotations

import json

import pytest
from chain_world import world_in_env, write

from memtui.cli import main
from memtui.core.loaded_memory import AGENTS

FILE_KEYS = {"path", "scope", "order", "bytes", "lines", "tokens", "loaded_lines", "loaded_bytes", "truncated",
             "on_demand", "imported_by", "reason"}


@pytest.fixture
def world(tmp_path, monkeypatch):
    return world_in_env(tmp_path, monkeypatch)


def loaded(capsys, *argv):
    code = main(["memory", *argv, "--loaded", "--json"])
    assert code == 0
    return json.loads(capsys.readouterr().out)


def test_json_shape_for_every_agent(world, capsys):
    out = loaded(capsys, str(world.repo), "--cwd", "pkg/mod")
    assert set(out) == {"agents"}
    assert [a["agent"] for a in out["agents"]] == list(AGENTS)  # every agent with a chain, registry order
    assert {"claude-code", "codex", "memtui", "gemini-cli", "opencode", "aider"} <= set(AGENTS)
    for agent in out["agents"]:
        assert set(agent) == {"agent", "files", "total_loaded_bytes", "total_tokens", "problems"}
        assert [f["order"] for f in agent["files"]] == list(range(1, len(agent["files"]) + 1))
        for f in agent["files"]:
            assert set(f) == FILE_KEYS
        for p in agent["problems"]:
            assert set(p) == {"file", "line", "rule", "message"} and p["file"].startswith("/")
        assert agent["total_loaded_bytes"] == sum(f["loaded_bytes"] for f in agent["files"])
        assert agent["total_tokens"] == sum(f["tokens"] for f in agent["files"])
    claude = out["agents"][0]
    memory = next(f for f in claude["files"] if f["path"] == str(world.memory_md))
    assert memory == {
        "path": str(world.memory_md), "scope": "auto-memory", "order": memory["order"], "bytes": 2250, "lines": 250,
        "tokens": 450, "loaded_lines": 200, "loaded_bytes": 1800, "truncated": True, "on_demand": False,
        "imported_by": None, "reason": memory["reason"],
    }
    style = next(f for f in claude["files"] if f["path"].endswith("docs/style.md"))
    assert style["imported_by"] == str(world.repo / "CLAUDE.md") and style["scope"] == "import"
    assert {"file": str(world.memory_md), "line": 201, "rule": "cut-off"}.items() <= next(
        p for p in claude["problems"] if p["rule"] == "cut-off").items()
    codex = out["agents"][1]
    assert [(f["scope"], f["loaded_bytes"]) for f in codex["files"]] == [
        ("global", 0), ("global", 24), ("directory", 14), ("directory", 13), ("directory", 0), ("directory", 11)]


def test_cwd_defaults_to_path_and_agent_filter(world, capsys):
    out = loaded(capsys, str(world.repo), "--agent", "codex")
    assert [a["agent"] for a in out["agents"]] == ["codex"]
    paths = [f["path"] for f in out["agents"][0]["files"]]
    assert str(world.repo / "AGENTS.md") in paths and str(world.repo / "pkg/AGENTS.md") not in paths


def test_over_limit_agents_md_fixed_in_place_changes_the_chain(world, capsys):
    write(world.repo / "AGENTS.md", "x" * 40_000)
    before = loaded(capsys, str(world.repo), "--agent", "codex")["agents"][0]
    cut = next(f for f in before["files"] if f["path"] == str(world.repo / "AGENTS.md"))
    assert (cut["loaded_bytes"], cut["truncated"]) == (32_768, True)
    write(world.repo / "AGENTS.md", "x" * 1_000)
    after = loaded(capsys, str(world.repo), "--agent", "codex")["agents"][0]
    fixed = next(f for f in after["files"] if f["path"] == str(world.repo / "AGENTS.md"))
    assert (fixed["loaded_bytes"], fixed["truncated"]) == (1_000, False)
    assert not [p for p in after["problems"] if p["rule"] == "cut-off"]


def test_text_output_shows_hostile_content_literally(world, capsys):
    write(world.repo / "evil\x1b[31m.md", "x\n")
    write(world.repo / "CLAUDE.md", "@evil\x1b[31m.md [bold red]boom[/]\n")
    assert main(["memory", str(world.repo), "--loaded", "--agent", "claude-code"]) == 0
    text = capsys.readouterr().out
    assert "\x1b" not in text and "evil␛[31m.md" in text
    assert "Claude Code:" in text and "200/250 lines" in text and "cut-off" in text


def test_errors_are_one_line(world, capsys, tmp_path):
    assert main(["memory", str(world.repo), "--loaded", "--cwd", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "outside the workspace" in err
    assert main(["memory", str(world.repo), "--cwd", "pkg"]) == 2
    assert "--loaded" in capsys.readouterr().err


def test_history_of_a_chain_file_outside_the_workspace(world, capsys):
    from memtui.core.loaded_memory import loaded_chains
    from memtui.core.memory.chain import chain_paths
    from memtui.core.memory.documents import read_document
    from memtui.core.memory.save import save_document

    user = world.claude_config / "CLAUDE.md"
    grants = chain_paths(loaded_chains(world.repo))
    save_document(world.repo, user, "# User\nv2\n", read_document(user).version, outside=grants)
    code = main(["memory-history", str(world.repo), str(user), "--json"])
    assert code == 0 and [e["number"] for e in json.loads(capsys.readouterr().out)] == [1]
    assert main(["memory-history", str(world.repo), str(user), "--undo"]) == 0
    assert user.read_text() == "# User\nAnswer briefly.\n"
    capsys.readouterr()
    stranger = write(world.home / "elsewhere.md", "x\n")
    assert main(["memory-history", str(world.repo), str(stranger)]) == 2
    assert "neither in the workspace nor loaded" in capsys.readouterr().err


# The four agents added after Claude Code and Codex, each through the CLI's --agent filter: the
# file its own rules load from this workspace (their whole chains are in test_chain_gemini_opencode.py
# and test_chain_aider_cline.py), the others' files absent, and the same entry as in the full listing.
ADDED = {
    "gemini-cli": ("Gemini CLI", "GEMINI.md", "# Gemini\nproject context\n"),
    "opencode": ("OpenCode", "AGENTS.md", None),  # the world's own repo/AGENTS.md
    "aider": ("Aider", "CONVENTIONS.md", "# Conventions\nuse tabs\n"),
    "cline": ("Cline", ".clinerules/style.md", "# Rules\nsmall commits\n"),
}


@pytest.mark.parametrize("agent", sorted(ADDED))
def test_each_added_agents_chain_through_the_agent_filter(world, capsys, agent):
    for _name, rel, text in ADDED.values():
        if text is not None:
            write(world.repo / rel, text)
    write(world.repo / ".aider.conf.yml", "read: CONVENTIONS.md\n")
    name, rel, _text = ADDED[agent]
    out = loaded(capsys, str(world.repo), "--agent", agent)
    [chain] = out["agents"]
    assert chain["agent"] == agent
    at_start = [f["path"] for f in chain["files"] if f["loaded_bytes"] and not f["on_demand"]]
    assert str(world.repo / rel) in at_start
    others = {str(world.repo / r) for a, (_n, r, _t) in ADDED.items() if a != agent and r != rel}
    assert not others & set(at_start), f"{agent} lists another agent's memory file as loaded"
    every = loaded(capsys, str(world.repo))
    assert chain == next(a for a in every["agents"] if a["agent"] == agent)
    assert main(["memory", str(world.repo), "--loaded", "--agent", agent]) == 0
    text = capsys.readouterr().out
    assert text.startswith(f"{name}:") and str(world.repo / rel) in text
