"""Saving a file of an agent's chain that lies outside the workspace: allowed only for chain
files, with the same conflict check, history (kept in the workspace) and undo."""

from __future__ import annotations

import pytest
from chain_world import build_world, memory_lines, write

from memtui.core.errors import PathEscape, SaveConflict
from memtui.core.loaded_memory import loaded_chains
from memtui.core.memory.chain import chain_paths
from memtui.core.memory.documents import read_document
from memtui.core.memory.save import list_history, save_document, undo_last_save


@pytest.fixture
def world(tmp_path):
    return build_world(tmp_path)


def chains(w):
    return loaded_chains(w.repo, w.cwd, env=w.env, managed_paths=[w.managed])


def files_under(folder):
    return sorted(p.relative_to(folder).as_posix() for p in folder.rglob("*"))


def test_user_file_saved_with_history_in_the_workspace(world):
    user = world.claude_config / "CLAUDE.md"
    allowed = chain_paths(chains(world))
    opened = read_document(user)
    before = files_under(world.claude_config)
    save_document(world.repo, user, "# User\nAnswer briefly, in English.\n", opened.version, outside=allowed)
    assert user.read_text() == "# User\nAnswer briefly, in English.\n"
    assert files_under(world.claude_config) == before  # no temp file, no history in the agent's home
    (kept,) = list_history(world.repo, user, allowed)
    assert kept.read() == b"# User\nAnswer briefly.\n"
    assert kept.path.is_relative_to(world.repo / ".agent" / ".memtui" / "history")
    undo_last_save(world.repo, user, outside=allowed)
    assert user.read_text() == "# User\nAnswer briefly.\n"


def test_conflict_check_applies_outside_the_workspace(world):
    user = world.claude_config / "CLAUDE.md"
    allowed = chain_paths(chains(world))
    opened = read_document(user)
    write(user, "# User\nchanged by Claude Code meanwhile\n")
    with pytest.raises(SaveConflict):
        save_document(world.repo, user, "mine\n", opened.version, outside=allowed)
    assert user.read_text() == "# User\nchanged by Claude Code meanwhile\n"


def test_only_chain_files_may_be_written_outside(world):
    stranger = write(world.home / "not-in-any-chain.md", "x\n")
    allowed = chain_paths(chains(world))
    with pytest.raises(PathEscape):
        save_document(world.repo, stranger, "y\n", read_document(stranger).version, outside=allowed)
    with pytest.raises(PathEscape):
        save_document(world.repo, world.claude_config / "CLAUDE.md", "y\n", None)  # no grant at all
    assert stranger.read_text() == "x\n"


def test_a_linked_chain_file_writes_its_target_and_keeps_the_link(world):
    target = write(world.tmp / "dotfiles" / "claude.md", "# dotfiles\n")
    link = world.claude_config / "CLAUDE.md"
    link.unlink()
    link.symlink_to(target)
    allowed = chain_paths(chains(world))
    save_document(world.repo, link, "# dotfiles v2\n", read_document(link).version, outside=allowed)
    assert link.is_symlink() and target.read_text() == "# dotfiles v2\n"


def test_fixing_memory_md_in_place_removes_the_cut_off(world):
    allowed = chain_paths(chains(world))
    save_document(world.repo, world.memory_md, memory_lines(180), read_document(world.memory_md).version,
                  outside=allowed)
    (claude,) = loaded_chains(world.repo, world.cwd, ["claude-code"], env=world.env, managed_paths=[])
    assert not claude.file(world.memory_md).truncated
    assert "cut-off" not in {p.rule for p in claude.problems}
