"""What each agent loads at start: order, scope, cut-offs at their exact line and byte,
overrides, imports, on-demand files, problems — on fixture homes built in the test."""

from __future__ import annotations

import os
import threading
from pathlib import Path

import pytest
from chain_world import build_world, git_init, memory_lines, write

from memtui.core.errors import MemtuiError
from memtui.core.loaded_memory import loaded_chains


@pytest.fixture
def world(tmp_path):
    return build_world(tmp_path)


def chain(world, agent, cwd=None, root=None):
    (result,) = loaded_chains(root or world.repo, cwd or world.cwd, [agent], env=world.env,
                              managed_paths=[world.managed])
    return result


def rows(c):
    return [(str(f.path), f.scope, f.order, f.loaded_bytes == f.bytes and not f.on_demand, f.on_demand) for f in c.files]


def rules_of(c):
    return [(str(p.file), p.line, p.rule) for p in c.problems]


def test_claude_code_chain_order_and_scope(world):
    w, r = world, world.repo
    c = chain(w, "claude-code")
    assert [(str(f.path), f.scope, f.order, f.on_demand) for f in c.files] == [
        (str(w.managed), "managed", 1, False),
        (str(w.claude_config / "CLAUDE.md"), "user", 2, False),
        (str(w.claude_config / "rules/user-rule.md"), "user", 3, False),
        (str(w.home / "work/CLAUDE.md"), "project", 4, False),
        (str(r / "CLAUDE.md"), "project", 5, False),
        (str(r / "docs/style.md"), "import", 6, False),
        (str(w.home / "notes/personal.md"), "import", 7, False),
        (str(w.shared), "import", 8, False),
        (str(r / ".claude/CLAUDE.md"), "project", 9, False),
        (str(r / ".claude/rules/a-general.md"), "project", 10, False),
        (str(r / ".claude/rules/b-python.md"), "project", 11, True),  # paths: → conditional
        (str(r / "CLAUDE.local.md"), "local", 12, False),
        (str(r / "pkg/CLAUDE.md"), "project", 13, False),
        (str(r / "pkg/mod/CLAUDE.md"), "project", 14, False),
        (str(w.memory_md), "auto-memory", 15, False),
        (str(w.memory_dir / "debugging.md"), "auto-memory", 16, True),
        (str(r / "pkg/mod/deep/CLAUDE.md"), "project", 17, True),
    ]
    imports = {str(f.path): str(f.imported_by) for f in c.files if f.scope == "import"}
    assert set(imports.values()) == {str(r / "CLAUDE.md")}
    # ~/.claude's auto memory is not read when CLAUDE_CONFIG_DIR is set; nothing in code spans
    # or fences is imported.
    listed = " ".join(str(f.path) for f in c.files)
    assert str(w.home / ".claude") not in listed and "in-span" not in listed and "fenced" not in listed
    deep = c.files[-1]
    assert deep.loaded_bytes == 0 and deep.tokens == 0 and "deep/" in deep.reason


def test_memory_md_cut_at_line_200(world):
    c = chain(world, "claude-code")
    memory = c.file(world.memory_md)
    assert (memory.lines, memory.loaded_lines) == (250, 200)
    assert (memory.bytes, memory.loaded_bytes) == (250 * 9, 200 * 9)
    assert memory.truncated and memory.cut_byte == 1800
    assert memory.tokens == 450  # 1800 characters / 4
    (cut,) = [p for p in c.problems if p.rule == "cut-off"]
    assert (cut.file, cut.line) == (world.memory_md, 201)
    assert "lines 201–250 are never seen" in cut.message
    assert "memory-too-long" not in {p.rule for p in c.problems if p.file == world.memory_md}


def test_memory_md_cut_at_25_kb_on_a_whole_line(world):
    write(world.memory_md, "".join(f"{i:03d}" + "x" * 296 + "\n" for i in range(1, 101)))  # 100 lines of 300 B
    memory = chain(world, "claude-code").file(world.memory_md)
    assert (memory.bytes, memory.loaded_bytes, memory.loaded_lines) == (30_000, 24_900, 83)


def test_memory_md_of_exactly_200_lines_is_whole(world):
    write(world.memory_md, memory_lines(200))
    c = chain(world, "claude-code")
    memory = c.file(world.memory_md)
    assert not memory.truncated and memory.loaded_lines == 200
    assert "cut-off" not in {p.rule for p in c.problems}


def test_fixing_a_cut_off_memory_md_changes_the_chain(world):
    before = chain(world, "claude-code")
    assert before.file(world.memory_md).truncated
    write(world.memory_md, memory_lines(120))
    after = chain(world, "claude-code")
    assert not after.file(world.memory_md).truncated
    assert after.total_loaded_bytes == before.total_loaded_bytes - 1800 + 120 * 9


