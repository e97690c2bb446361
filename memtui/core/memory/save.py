"""Save memory documents without losing anything: atomically, never over a newer write
by the agent, and keeping every replaced version so it can be restored.

A save compares what is on disk now with the version the editor opened (by content hash):
if they differ, someone else wrote the file meanwhile and SaveConflict is raised, carrying
the disk bytes, unless the caller explicitly overwrites. The replaced bytes go to
`<workspace>/.agent/.memtui/history/<quoted relative path>/` first, one file per version,
named `<UTC timestamp>_<reason>_<hash prefix of what replaced it>.bak`; the newest
`keep` versions are kept (pruning removes only names of that pattern). A kept copy has the
document's mode, the history folders are 0700, and a history folder that resolves outside the
workspace (`.agent` a link leading out) refuses the save: PathEscape, nothing written.

Writes stay inside the workspace. The one exception is `outside`: absolute paths of files
the caller may write elsewhere — the files of an agent's start-up chain (a user-level
CLAUDE.md, an auto-memory MEMORY.md; memtui.core.memory.chain.chain_paths). Their history is
kept in the workspace too, under the quoted absolute path, so the agent's home gets nothing
but the edited file itself.
"""

from __future__ import annotations

import difflib
import os
import stat
import time
from collections.abc import Collection
from dataclasses import dataclass, replace
from datetime import datetime, timezone
from pathlib import Path
from urllib.parse import quote, unquote

from memtui.core.atomic import check_writes_allowed, file_mode, sweep_directories, write_atomic
from memtui.core.errors import MemtuiError, NoHistory, PathEscape, SaveConflict
from memtui.core.memory.discover import discover_documents
from memtui.core.paths import inside_workspace
from memtui.core.memory.documents import DiskVersion, disk_version, hash_bytes

HISTORY_DIR = ".agent/.memtui/history"
DEFAULT_KEEP = 20
_NEW_FILE_MODE = 0o644


class _Any:
    def __repr__(self) -> str:
        return "ANY"


ANY = _Any()
"""Pass as `expected` to skip the conflict check (explicit restore; the current version is
kept in history anyway)."""


@dataclass(frozen=True)
class HistoryEntry:
    """A previous version of a document. `number` 1 is the most recently replaced one."""

    number: int
    path: Path  # the .bak file
    saved_at: datetime  # when it was replaced (UTC)
    reason: str  # what replaced it: "save" | "restore" | "undo"
    size: int
    replaced_by: str  # sha256 prefix of the content written over it

    def read(self) -> bytes:
        return self.path.read_bytes()


def history_dir(root: Path, path: Path, outside: Collection[Path] = ()) -> Path:
    """Where previous versions of the document at `path` are kept; PathEscape when it resolves
    outside the workspace (through a link): memtui neither writes nor reads versions there."""
    rel = _relative(root, path, outside)
    root = Path(root).resolve()
    folder = root / HISTORY_DIR / quote(rel, safe="")
    _inside(root, folder)
    return folder


def _inside(root: Path, folder: Path) -> None:
    if not folder.resolve().is_relative_to(root):
        raise PathEscape(f"memtui's history folder {folder} leads outside the workspace {root}"
                         f" (through a link); nothing was written")


def documents_with_history(root: Path) -> list[str]:
    """Documents that have at least one kept version: workspace-relative paths, and absolute
    ones for files outside the workspace."""
    base = Path(root).resolve() / HISTORY_DIR
    if not base.is_dir() or not base.resolve().is_relative_to(Path(root).resolve()):
        return []
    return sorted(unquote(p.name) for p in base.iterdir() if p.is_dir() and any(p.glob("*.bak")))


def list_history(root: Path, path: Path, outside: Collection[Path] = ()) -> list[HistoryEntry]:
    """Kept versions of a document, newest first."""
    folder = history_dir(root, path, outside)
    if not folder.is_dir():
        return []
    entries = []
    for bak in sorted(folder.glob("*.bak"), reverse=True):
        parsed = _parse_name(bak.name)
        if parsed is None or bak.is_symlink():
            continue
        saved_at, reason, replaced_by = parsed
        entries.append(
            HistoryEntry(len(entries) + 1, bak, saved_at, reason, bak.stat().st_size, replaced_by)
        )
    if entries and _interrupted(entries[0].path, _disk_bytes(root, path, outside)):
        return [replace(e, number=e.number - 1) for e in entries[1:]]
    return entries


def _disk_bytes(root: Path, path: Path, outside: Collection[Path]) -> bytes | None:
    try:
        return disk_version(writable_path(Path(root).resolve(), path, outside))[0]
    except (OSError, MemtuiError):
        return None


