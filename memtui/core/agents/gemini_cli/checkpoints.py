"""Gemini CLI's own checkpoints, read-only: with checkpointing on, before each `write_file` or
`replace` call it asks the user to approve, Gemini CLI commits the whole project into its shadow
git repository (`<gemini home>/history/<project>/.git`, the project folder as its work tree) and
writes `<gemini home>/tmp/<project>/checkpoints/<time>-<file name>-<tool>.json`: `commitHash`,
`toolCall` ({name, args}), `messageId` ("<session id>########<prompt number>"), and the
conversation so far. Its `/restore` puts the project back to that commit. (A call approved
without asking — `--yolo`, a headless `gemini -p`, "allow for this session" — gets none.)

Here each checkpoint is matched to the chat's tool call it was made for (same session, same
tool and arguments, in order), and the file that call changed is read from the commit: the file
as it was just before the call. A file the commit does not hold was created by the call — or
ignored by git (the shadow repository takes the project's .gitignore): there the chat's own
record stands, so a file is never removed on the snapshot's word alone. The shadow repository is read
without writing (memtui.core.sources.git_objects).
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from memtui.core.agents.gemini_cli.chats import EDIT_TOOLS
from memtui.core.model import Problem
from memtui.core.sources.fields import loads
from memtui.core.sources.git_objects import GitObjects, is_sha

if TYPE_CHECKING:
    from memtui.core.agents.gemini_cli.chats import Chat
    from memtui.core.sources.changes import RecordedChange as Change

_MAX_CHECKPOINT_BYTES = 64 * 1024 * 1024


@dataclass(frozen=True)
class Checkpoint:
    """One checkpoint file: the commit taken before `tool` ran with `args`."""

    file: Path
    session_id: str
    prompt: str  # the prompt number after "########" in its messageId ("" when absent)
    tool: str
    args: dict
    commit: str


def read_checkpoints(folder: Path, problems: list[Problem]) -> list[Checkpoint]:
    """The checkpoint files of a project's tmp folder (`checkpoints/*.json`), oldest first (their
    names start with the time they were written); one that is not a checkpoint is a problem."""
    try:
        names = sorted(e.name for e in os.scandir(folder / "checkpoints") if e.name.endswith(".json") and e.is_file())
    except OSError:
        return []
    out = []
    for name in names:
        path = folder / "checkpoints" / name
        try:
            stat = path.stat()
        except OSError as exc:
            problems.append(Problem(str(path), None, f"cannot read: {exc.strerror or exc}"))
            continue
        key = (str(path), stat.st_mtime_ns, stat.st_size)
        if key not in _READ:
            if len(_READ) > 20000:
                _READ.clear()
            _READ[key] = _read_one(path, stat.st_size)
        found = _READ[key]
        if isinstance(found, str):
            problems.append(Problem(str(path), None, found))
        else:
            out.append(found)
    return out


# Each checkpoint file holds the whole conversation before its call, and every chat of the project
# asks for the project's checkpoints: one is parsed once while it is unchanged (path, mtime, size).
_READ: dict[tuple[str, int, int], Checkpoint | str] = {}


def _read_one(path: Path, size: int) -> Checkpoint | str:
    """One checkpoint file, or why it is not used."""
    if size > _MAX_CHECKPOINT_BYTES:
        return "checkpoint file too large to read: not used"
    try:
        doc = loads(path.read_bytes().decode("utf-8", "replace"))
    except OSError as exc:
        return f"cannot read: {exc.strerror or exc}"
    except (json.JSONDecodeError, RecursionError, ValueError):
        return "not a JSON checkpoint: not used"
    call = doc.get("toolCall") if isinstance(doc, dict) else None
    commit = doc.get("commitHash") if isinstance(doc, dict) else None
    message = doc.get("messageId") if isinstance(doc, dict) else None
    if not (isinstance(call, dict) and isinstance(call.get("name"), str) and isinstance(call.get("args"), dict)
            and isinstance(commit, str) and is_sha(commit) and isinstance(message, str)):
        return "a checkpoint without its tool call, commit or message id: not used"
    session, _, prompt = message.partition("########")
    return Checkpoint(path, session, prompt, call["name"], call["args"], commit)


def shadow_repository(home: Path | None, project: Path, project_hash: str, root: Path | None) -> Path | None:
    """The shadow repository's git folder of the project whose tmp folder is `project`:
    `history/<the tmp folder's name>/.git` (older versions: `history/<project hash>/.git`) beside
    tmp/ in the Gemini home, when it says (its `.project_root`) it is the same project's."""
    if home is None:
        return None
    for name in dict.fromkeys(n for n in (project.name, project_hash) if n and "/" not in n and n not in (".", "..")):
        folder = home / "history" / name
        git_dir = folder / ".git"
        if not ((git_dir / "HEAD").is_file() and (git_dir / "objects").is_dir()):
            continue
        try:
            recorded = (folder / ".project_root").read_text(encoding="utf-8", errors="replace").strip()
        except OSError:
            recorded = ""
        if root is not None and recorded and os.path.normpath(recorded) != os.path.normpath(str(root)):
            continue  # another project's repository under the same name
        return git_dir
    return None


