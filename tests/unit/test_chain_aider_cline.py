"""The start-up chains of Aider and Cline (`memtui memory PATH --loaded --agent aider|cline`):
which files each sends the model at start, which it leaves out and why.

No run of the real CLIs fixes these (the live fixtures hold none of their memory files): the
rules are the agents' documented ones, as memtui.core.agents.aider.chain and
memtui.core.agents.cline.chain cite them. Aider reads only what `read:` in a `.aider.conf.yml`
names (home folder, git root, working directory: the last that sets it wins), paths relative to
the working directory; CONVENTIONS.md is not read unless named. Cline sends its global rules
(`~/Documents/Cline/Rules/`, the CLI's `~/Cline/Rules/`) and the workspace's `.clinerules` (a
file, or a folder less its workflows/, hooks/ and skills/); memory-bank/ is read only when asked.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from chain_world import git_init, write

from memtui.core.loaded_memory import loaded_chains


def env_of(home: Path) -> dict[str, str]:
    return {"HOME": str(home), "XDG_CONFIG_HOME": str(home / ".config"), "CLAUDE_CONFIG_DIR": str(home / ".claude"),
            "CODEX_HOME": str(home / ".codex")}


def chain_of(agent: str, repo: Path, home: Path, cwd: str | None = None):
    (found,) = loaded_chains(repo, cwd, [agent], env=env_of(home))
    return found


def at_start(chain) -> list[Path]:
    return [f.path for f in chain.files if f.loaded_bytes and not f.on_demand]


def left_out(chain) -> dict[Path, str]:
    return {f.path: f.reason for f in chain.files if not f.loaded_bytes}


@pytest.fixture
def world(tmp_path: Path) -> tuple[Path, Path]:
    home = tmp_path.resolve() / "home"
    repo = home / "work" / "repo"
    git_init(repo)
    write(repo / "CONVENTIONS.md", "# conventions\nuse tabs\n")
    write(repo / "docs" / "style.md", "style\n")
    write(home / "notes" / "global.md", "global notes\n")
    return home, repo


def test_aider_loads_what_read_names_in_the_last_config_and_lists_the_rest_as_not_loaded(world) -> None:
    home, repo = world
    write(home / ".aider.conf.yml", "model: gpt-4o\nread: ~/notes/global.md\n")
    write(repo / ".aider.conf.yml", "read: [CONVENTIONS.md, 'docs/style.md']  # the repository's\n")
    chain = chain_of("aider", repo, home)
    assert chain.label == "Aider"
    assert at_start(chain) == [repo / "CONVENTIONS.md", repo / "docs" / "style.md"]
    assert "replaces the one in" in left_out(chain)[home / "notes" / "global.md"]  # the repository's read: wins
    assert not chain.problems


def test_aider_reads_a_block_list_and_reports_a_named_file_that_is_missing(world) -> None:
    home, repo = world
    write(repo / ".aider.conf.yml", "read:\n  - CONVENTIONS.md\n  - missing.md  # gone\nauto-commits: false\n")
    chain = chain_of("aider", repo, home)
    assert at_start(chain) == [repo / "CONVENTIONS.md"]
    [problem] = chain.problems
    assert problem.rule == "missing-file" and "missing.md" in problem.message


def test_aider_without_read_loads_nothing_and_says_why_conventions_is_left_out(world) -> None:
    home, repo = world
    write(repo / ".aider.conf.yml", "model: gpt-4o\n")
    chain = chain_of("aider", repo, home)
    assert at_start(chain) == []
    assert "--read" in left_out(chain)[repo / "CONVENTIONS.md"]


def test_aider_paths_are_relative_to_the_working_directory(world) -> None:
    home, repo = world
    write(repo / "pkg" / "NOTES.md", "pkg notes\n")
    write(repo / ".aider.conf.yml", "read: NOTES.md\n")  # the git root's config, aider started in pkg/
    chain = chain_of("aider", repo, home, cwd="pkg")
    assert at_start(chain) == [repo / "pkg" / "NOTES.md"]


def test_cline_sends_global_rules_and_the_workspace_rules_folder_not_its_workflows(world) -> None:
    home, repo = world
    write(home / "Documents" / "Cline" / "Rules" / "a.md", "global a\n")
    write(home / "Documents" / "Cline" / "Rules" / "b.md", "global b\n")
    write(repo / ".clinerules" / "style.md", "workspace style\n")
    write(repo / ".clinerules" / "workflows" / "release.md", "a workflow, run when asked\n")
    write(repo / "memory-bank" / "activeContext.md", "what we are doing\n")
    chain = chain_of("cline", repo, home)
    assert chain.label == "Cline"
    assert at_start(chain) == [home / "Documents/Cline/Rules/a.md", home / "Documents/Cline/Rules/b.md",
                               repo / ".clinerules/style.md"]
    assert chain.file(repo / ".clinerules/workflows/release.md") is None
    assert "memory bank" in left_out(chain)[repo / "memory-bank" / "activeContext.md"]


def test_cline_reads_a_clinerules_file_and_the_clis_rules_folder_without_documents(world) -> None:
    home, repo = world
    write(home / "Cline" / "Rules" / "cli.md", "the CLI's global rule\n")
    write(repo / ".clinerules", "one file of rules\n")
    assert at_start(chain_of("cline", repo, home)) == [home / "Cline/Rules/cli.md", repo / ".clinerules"]


def test_reading_both_chains_writes_nothing(world) -> None:
    home, repo = world
    write(home / ".aider.conf.yml", "read: ~/notes/global.md\n")
    write(repo / ".clinerules", "rules\n")

    def snapshot() -> dict[Path, tuple[int, int]]:
        return {p: (p.stat().st_mtime_ns, p.stat().st_size) for p in home.rglob("*") if ".git" not in p.parts}

    before = snapshot()
    chain_of("aider", repo, home)
    chain_of("cline", repo, home)
    assert snapshot() == before
