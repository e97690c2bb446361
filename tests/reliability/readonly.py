"""Read-only fingerprints: every read path of the library, the CLI and the app leaves the
workspace exactly as it was — database bytes and mtime, no side files (-wal, -shm, temps)."""

from __future__ import annotations

import sys
from pathlib import Path

import harness as h

# The search index is a cache memtui keeps for itself (memtui.core.memory.search, README):
# building it on the first search is expected; it is never a side file of agent.db.
CACHES = (".agent/.memtui/search.db",)


def changes(before: h.Fingerprint, root: Path) -> list[str]:
    """What a read path changed under `root`, the documented caches aside."""
    return [c for c in before.changes(h.Fingerprint.of(root)) if c.split(" ", 1)[1] not in CACHES]


def consolidated_demo(root: Path) -> Path:
    """The seeded demo workspace with its store checkpointed into one file (no -wal/-shm)."""
    from memtui.core.demo import build_demo

    build_demo(root, seed=1)
    for side in ("-wal", "-shm"):
        assert not Path(f"{root}/.agent/agent.db{side}").exists()
    return root


def library_reads(root: Path) -> int:
    """Everything the library reads, through its public functions; the number of reads."""
    from memtui.core.gc import plan_gc
    from memtui.core.memory import (discover_documents, lint_workspace, list_history, parse_jsonl,
                                    read_decisions, read_document, search_workspace)
    from memtui.core.memory.decisions import find_decision_logs
    from memtui.core.rollback import plan_rollback, preview_rollback
    from memtui.core.discovery import discover
    from memtui.core.stats import db_stats
    from memtui.core.store import AgentStore

    n = 0
    with AgentStore.open(root, readonly=True) as store:
        n += len(store.counts())
        for s in store.sessions():
            for t in store.tasks(s.id):
                n += len(store.steps(t.id)) + len(store.messages(t.id)) + len(store.questions(t.id))
                n += len(store.references(t.id))
                for c in store.checkpoints(t.id):
                    for e in store.checkpoint_entries(c.id):
                        store.read_entry(e.id)
                        n += 1
                preview_rollback(plan_rollback(store, task=t.id))
        n += len(store.tasks(None))
        plan_gc(store)
        db_stats(store)
    for doc in discover_documents(root):
        opened = read_document(doc.path)
        if doc.rel.endswith(".jsonl") and opened.text is not None:
            parse_jsonl(opened.text, doc.rel)
        list_history(root, doc.path)
        n += 1
    for log in find_decision_logs(root):
        n += len(read_decisions(log))
    lint_workspace(root)
    search_workspace(root, "parser")
    n += len(discover(root))
    return n


CLI_READS: tuple[tuple[str, ...], ...] = (
    ("gc", "{ws}"), ("gc", "{ws}", "--json"), ("stats", "{ws}"), ("stats", "{ws}", "--json"),
    ("memory", "{ws}"), ("memory", "{ws}", "--json"), ("memory-history", "{ws}", "MEMORY.md"),
    ("decisions", "{ws}"), ("decisions", "{ws}", "--missing-why", "--json"), ("lint", "{ws}"),
    ("lint", "{ws}", "--json"), ("search", "{ws}", "parser"), ("search", "{ws}", "parser", "--json"),
    ("sources", "{ws}"), ("sources", "{ws}", "--json"), ("rollback", "{ws}", "--task", "1", "--dry-run"),
    ("rollback", "{ws}", "--checkpoint", "1", "--dry-run", "--json"), ("curate", "{ws}", "--dry-run"),
    ("--version",), ("--help",),
)


def cli_reads(root: Path, verbs: tuple[tuple[str, ...], ...] = CLI_READS) -> list[str]:
    """Run every CLI read verb; the ones that printed a traceback."""
    bad = []
    for verb in verbs:
        args = [a.format(ws=root) for a in verb]
        done = h.run(h.memtui(*args))
        if "Traceback" in done.stderr or done.returncode not in (0, 1, 2):
            bad.append(f"{' '.join(verb)}: exit {done.returncode}: {done.stderr.strip()[-200:]}")
    return bad


TOUR_KEYS = ("question_mark", "escape", "g", "escape", "s", "escape", "m", "escape", "D", "escape",
             "ctrl+f", "escape", "S", "escape", "i", "escape", "C", "escape", "o", "escape", "3", "o", "escape")


async def pilot_tour(root: Path) -> list[str]:
    """Open the app on `root` and visit every screen; the screens seen."""
    from memtui.ui.app import make_app
    from pilot_support import settle

    seen = []
    app = make_app(root)
    async with app.run_test(size=(140, 45)) as pilot:
        await settle(pilot)
        seen.append(type(app.screen).__name__)
        for key in TOUR_KEYS:
            await pilot.press(key)
            await settle(pilot, rounds=3)
            seen.append(type(app.screen).__name__)
    return seen


def tour_in_process(root: Path) -> list[str]:
    import asyncio

    return asyncio.run(pilot_tour(root))


if __name__ == "__main__":  # a child process for the tour, so its files are opened afresh
    print(tour_in_process(Path(sys.argv[1])))
