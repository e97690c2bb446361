"""Every kind of source declares what it can do; what it can't is refused in one line."""

from __future__ import annotations

import pytest

from memtui.core.demo import build_demo
from memtui.core.memory_source import Capability as C
from memtui.core.memory_source import MemorySource, Unsupported
from memtui.core.discovery import discover
from memtui.core.agents.claude_code.source import ClaudeCodeSource
from memtui.core.agents.codex.source import CodexSource
from memtui.core.store import AgentStore

from sources_support import agent_homes, copy_fixture, discovered

# What each kind of source can do (in a workspace its sessions recorded as their cwd).
EXPECTED: dict[str, set[C]] = {
    "memtui": {C.DIFF, C.ROLLBACK, C.GC, C.PIN, C.STATS, C.VACUUM, C.SEARCH, C.EDIT_MEMORY, C.LIVE},
    "ra-aid": {C.ITEMS, C.CURATE, C.EDIT_MEMORY, C.LIVE},
    "jsonl-sessions": {C.ITEMS, C.EDIT_MEMORY, C.LIVE},
    "claude-code": {C.DIFF, C.RESUME, C.ROLLBACK, C.EDIT_MEMORY, C.LIVE, C.CLEANUP, C.SEARCH},
    "codex": {C.DIFF, C.RESUME, C.ROLLBACK, C.EDIT_MEMORY, C.LIVE, C.CLEANUP, C.SEARCH},
    "memory-files": {C.EDIT_MEMORY, C.LIVE},
}


@pytest.fixture(scope="module")
def sources(tmp_path_factory) -> dict[str, MemorySource]:
    tmp = tmp_path_factory.mktemp("caps")
    demo = tmp / "demo"
    build_demo(demo, seed=1)
    workspace, env = agent_homes(tmp)
    def one(path, kind):
        [source] = [s for s in discover(path, env={"HOME": str(tmp)}) if s.kind == kind]
        return source.open()

    found = {
        "memtui": AgentStore.open(demo, readonly=True),
        "ra-aid": one(copy_fixture("ra_aid_project", tmp / "ra"), "ra-aid"),
        "jsonl-sessions": one(copy_fixture("jsonl_store", tmp / "jsonl"), "jsonl-sessions"),
        "claude-code": discovered(workspace, env, "claude-code").open(),
        "codex": discovered(workspace, env, "codex").open(),
        "memory-files": one(demo, "memory-files"),
    }
    yield found
    for source in found.values():
        source.close()


@pytest.mark.parametrize("kind", sorted(EXPECTED))
def test_each_kind_declares_what_it_can_do(sources, kind):
    source = sources[kind]
    assert isinstance(source, MemorySource)
    assert source.kind == kind
    assert set(source.capabilities) == EXPECTED[kind]
    for capability in C:
        assert source.can(capability) == (capability in EXPECTED[kind])


@pytest.mark.parametrize("kind", sorted(EXPECTED))
def test_what_a_kind_cannot_do_is_refused_in_one_line_saying_what_instead(sources, kind):
    source = sources[kind]
    for capability in set(C) - EXPECTED[kind]:
        with pytest.raises(Unsupported) as caught:
            source.require(capability)
        message = str(caught.value)
        assert "\n" not in message
        assert f"can't {capability.doing}" in message
        assert source.kind in message or (source.label and source.label in message)
        assert ";" in message or ":" in message.split("can't", 1)[1]  # … then what to do instead
    for capability in EXPECTED[kind]:
        source.require(capability)  # no error


def test_gc_on_a_foreign_store_points_at_memtuis_own_store(sources):
    with pytest.raises(Unsupported, match=r"Claude Code store at .* can't collect garbage \(GC\): .*agent\.db"):
        sources["claude-code"].require(C.GC)


@pytest.mark.parametrize("adapter, fixture", [(ClaudeCodeSource, "claude_home"), (CodexSource, "codex_home")])
def test_a_home_opened_directly_cannot_roll_back(tmp_path, adapter, fixture):
    """An agent home mixes projects, or records a folder not on this machine: no workspace
    to restore into, so rollback is not offered (it would refuse every file)."""
    home = copy_fixture(fixture, tmp_path / fixture)
    source = adapter.from_path(home)
    assert source.capabilities == frozenset({C.DIFF, C.RESUME, C.LIVE, C.CLEANUP, C.SEARCH})  # its home can be cleaned up, its sessions searched
    with pytest.raises(Unsupported, match="open the project folder"):
        source.require(C.ROLLBACK)


