"""Archiving one session: pack its files into a tar.zst, read it back, commit the manifest,
then remove the originals — so at every instant each file is at its original path or
verified in the archive. `recover` finishes or undoes whatever a crash interrupted.

Order of one archive (the manifest is the commit point):
1. the tar.zst is written to a temp file beside its final name, fsynced, renamed;
2. it is read back and every member's size and sha256 compared with what was read from the
   originals (the originals must not have changed meanwhile);
3. the manifest is written atomically — from here the archive is the verified copy;
4. the originals are removed (transcript first, so the agent stops listing the session),
   then the folders only the session used, if empty.
"""

from __future__ import annotations

import hashlib
import io
import os
import stat
import tarfile
from dataclasses import replace
from datetime import datetime, timezone
from pathlib import Path
from contextlib import contextmanager
from typing import Callable, Iterator

import zstandard

from memtui.core.atomic import fsync_dir, remove_stale_temps, temp_path
from memtui.core.cleanup.files import FileInfo, file_sha256, first_changed
from memtui.core.places import private_folder
from memtui.core.cleanup.manifest import (
    INNER_MANIFEST,
    ArchivedFile,
    ArchiveError,
    Manifest,
    manifest_bytes,
    unit_paths,
    write_manifest,
)

LEVEL = 9  # measured on real transcripts: ~8% of raw at ~13 MiB/s; 19 gains <1 point at 1/30 the speed
WINDOW_LOG = 27  # 128 MiB: what `zstd -d` and `tar --zstd` accept without extra flags
CHUNK = 1 << 20


class SessionChanged(ArchiveError):
    """A file of the session changed while it was being archived: the agent is using it."""


def compressor(level: int = LEVEL) -> zstandard.ZstdCompressor:
    params = zstandard.ZstdCompressionParameters.from_level(
        level, window_log=WINDOW_LOG, enable_ldm=True, write_checksum=True)
    return zstandard.ZstdCompressor(compression_params=params)


def open_members(tar_path: Path) -> tarfile.TarFile:
    """The archive's tar, opened for one streaming pass. Its damage shows as tarfile, zstd or
    EOF errors while it is read: read it inside `damage_said(tar_path)`."""
    reader = zstandard.ZstdDecompressor(max_window_size=1 << WINDOW_LOG).stream_reader(open(tar_path, "rb"), closefd=True)
    return tarfile.open(fileobj=reader, mode="r|")


UNREADABLE = (tarfile.TarError, zstandard.ZstdError, EOFError)  # what a damaged tar.zst raises while read


@contextmanager
def damage_said(tar_path: Path, what: str = "") -> Iterator[None]:
    """A damaged archive (torn, a flipped byte) read inside this raises ArchiveError naming
    it, not the decompressor's or tarfile's own error."""
    try:
        yield
    except UNREADABLE as exc:
        raise ArchiveError(f"{tar_path}: unreadable archive ({exc}){what}") from None


class _Hashing(io.RawIOBase):
    """Reads a file for tarfile while hashing exactly what was read."""

    def __init__(self, handle, cancel: Callable[[], bool] | None) -> None:
        self.handle, self.cancel = handle, cancel
        self.sha = hashlib.sha256()

    def read(self, n: int = -1) -> bytes:
        if self.cancel is not None and self.cancel():
            raise KeyboardInterrupt
        data = self.handle.read(n)
        self.sha.update(data)
        return data


def _pack(tmp: Path, home: Path, files: list[FileInfo], manifest: Manifest, level: int,
          cancel: Callable[[], bool] | None, on_bytes: Callable[[int], None] | None) -> list[ArchivedFile]:
    entries: list[ArchivedFile] = []
    with open(tmp, "xb", opener=lambda p, f: os.open(p, f, 0o600)) as raw:
        with compressor(level).stream_writer(raw, closefd=False) as zout:
            with tarfile.open(fileobj=zout, mode="w|", format=tarfile.PAX_FORMAT) as tar:
                for info in files:
                    name = str(info.path.relative_to(home))
                    try:
                        handle = open(info.path, "rb", opener=lambda p, f: os.open(p, f | os.O_NOFOLLOW))
                    except OSError as exc:
                        raise SessionChanged(f"{info.path}: {exc.strerror or exc} (changed while archiving)") from None
                    with handle:
                        if not info.unchanged(os.fstat(handle.fileno())):
                            raise SessionChanged(f"{info.path} changed since the plan: the session is in use")
                        member = tarfile.TarInfo(name)
                        member.size, member.mode, member.mtime = info.size, info.mode, info.mtime_ns / 1e9
                        reader = _Hashing(handle, cancel)
                        try:
                            tar.addfile(member, reader)
                        except OSError:
                            raise SessionChanged(f"{info.path} shrank while archiving: the session is in use") from None
                        except UnicodeError:  # PAX carries any name read from disk; said, should one not fit
                            raise ArchiveError(f"{os.fsencode(info.path)!r}: its name cannot be stored in the archive;"
                                               " this session is left in place") from None
                        if not info.unchanged(os.fstat(handle.fileno())):
                            raise SessionChanged(f"{info.path} changed while archiving: the session is in use")
                    entries.append(ArchivedFile(str(info.path), name, info.size, info.mtime_ns, info.mode, reader.sha.hexdigest()))
                    if on_bytes is not None:
                        on_bytes(info.size)
                inner = manifest_bytes(replace(manifest, files=entries))
                member = tarfile.TarInfo(INNER_MANIFEST)
                member.size, member.mode, member.mtime = len(inner), 0o644, datetime.now(timezone.utc).timestamp()
                tar.addfile(member, io.BytesIO(inner))
        raw.flush()
        os.fsync(raw.fileno())
    return entries


