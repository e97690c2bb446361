"""Carrying out a cleanup plan: archive (default) or delete what the plan lets go, one
session at a time, with progress and cancel between (and inside) sessions."""

from __future__ import annotations

import os
from contextlib import ExitStack
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Callable

from memtui.core.atomic import fsync_dir
from memtui.core.cleanup.archive import LEVEL, SessionChanged, archive_unit, holding_folders
from memtui.core.cleanup.files import FileInfo, first_changed
from memtui.core.cleanup.inventory import Inventory, OrphanRecord
from memtui.core.cleanup.lock import archive_lock
from memtui.core.cleanup.manifest import ArchiveError, Manifest, manifest_bytes
from memtui.core.cleanup.plan import CleanupPlan
from memtui.core.cleanup.recover import Recovery, recover


@dataclass
class CleanupProgress:
    units_done: int
    units_total: int
    bytes_done: int
    bytes_total: int
    current: str


@dataclass
class CleanupResult:
    done: list[str] = field(default_factory=list)  # ids archived or deleted
    skipped: list[tuple[str, str]] = field(default_factory=list)  # (id, why): in use, left whole on purpose
    failed: list[tuple[str, str]] = field(default_factory=list)  # (id, why): could not be archived or deleted
    archive_bytes: int = 0
    bytes_removed: int = 0
    cancelled: bool = False
    recovery: Recovery = field(default_factory=Recovery)


@dataclass
class _Unit:
    id: str
    kind: str
    project: str | None
    title: str
    first: datetime | None
    last: datetime | None
    files: list[FileInfo]
    dirs: list[Path]

    @property
    def bytes(self) -> int:
        return sum(f.size for f in self.files)


def _units(plan: CleanupPlan) -> list[_Unit]:
    sessions, orphans = plan.going()
    units = [_Unit(s.id, "session", s.project, s.title, s.first_activity, s.last_activity, s.files, s.dirs) for s in sessions]
    grouped: dict[str, list[OrphanRecord]] = {}
    for o in orphans:
        grouped.setdefault(o.owner, []).append(o)
    for owner, group in grouped.items():
        units.append(_Unit(owner, "orphans", None, f"files of session {owner} (transcript gone)", None, None,
                           [f for o in group for f in o.files], [d for o in group for d in o.dirs]))
    return units


def _iso(value: datetime | None) -> str | None:
    return value.isoformat() if value else None


def apply_cleanup(plan: CleanupPlan, archive_root: Path, *, level: int = LEVEL,
                  progress: Callable[[CleanupProgress], None] | None = None,
                  cancel: Callable[[], bool] | None = None) -> CleanupResult:
    """Archive or delete everything the plan lets go; first finish any interrupted archive.
    An archiving run holds the agent's archive folder throughout (ArchiveBusy when another
    cleanup or restore does)."""
    if plan.action != "archive":
        return _apply(plan, archive_root, level=level, progress=progress, cancel=cancel)
    with ExitStack() as held:
        try:
            held.enter_context(archive_lock(archive_root, plan.inventory.agent))
        except OSError as exc:  # the folder cannot be made or opened: no unit can go, each says why
            folder = Path(os.path.abspath(archive_root))
            return CleanupResult(failed=[(unit.id, failure(exc, folder)) for unit in _units(plan)])
        return _apply(plan, archive_root, level=level, progress=progress, cancel=cancel)


def _apply(plan: CleanupPlan, archive_root: Path, *, level: int,
           progress: Callable[[CleanupProgress], None] | None,
           cancel: Callable[[], bool] | None) -> CleanupResult:
    home = plan.inventory.home
    result = CleanupResult(recovery=recover(archive_root, home, plan.inventory.agent) if plan.action == "archive" else Recovery())
    units = _units(plan)
    total = sum(u.bytes for u in units)
    done_bytes = 0

    def tick(n: int, current: str) -> None:
        nonlocal done_bytes
        done_bytes += n
        if progress is not None:
            progress(CleanupProgress(len(result.done) + len(result.skipped) + len(result.failed), len(units),
                                     done_bytes, total, current))

    folder = Path(os.path.abspath(archive_root))  # as an OSError names its files
    for unit in units:
        if cancel is not None and cancel():
            result.cancelled = True
            break
        tick(0, unit.id)
        try:
            if plan.action == "archive":
                manifest = Manifest(plan.inventory.agent, str(home), unit.id, unit.kind, unit.project, unit.title,
                                    _iso(unit.first), _iso(unit.last), datetime.now(timezone.utc).isoformat(), [],
                                    tasks=count_tasks(plan.inventory, unit) if unit.kind == "session" else None)
                done = archive_unit(archive_root, manifest, unit.files, unit.dirs, home=home, level=level,
                                    cancel=cancel, on_bytes=lambda n, u=unit.id: tick(n, u))
                result.archive_bytes += done.archive_bytes + len(manifest_bytes(done))  # the tar and its manifest
            else:
                delete_files(unit.files, [*unit.dirs, *holding_folders(home, unit.files)])
                tick(unit.bytes, unit.id)
        except KeyboardInterrupt:
            if cancel is not None and cancel():
                result.cancelled = True
                break
            raise
        except SessionChanged as exc:
            result.skipped.append((unit.id, str(exc)))
            continue
        except (ArchiveError, OSError) as exc:
            result.failed.append((unit.id, failure(exc, folder)))
            continue
        result.done.append(unit.id)
        result.bytes_removed += unit.bytes
    return result


def failure(exc: Exception, archive_root: Path) -> str:
    """Why a unit could not go, in words that name what the user can fix: the archive folder
    when the write failed in it (not a file of memtui's inside it), else the file at fault."""
    if isinstance(exc, OSError) and exc.filename:
        name = Path(os.fsdecode(exc.filename))
        reason = exc.strerror or str(exc)
        if name == archive_root or archive_root in name.parents:
            return f"cannot write to the archive folder {archive_root}: {reason}"
        return f"{name}: {reason}"
    return str(exc)


def count_tasks(inventory: Inventory, unit: _Unit) -> int | None:
    """How many tasks the agent's adapter reads from the session (the archived listing shows
    it without unpacking); None when the files cannot be read or the inventory has no reader."""
    if inventory.open_session is None:
        return None
    try:
        source = inventory.open_session(inventory.home, unit.files)
        return sum(len(source.tasks(s.id)) for s in source.sessions())
    except Exception:  # noqa: BLE001 - a count is a nicety; archiving must not fail on it
        return None


def delete_files(files: list[FileInfo], dirs: list[Path]) -> None:
    """Delete a session's files (none if any changed since the plan), then its empty folders."""
    changed = first_changed(files)
    if changed is not None:
        raise SessionChanged(f"{changed.path} changed since the plan: the session is in use; nothing deleted")
    for info in files:
        Path(info.path).unlink(missing_ok=True)
    for folder in {str(Path(i.path).parent) for i in files}:
        fsync_dir(Path(folder))
    for d in sorted((str(d) for d in dirs), key=len, reverse=True):
        try:
            os.rmdir(d)
        except OSError:
            pass
