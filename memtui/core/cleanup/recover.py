"""Finishing what a crash interrupted, so a re-run of cleanup completes the last one.

- temp files of the archive whose writer is gone are dropped: nothing had been removed yet;
- a tar without its manifest was never committed: if every original is still in place it
  is dropped; if not (it never happens in the protocol, but a copy is never thrown away)
  it is verified and committed;
- a committed manifest whose originals are still (partly) in place: the removal is finished
  (only files holding exactly the archived bytes are removed);
- a manifest marked "restoring" is reported: `memtui restore --session ID` finishes it.
Only units of `home` are touched (when given); the archive folder is memtui's own.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path

from memtui.core.atomic import TEMP_SUFFIX, is_stale_temp, sweep_directories
from memtui.core.cleanup.archive import finish_removal, open_members, verify
from memtui.core.cleanup.lock import archive_lock
from memtui.core.cleanup.manifest import INNER_MANIFEST, ArchiveError, Manifest, read_manifest, unit_paths, write_manifest
from memtui.core.cleanup.restore import conflicts


@dataclass
class Recovery:
    finished: list[str] = field(default_factory=list)  # archives whose removal was finished
    dropped: list[str] = field(default_factory=list)  # uncommitted archives dropped
    restoring: list[str] = field(default_factory=list)  # restores to finish with `memtui restore`
    problems: list[str] = field(default_factory=list)


def pending(root: Path, home: Path | None = None, agent: str | None = None) -> Recovery:
    """What `recover` would do, without doing it (for --dry-run and the preview)."""
    return _walk(Path(root), home, agent, apply=False)


def recover(root: Path, home: Path | None = None, agent: str | None = None) -> Recovery:
    """Finish or undo every interrupted archive of `home` (all homes if None) in the archive
    folder of `agent` (every agent's if None), each folder under its lock: a tar another
    cleanup is still writing is never taken for a torn one."""
    return _walk(Path(root), home, agent, apply=True)


def _inner_manifest(tar_path: Path) -> Manifest | None:
    try:
        with open_members(tar_path) as tar:
            for member in tar:
                if member.name == INNER_MANIFEST:
                    return Manifest.from_json(json.loads(tar.extractfile(member).read()))
    except Exception:  # noqa: BLE001 - a torn tar is simply not a committed archive
        return None
    return None


def _walk(root: Path, home: Path | None, agent: str | None, *, apply: bool) -> Recovery:
    out = Recovery()
    if not root.is_dir():
        return out
    for folder in sorted(p for p in root.iterdir() if p.is_dir() and agent in (None, p.name)):
        if apply:
            with archive_lock(root, folder.name):
                _walk_folder(root, folder, home, apply, out)
        else:
            _walk_folder(root, folder, home, apply, out)
    return out


def _walk_folder(root: Path, folder: Path, home: Path | None, apply: bool, out: Recovery) -> None:
    home_text = os.path.normpath(str(home)) if home is not None else None
    for entry in sorted(folder.iterdir()):
        name = entry.name
        if name.endswith(TEMP_SUFFIX):
            if apply and is_stale_temp(entry):  # a live cleanup's temp file is left alone
                entry.unlink(missing_ok=True)
        elif name.endswith(".tar.zst") and not entry.with_name(name[: -len(".tar.zst")] + ".json").exists():
            _uncommitted(entry, home_text, apply, out)
        elif name.endswith(".json") and not name.startswith("."):
            try:
                manifest = read_manifest(entry)
            except ArchiveError as exc:
                out.problems.append(str(exc))
                continue
            if home_text is not None and os.path.normpath(manifest.home) != home_text:
                continue
            tar_path, _ = unit_paths(root, manifest.agent, manifest.unit)
            if manifest.state == "restoring":
                out.restoring.append(manifest.id)
                if apply:  # a restore killed mid-file left a temp file beside its target
                    sweep_directories(Path(f.path).parent for f in manifest.files if Path(f.path).parent.is_dir())
            elif not tar_path.is_file():
                out.problems.append(f"the archive of {manifest.id} is missing ({tar_path}); its manifest is kept")
            elif any(os.path.lexists(f.path) for f in manifest.files):
                out.finished.append(manifest.id)
                if apply:
                    for path in finish_removal(manifest):
                        out.problems.append(f"{path} was written again after archiving {manifest.id}; left in place")


def _uncommitted(tar_path: Path, home_text: str | None, apply: bool, out: Recovery) -> None:
    manifest = _inner_manifest(tar_path)
    if manifest is None:
        out.dropped.append(str(tar_path))
        if apply:
            tar_path.unlink(missing_ok=True)  # torn before its last member: originals untouched
        return
    if home_text is not None and os.path.normpath(manifest.home) != home_text:
        return
    bad, present = conflicts(manifest)
    if len(present) == len(manifest.files):
        out.dropped.append(str(tar_path))
        if apply:
            tar_path.unlink(missing_ok=True)
        return
    try:
        verify(tar_path, manifest.files)
    except ArchiveError as exc:
        out.problems.append(f"{tar_path}: uncommitted archive, some originals gone, and it does not verify: {exc}")
        return
    out.finished.append(manifest.id)
    if apply:
        _tar, manifest_path = unit_paths(tar_path.parent.parent, manifest.agent, manifest.unit)
        write_manifest(manifest_path, manifest)
        finish_removal(manifest)
