"""Kill -9 trials: run a real memtui operation in a child process, SIGKILL it at a chosen
moment, then check what a user would care about. Each trial returns the problems it found
(empty when sound) and adds to its tally.
"""

from __future__ import annotations

import shutil
import sqlite3
import textwrap
from pathlib import Path

import harness as h
from worlds import RollbackWorld, file_state, gc_workspace, rollback_workspace

ROOT = h.ROOT


# ----------------------------------------------------------------------------- GC apply
def gc_template(folder: Path, tasks: int = 240) -> Path:
    db = gc_workspace(folder / "ws", tasks=tasks)
    return db


def gc_trial(template_db: Path, trial_dir: Path, delay: float, tally: h.Tally) -> list[str]:
    """Kill `memtui gc --apply` after `delay` s; every task whole or collected, every remaining
    entry byte-exact, the database sound, and a re-run finishes."""
    ws = trial_dir / "ws"
    shutil.copytree(template_db.parent.parent, ws)
    db = ws / ".agent" / "agent.db"
    shapes = h.task_shapes(db)
    hashes = h.entry_hashes(db)
    code, _ = h.run_killed(h.memtui("gc", ws, "--apply"), delay)
    problems = h.db_checks(db)
    now = h.task_shapes(db)
    torn = h.whole_or_collected(shapes, now)
    problems += torn
    collected = sum(1 for t, s in now.items() if s[3] and not shapes[t][3])
    if code is None and 0 < collected < sum(1 for t, s in now.items() if s[3] or s[2]):
        tally.mid += 1
    remaining = h.entry_hashes(db)  # entries of tasks not collected: all must read exactly
    lost = [i for i in remaining if remaining[i] != hashes.get(i)]
    problems += [f"entry {i} not byte-exact" for i in lost]
    again = h.run(h.memtui("gc", ws, "--apply"))
    tally.reruns += 1
    if again.returncode == 0 and _nothing_left(db):
        tally.reruns_ok += 1
    else:
        problems.append(f"re-run did not finish: exit {again.returncode}: {again.stderr.strip()[-300:]}")
    problems += h.db_checks(db)
    tally.stray += len(h.stray_temps(ws))
    tally.trials += 1
    tally.lost += len(lost)
    tally.torn += len(torn)
    return problems


def _nothing_left(db: Path) -> bool:
    from memtui.core.gc import plan_gc
    from memtui.core.store import AgentStore

    with AgentStore.open(db, readonly=True) as store:
        plan = plan_gc(store)
    return not plan.reclaimable and not plan.loose_blobs


# ----------------------------------------------------------------------------- rollback
def rollback_trial(trial_dir: Path, delay: float, tally: h.Tally, files: int = 400) -> list[str]:
    """Kill `memtui rollback --task` after `delay` s; each file old or new with its mode,
    the re-run (no --force) finishes, no temp file left after it."""
    world = rollback_workspace(trial_dir / "ws", files)
    code, out = h.run_killed(h.memtui("rollback", world.root, "--task", world.task), delay)
    problems, restored = _old_or_new(world)
    if code is None and 0 < restored < len(world.before):
        tally.mid += 1
    problems += h.db_checks(world.root / ".agent" / "agent.db")
    again = h.run(h.memtui("rollback", world.root, "--task", world.task))
    tally.reruns += 1
    state = file_state(world)
    done = again.returncode == 0 and all(state[r][0] == world.before[r] for r in world.before)
    if done:
        tally.reruns_ok += 1
    else:
        problems.append(f"re-run did not finish: exit {again.returncode}: {again.stdout.strip()[-300:]}"
                        f" {again.stderr.strip()[-300:]}")
    stray = h.stray_temps(world.root)
    tally.stray += len(stray)
    problems += [f"stray temp file after the re-run: {p.name}" for p in stray]
    tally.trials += 1
    return problems


def _old_or_new(world: RollbackWorld) -> tuple[list[str], int]:
    problems = []
    restored = 0
    for rel, (data, mode) in file_state(world).items():
        if data == world.before[rel]:
            restored += 1
        elif data != world.after[rel]:
            problems.append(f"{rel}: torn (neither old nor new)")
            continue
        # A file the task deleted comes back with the default mode: the store keeps no modes.
        if data is not None and world.after[rel] is not None and mode != world.modes[rel]:
            problems.append(f"{rel}: mode {oct(mode)} instead of {oct(world.modes[rel])}")
    return problems, restored


# ----------------------------------------------------------------------------- memory writes
MEMORY_CHILD = textwrap.dedent("""
    import sys
    from pathlib import Path
    from memtui.core.memory import ANY, add_decision, restore_version, save_document
    from trials import version
    root, op, n = Path(sys.argv[1]), sys.argv[2], int(sys.argv[3])
    print("ready", flush=True)
    for i in range(n):
        if op == "save":
            save_document(root, root / "MEMORY.md", version(i), ANY)
        elif op == "decision":
            add_decision(root, root / ".agent" / "DECISIONS.md", f"decision {i}", "why " * 50, "a, b",
                         "what " * 50, "because " * 50)
        else:
            restore_version(root, root / "MEMORY.md", 1 + i % 3)
        print(i, flush=True)
""")


