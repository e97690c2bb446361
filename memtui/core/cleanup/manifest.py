"""The archive's on-disk format: one `<id>.tar.zst` per session plus its `<id>.json` manifest.

    <archive>/<agent>/<id>.tar.zst   a plain tar (PAX) of the session's files, named by their
                                     path relative to the agent home, zstd-compressed
                                     (long-distance matching, 128 MiB window: `tar --zstd
                                     -xf` opens it); its last member `MEMTUI-MANIFEST.json`
                                     is a copy of the manifest, so the tar describes itself.
    <archive>/<agent>/<id>.json      the manifest: agent, home, project, title, activity, and
                                     per file its original absolute path, size, mtime (ns),
                                     mode and sha256. Written (atomically) only after the
                                     tar was read back and every hash matched: it is the
                                     commit point of an archive — and `state` says
                                     "restoring" while a restore is under way.
"""

from __future__ import annotations

import json
import os
from dataclasses import asdict, dataclass, field
from pathlib import Path

from memtui.core.atomic import write_atomic
from memtui.core.errors import MemtuiError

FORMAT = "memtui-archive/1"
INNER_MANIFEST = "MEMTUI-MANIFEST.json"
SAFE_ID = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-")


class ArchiveError(MemtuiError):
    """An archive is missing, unreadable or does not match its manifest."""


@dataclass(frozen=True)
class ArchivedFile:
    path: str  # original absolute path
    name: str  # the member name: path relative to the home
    size: int
    mtime_ns: int
    mode: int
    sha256: str


@dataclass
class Manifest:
    """One archived unit: a session, or the orphans that name one session id."""

    agent: str
    home: str
    id: str
    kind: str  # "session" | "orphans"
    project: str | None
    title: str
    first_activity: str | None
    last_activity: str | None
    archived_at: str
    files: list[ArchivedFile]
    dirs: list[dict] = field(default_factory=list)  # {"path", "mode"}: folders only it used
    archive_bytes: int = 0
    tasks: int | None = None  # how many tasks the agent's adapter read from it (for listings)
    state: str = "archived"  # "archived" | "restoring"
    format: str = FORMAT

    @property
    def bytes(self) -> int:
        return sum(f.size for f in self.files)

    @property
    def unit(self) -> str:
        """The file stem in the archive folder (`<id>` or `<id>.orphans`)."""
        return self.id if self.kind == "session" else f"{self.id}.orphans"

    def to_json(self) -> dict:
        return asdict(self)

    @classmethod
    def from_json(cls, data: dict) -> "Manifest":
        if not isinstance(data, dict) or data.get("format") != FORMAT:
            raise ArchiveError("not a memtui archive manifest (unknown format)")
        try:
            files = [ArchivedFile(**f) for f in data["files"]]
            fields = {k: data[k] for k in cls.__dataclass_fields__ if k in data and k != "files"}
            return cls(files=files, **fields)
        except (KeyError, TypeError) as exc:
            raise ArchiveError(f"malformed archive manifest: {exc}") from None


def unit_paths(root: Path, agent: str, unit: str) -> tuple[Path, Path]:
    """(tar, manifest) paths of one unit in the archive."""
    if not unit or not set(unit) <= SAFE_ID or unit.startswith("."):
        raise ArchiveError(f"session id {unit!r} cannot name an archive file")
    folder = Path(root) / agent
    return folder / f"{unit}.tar.zst", folder / f"{unit}.json"


def read_manifest(path: Path) -> Manifest:
    try:
        return Manifest.from_json(json.loads(Path(path).read_text(encoding="utf-8")))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ArchiveError(f"{path}: unreadable manifest ({exc})") from None


def write_manifest(path: Path, manifest: Manifest) -> None:
    """Replace the manifest atomically (temp, fsync, rename, fsync the folder)."""
    write_atomic(path, manifest_bytes(manifest), mode=0o600)  # it names the session's files: private


def manifest_bytes(manifest: Manifest) -> bytes:
    """The manifest as UTF-8 JSON. A file name that is not UTF-8 is held (as Python holds it)
    with lone surrogates, which no UTF-8 can carry: each is written as its JSON escape
    (`\\udce9`), which json reads back as the same name, so os.fsencode gives its bytes."""
    text = json.dumps(manifest.to_json(), separators=(",", ":"), ensure_ascii=False) + "\n"
    return text.encode("utf-8", "backslashreplace")  # only lone surrogates fail: \uXXXX, JSON's own escape


def contained(manifest: Manifest) -> None:
    """Refuse a manifest whose files would land outside the home it names."""
    home = os.path.normpath(manifest.home)
    for f in manifest.files:
        target = os.path.normpath(f.path)
        if not os.path.isabs(target) or os.path.commonpath([home, target]) != home or target != os.path.join(home, f.name):
            raise ArchiveError(f"archive of {manifest.id} names {f.path}, outside {manifest.home}: refused")
