"""Claude Code's own checkpoints: every file as it was before a prompt, from its file history.

Each prompt opens with a `file-history-snapshot` naming, per tracked file, the backup that
holds it as it was before the prompt (`~/.claude/file-history/<session>/<hash>@vN`, or
`backupFileName: null` when the file did not exist); files first edited during the turn are
added by update records. Rolling back such a checkpoint is what Claude Code's `/rewind`
"restore code" does: every file tracked from that prompt on goes back to its state before
the prompt — through memtui's rollback, so with its conflict check and containment. What a
file should hold now (the conflict check's expectation) is the after-content of the
session's last recorded edit of it, or its backup when nothing edited it since.
"""

from __future__ import annotations

from dataclasses import dataclass
from memtui.core.agents.claude_code.contents import backups_folder, edit_contents, read_backup
from memtui.core.agents.claude_code.tables import TranscriptItem, TranscriptSession, TranscriptTables, Turn, normalised
from memtui.core.model import Problem
from memtui.core.paths import plain_name
from memtui.core.sources.fields import RECORD_ERRORS
from memtui.core.sources.timestamps import sort_key

LABEL = "before prompt"
SUFFIX = ":before"


@dataclass(frozen=True)
class SnapshotFile:
    """One file of a prompt's checkpoint."""

    path: str  # absolute, as the session recorded it
    backup: str | None  # the backup holding it before the prompt; None: it did not exist
    last: tuple["Turn", "TranscriptItem"] | None  # the session's last recorded edit of it since
    first: "TranscriptItem | None" = None  # the prompt's own first edit of it (its before is the same state)


def prompt_turns(index: "TranscriptTables", session: "TranscriptSession") -> list["Turn"]:
    return [index.turns[t] for t in session.turns if index.turns[t].agent_id is None and index.turns[t].uuid]


def add_checkpoint_steps(index: "TranscriptTables", session: "TranscriptSession") -> None:
    """Open each prompt's turn with a checkpoint step when any file is tracked from it on; a
    recorded session id or backup name that is not a plain name is a problem of the source
    (its backups are never read: memtui.core.agents.claude_code.contents.read_backup)."""
    tracked = False
    for turn in reversed(prompt_turns(index, session)):
        tracked = tracked or bool(turn.backups)
        _name_problems(index, turn)
        if tracked:
            turn.items.insert(0, TranscriptItem("snapshot", turn.transcript, turn.offset, turn.line, turn.created_at,
                                                f"{turn.uuid}{SUFFIX}", name="checkpoint"))


def _name_problems(index: "TranscriptTables", turn: "Turn") -> None:
    names = sorted({n for n in turn.backups.values() if n is not None})
    found = [Problem(str(turn.transcript), turn.line, f"file-history backup name {n!r} is not a plain file name;"
                                                      " that file's content is unknown")
             for n in names if not plain_name(n)]
    if names and not plain_name(turn.session_id):
        found.append(Problem(str(turn.transcript), None, f"session id {turn.session_id!r} is not a plain name;"
                                                         " its file-history is not read"))
    for problem in found:
        if problem not in index.problems:  # once a session (a grown one settles its turns again)
            index.problems.append(problem)


def snapshot_files(index: "TranscriptTables", turn: "Turn") -> list[SnapshotFile]:
    """The files of `turn`'s checkpoint: tracked at its prompt or at any later one (a file first
    tracked later was, at this prompt, as its first backup shows it)."""
    session = index.sessions[turn.session_id]
    prompts = prompt_turns(index, session)
    backups: dict[str, str | None] = {}
    for later in prompts[prompts.index(turn):]:
        for path, name in later.backups.items():
            backups.setdefault(path, name)
    since = sort_key(turn.created_at)
    last: dict[str, tuple[Turn, TranscriptItem]] = {}
    for turn_id in session.turns:
        other = index.turns[turn_id]
        for item in other.items:
            if not item.change or item.file_path is None or sort_key(item.created_at) < since:
                continue
            path = normalised(item.file_path, session.cwd)
            if path in backups and (path not in last or sort_key(item.created_at) >= sort_key(last[path][1].created_at)):
                last[path] = (other, item)
    first: dict[str, TranscriptItem] = {}
    for item in turn.items:
        if item.change and item.file_path is not None:
            first.setdefault(normalised(item.file_path, session.cwd), item)
    return [SnapshotFile(path, name, last.get(path), first.get(path)) for path, name in sorted(backups.items())]


def snapshot_contents(index: "TranscriptTables", turn: "Turn", file: SnapshotFile) -> tuple[bytes | None, bytes | None, str]:
    """(before the prompt, as last recorded, reason-if-unknown) for one file."""
    folder = backups_folder(index.home, turn.session_id)
    before, reason = (None, "") if file.backup is None else read_backup(folder, turn.session_id, file.backup)
    if reason and file.first is not None:  # the backup is gone: the prompt's first edit recorded the same state
        try:
            original, _after, why = edit_contents(turn, file.first, folder)
        except RECORD_ERRORS:
            original, why = None, "unreadable"
        if not why and original is not None:
            before, reason = original, ""
    if reason:
        return None, None, reason
    if file.last is None:
        return before, before, ""  # nothing edited it since: it should still be as it was
    last_turn, item = file.last
    try:
        _ignored, after, why = edit_contents(last_turn, item, folder)
    except RECORD_ERRORS as exc:
        return before, None, f"the last edit's result cannot be read ({exc})"
    if after is None:
        return before, None, why or "the last edit's after-content is not recorded"
    return before, after, ""

