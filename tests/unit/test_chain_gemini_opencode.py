"""The start-up chains of Gemini CLI and OpenCode: which files each loads, in which order, and
what it refuses.

`context_world` is the world the real Gemini CLI 0.61.0 and OpenCode 1.18.33 were run over
(once each, from `repo/pkg`, against the scripted model of tests/agents); the files their
first request carried (Gemini: `--- Context from: PATH ---`, OpenCode: `Instructions from:
PATH`) are the ones listed as loaded at start below. With `context.fileName: "AGENTS.md"`
Gemini CLI 0.61 read AGENTS.md *and* GEMINI.md; `@../outside.md` was refused as a path
traversal; `@missing.md` failed; `docs/a.md`'s own `@b.md` was inlined too. With
`tmp/<project>/memory/MEMORY.md` beside an older `memory/GEMINI.md` (projects.json naming the
project), Gemini CLI sent MEMORY.md only, after the global file.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from chain_world import git_init, write

from memtui.core.loaded_memory import loaded_chains


def context_world(tmp: Path) -> tuple[Path, Path]:
    home, repo = tmp / "home", tmp / "home" / "work" / "repo"
    git_init(repo)
    write(home / ".gemini" / "GEMINI.md", "# global gemini\n@inc.md\n")
    write(home / ".gemini" / "inc.md", "global include\n")
    write(home / ".gemini" / "AGENTS.md", "global agents for gemini\n")
    write(home / "work" / "GEMINI.md", "above the git root\n")
    write(home / "work" / "AGENTS.md", "above the git root agents\n")
    write(repo / "GEMINI.md", "repo gemini @docs/a.md `@docs/no.md` @../outside.md @missing.md\n")
    write(home / "work" / "outside.md", "outside\n")
    write(repo / "docs" / "a.md", "doc a @b.md\n")
    write(repo / "docs" / "b.md", "doc b\n")
    write(repo / "docs" / "no.md", "no\n")
    write(repo / "AGENTS.md", "repo agents\n")
    write(repo / "CLAUDE.md", "repo claude\n")
    write(repo / "pkg" / "GEMINI.md", "pkg gemini\n")
    write(repo / "pkg" / "CLAUDE.md", "pkg claude\n")
    write(repo / "pkg" / "sub" / "GEMINI.md", "sub gemini\n")
    write(repo / "pkg" / "sub" / "AGENTS.md", "sub agents\n")
    write(home / ".claude" / "CLAUDE.md", "claude global\n")
    write(repo / "rules" / "x.md", "rule x\n")
    write(repo / "opencode.json", json.dumps({"instructions": ["rules/*.md"]}))
    return home, repo


def env_of(home: Path, **more: str) -> dict[str, str]:
    return {"HOME": str(home), "XDG_CONFIG_HOME": str(home / ".config"), "CLAUDE_CONFIG_DIR": str(home / ".claude"),
            "CODEX_HOME": str(home / ".codex"), **more}


def chain_of(agent: str, repo: Path, env: dict[str, str], cwd: str | None = "pkg"):
    (found,) = loaded_chains(repo, cwd, [agent], env=env)
    return found


def at_start(c) -> list[str]:
    return [str(f.path) for f in c.files if f.loaded_bytes and not f.on_demand]


@pytest.fixture
def world(tmp_path):
    return context_world(tmp_path.resolve())


def test_gemini_loads_what_the_real_cli_loaded(world):
    home, repo = world
    c = chain_of("gemini-cli", repo, env_of(home))
    assert c.label == "Gemini CLI"
    assert at_start(c) == [str(p) for p in (
        home / ".gemini/GEMINI.md", home / ".gemini/inc.md",  # the system instruction's context
        repo / "GEMINI.md", repo / "docs/a.md", repo / "docs/b.md", repo / "pkg/GEMINI.md")]
    assert [str(f.path) for f in c.files if f.on_demand] == [str(repo / "pkg/sub/GEMINI.md")]
    inc = c.file(home / ".gemini/inc.md")
    assert (inc.scope, inc.imported_by, inc.depth) == ("import", home / ".gemini/GEMINI.md", 1)
    assert c.file(repo / "docs/b.md").depth == 2
    assert c.file(home / "work/GEMINI.md") is None  # above the git root: never read
    assert c.file(repo / "docs/no.md") is None  # inside backticks: no import
    rules = {(p.rule, p.file, p.line) for p in c.problems}
    assert ("import-outside", repo / "GEMINI.md", 1) in rules
    assert ("import-missing", repo / "GEMINI.md", 1) in rules


def test_gemini_context_file_name_is_read_beside_gemini_md(world):
    home, repo = world
    write(home / ".gemini" / "settings.json", '{\n  // a comment, as Gemini CLI allows\n'
          '  "context": {"fileName": "AGENTS.md"}\n}\n')
    c = chain_of("gemini-cli", repo, env_of(home))
    assert at_start(c) == [str(p) for p in (
        home / ".gemini/AGENTS.md", home / ".gemini/GEMINI.md", home / ".gemini/inc.md",
        repo / "AGENTS.md", repo / "GEMINI.md", repo / "docs/a.md", repo / "docs/b.md", repo / "pkg/GEMINI.md")]
    assert [str(f.path) for f in c.files if f.on_demand] == [str(repo / "pkg/sub/AGENTS.md"),
                                                             str(repo / "pkg/sub/GEMINI.md")]


def test_gemini_untrusted_folder_loads_no_project_file(world):
    home, repo = world
    write(home / ".gemini" / "settings.json", json.dumps({"security": {"folderTrust": {"enabled": True}}}))
    c = chain_of("gemini-cli", repo, env_of(home))
    assert at_start(c) == [str(home / ".gemini/GEMINI.md"), str(home / ".gemini/inc.md")]
    pkg = c.file(repo / "pkg/GEMINI.md")
    assert pkg.loaded_bytes == 0 and "not a trusted folder" in pkg.reason
    write(home / ".gemini" / "trustedFolders.json", json.dumps({str(repo / "pkg" / "x"): "TRUST_PARENT"}))
    assert str(repo / "pkg/GEMINI.md") in at_start(chain_of("gemini-cli", repo, env_of(home)))
    assert str(repo / "pkg/GEMINI.md") not in at_start(
        chain_of("gemini-cli", repo, env_of(home, GEMINI_CLI_TRUST_WORKSPACE="false")))


def test_gemini_without_git_reads_only_the_working_directory(tmp_path):
    home, work = tmp_path / "home", tmp_path / "plain" / "pkg"
    write(work / "GEMINI.md", "here\n")
    write(work.parent / "GEMINI.md", "a parent, but no project root above\n")
    assert at_start(chain_of("gemini-cli", work.parent, env_of(home), cwd=None)) == [str(work.parent / "GEMINI.md")]
    assert at_start(chain_of("gemini-cli", work.parent, env_of(home), cwd="pkg")) == [str(work / "GEMINI.md")]


def test_gemini_private_project_memory_and_import_depth(world):
    home, repo = world
    folder = home / ".gemini" / "tmp" / "repo"
    write(home / ".gemini" / "projects.json", json.dumps({"projects": {str(repo / "pkg"): "repo"}}))
    write(folder / "memory" / "MEMORY.md", "- we ship on fridays\n")
    write(folder / "memory" / "GEMINI.md", "older layout: not read beside MEMORY.md\n")
    for n in range(1, 7):
        write(repo / "deep" / f"d{n}.md", f"hop {n}" + (f" @d{n + 1}.md\n" if n < 6 else "\n"))
    write(repo / "pkg" / "GEMINI.md", "pkg gemini @../deep/d1.md\n")
    c = chain_of("gemini-cli", repo, env_of(home))
    memory = c.file(folder / "memory" / "MEMORY.md")
    assert memory.scope == "auto-memory" and memory.loaded_bytes == memory.bytes
    assert c.file(folder / "memory" / "GEMINI.md") is None
    assert [c.file(repo / "deep" / f"d{n}.md").loaded_bytes > 0 for n in range(1, 7)] == [True] * 5 + [False]
    assert "import-too-deep" in {p.rule for p in c.problems}


def test_opencode_loads_what_the_real_cli_loaded(world):
    home, repo = world
    c = chain_of("opencode", repo, env_of(home))
    assert c.label == "OpenCode"
    assert at_start(c) == [str(home / ".claude/CLAUDE.md"), str(repo / "AGENTS.md"), str(repo / "rules/x.md")]
    # AGENTS.md is the first name found between pkg/ and the worktree's top: CLAUDE.md files are not read.
    assert c.file(repo / "pkg/CLAUDE.md").loaded_bytes == 0
    assert [str(f.path) for f in c.files if f.on_demand] == [str(repo / "pkg/sub/AGENTS.md")]
    assert c.file(home / "work/AGENTS.md") is None  # above the git worktree


def test_opencode_global_agents_md_wins_and_claude_fallback_switch(world):
    home, repo = world
    write(home / ".config" / "opencode" / "AGENTS.md", "opencode global\n")
    c = chain_of("opencode", repo, env_of(home))
    assert at_start(c)[0] == str(home / ".config/opencode/AGENTS.md")
    assert c.file(home / ".claude/CLAUDE.md").loaded_bytes == 0
    os.remove(repo / "AGENTS.md")
    off = chain_of("opencode", repo, env_of(home, OPENCODE_DISABLE_CLAUDE_CODE="1"))
    assert at_start(off) == [str(home / ".config/opencode/AGENTS.md"), str(repo / "rules/x.md")]
    on = chain_of("opencode", repo, env_of(home))
    assert at_start(on)[1] == str(repo / "pkg/CLAUDE.md")  # the fallback name, nearest first
    assert at_start(on)[2] == str(repo / "CLAUDE.md")


def test_opencode_instructions_urls_and_missing_globs_are_reported(world):
    home, repo = world
    write(home / ".config" / "opencode" / "opencode.json",
          json.dumps({"instructions": ["https://example.com/rules.md", "~/notes/*.md", "nowhere/*.md"]}))
    write(home / "notes" / "mine.md", "mine\n")
    c = chain_of("opencode", repo, env_of(home))
    assert str(home / "notes/mine.md") in at_start(c)
    rules = {p.rule for p in c.problems}
    assert {"remote-instructions", "instructions-missing"} <= rules


def test_reading_both_chains_writes_nothing(world):
    home, _repo = world

    def snapshot():
        return {p: (p.stat().st_mtime_ns, p.stat().st_size) for p in home.rglob("*") if ".git" not in p.parts}

    before = snapshot()
    chain_of("gemini-cli", world[1], env_of(home))
    chain_of("opencode", world[1], env_of(home))
    assert snapshot() == before


def test_broken_settings_fifos_and_cycles_never_hang_or_crash(tmp_path):
    """A settings.json / opencode.json that is not JSON is a `config` problem (the defaults
    apply); a context file that is a named pipe is listed unread; an import cycle is reported."""
    home, repo = context_world(tmp_path.resolve())
    write(home / ".gemini" / "settings.json", '{"context": {"fileName": ')
    write(repo / "opencode.json", "{not json")
    write(repo / "docs" / "b.md", "doc b @a.md\n")  # a.md imports b.md imports a.md
    os.mkfifo(repo / "pkg" / "sub" / "CONTEXT.md")
    os.remove(repo / "pkg" / "sub" / "GEMINI.md")
    os.mkfifo(repo / "pkg" / "sub" / "GEMINI.md")
    gemini = chain_of("gemini-cli", repo, env_of(home))
    rules = {(p.rule, p.file.name) for p in gemini.problems}
    assert ("config", "settings.json") in rules and ("import-cycle", "b.md") in rules
    assert at_start(gemini)[:2] == [str(home / ".gemini/GEMINI.md"), str(home / ".gemini/inc.md")]
    fifo = gemini.file(repo / "pkg/sub/GEMINI.md")
    assert fifo is not None and fifo.loaded_bytes == 0 and "named pipe" in fifo.reason
    opencode = chain_of("opencode", repo, env_of(home))
    assert ("config", "opencode.json") in {(p.rule, p.file.name) for p in opencode.problems}
    assert str(repo / "AGENTS.md") in at_start(opencode)
    first = opencode.file(repo / "pkg/sub/AGENTS.md")  # AGENTS.md comes first there: the CONTEXT.md pipe is never tried
    assert first is not None and first.on_demand and opencode.file(repo / "pkg/sub/CONTEXT.md") is None