def version(i: int) -> str:
    """The i-th memory document a child writes: large enough that a write takes a while."""
    return f"# Memory v{i}\n\n" + "".join(f"- fact {k} as of version {i}\n" for k in range(4000))


def memory_workspace(root: Path) -> None:
    from memtui.core.memory import ANY, save_document

    root.mkdir(parents=True, exist_ok=True)
    (root / ".agent").mkdir(exist_ok=True)
    (root / "MEMORY.md").write_text(version(-1))
    for i in range(-5, -1):  # a few kept versions for restore to pick from
        save_document(root, root / "MEMORY.md", version(i), ANY)
    (root / ".agent" / "DECISIONS.md").write_text("# Decisions\n")


def memory_trial(trial_dir: Path, op: str, delay: float, tally: h.Tally) -> list[str]:
    """Kill a loop of saves / decision appends / history restores after `delay` s (after its
    imports): the document is always some whole version, every kept version is whole, and
    the next save leaves no temp file behind."""
    from memtui.core.memory import ANY, add_decision, list_history, read_decisions, save_document

    root = trial_dir / "ws"
    memory_workspace(root)
    code, out = h.run_killed(h.python() + ["-c", MEMORY_CHILD, str(root), op, "50"], delay, ready_marker="ready")
    written = [line for line in h.whole_lines(out) if line.strip().isdigit()]
    if code is None and written:
        tally.mid += 1
    problems = []
    versions = {version(i).encode() for i in range(-5, 50)}
    if op in ("save", "restore"):
        if (root / "MEMORY.md").read_bytes() not in versions:
            problems.append("MEMORY.md is not a whole version")
            tally.torn += 1
        for entry in list_history(root, root / "MEMORY.md"):
            if entry.read() not in versions:
                problems.append(f"kept version {entry.path.name} is not a whole version")
                tally.torn += 1
    else:
        text = (root / ".agent" / "DECISIONS.md").read_text()
        got = [d.title for d in read_decisions(root / ".agent" / "DECISIONS.md")] if "decision" in text else []
        expect = [f"decision {i}" for i in range(len(got))]
        if got != expect:
            problems.append(f"decisions out of order or torn: {got[-3:]}")
            tally.torn += 1
        if len(got) < len(written):
            tally.lost += len(written) - len(got)
            problems.append(f"{len(written) - len(got)} acknowledged decision(s) lost")
    # The next operation in those folders: the same kind of write once more.
    tally.reruns += 1
    if op == "decision":
        add_decision(root, root / ".agent" / "DECISIONS.md", "after the crash", "p", "o", "c", "w")
        finished = read_decisions(root / ".agent" / "DECISIONS.md")[-1].title == "after the crash"
    else:
        save_document(root, root / "MEMORY.md", version(99), ANY)
        finished = (root / "MEMORY.md").read_text() == version(99)
    tally.reruns_ok += finished
    stray = h.stray_temps(root)
    tally.stray += len(stray)
    problems += [f"stray temp file after the next save: {p.relative_to(root)}" for p in stray]
    tally.trials += 1
    return problems


# ----------------------------------------------------------------------------- recorder
RECORDER_CHILD = textwrap.dedent("""
    import sys, hashlib
    from memtui.core.store import AgentStore
    store = AgentStore.open(sys.argv[1])
    s = store.start_session("recording")
    print("ready", flush=True)
    for n in range(100000):
        t = store.start_task(s, f"task {n}")
        with store.transaction():
            step = store.record_step(t, "edit", {"files": 3}, "x" * 500)
            cp = store.record_checkpoint(t, step, {f"f{k}.txt": (b"old %d %d\\n" % (n, k) * 30,
                                                                  b"new %d %d\\n" % (n, k) * 30)
                                                   for k in range(3)})
        store.finish_task(t, "completed")
        print("committed", cp, flush=True)
""")