def test_auto_memory_off(world):
    env = {**world.env, "CLAUDE_CODE_DISABLE_AUTO_MEMORY": "1"}
    (c,) = loaded_chains(world.repo, world.cwd, ["claude-code"], env=env, managed_paths=[])
    memory = c.file(world.memory_md)
    assert memory.loaded_bytes == 0 and "CLAUDE_CODE_DISABLE_AUTO_MEMORY" in memory.reason


def test_codex_chain_order_override_and_global(world):
    w, r = world, world.repo
    c = chain(w, "codex")
    assert [(str(f.path), f.scope, f.order, f.loaded_bytes) for f in c.files] == [
        (str(w.codex_home / "AGENTS.override.md"), "global", 1, 0),  # blank: the next one is used
        (str(w.codex_home / "AGENTS.md"), "global", 2, 24),
        (str(r / "AGENTS.md"), "directory", 3, 14),
        (str(r / "pkg/AGENTS.override.md"), "directory", 4, 13),
        (str(r / "pkg/AGENTS.md"), "directory", 5, 0),  # shadowed by the override
        (str(r / "pkg/mod/AGENTS.md"), "directory", 6, 11),
    ]
    assert "AGENTS.override.md" in c.files[4].reason
    assert str(w.home / "work/AGENTS.md") not in {str(f.path) for f in c.files}  # above the git root


def test_codex_without_git_reads_only_the_cwd(tmp_path):
    write(tmp_path / "AGENTS.md", "parent\n")
    write(tmp_path / "ws" / "sub" / "AGENTS.md", "here\n")
    (c,) = loaded_chains(tmp_path / "ws", tmp_path / "ws" / "sub", ["codex"], env={"HOME": str(tmp_path / "h")})
    assert [f.path for f in c.files] == [(tmp_path / "ws" / "sub" / "AGENTS.md").resolve()]


def _budget_world(tmp_path, config=None):
    root = tmp_path / "repo"
    git_init(root)
    line = "a" * 99 + "\n"  # 100 bytes
    write(root / "AGENTS.md", line * 200)  # 20,000 B
    write(root / "sub" / "AGENTS.md", line * 200)  # 20,000 B: 12,768 fit
    write(root / "sub" / "deeper" / "AGENTS.md", "never read\n")
    home = tmp_path / "codex"
    if config:
        write(home / "config.toml", config)
    (c,) = loaded_chains(root, root / "sub" / "deeper", ["codex"], env={"HOME": str(tmp_path), "CODEX_HOME": str(home)})
    return root.resolve(), c


def test_codex_32_kib_cut_at_exact_byte(tmp_path):
    root, c = _budget_world(tmp_path)
    first, second, third = c.files
    assert (first.loaded_bytes, first.truncated) == (20_000, False)
    assert (second.loaded_bytes, second.loaded_lines, second.truncated) == (12_768, 128, True)
    assert (third.loaded_bytes, third.truncated) == (0, False)
    assert c.total_loaded_bytes == 32 * 1024
    assert rules_of(c) == [(str(root / "sub/AGENTS.md"), 128, "cut-off"),
                           (str(root / "sub/deeper/AGENTS.md"), 1, "past-limit")]
    assert "byte 12,768 of 20,000" in c.problems[0].message
    assert "past the byte limit" in third.reason


def test_codex_byte_limit_from_config_toml(tmp_path):
    root, c = _budget_world(tmp_path, "project_doc_max_bytes = 1000\n")
    assert [f.loaded_bytes for f in c.files] == [1000, 0, 0]
    assert c.problems[0].line == 11 and "(config.toml)" in c.problems[0].message


def test_codex_fallback_filenames_and_blank_override(tmp_path):
    root = tmp_path / "repo"
    git_init(root)
    write(root / "CLAUDE.md", "fallback doc\n")
    write(root / "sub" / "AGENTS.override.md", "\n\n")
    write(root / "sub" / "AGENTS.md", "hidden by a blank override\n")
    home = tmp_path / "codex"
    write(home / "config.toml", 'project_doc_fallback_filenames = ["CLAUDE.md"]\n')
    (c,) = loaded_chains(root, root / "sub", ["codex"], env={"HOME": str(tmp_path), "CODEX_HOME": str(home)})
    root = root.resolve()
    assert [(f.path.relative_to(root).as_posix(), f.loaded_bytes) for f in c.files] == [
        ("CLAUDE.md", 13), ("sub/AGENTS.override.md", 0), ("sub/AGENTS.md", 0)]
    assert ("blank-override" in {p.rule for p in c.problems})


def test_memtui_initd_chain(world):
    r = world.repo
    c = chain(world, "memtui")
    assert [(f.path.relative_to(r).as_posix(), f.scope, f.on_demand) for f in c.files] == [
        (".agent/init.d/01-navigation.md", "project", False),
        (".agent/init.d/02-principles.md", "project", False),
        ("MEMORY.md", "project", True),
    ]
    assert "run-init.sh" in c.files[0].reason
    # lint runs on chain files: the navigation path after a label is checked.
    assert [(p.line, p.rule) for p in c.problems] == [(2, "navigation-missing-path")]


