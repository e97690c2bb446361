"""`memtui pin PATH ID [--unpin]`: make a task a GC root, or a foreign session a cleanup keep.

PATH is a memtui workspace (ID is a task number) or a Claude Code, Codex or Gemini CLI home (ID is a
session id: the pin is kept in memtui's own state folder, never in the agent's home)."""

from __future__ import annotations

from pathlib import Path

from memtui.cli._common import add_json_flag, cleanable_homes, emit, open_store
from memtui.core.memory_source import Capability
from memtui.cli._workspace import agent_home_at
from memtui.core.errors import MemtuiError


def register(sub) -> None:
    p = sub.add_parser("pin", help=f"pin a task (GC keeps it) or a {cleanable_homes()} session (cleanup keeps it); --unpin undoes it")
    p.add_argument("path", help="workspace directory or agent.db, or an agent home (~/.claude, ~/.codex)")
    p.add_argument("task", metavar="ID", help="task number (memtui store) or session id (agent home)")
    p.add_argument("--unpin", action="store_true", help="remove the pin")
    add_json_flag(p)
    p.set_defaults(func=run)


def run(args) -> int:
    agent = agent_home_at(Path(args.path).expanduser())
    if agent is not None:
        return _pin_session(args, agent)
    try:
        task_id = int(args.task)
    except ValueError:
        raise MemtuiError(f"{args.task!r} is not a task number (a session id needs an agent home as PATH)") from None
    with open_store(args.path, Capability.PIN) as store, store.writer() as writer:
        try:
            (writer.unpin if args.unpin else writer.pin)(task_id)
        except KeyError:
            raise MemtuiError(f"no task {task_id} in {store.db_path}") from None
        info = writer.task(task_id)
    out = {"task": info.id, "pinned": info.pinned, "collected": info.collected}
    note = " (already collected: pinning keeps its row and references only)" if info.collected else ""
    emit(out, args.json, lambda o: f"task #{o['task']} {'pinned' if o['pinned'] else 'unpinned'}{note}")
    return 0


def _pin_session(args, agent: str) -> int:
    from memtui.core.cleanup import archive_dir, cache_dir, list_archived, load_pins, resolve_session, set_pinned, state_dir
    from memtui.core.homes import take_inventory

    home = Path(args.path).expanduser().resolve()
    known = {s.id for s in take_inventory(home, agent, cache=cache_dir()).sessions}
    known |= {m.id for m in list_archived(archive_dir(), agent, home=home) if m.kind == "session"}
    if args.unpin:  # a pin whose session is gone for good can still go
        known |= load_pins().get(agent, set())
    session = resolve_session(args.task, known, agent, home)
    pinned = set_pinned(agent, session, not args.unpin)
    out = {"agent": agent, "session": session, "pinned": pinned, "pins": str(state_dir() / "pins.json")}
    emit(out, args.json, lambda o: f"{agent} session {o['session']} {'pinned' if pinned else 'unpinned'}"
                                   f" (cleanup {'keeps' if pinned else 'may archive'} it; stored in {o['pins']})")
    return 0