def verify(tar_path: Path, entries: list[ArchivedFile]) -> None:
    """Read the archive back: every file present once, with its size and sha256."""
    expected = {e.name: e for e in entries}
    seen: set[str] = set()
    with damage_said(tar_path), open_members(tar_path) as tar:
        for member in tar:
            if member.name == INNER_MANIFEST:
                continue
            entry = expected.get(member.name)
            if entry is None or member.name in seen or not member.isfile():
                raise ArchiveError(f"{tar_path}: unexpected member {member.name!r}")
            sha = hashlib.sha256()
            stream = tar.extractfile(member)
            size = 0
            while chunk := stream.read(CHUNK):
                sha.update(chunk)
                size += len(chunk)
            if size != entry.size or sha.hexdigest() != entry.sha256:
                raise ArchiveError(f"{tar_path}: {member.name} does not read back as written")
            seen.add(member.name)
    missing = set(expected) - seen
    if missing:
        raise ArchiveError(f"{tar_path}: {len(missing)} file(s) missing, e.g. {sorted(missing)[0]}")


def archive_unit(root: Path, manifest: Manifest, files: list[FileInfo], dirs: list[Path], *, home: Path,
                 level: int = LEVEL, remove: bool = True, cancel: Callable[[], bool] | None = None,
                 on_bytes: Callable[[int], None] | None = None, after_commit: Callable[[], None] | None = None) -> Manifest:
    """Archive one session (or one owner's orphans) and remove its originals.

    `files` is the transcript first. Raises SessionChanged when a file changed since the
    plan (nothing removed, no archive left), ArchiveError when one exists already.
    `after_commit` runs between the commit and the removal (crash tests)."""
    tar_path, manifest_path = unit_paths(root, manifest.agent, manifest.unit)
    if manifest_path.exists():
        raise ArchiveError(f"{manifest.id} is already archived ({manifest_path}); restore it first")
    private_folder(tar_path.parent)  # archived transcripts are this user's alone
    remove_stale_temps(tar_path.parent)
    tmp = temp_path(tar_path)
    try:
        entries = _pack(tmp, home, files, manifest, level, cancel, on_bytes)
        os.replace(tmp, tar_path)
        fsync_dir(tar_path.parent)
        verify(tar_path, entries)
    except BaseException:
        tmp.unlink(missing_ok=True)
        tar_path.unlink(missing_ok=True)
        raise
    folders = dict.fromkeys(str(d) for d in [*dirs, *holding_folders(home, files)])
    done = replace(manifest, files=entries, archive_bytes=tar_path.stat().st_size,
                   dirs=[{"path": d, "mode": _mode(Path(d))} for d in folders])
    write_manifest(manifest_path, done)
    if after_commit is not None:
        after_commit()
    if remove:
        remove_originals(done, tar_path, manifest_path, files)
    return done


def holding_folders(home: Path, files: list[FileInfo]) -> list[Path]:
    """The folders holding `files`, and the folders holding those, below the home's own
    top-level folders (`projects/<project>/`, `sessions/2025/06/06/`, never `projects/` or the
    home): a session that leaves one empty takes it along, and restore puts it back with its
    mode (the manifest's dirs)."""
    home = Path(home)
    found: dict[Path, None] = {}
    for info in files:
        folder = Path(info.path).parent
        while folder.parent != home and home in folder.parents:
            found[folder] = None
            folder = folder.parent
    return list(found)


def _mode(path: Path) -> int:
    try:
        return os.stat(path).st_mode & 0o7777
    except OSError:
        return 0o755


def remove_originals(manifest: Manifest, tar_path: Path, manifest_path: Path, files: list[FileInfo]) -> None:
    """Remove the archived originals. If one changed since it was packed, the whole archive
    is undone instead (the originals are all still there): the session is in use."""
    changed = first_changed(files)
    if changed is not None:
        manifest_path.unlink(missing_ok=True)
        fsync_dir(manifest_path.parent)
        tar_path.unlink(missing_ok=True)
        raise SessionChanged(f"{changed.path} changed while archiving: the session is in use; nothing removed")
    finish_removal(manifest)


def existing(manifest: Manifest, *, quick: bool = False) -> Iterator[tuple[ArchivedFile, bool]]:
    """Each archived file that exists at its original path, and whether it holds exactly the
    archived bytes (`quick`: an unchanged size and mtime are trusted without hashing)."""
    for entry in manifest.files:
        path = Path(entry.path)
        try:
            st = os.lstat(path)
        except FileNotFoundError:
            continue
        if not stat.S_ISREG(st.st_mode) or st.st_size != entry.size:
            yield entry, False
        elif quick and st.st_mtime_ns == entry.mtime_ns:
            yield entry, True
        else:
            yield entry, file_sha256(path) == entry.sha256


def finish_removal(manifest: Manifest) -> list[str]:
    """Remove every original that still holds exactly the archived bytes, then the session's
    empty folders. Returns the paths left in place because they differ now."""
    kept: list[str] = []
    folders: set[str] = set()
    for entry, same in existing(manifest, quick=True):
        if not same:
            kept.append(entry.path)
            continue
        Path(entry.path).unlink()
        folders.add(str(Path(entry.path).parent))
    for folder in folders:
        fsync_dir(Path(folder))
    for d in sorted((d["path"] for d in manifest.dirs), key=len, reverse=True):
        try:
            os.rmdir(d)
        except OSError:
            pass  # not empty (something else lives there) or already gone
    return kept