def recorder_trial(trial_dir: Path, delay: float, tally: h.Tally) -> list[str]:
    """Kill a recording agent: every checkpoint it acknowledged is there, byte-exact, each
    with all of its entries; the database is sound and can be written again."""
    from memtui.core.store import AgentStore

    root = trial_dir / "ws"
    root.mkdir(parents=True)
    code, out = h.run_killed(h.python() + ["-c", RECORDER_CHILD, str(root)], delay, ready_marker="ready")
    acked = [int(line.split()[1]) for line in h.whole_lines(out) if line.startswith("committed ")]
    db = root / ".agent" / "agent.db"
    problems = h.db_checks(db)
    tally.mid += code is None and bool(acked)
    conn = sqlite3.connect(db)
    try:
        cps = {r[0]: r[1] for r in conn.execute(
            "SELECT c.id, (SELECT COUNT(*) FROM checkpoint_entry e WHERE e.checkpoint_id = c.id) FROM checkpoint c")}
    finally:
        conn.close()
    lost = [c for c in acked if c not in cps]
    torn = [c for c, n in cps.items() if n != 3]
    tally.lost += len(lost)
    tally.torn += len(torn)
    problems += [f"acknowledged checkpoint {c} lost" for c in lost]
    problems += [f"checkpoint {c} has {cps[c]} of 3 entries" for c in torn]
    with AgentStore.open(root, readonly=True) as store:
        for cp in cps:
            n = int(store.task(store.checkpoint(cp).task_id).title.split()[1])
            for e in store.checkpoint_entries(cp):
                k = int(e.path[1])
                before, after = store.read_entry(e.id)
                if before != b"old %d %d\n" % (n, k) * 30 or after != b"new %d %d\n" % (n, k) * 30:
                    problems.append(f"entry {e.id} not byte-exact")
                    tally.lost += 1
    with AgentStore.open(root) as store:  # the next writer recovers and goes on
        tally.reruns += 1
        try:
            store.start_task(store.start_session("after the crash"), "next")
            tally.reruns_ok += 1
        except Exception as exc:  # noqa: BLE001 — the figure is what matters
            problems.append(f"cannot record after the crash: {exc}")
    tally.stray += len(h.stray_temps(root))
    tally.trials += 1
    return problems


# ----------------------------------------------------------------------------- home cleanup
def claude_home(home: Path, sessions: int = 40) -> dict[str, str]:
    """A Claude Code home with `sessions` old sessions (transcripts, file history, sub-agents)
    that `cleanup --archive` packs away; {path: sha256} of every file in it."""
    import os
    from datetime import timedelta

    from cleanup_homes import DAY, NOW, _write, claude_transcript, uid

    alpha = home / "projects" / "-work-alpha"
    for n in range(sessions):
        sid = uid(f"s{n}")
        when = NOW - (40 + n) * DAY
        text = claude_transcript(sid, "/work/alpha", when, f"task {n}") * 60  # ~50 KB, to take a while
        _write(alpha / f"{sid}.jsonl", text, when + timedelta(minutes=5))
        _write(home / "file-history" / sid / "0123456789abcdef@v1", f"backup {n}\n" * 2000, when, mode=0o640)
        _write(alpha / sid / "subagents" / "agent-a.jsonl", text[:4000], when)
    _write(home / "settings.json", "{}", NOW - 100 * DAY)
    return {str(p): h.sha(p.read_bytes()) for p in home.rglob("*") if p.is_file() and not os.path.islink(p)}


def cleanup_trial(trial_dir: Path, delay: float, tally: h.Tally, sessions: int = 40) -> list[str]:
    """Kill `memtui cleanup --archive` after `delay` s: every file is at its path with its
    bytes or verified in the archive, never neither; a re-run finishes; no temp files left."""
    import os

    from memtui.core.cleanup.archive_read import iter_files, list_archived

    home, archive = trial_dir / "claude", trial_dir / "archive"
    files = claude_home(home, sessions)
    env = {"XDG_DATA_HOME": str(trial_dir / "data"), "XDG_STATE_HOME": str(trial_dir / "state"),
           "XDG_CACHE_HOME": str(trial_dir / "cache")}
    cmd = h.memtui("cleanup", home, "--agent", "claude-code", "--archive", "--archive-dir", archive,
                   "--keep-days", "30", "--keep-last", "0")
    saved = dict(os.environ)
    os.environ.update(env)  # the child inherits them through harness.env()
    try:
        code, _ = h.run_killed(cmd, delay)
        archived: dict[str, str] = {}
        problems: list[str] = []
        for manifest in list_archived(archive, home=home):
            try:
                for entry, data in iter_files(archive, manifest):
                    archived[entry.path] = h.sha(data)
            except Exception as exc:  # noqa: BLE001 — an unreadable committed archive is a finding
                problems.append(f"archive of {manifest.id} unreadable: {exc}")
        lost, torn = [], []
        for path, digest in files.items():
            on_disk = Path(path).read_bytes() if Path(path).is_file() else None
            if on_disk is not None and h.sha(on_disk) != digest:
                torn.append(path)
            elif on_disk is None and archived.get(path) != digest:
                lost.append(path)
        if code is None and archived and any(Path(p).exists() for p in files if "file-history" in p):
            tally.mid += 1
        problems += [f"lost: {p}" for p in lost] + [f"torn: {p}" for p in torn]
        tally.lost += len(lost)
        tally.torn += len(torn)
        again = h.run(cmd)
        tally.reruns += 1
        left = [p for p in files if "file-history" in p and Path(p).exists()]
        if again.returncode == 0 and not left:
            tally.reruns_ok += 1
        else:
            problems.append(f"re-run did not finish: exit {again.returncode}, {len(left)} backups still in the home:"
                            f" {again.stderr.strip()[-200:]}")
        stray = h.stray_temps(home) + h.stray_temps(archive)
        tally.stray += len(stray)
        problems += [f"stray temp file after the re-run: {p.name}" for p in stray]
    finally:
        os.environ.clear()
        os.environ.update(saved)
    tally.trials += 1
    return problems
