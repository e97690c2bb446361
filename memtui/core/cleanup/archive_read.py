"""Reading the archive without unpacking into an agent's home: the list of archived
sessions (from the manifests alone), each file's bytes (streamed and hash-checked), and
an unpacked copy in memtui's cache for the source adapters to browse.
"""

from __future__ import annotations

import hashlib
import os
import shutil
from pathlib import Path
from typing import Iterator

from memtui.core.atomic import remove_stale_temp_dirs, temp_dir
from memtui.core.cleanup.archive import damage_said, open_members
from memtui.core.cleanup.manifest import INNER_MANIFEST, ArchivedFile, ArchiveError, Manifest, read_manifest, unit_paths
from memtui.core.errors import CorruptContent

MAX_MEMBER = 1 << 34  # 16 GiB: a manifest claiming more is not believed


def list_archived(root: Path, agent: str | None = None, home: Path | str | None = None) -> list[Manifest]:
    """Every committed manifest in the archive (of `agent`, of `home`), newest activity first.
    Unreadable manifests are skipped: `archive_problems` names them."""
    out: list[Manifest] = []
    home_text = os.path.normpath(str(home)) if home is not None else None
    for folder in _agent_folders(Path(root), agent):
        for entry in os.scandir(folder):
            if not entry.name.endswith(".json") or entry.name.startswith("."):
                continue
            try:
                manifest = read_manifest(Path(entry.path))
            except ArchiveError:
                continue
            if home_text is None or os.path.normpath(manifest.home) == home_text:
                out.append(manifest)
    return sorted(out, key=lambda m: (m.last_activity or "", m.id), reverse=True)


def _agent_folders(root: Path, agent: str | None) -> list[Path]:
    if not root.is_dir():
        return []
    names = [agent] if agent else sorted(e.name for e in os.scandir(root) if e.is_dir())
    return [root / n for n in names if (root / n).is_dir()]


def find_units(root: Path, session_id: str, agent: str | None = None) -> list[tuple[Path, Manifest]]:
    """(manifest path, manifest) of the session's archive and of its orphans' archive."""
    found = []
    for folder in _agent_folders(Path(root), agent):
        for unit in (session_id, f"{session_id}.orphans"):
            try:
                _tar, path = unit_paths(Path(root), folder.name, unit)
            except ArchiveError:
                return []
            if path.is_file():
                found.append((path, read_manifest(path)))
    return found


def iter_files(root: Path, manifest: Manifest) -> Iterator[tuple[ArchivedFile, bytes]]:
    """Each archived file with its bytes, in archive order; a member whose bytes do not hash
    to the manifest's sha256 raises CorruptContent (never returned half-read)."""
    tar_path, _ = unit_paths(Path(root), manifest.agent, manifest.unit)
    if not tar_path.is_file():
        raise ArchiveError(f"the archive of {manifest.id} is missing ({tar_path})")
    by_name = {f.name: f for f in manifest.files}
    with damage_said(tar_path), open_members(tar_path) as tar:
        for member in tar:
            entry = by_name.get(member.name)
            if member.name == INNER_MANIFEST or entry is None:
                continue
            if member.size != entry.size or entry.size > MAX_MEMBER:
                raise CorruptContent(f"{tar_path}: {member.name} has {member.size} bytes, the manifest says {entry.size}")
            data = tar.extractfile(member).read()
            if hashlib.sha256(data).hexdigest() != entry.sha256:
                raise CorruptContent(f"{tar_path}: {member.name} does not match its sha256")
            yield entry, data


def read_file(root: Path, manifest: Manifest, name: str) -> bytes:
    """The bytes of one archived file (its name relative to the home, or its original path)."""
    for entry, data in iter_files(root, manifest):
        if name in (entry.name, entry.path):
            return data
    raise ArchiveError(f"{name} is not in the archive of {manifest.id}")


def unpacked_view(root: Path, manifest: Manifest, cache: Path) -> Path:
    """A read-only copy of the archived files laid out as in the home, under `cache` (memtui's
    cache, never the agent's home); unpacked once, reused while the archive is unchanged.
    Returns the folder that stands for the home."""
    key = hashlib.sha256(f"{manifest.agent}\0{manifest.home}\0{manifest.unit}\0{manifest.archived_at}".encode()).hexdigest()[:16]
    target = Path(cache) / manifest.agent / f"{manifest.unit}-{key}"
    if (target / ".complete").is_file():
        return target
    remove_stale_temp_dirs(target.parent)  # views a killed reader was unpacking
    tmp = temp_dir(target)
    try:
        for entry, data in iter_files(root, manifest):
            path = tmp / entry.name
            if os.path.normpath(path).startswith(os.path.normpath(tmp) + os.sep) is False:
                raise ArchiveError(f"{entry.name}: escapes the view folder")
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(data)
            os.utime(path, ns=(entry.mtime_ns, entry.mtime_ns))
        tmp.mkdir(parents=True, exist_ok=True)
        (tmp / ".complete").write_text(manifest.archived_at)
        try:
            os.replace(tmp, target)
        except OSError:  # another reader unpacked it first
            shutil.rmtree(tmp, ignore_errors=True)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return target