def _interrupted(newest: Path, disk: bytes | None) -> bool:
    """True when the newest kept version is the leftover of a save killed after it kept the
    document's bytes and before it replaced them: it holds exactly what is still on disk, and
    names another content as the one written over it. Such a copy is neither listed nor kept
    twice (the next save replaces it), so a re-run of a killed restore picks the same version."""
    parsed = _parse_name(newest.name)
    if disk is None or parsed is None or parsed[1] == "discarded" or hash_bytes(disk).startswith(parsed[2]):
        return False
    try:
        return newest.stat().st_size == len(disk) and newest.read_bytes() == disk
    except OSError:
        return False


def history_entry(root: Path, path: Path, number: int, outside: Collection[Path] = ()) -> HistoryEntry:
    entries = list_history(root, path, outside)
    if not 1 <= number <= len(entries):
        rel = _relative(root, path, outside)
        raise NoHistory(f"{rel} has {len(entries)} kept version(s); there is no #{number}")
    return entries[number - 1]


def check_unchanged(path: Path, expected) -> tuple[bytes | None, DiskVersion | None]:
    """The bytes and version on disk; raises SaveConflict if they are not `expected`
    (a DiskVersion, None for "the file did not exist", or ANY)."""
    data, version = disk_version(path)
    if expected is ANY:
        return data, version
    if expected is None and version is None:
        return data, version
    if expected is not None and version is not None and version.sha256 == expected.sha256:
        return data, version
    what = "was deleted" if version is None else "was created" if expected is None else "changed"
    raise SaveConflict(
        f"{Path(path).name} {what} on disk since it was opened", path=path, disk=data, disk_version=version
    )


def save_document(
    root: Path,
    path: Path,
    content: str | bytes,
    expected,
    *,
    reason: str = "save",
    keep: int = DEFAULT_KEEP,
    outside: Collection[Path] = (),
) -> DiskVersion:
    """Write `content` to the document at `path` atomically and return its new version.

    `expected` is the version the caller opened (None if the file did not exist then, ANY
    to overwrite whatever is there). The bytes being replaced are kept in history first.
    Saving identical bytes is a no-op. `path` must be in the workspace or one of `outside`.
    """
    check_writes_allowed(path)  # before the history copy, too
    root = Path(root).resolve()
    path = writable_path(root, path, outside)
    new = content.encode("utf-8") if isinstance(content, str) else bytes(content)
    old, version = check_unchanged(path, expected)
    if old == new and version is not None:
        return version
    if old is not None:
        _keep_version(root, path, old, replaced_by=hash_bytes(new), reason=reason, keep=keep, outside=outside)
    recheck = None if expected is ANY else (lambda: check_unchanged(path, version))
    write_atomic(path, new, _mode_or_new(path), before_replace=recheck)
    _, written = disk_version(path)
    assert written is not None
    return written


def restore_version(root: Path, path: Path, number: int, expected=ANY, outside: Collection[Path] = ()) -> DiskVersion:
    """Make version `number` (1 = most recently replaced) current again. The version it
    replaces is kept too, so a restore can itself be undone."""
    entry = history_entry(root, path, number, outside)
    return save_document(root, path, entry.read(), expected, reason="restore", outside=outside)


def undo_last_save(root: Path, path: Path, expected=ANY, outside: Collection[Path] = ()) -> DiskVersion:
    """Put back the version memtui's last write replaced.

    Refused with SaveConflict if the file no longer holds what memtui wrote (the agent
    wrote it since): undoing then would throw the agent's write away.
    """
    entries = [e for e in list_history(root, path, outside) if e.reason != "discarded"]
    if not entries:
        raise NoHistory(f"{_relative(root, path, outside)} has no save to undo")
    last = entries[0]
    data, version = check_unchanged(path, expected)
    if version is None or not version.sha256.startswith(last.replaced_by):
        raise SaveConflict(
            f"{Path(path).name} changed on disk since memtui's last save; not undoing",
            path=path,
            disk=data,
            disk_version=version,
        )
    return save_document(root, path, last.read(), version, reason="undo", outside=outside)


def keep_discarded(root: Path, path: Path, text: str, keep: int = DEFAULT_KEEP,
                   outside: Collection[Path] = ()) -> HistoryEntry:
    """Keep an edit the user chose not to save (e.g. "reload" in a conflict) among the
    document's versions, so even a discarded edit can be restored later."""
    root = Path(root).resolve()
    path = writable_path(root, path, outside)
    _, version = disk_version(path)
    _keep_version(root, path, text.encode("utf-8"), replaced_by=version.sha256 if version else "0" * 16,
                  reason="discarded", keep=keep, outside=outside)
    return list_history(root, path, outside)[0]