def _import_world(tmp_path, text):
    root = tmp_path / "repo"
    git_init(root)
    write(root / "CLAUDE.md", text)
    return root


def test_imports_cycle_missing_and_six_hops(tmp_path):
    root = _import_world(tmp_path, "@a.md\n@missing/gone.md\nmail me@example.com\n@h1.md\n")
    write(root / "a.md", "@b.md\n")
    write(root / "b.md", "back to @a.md\n")
    for i in range(1, 7):
        write(root / f"h{i}.md", f"hop {i}\n" + (f"@h{i + 1}.md\n" if i < 6 else ""))
    (c,) = loaded_chains(root, None, ["claude-code"], env={"HOME": str(tmp_path / "h")}, managed_paths=[])
    root = root.resolve()
    names = [(f.path.name, f.depth, f.loaded_bytes > 0) for f in c.files]
    assert names == [("CLAUDE.md", 0, True), ("a.md", 1, True), ("b.md", 2, True),
                     ("h1.md", 1, True), ("h2.md", 2, True), ("h3.md", 3, True), ("h4.md", 4, True),
                     ("h5.md", 5, True), ("h6.md", 6, False)]
    assert c.files[-1].imported_by == root / "h5.md"
    assert rules_of(c) == [
        (str(root / "CLAUDE.md"), 2, "import-missing"),
        (str(root / "b.md"), 1, "import-cycle"),
        (str(root / "h5.md"), 2, "import-too-deep"),
    ]


def test_hostile_files_never_hang(tmp_path):
    root = _import_world(tmp_path, "@big.md\n@/dev/zero\n@pipe.md\n@self.md\n")
    write(root / "big.md", b"x" * (10 * 1024 * 1024 - 1) + b"\n")
    write(root / "self.md", "@self.md\n")
    os.mkfifo(root / "pipe.md")
    done: list = []
    worker = threading.Thread(target=lambda: done.append(
        loaded_chains(root, None, ["claude-code"], env={"HOME": str(tmp_path / "h")}, managed_paths=[])[0]),
        daemon=True)
    worker.start()
    worker.join(60)
    assert done, "building the chain hung"
    c = done[0]
    big = c.file(root.resolve() / "big.md")
    assert (big.bytes, big.lines, big.loaded_bytes) == (10 * 1024 * 1024, 1, 10 * 1024 * 1024)
    unreadable = {p.file.name: p.message for p in c.problems if p.rule == "unreadable"}
    assert "character device" in unreadable["zero"] and "named pipe" in unreadable["pipe.md"]
    assert "import-cycle" in {p.rule for p in c.problems}


def test_claude_local_md_not_ignored_by_git(tmp_path):
    root = _import_world(tmp_path, "x\n")
    write(root / "CLAUDE.local.md", "secret sandbox\n")
    (c,) = loaded_chains(root, None, ["claude-code"], env={"HOME": str(tmp_path / "h")}, managed_paths=[])
    assert ("local-not-ignored" in {p.rule for p in c.problems})
    write(root / ".gitignore", "CLAUDE.local.md\n")
    (c,) = loaded_chains(root, None, ["claude-code"], env={"HOME": str(tmp_path / "h")}, managed_paths=[])
    assert "local-not-ignored" not in {p.rule for p in c.problems}


def test_empty_and_invalid_utf8_files(tmp_path):
    root = _import_world(tmp_path, "@empty.md\n@latin1.md\n")
    write(root / "empty.md", "")
    write(root / "latin1.md", b"ok\ncaf\xe9\n")
    (c,) = loaded_chains(root, None, ["claude-code"], env={"HOME": str(tmp_path / "h")}, managed_paths=[])
    assert [(p.file.name, p.line, p.rule) for p in c.problems] == [
        ("empty.md", None, "empty-file"), ("latin1.md", 2, "invalid-utf8")]


def test_bad_cwd_and_agent_are_one_line_errors(world, tmp_path):
    with pytest.raises(MemtuiError, match="outside the workspace"):
        loaded_chains(world.repo, tmp_path, env=world.env)
    with pytest.raises(MemtuiError, match="unknown agent"):
        loaded_chains(world.repo, None, ["cursor"], env=world.env)


def test_building_the_chain_writes_nothing(world):
    def snapshot():
        return {p: p.stat().st_mtime_ns for p in world.tmp.rglob("*") if ".git" not in p.parts}

    before = snapshot()
    loaded_chains(world.repo, world.cwd, env=world.env, managed_paths=[world.managed])
    assert snapshot() == before
    assert not (world.repo / ".agent" / ".memtui").exists()


def test_paths_are_absolute(world):
    for c in loaded_chains(world.repo, world.cwd, env=world.env, managed_paths=[world.managed]):
        for f in c.files:
            assert Path(f.path).is_absolute()
            assert f.imported_by is None or Path(f.imported_by).is_absolute()
