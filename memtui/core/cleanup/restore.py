"""Restore: every archived file back at its original path, byte-exact, with its mtime and
mode — refused, before anything is written, when a file exists there with other content.

Order: the manifest is marked "restoring" (a crash is finished by running restore again);
each file is written to a temp file beside its target, hash-checked, given its mode and
mtime, fsynced and linked into place without overwriting; then the tar and the manifest go.
A restore killed after the tar went finds every file back and only removes the manifest.
A restore that fails (a damaged archive, a file that appeared meanwhile) takes back the files
it placed and leaves the manifest as it found it: the session stays archived, whole.
"""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Callable

from memtui.core.atomic import fsync_dir, naming_target, sweep_directories, temp_path
from memtui.core.cleanup.archive import CHUNK, damage_said, existing, open_members
from memtui.core.cleanup.archive_read import find_units, list_archived
from memtui.core.cleanup.files import file_sha256
from memtui.core.cleanup.lock import archive_lock
from memtui.core.cleanup.manifest import INNER_MANIFEST, ArchivedFile, ArchiveError, Manifest, contained, unit_paths, write_manifest
from memtui.core.errors import CorruptContent, MemtuiError
from memtui.core.ids import unique_start


class RestoreConflict(MemtuiError):
    """Files exist at the archived paths with different content; nothing was restored."""

    def __init__(self, message: str, paths: list[str]) -> None:
        super().__init__(message)
        self.paths = paths


@dataclass
class RestoreResult:
    id: str
    agent: str
    files: int
    bytes: int
    already_present: int  # files found in place with the archived content
    home: str = ""
    newest_mtime_ns: int = 0  # the restored files keep their mtimes: this is the newest


def refuse(session_id: str, bad: list[str]) -> RestoreConflict:
    """The one-line refusal naming the files that would be overwritten."""
    listed = ", ".join(bad[:3]) + (f" and {len(bad) - 3} more" if len(bad) > 3 else "")
    return RestoreConflict(f"not restoring {session_id}: {len(bad)} file(s) exist with other content: {listed}", bad)


def conflicts(manifest: Manifest) -> tuple[list[str], set[str]]:
    """(paths holding other content, names already present with the archived content)."""
    bad: list[str] = []
    present: set[str] = set()
    for entry, same in existing(manifest):
        if same:
            present.add(entry.name)
        else:
            bad.append(entry.path)
    return bad, present


def restore_unit(root: Path, manifest_path: Path, manifest: Manifest, *,
                 on_bytes: Callable[[int], None] | None = None) -> RestoreResult:
    """Put one archived unit back; see the module docstring for the order."""
    contained(manifest)
    tar_path, _ = unit_paths(root, manifest.agent, manifest.unit)
    bad, present = conflicts(manifest)
    if not tar_path.is_file():
        if manifest.state == "restoring" and not bad and len(present) == len(manifest.files):
            # Killed between its last two steps: every file is back and the tar is gone; only
            # the manifest is left to remove.
            return _done(manifest_path, manifest, len(present))
        raise ArchiveError(f"the archive of {manifest.id} is missing ({tar_path}); nothing restored")
    if bad:
        raise refuse(manifest.id, bad)
    # A restore killed mid-file left its temp file beside the target: drop it (ours, writer gone).
    sweep_directories(Path(f.path).parent for f in manifest.files if Path(f.path).parent.is_dir())
    if manifest.state != "restoring":
        write_manifest(manifest_path, replace(manifest, state="restoring"))
    dirs = {d["path"]: d["mode"] for d in manifest.dirs}
    by_name = {f.name: f for f in manifest.files}
    written: set[str] = set()
    placed: list[ArchivedFile] = []
    made: list[Path] = []
    try:
        with damage_said(tar_path, "; nothing restored"), open_members(tar_path) as tar:
            for member in tar:
                entry = by_name.get(member.name)
                if member.name == INNER_MANIFEST or entry is None:
                    continue
                if entry.name not in present:
                    if _place(Path(entry.path), tar.extractfile(member), entry, dirs, made):
                        placed.append(entry)
                written.add(entry.name)
                if on_bytes is not None:
                    on_bytes(entry.size)
        missing = set(by_name) - written
        if missing:
            raise ArchiveError(f"the archive of {manifest.id} lacks {sorted(missing)[0]}; nothing restored")
    except Exception:
        # A damaged archive (or a file that appeared meanwhile): the files this run put back
        # go again and the manifest is as it was, so the session stays archived, whole.
        _take_back(placed, made)
        if manifest.state != "restoring":
            write_manifest(manifest_path, manifest)
        raise
    tar_path.unlink()
    fsync_dir(tar_path.parent)
    return _done(manifest_path, manifest, len(present))