def sweep_workspace(root: Path) -> list[Path]:
    """Remove the temp files crashed memtui writes left in the workspace's memory folders:
    the root, `.agent/`, each memory document's folder and each history folder. Only stale
    `*.memtui-tmp` files of memtui's own pattern go (memtui.core.atomic); the paths removed."""
    try:
        root = Path(root).resolve()
        history = root / HISTORY_DIR
        ours = history.is_dir() and history.resolve().is_relative_to(root)
        kept = [p for p in history.iterdir() if p.is_dir() and not p.is_symlink()] if ours else []
        folders = [root, root / ".agent", *(d.path.parent for d in discover_documents(root)), *kept]
    except OSError:
        return []  # an unreadable workspace has nothing of ours to clean
    return sweep_directories(folders)


def conflict_diff(disk: bytes | None, mine: str, name: str) -> str:
    """A unified diff from what is on disk to the edit, for a conflict dialog."""
    theirs = "" if disk is None else disk.decode("utf-8", "replace")
    lines = difflib.unified_diff(
        theirs.splitlines(keepends=True),
        mine.splitlines(keepends=True),
        fromfile=f"{name} (on disk)",
        tofile=f"{name} (your edit)",
    )
    return "".join(line if line.endswith("\n") else line + "\n" for line in lines)


# --- internals ---------------------------------------------------------------------------


def _relative(root: Path, path: Path, outside: Collection[Path] = ()) -> str:
    """The document's history key: its workspace-relative path, or its absolute path."""
    root = Path(root).resolve()
    resolved = writable_path(root, path, outside)
    try:
        return resolved.relative_to(root).as_posix()
    except ValueError:
        return resolved.as_posix()


def writable_path(root: Path, path: Path, outside: Collection[Path] = ()) -> Path:
    """`path` resolved, if memtui may write it: inside the resolved `root`, or one of the
    absolute `outside` paths (named as given or through the link they resolve by); the
    resolved file is what gets written. PathEscape otherwise."""
    path = Path(path)
    try:
        return inside_workspace(root, path)
    except PathEscape:
        if path.is_absolute():
            resolved = path.resolve()
            for allowed in outside:
                if Path(os.path.abspath(allowed)) == Path(os.path.abspath(path)) or Path(allowed).resolve() == resolved:
                    return resolved
        raise


def _keep_version(root: Path, path: Path, data: bytes, *, replaced_by: str, reason: str, keep: int,
                  outside: Collection[Path] = ()) -> None:
    folder = _private_folder(root, history_dir(root, path, outside))
    kept = _own_copies(folder)
    if kept and _interrupted(kept[-1], data):
        kept[-1].unlink()  # a killed save's copy of these same bytes: kept once, below
    micros = time.time_ns() // 1000
    while True:
        stamp = datetime.fromtimestamp(micros / 1e6, tz=timezone.utc).strftime("%Y%m%dT%H%M%S%fZ")
        target = folder / f"{stamp}_{reason}_{replaced_by[:16]}.bak"
        if not target.exists():
            break
        micros += 1  # two saves within a microsecond: keep both, in order
    write_atomic(target, data, _copy_mode(path))
    for stale in _own_copies(folder)[: -max(keep, 1)]:
        stale.unlink(missing_ok=True)


def _own_copies(folder: Path) -> list[Path]:
    """The versions memtui kept in `folder`, oldest first: names of its own pattern only (any
    other file there is not memtui's to prune)."""
    return sorted(p for p in folder.glob("*.bak") if _parse_name(p.name) is not None)


def _private_folder(root: Path, folder: Path) -> Path:
    """`folder` made (and `.agent/.memtui` and its `history`), memtui's own levels 0700 — an
    older memtui's 0755 ones too; checked inside the workspace again once they exist."""
    agent = root / HISTORY_DIR.split("/")[0]
    agent.mkdir(exist_ok=True)
    level = agent
    for name in [*HISTORY_DIR.split("/")[1:], folder.name]:
        level = level / name
        try:
            level.mkdir(mode=0o700)
        except FileExistsError:
            pass
        _inside(root, level)
        try:
            if stat.S_IMODE(os.stat(level).st_mode) != 0o700:
                os.chmod(level, 0o700)
        except PermissionError:
            pass  # another user's folder: kept as it is (the copies still have the document's mode)
    return folder


def _copy_mode(path: Path) -> int:
    """A kept copy is as private as the document it copies (0600 when that has no mode)."""
    mode = file_mode(path)
    return 0o600 if mode is None else mode


def _parse_name(name: str) -> tuple[datetime, str, str] | None:
    try:
        stamp, reason, replaced_by = name[: -len(".bak")].split("_")
        saved_at = datetime.strptime(stamp, "%Y%m%dT%H%M%S%fZ").replace(tzinfo=timezone.utc)
    except ValueError:
        return None
    return saved_at, reason, replaced_by


def _mode_or_new(path: Path) -> int:
    """Keep the document's mode; a new document is rw-r--r-- whatever the umask."""
    mode = file_mode(path)
    return _NEW_FILE_MODE if mode is None else mode