def test_sources_json_lists_capabilities(tmp_path):
    root = copy_fixture("ra_aid_project", tmp_path / "ra")
    [ra] = [s for s in discover(root, env={"HOME": str(tmp_path)}) if s.kind == "ra-aid"]
    assert ra.to_json()["capabilities"] == ["curate", "edit-memory", "items", "live"]


@pytest.mark.parametrize("kind", sorted(EXPECTED))
def test_read_only_withholds_every_writing_capability(tmp_path, kind, sources):
    """`--read-only` turns writing off, not just its keys: `can` says no and `require` refuses,
    saying why; reading capabilities stay."""
    from memtui.core.memory_source import WRITING

    source = sources[kind]
    before = source.withheld, source.withheld_why
    source.withhold(WRITING, "memtui was started with --read-only")
    try:
        for capability in EXPECTED[kind]:
            assert source.can(capability) == (capability not in WRITING)
        for capability in EXPECTED[kind] & WRITING:
            with pytest.raises(Unsupported, match="can't .*: memtui was started with --read-only$"):
                source.require(capability)
    finally:
        source.withheld, source.withheld_why = before


def test_a_read_only_store_refuses_every_write_at_its_one_writer(tmp_path):
    """Even a write path that forgot to ask its capability writes nothing under --read-only."""
    from memtui.core.errors import ReadOnlyStore
    from memtui.core.memory_source import WRITING

    build_demo(tmp_path / "demo", seed=1)
    with AgentStore.open(tmp_path / "demo", readonly=True) as store:
        task = store.sessions()[0].current_task_id
        store.withhold(WRITING, "memtui was started with --read-only")
        with pytest.raises(ReadOnlyStore, match="memtui was started with --read-only"):
            with store.writer() as w:
                w.pin(task)
        assert not store.task(task).pinned


@pytest.mark.parametrize("kind", ["memtui", "ra-aid", "jsonl-sessions", "claude-code", "codex"])
def test_every_kind_numbers_a_tasks_steps_from_1(sources, kind):
    source = sources[kind]
    tasks = [t for s in source.sessions() for t in source.tasks(s.id)] + list(source.tasks(None))
    task = next(t for t in tasks if source.steps(t.id, 0, 3))
    assert [s.seq for s in source.steps(task.id, 0, 3)][:1] == [1]
    second = source.steps(task.id, 1, 1)
    assert not second or second[0].seq == 2  # a later page continues the numbering


@pytest.mark.parametrize("kind", ["memtui", "ra-aid", "jsonl-sessions", "claude-code", "codex"])
def test_every_kind_lists_sessions_newest_first(sources, kind):
    from memtui.core.sources.timestamps import sort_key

    listed = [sort_key(s.updated_at) for s in sources[kind].sessions()]
    assert listed == sorted(listed, reverse=True)


@pytest.mark.parametrize("kind", sorted(EXPECTED))
def test_each_capability_that_names_a_part_reaches_it_typed_and_only_there(sources, kind):
    """`source.part(C.X)` is how a caller reaches what only some sources do (rollback hooks,
    what to watch, the resume command, memory items): a source declaring X has X's part; one
    without the part is refused in the one line `require` gives."""
    from memtui.core.memory_source import PARTS

    source = sources[kind]
    for capability, part in PARTS.items():
        if capability in EXPECTED[kind]:
            assert source.has_part(capability) and isinstance(source.part(capability), part)
        if not source.has_part(capability):
            with pytest.raises(Unsupported) as caught:
                source.part(capability)
            assert f"can't {capability.doing}: " in str(caught.value) and "\n" not in str(caught.value)


@pytest.mark.parametrize("kind", ["memtui", "ra-aid", "jsonl-sessions", "claude-code", "codex"])
def test_every_kind_answers_a_step_and_a_task_by_id(sources, kind):
    """Each source answers `step(id)` and `task(id)` itself, from its index or its store: the
    protocol has no default that scans sessions × tasks × steps."""
    from memtui.core.memory_source import UnknownId

    assert {"task", "step"} <= MemorySource.__abstractmethods__
    source = sources[kind]
    tasks = [t for s in source.sessions() for t in source.tasks(s.id)] + list(source.tasks(None))
    task = next(t for t in reversed(tasks) if len(source.steps(t.id)) > 1)
    assert source.task(task.id) == task
    for step in source.steps(task.id)[-2:]:
        assert source.step(step.id) == step
    with pytest.raises(UnknownId):
        source.step("no-such-step:0")
