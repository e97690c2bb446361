"""Discovery asks the agent registry: each agent declares where its stores are (`Agent.discovery`,
in its own package), so adding an agent needs no edit in memtui.core.discovery — and an agent
added to the registry is found by `memtui sources`, `memtui PATH` and every verb alike."""

from __future__ import annotations

import ast
from pathlib import Path

import memtui.core.discovery as discovery
from memtui.core.agents import PACKAGES, all_agents
from memtui.core.agents.agent import Agent, Discovery
from memtui.core.sources.base import SourceAdapter
from memtui.core.sources.found import Source

KINDS = {a.kind for a in all_agents()}


def test_discovery_names_no_agent():
    tree = ast.parse(Path(discovery.__file__).read_text(encoding="utf-8"))
    imported = {n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)} | {
        a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
    assert not [m for m in imported if m and m.startswith("memtui.core.agents.")], imported
    strings = {n.value for n in ast.walk(tree) if isinstance(n, ast.Constant) and isinstance(n.value, str)}
    assert not strings & (KINDS | set(PACKAGES)), strings & (KINDS | set(PACKAGES))


def test_every_agent_declares_its_discovery():
    assert all(isinstance(a.discovery, Discovery) and a.discovery.store_at is not None for a in all_agents())


class _ToySource(SourceAdapter):
    kind = "toy"
    label = "Toy"


def _toy_store_at(path: Path, looking) -> list[Source] | None:
    if path.is_dir() and (path / "toy.log").is_file():
        return [Source("toy", path, lambda: _ToySource(path), label="Toy")]
    return None


def test_an_agent_added_to_the_registry_is_found_without_editing_discovery(tmp_path, monkeypatch, capsys):
    from memtui.cli import main
    from memtui.core.resolve import resolve

    toy = Agent(kind="toy", label="Toy", discovery=Discovery(store_at=_toy_store_at,
                                                             inside=lambda path, looking: _toy_store_at(path, looking) or []))
    monkeypatch.setattr(discovery, "all_agents", lambda: [*all_agents(), toy])
    monkeypatch.setenv("HOME", str(tmp_path / "nohome"))
    (tmp_path / "play").mkdir()
    (tmp_path / "play" / "toy.log").write_text("hello\n")
    assert [s.kind for s in discovery.discover(tmp_path / "play")] == ["toy"]
    with resolve(tmp_path / "play") as resolved:
        assert (resolved.kind, resolved.root) == ("toy", tmp_path / "play")
    assert main(["gc", str(tmp_path / "play"), "--dry-run"]) == 2
    assert capsys.readouterr().err.startswith(f"memtui: the Toy store at {tmp_path / 'play'} can't collect garbage (GC)")
