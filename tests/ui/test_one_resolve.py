"""One answer to "which store does PATH mean": the app (`memtui PATH`) and the verbs log, show,
rollback --dry-run, gc --dry-run, cleanup --dry-run, export and search, run on the same paths —
a memtui workspace, its agent.db, a project whose sessions Claude Code and Codex kept, ~/.claude,
a Claude Code project folder, ~/.codex, a rollout, an RA.Aid project, a JSONL store — agree on
the store's kind and root, or refuse in the one line of the capability the store lacks.

Every verb and the app go through memtui.core.resolve.resolve; the test watches what it
answered each of them (the real function runs) and what the user sees on stderr."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

import memtui.core.resolve as resolving
from memtui.cli import main
from memtui.core.errors import MemtuiError
from memtui.core.memory_source import Capability, Unsupported

from sources_support import FIXTURES, copy_fixture

NEEDS: dict[str, Capability | None] = {"log": None, "show": None, "rollback": Capability.ROLLBACK,
                                       "gc": Capability.GC, "cleanup": Capability.CLEANUP, "export": None,
                                       "search": None}


@pytest.fixture
def world(tmp_path, monkeypatch, demo_master):
    """A user's home (HOME) holding ~/.claude and ~/.codex whose sessions worked in `tally`,
    a demo workspace with memtui's own store, an RA.Aid project and a JSONL store."""
    user = tmp_path / "user"
    user.mkdir()
    tally = tmp_path / "tally"
    tally.mkdir()
    copy_fixture("claude_home", user / ".claude", tally)
    copy_fixture("codex_home", user / ".codex", tally)
    monkeypatch.setenv("HOME", str(user))
    monkeypatch.delenv("CLAUDE_CONFIG_DIR", raising=False)
    monkeypatch.delenv("CODEX_HOME", raising=False)
    demo = shutil.copytree(demo_master, tmp_path / "demo")
    rollout = next(p for p in (user / ".codex" / "sessions").rglob("rollout-*.jsonl") if str(tally).encode() in p.read_bytes())
    return {
        "workspace": (demo, "memtui", demo),
        "agent.db": (demo / ".agent" / "agent.db", "memtui", demo),
        "project": (tally, "claude-code", tally),
        "~/.claude": (user / ".claude", "claude-code", user / ".claude"),  # sessions in two folders
        "claude project": (user / ".claude" / "projects" / "-home-dev-tally", "claude-code", tally),
        "~/.codex": (user / ".codex", "codex", tally),
        "rollout": (rollout, "codex", tally),
        "ra-aid": (shutil.copytree(FIXTURES / "ra_aid_project", tmp_path / "ra"), "ra-aid", tmp_path / "ra"),
        "jsonl": (shutil.copytree(FIXTURES / "jsonl_store", tmp_path / "jsonl"), "jsonl-sessions", tmp_path / "jsonl"),
    }


@pytest.fixture
def answers(monkeypatch):
    """What resolve answered each caller since the last `clear()`: (kind, root), or the error."""
    seen: list = []
    real = resolving.resolve

    def watched(*args, **kw):
        try:
            resolved = real(*args, **kw)
        except MemtuiError as exc:
            seen.append(exc)
            raise
        seen.append((resolved.kind, resolved.root))
        return resolved

    monkeypatch.setattr(resolving, "resolve", watched)
    return seen


def _a_task(path: Path) -> str:
    """A task of the store PATH means (for show, export, rollback)."""
    with resolving.open_source(path) as source:
        session = next(s for s in source.sessions() if source.tasks(s.id))
        return str(source.tasks(session.id)[0].id)


def _argv(verb: str, path: Path, task: str) -> list[str]:
    return {"log": ["log", str(path), "--json"],
            "show": ["show", str(path), "--task", task, "--json"],
            "rollback": ["rollback", str(path), "--task", task, "--dry-run", "--json"],
            "gc": ["gc", str(path), "--dry-run", "--json"],
            "cleanup": ["cleanup", str(path), "--dry-run", "--json"],
            "export": ["export", str(path), "--task", task, "--format", "json"],
            "search": ["search", str(path), "the", "--json"]}[verb]


@pytest.mark.parametrize("name", ["workspace", "agent.db", "project", "~/.claude", "claude project", "~/.codex",
                                  "rollout", "ra-aid", "jsonl"])
async def test_the_app_and_every_verb_mean_the_same_store(world, answers, app_for, settled, capsys, name):
    path, kind, root = world[name]
    task = _a_task(path)
    answers.clear()
    async with app_for(path).run_test(size=(120, 40)) as pilot:
        await settled(pilot)
        app = pilot.app
        assert app.source is not None, f"the app opened nothing for {name}"
        shown = app.source
        assert (shown.kind, app.workspace) == (kind, root)
    assert answers == [(kind, root)]
    for verb, need in NEEDS.items():
        answers.clear()
        capsys.readouterr()
        code = main(_argv(verb, path, task))
        err = capsys.readouterr().err
        if need is not None and not shown.can(need):
            assert code == 2 and err == f"memtui: {Unsupported(shown, need)}\n", (verb, err)
            assert [type(a) for a in answers] == [Unsupported], verb
        else:
            assert answers == [(kind, root)], (verb, err)
            assert "Traceback" not in err, (verb, err)
            if verb in ("log", "show", "export", "gc", "cleanup"):
                assert code == 0, (verb, err)


def test_the_refusals_have_one_wording_each(tmp_path, capsys, monkeypatch):
    """A missing path, a folder holding no store, a file that is none: the same line from the
    app's library entry (memtui.open) and from every verb."""
    import memtui

    monkeypatch.setenv("HOME", str(tmp_path / "nohome"))
    monkeypatch.delenv("CLAUDE_CONFIG_DIR", raising=False)
    monkeypatch.delenv("CODEX_HOME", raising=False)
    (tmp_path / "empty").mkdir()
    (tmp_path / "notes.txt").write_text("hello\n")
    for path in (tmp_path / "missing", tmp_path / "empty", tmp_path / "notes.txt"):
        with pytest.raises(MemtuiError) as library:
            memtui.open(path)
        for verb in ("log", "show", "rollback", "gc", "export"):
            assert main(_argv(verb, path, "1")) == 2
            assert capsys.readouterr().err == f"memtui: {library.value}\n", (verb, path)