def same_call(checkpoint: Checkpoint, tool: str, args: Any) -> bool:
    """Whether a checkpoint was made for a call of `tool` with `args` (the chat's record)."""
    return checkpoint.tool == tool and isinstance(args, dict) and checkpoint.args == args


def apply_checkpoints(chat: Chat, home: Path | None, project: Path, root: Path | None, problems: list[Problem]) -> int:
    """Give each `write_file` / `replace` call of `chat` (its own turns, not its sub-agents')
    that Gemini CLI checkpointed the file as the checkpoint's commit holds it: the before side
    of its change (absent: the call created the file), and the after where the chat did not
    record it. The number of changes so read."""
    calls = [s for t in chat.turns if t.session_id == chat.id for s in t.steps if s.tool in EDIT_TOOLS]
    if not any(s.change is not None for s in calls):
        return 0
    git_dir = shadow_repository(home, project, chat.project_hash, root)
    if git_dir is None:  # no history/ (removed, or another project's): the chat's own record is used
        return 0
    checkpoints = [c for c in read_checkpoints(project, problems) if c.session_id == chat.id]
    git = GitObjects(git_dir)
    cursor, read = 0, 0
    for checkpoint in checkpoints:
        at = cursor
        while at < len(calls) and not (same_call(checkpoint, calls[at].tool, calls[at].args)
                                       and calls[at].snapshot != checkpoint.commit):
            at += 1
        if at == len(calls):
            if not any(same_call(checkpoint, s.tool, s.args) for s in calls):
                problems.append(Problem(str(checkpoint.file), None, "no tool call of its session matches this checkpoint"))
            continue  # the same call checkpointed again (or one the chat has not recorded yet)
        step, cursor = calls[at], at
        if step.snapshot:
            continue
        step.snapshot, step.snapshot_file = checkpoint.commit, checkpoint.file.name
        if step.change is not None and _fill(step.change, step.tool, step.args, git, checkpoint, root, problems):
            read += 1
    return read


def _fill(change: Change, tool: str, args: Any, git: GitObjects, checkpoint: Checkpoint, root: Path | None,
          problems: list[Problem]) -> bool:
    """The before (and a missing after) of `change` from the checkpoint's commit."""
    if root is None or not os.path.isabs(change.path):
        return False
    rel = os.path.relpath(change.path, root)
    if rel == "." or rel.startswith("..") or os.path.isabs(rel):
        return False  # outside the work tree the snapshot holds
    held, data = git.file_at(checkpoint.commit, rel.replace(os.sep, "/"))
    if not held:
        problems.append(Problem(str(checkpoint.file), None, f"the shadow repository does not hold {rel} in commit "
                                f"{checkpoint.commit[:12]}: the chat's own record is used"))
        return False
    if data is None:
        # Not in the snapshot: created by the call — or a file git ignored (the shadow repository
        # takes the project's .gitignore), which the call may have overwritten. Only the chat can
        # tell: its record stands, and a file it does not say was created is never removed.
        return change.kind == "added" and change.before_known
    before = data.decode("utf-8", "surrogateescape")
    change.before, change.before_known, change.kind = before, True, "modified"
    if not change.after_known and isinstance(args, dict):
        if tool == "write_file" and isinstance(args.get("content"), str):
            change.after, change.after_known = args["content"], True
        elif tool == "replace" and isinstance(args.get("old_string"), str) and isinstance(args.get("new_string"), str):
            old, new = args["old_string"], args["new_string"]
            if old and old in before:
                expected = args.get("expected_replacements")
                count = -1 if args.get("allow_multiple") is True or (isinstance(expected, int) and expected > 1) else 1
                change.after, change.after_known = before.replace(old, new, count), True
    change.reason = "" if change.after_known else \
        "Gemini CLI's checkpoint holds the file before this call; the chat did not record it after"
    return True