def _take_back(placed: list[ArchivedFile], made: list[Path]) -> None:
    """Remove the files a failed restore placed (those still as it left them) and the folders
    it made for them, if empty."""
    folders = set()
    for entry in placed:
        path = Path(entry.path)
        try:
            st = os.lstat(path)
        except FileNotFoundError:
            continue
        if st.st_size == entry.size and st.st_mtime_ns == entry.mtime_ns:
            path.unlink()
            folders.add(path.parent)
    for folder in folders:
        fsync_dir(folder)
    for folder in sorted(made, key=lambda d: len(str(d)), reverse=True):
        try:
            os.rmdir(folder)
        except OSError:
            pass  # something else lives there now


def _done(manifest_path: Path, manifest: Manifest, already_present: int) -> RestoreResult:
    """The last step of a restore: the manifest goes (the files are back, the tar gone)."""
    manifest_path.unlink()
    fsync_dir(manifest_path.parent)
    return RestoreResult(manifest.id, manifest.agent, len(manifest.files), manifest.bytes, already_present,
                         manifest.home, max((f.mtime_ns for f in manifest.files), default=0))


def _make_dirs(folder: Path, modes: dict[str, int], made: list[Path]) -> None:
    missing = []
    while not folder.exists():
        missing.append(folder)
        folder = folder.parent
    for d in reversed(missing):
        os.mkdir(d, modes.get(str(d), 0o755))
        made.append(d)
        os.chmod(d, modes.get(str(d), 0o755))  # mkdir's mode passes through the umask


def _place(path: Path, stream, entry, dirs: dict[str, int], made: list[Path]) -> bool:
    """Write one file into place; False when the same bytes appeared there meanwhile."""
    _make_dirs(path.parent, dirs, made)
    placed = True
    tmp = temp_path(path)
    sha = hashlib.sha256()
    try:
        with naming_target(tmp, path), open(tmp, "xb") as out:
            while chunk := stream.read(CHUNK):
                sha.update(chunk)
                out.write(chunk)
            out.flush()
            os.fchmod(out.fileno(), entry.mode)
            os.fsync(out.fileno())
        if sha.hexdigest() != entry.sha256 or tmp.stat().st_size != entry.size:
            raise CorruptContent(f"{entry.name}: archived bytes do not match the manifest; not restored")
        os.utime(tmp, ns=(entry.mtime_ns, entry.mtime_ns))
        try:
            os.link(tmp, path)  # never overwrites: fails if something appeared meanwhile
        except FileExistsError:
            if file_sha256(path) != entry.sha256:
                raise RestoreConflict(f"{path} appeared with other content during the restore; left as it is", [str(path)]) from None
            placed = False
        except OSError:
            if path.exists():
                raise
            os.replace(tmp, path)  # a filesystem without hard links
    finally:
        tmp.unlink(missing_ok=True)
    fsync_dir(path.parent)
    return placed


def archived_id(given: str, root: Path, agent: str | None = None) -> str:
    """The one archived session id that starts with `given` (`memtui cleanup` prints ids
    shortened); ArchiveError when none or several do."""
    named = unique_start(given, sorted(m.id for m in list_archived(root, agent)), "archived sessions")
    if named is None:
        raise ArchiveError(f"no archived session {given} in {root}")
    return named


def restore_session(session_id: str, root: Path, *, agent: str | None = None,
                    on_bytes: Callable[[int], None] | None = None) -> list[RestoreResult]:
    """Restore a session (and the orphans archived under its id) from the archive at `root`.
    Every unit is checked for conflicts before any file is written."""
    units = find_units(Path(root), session_id, agent)
    if not units:
        session_id = archived_id(session_id, Path(root), agent)  # the start of one, as cleanup prints it
        units = find_units(Path(root), session_id, agent)
    agents = sorted({m.agent for _p, m in units})
    if len(agents) > 1:
        raise ArchiveError(f"{session_id} is archived for {' and '.join(agents)}: pass --agent")
    with archive_lock(Path(root), agents[0]):  # no cleanup or other restore meanwhile
        units = find_units(Path(root), session_id, agents[0])  # as they are now the lock is held
        if not units:
            raise ArchiveError(f"{session_id} was restored meanwhile: nothing left in {root}")
        for _path, manifest in units:
            contained(manifest)
            bad, _present = conflicts(manifest)
            if bad:
                raise refuse(session_id, bad)
        return [restore_unit(Path(root), path, manifest, on_bytes=on_bytes) for path, manifest in units]
