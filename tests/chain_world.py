"""Fixture homes and a git workspace for the start-up chain tests, built in the test's tmp dir.

    tmp/home/                       HOME (its .claude/projects is ignored: CLAUDE_CONFIG_DIR is set)
    tmp/home/notes/personal.md      imported as @~/notes/personal.md
    tmp/home/work/CLAUDE.md         a parent of the repo: Claude Code reads it, Codex does not
    tmp/home/work/AGENTS.md         above the git root: Codex never reads it
    tmp/home/work/repo/             `git init`; the workspace
    tmp/home/.config/claude/        CLAUDE_CONFIG_DIR (user CLAUDE.md, rules, auto memory)
    tmp/home/.codex-home/           CODEX_HOME (blank AGENTS.override.md, AGENTS.md)
    tmp/home/shared/shared.md       imported by absolute path
    tmp/managed/CLAUDE.md           stands in for /etc/claude-code/CLAUDE.md

Importable from tests/unit and tests/ui (tests/ is on sys.path through its conftest.py).
"""

from __future__ import annotations

import re
import subprocess
from dataclasses import dataclass
from pathlib import Path


@dataclass
class ChainWorld:
    tmp: Path
    home: Path
    repo: Path
    claude_config: Path
    codex_home: Path
    managed: Path
    shared: Path

    @property
    def env(self) -> dict[str, str]:
        return {"HOME": str(self.home), "CLAUDE_CONFIG_DIR": str(self.claude_config),
                "CODEX_HOME": str(self.codex_home)}

    @property
    def cwd(self) -> Path:
        return self.repo / "pkg" / "mod"

    @property
    def memory_dir(self) -> Path:
        return self.claude_config / "projects" / re.sub(r"[^A-Za-z0-9]", "-", str(self.repo)) / "memory"

    @property
    def memory_md(self) -> Path:
        return self.memory_dir / "MEMORY.md"


def write(path: Path, text: str | bytes) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text, encoding="utf-8")
    return path


def git_init(path: Path) -> None:
    path.mkdir(parents=True, exist_ok=True)
    subprocess.run(["git", "init", "-q", str(path)], check=True, capture_output=True)


def memory_lines(n: int) -> str:
    """MEMORY.md of n lines, each 'line NNN' (9 bytes with its newline)."""
    return "".join(f"line {i:03d}\n" for i in range(1, n + 1))


def build_world(tmp: Path) -> ChainWorld:
    tmp = Path(tmp).resolve()
    home, repo = tmp / "home", tmp / "home" / "work" / "repo"
    w = ChainWorld(tmp, home, repo, home / ".config" / "claude", home / ".codex-home", tmp / "managed" / "CLAUDE.md",
                   home / "shared" / "shared.md")
    git_init(repo)
    write(w.managed, "# Managed policy\nNo secrets in commits.\n")
    # Auto memory under ~/.claude is never read: CLAUDE_CONFIG_DIR replaces ~/.claude.
    write(home / ".claude" / "projects" / w.memory_dir.parent.name / "memory" / "MEMORY.md", "wrong home\n")
    write(home / "notes" / "personal.md", "personal notes\n")
    write(home / "work" / "CLAUDE.md", "# Work\nall my work projects\n")
    write(home / "work" / "AGENTS.md", "above the git root\n")
    write(w.shared, "shared across projects\n")
    write(w.claude_config / "CLAUDE.md", "# User\nAnswer briefly.\n")
    write(w.claude_config / "rules" / "user-rule.md", "always run the tests\n")
    write(w.memory_md, memory_lines(250))
    write(w.memory_dir / "debugging.md", "topic: how we debug\n")
    write(w.codex_home / "AGENTS.override.md", "  \n")
    write(w.codex_home / "AGENTS.md", "# Global codex\nbe terse\n")
    write(repo / ".gitignore", "CLAUDE.local.md\n")
    write(repo / "CLAUDE.md", (
        "# Repo\n"
        "Style: @docs/style.md\n"
        "Mine: @~/notes/personal.md\n"
        f"Shared: @{w.shared}\n"
        "Not an import: `@docs/in-span.md`\n"
        "```\n@docs/fenced.md\n```\n"
    ))
    write(repo / "docs" / "style.md", "four spaces\n")
    write(repo / "CLAUDE.local.md", "my sandbox url\n")
    write(repo / ".claude" / "CLAUDE.md", "more project instructions\n")
    write(repo / ".claude" / "rules" / "a-general.md", "general rule\n")
    write(repo / ".claude" / "rules" / "b-python.md", "---\npaths:\n  - \"**/*.py\"\n---\npython rule\n")
    write(repo / "AGENTS.md", "# Repo agents\n")
    write(repo / "pkg" / "CLAUDE.md", "pkg instructions\n")
    write(repo / "pkg" / "AGENTS.override.md", "pkg override\n")
    write(repo / "pkg" / "AGENTS.md", "pkg agents (shadowed)\n")
    write(repo / "pkg" / "mod" / "CLAUDE.md", "mod instructions\n")
    write(repo / "pkg" / "mod" / "AGENTS.md", "mod agents\n")
    write(repo / "pkg" / "mod" / "deep" / "CLAUDE.md", "only when Claude reads deep/\n")
    write(repo / ".agent" / "init.d" / "01-navigation.md", "# Navigation\n- scheduler: src/core/scheduler.ts\n")
    write(repo / ".agent" / "init.d" / "02-principles.md", "# Principles\n- evidence first\n")
    write(repo / ".agent" / "run-init.sh", "#!/bin/sh\nfor f in \"$(dirname \"$0\")\"/init.d/*.md; do cat \"$f\"; done\n")
    write(repo / "MEMORY.md", "# Memory\n- prefer small commits\n")
    return w


def world_in_env(tmp: Path, monkeypatch) -> ChainWorld:
    """`build_world(tmp)` with its variables set in this process (what the CLI and the app
    read) and auto memory not turned off by the machine's environment."""
    w = build_world(tmp)
    for key, value in w.env.items():
        monkeypatch.setenv(key, value)
    monkeypatch.delenv("CLAUDE_CODE_DISABLE_AUTO_MEMORY", raising=False)
    return w
