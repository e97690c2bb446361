"""The undo of a rollback into a Claude Code or Codex store's workspace, kept by memtui.

memtui never writes into another agent's home, so a rollback from a transcript store records
its undo in memtui's own state folder (`$XDG_STATE_HOME/memtui/undo/<key>/`, one folder per
agent and workspace): the bytes each file held before and after, as content-addressed blobs,
and one small JSON manifest per rollback written after its blobs (both atomically), so a
crash leaves either no undo or a whole one. A blob that no manifest names any more (its
entries removed, or its rollback killed before the manifest) is deleted after the manifest
is written, and again by the next write of the folder when a crash came in between; writes
of the folder take a lock on it (flock), so one never deletes a blob another is recording. The adapters show these undo checkpoints on the
task they rolled back (label "rollback" or "undo"), so `u` and `plan_rollback(undo=…)` work
as on memtui's own store.
"""

from __future__ import annotations

import hashlib
import json
import re
import uuid
from contextlib import contextmanager, nullcontext
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterator

from memtui.core.atomic import check_writes_allowed, fsync_dir, remove_stale_temps, write_atomic
from memtui.core.places import private_folder, state_dir
from memtui.core.errors import RollbackError
from memtui.core.file_lock import held
from memtui.core.memory_source import UnknownId
from memtui.core.model import CheckpointInfo, Id
from memtui.core.sources.base import ContentUnknown, SourceEntryInfo
from memtui.core.sources.timestamps import parse_time, sort_key

PREFIX = "undo-"
BLOB_NAME = re.compile(r"[0-9a-f]{64}")


class UndoLog:
    """Undo checkpoints of one agent's rollbacks into one workspace."""

    def __init__(self, agent: str, root: Path, folder: Path | None = None) -> None:
        key = hashlib.sha256(f"{agent}\0{Path(root).resolve()}".encode()).hexdigest()[:16]
        self.folder = Path(folder or state_dir()) / "undo" / key

    @contextmanager
    def _locked(self, sweep: bool = True) -> Iterator[Path]:
        """The folder's lock (released by the kernel if the process dies); yields blobs/,
        swept first (unless the caller sweeps after) of the blobs no manifest names and of dead
        writers' temp files."""
        check_writes_allowed(self.folder)
        blobs = private_folder(self.folder / "blobs")  # the files' contents before a rollback: private
        with held(self.folder):
            if sweep:
                self._drop_unused(blobs)
            yield blobs

    def _drop_unused(self, blobs: Path) -> None:
        """Delete the blobs no manifest file names. A manifest is read as text here, whole or
        not: a blob any file of the folder mentions stays (a hand-edited manifest keeps its
        contents)."""
        remove_stale_temps(blobs)
        named: set[str] = set()
        for path in self.folder.glob(f"{PREFIX}*.json"):
            try:
                named.update(BLOB_NAME.findall(path.read_text(encoding="utf-8", errors="replace")))
            except OSError:
                return  # cannot tell what is used: delete nothing
        gone = [blob for blob in blobs.iterdir() if BLOB_NAME.fullmatch(blob.name) and blob.name not in named]
        for blob in gone:
            blob.unlink(missing_ok=True)
        if gone:
            fsync_dir(blobs)

    def record(self, task_id: Id, changes: dict[str, tuple[bytes | None, bytes | None]], label: str) -> str:
        """Keep `changes` ({path: (on disk before, restored)}); returns the checkpoint id."""
        with self._locked() as blobs:
            return self._record(blobs, task_id, changes, label)

    def _record(self, blobs: Path, task_id: Id, changes: dict[str, tuple[bytes | None, bytes | None]],
                label: str) -> str:
        entries = []
        for path, sides in changes.items():
            names = []
            for content in sides:
                if content is None:
                    names.append(None)
                    continue
                name = hashlib.sha256(content).hexdigest()
                if not (blobs / name).exists():
                    write_atomic(blobs / name, content, 0o600, sweep=False)
                names.append(name)
            entries.append({"path": path, "before": names[0], "after": names[1]})
        checkpoint_id = f"{PREFIX}{uuid.uuid4().hex[:12]}"
        manifest = {"id": checkpoint_id, "task_id": str(task_id), "label": label,
                    "created_at": datetime.now(timezone.utc).isoformat(), "entries": entries}
        write_atomic(self.folder / f"{checkpoint_id}.json", (json.dumps(manifest, indent=1) + "\n").encode(), 0o600)
        return checkpoint_id

    @staticmethod
    def _load(path: Path) -> dict[str, Any] | None:
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None  # not a whole manifest: as if that rollback recorded none
        if (isinstance(data, dict) and data.get("id") == path.stem and isinstance(data.get("entries"), list)
                and all(isinstance(e, dict) for e in data["entries"])):
            return data
        return None  # not one of memtui's manifests (or edited by hand): left out, not a crash

    def _manifests(self) -> list[dict[str, Any]]:
        out = [m for path in sorted(self.folder.glob(f"{PREFIX}*.json")) if (m := self._load(path)) is not None]
        return sorted(out, key=lambda m: str(m.get("created_at")))

    def _manifest_file(self, checkpoint_id: Id) -> Path:
        """The file `record` wrote `checkpoint_id`'s manifest to (UnknownId when there is none)."""
        name = str(checkpoint_id)
        path = self.folder / f"{name}.json"
        if not (name.startswith(PREFIX) and Path(name).name == name and path.is_file()):
            raise UnknownId(f"no rollback checkpoint {checkpoint_id!r} in {self.folder}")
        return path

    def _manifest(self, checkpoint_id: Id) -> dict[str, Any]:
        """The manifest `record` wrote for `checkpoint_id`: its own file, read alone."""
        found = self._load(self._manifest_file(checkpoint_id))
        if found is None:  # _load checks the manifest names itself
            raise UnknownId(f"no rollback checkpoint {checkpoint_id!r} in {self.folder}")
        return found

    @staticmethod
    def _info(m: dict[str, Any]) -> CheckpointInfo:
        return CheckpointInfo(id=m["id"], task_id=m.get("task_id"), step_id=None,
                              created_at=parse_time(m.get("created_at")), entry_count=len(m["entries"]),
                              label=str(m.get("label") or "rollback"))

    def checkpoints(self, task_id: Id) -> list[CheckpointInfo]:
        return [self._info(m) for m in self._manifests() if m.get("task_id") == str(task_id)]

    def checkpoint(self, checkpoint_id: Id) -> CheckpointInfo:
        return self._info(self._manifest(checkpoint_id))

    def newest(self, limit: int) -> list[CheckpointInfo]:
        """Every task's checkpoints, newest first."""
        return [self._info(m) for m in reversed(self._manifests())][:limit]

    def remove_entries(self, checkpoint_id: Id, paths: list[str]) -> int:
        """Drop the entries of `paths` from a checkpoint, then the blobs no entry uses now
        (killed in between: the next write of the folder deletes them)."""
        manifest = self._manifest_file(checkpoint_id)  # an unknown id raises before anything is written
        with self._locked(sweep=False) as blobs:  # swept once, after the manifest is written
            m = self._manifest(checkpoint_id)
            dropped = set(paths)
            kept = [e for e in m["entries"] if e.get("path") not in dropped]
            if len(kept) == len(m["entries"]):
                return 0
            write_atomic(manifest, (json.dumps({**m, "entries": kept}, indent=1) + "\n").encode(), 0o600)
            self._drop_unused(blobs)
        return len(m["entries"]) - len(kept)

    def entries(self, checkpoint_id: Id) -> list[SourceEntryInfo]:
        m = self._manifest(checkpoint_id)
        out = []
        for n, e in enumerate(m["entries"]):
            before, after = e.get("before"), e.get("after")
            kind = "added" if before is None else "deleted" if after is None else "modified"
            out.append(SourceEntryInfo(id=f"{m['id']}:{n}", checkpoint_id=m["id"], path=str(e.get("path")), kind=kind,
                                       before_size=self._size(before), after_size=self._size(after)))
        return out

    def _size(self, name: str | None) -> int | None:
        try:
            return (self.folder / "blobs" / name).stat().st_size if name else None
        except OSError:
            return None

    def read(self, entry_id: Id) -> tuple[bytes | None, bytes | None]:
        checkpoint_id, _, n = str(entry_id).rpartition(":")
        entries = self._manifest(checkpoint_id)["entries"]
        if not n.isdigit() or int(n) >= len(entries):
            raise UnknownId(f"no file change {entry_id!r} in {self.folder}")
        e = entries[int(n)]
        return self._blob(e.get("before")), self._blob(e.get("after"))

    def _blob(self, name: str | None) -> bytes | None:
        if name is None:
            return None
        try:
            data = (self.folder / "blobs" / name).read_bytes()
        except OSError as exc:
            raise ContentUnknown(f"undo content {name} is missing: {exc.strerror or exc}") from exc
        if hashlib.sha256(data).hexdigest() != name:
            raise ContentUnknown(f"undo content {name} does not match its hash")
        return data


class UndoRecorder:
    """Mixin for transcript adapters: what `apply_rollback` needs to record an undo
    (`record_checkpoint`, `pin`, `transaction`) and the undo checkpoints to show."""

    undo_kept_in = "state"  # the undo is not in the agent's store: there is no task to pin

    if TYPE_CHECKING:  # what the class it is mixed into has (a transcript adapter, an archive's writer)
        @property
        def kind(self) -> str: ...

        @property
        def workspace(self) -> Path | None: ...

        def rollback_root(self, task_id: Id, root: str | Path | None = None) -> Path: ...

        def workspace_root(self, task_id: Id) -> Path | None: ...

        def recorded_cwds(self) -> frozenset[str]: ...

    def undo_log(self, task_id: Id) -> UndoLog | None:
        """The log of the folder a rollback of `task_id` writes under (`rollback_root`)."""
        try:
            folder: Path | None = self.rollback_root(task_id)
        except RollbackError:  # no root to write under now; a folder gone since keeps its log
            folder = self.workspace_root(task_id)
        return UndoLog(self.kind, folder) if folder is not None else None

    def undo_logs(self) -> list[UndoLog]:
        """Every log this store's rollbacks may be in: the workspace's, else one per session folder."""
        root = self.workspace
        if root is not None:
            return [UndoLog(self.kind, root)]
        return [UndoLog(self.kind, Path(cwd)) for cwd in sorted(self.recorded_cwds())]

    def record_checkpoint(self, task_id: Id, step_id: Id | None, changes: dict, *, label: str = "rollback") -> Id:
        log = self.undo_log(task_id)
        if log is None:
            raise UnknownId("no workspace to record a rollback of")
        return log.record(task_id, changes, label)

    def pin(self, task_id: Id) -> None:
        """The undo lives in memtui's state folder, not in the store: nothing to keep alive."""

    def remove_entries(self, checkpoint_id: Id, paths: list[str]) -> int:
        """Drop the entries of `paths` from an undo checkpoint (the files a rollback could not
        write); returns how many went."""
        return self._log(checkpoint_id).remove_entries(checkpoint_id, paths)

    def rollback_checkpoints(self, limit: int = 20) -> list[CheckpointInfo]:
        """The rollback and undo checkpoints recorded for this workspace, newest first."""
        found = [cp for log in self.undo_logs() if log.folder.is_dir() for cp in log.newest(limit)]
        return sorted(found, key=lambda cp: sort_key(cp.created_at), reverse=True)[:limit]

    def transaction(self):
        return nullcontext()

    @contextmanager
    def writer(self) -> Iterator["UndoRecorder"]:
        """The one way this store writes: recording an undo in memtui's state folder."""
        yield self

    @staticmethod
    def is_undo(checkpoint_id: Id) -> bool:
        return str(checkpoint_id).startswith(PREFIX)

    def undo_checkpoints(self, task_id: Id) -> list[CheckpointInfo]:
        log = self.undo_log(task_id)
        return log.checkpoints(task_id) if log is not None and log.folder.is_dir() else []

    def _log(self, key: Id) -> UndoLog:
        """The log holding the rollback checkpoint `key` (or one of its entries)."""
        logs = self.undo_logs()
        if not logs:
            raise UnknownId(f"no rollback checkpoint {key!r}: no workspace")
        name = str(key).split(":")[0]
        return next((log for log in logs if (log.folder / f"{name}.json").is_file()), logs[0])

    def undo_checkpoint(self, checkpoint_id: Id) -> CheckpointInfo:
        return self._log(checkpoint_id).checkpoint(checkpoint_id)

    def undo_entries(self, checkpoint_id: Id) -> list[SourceEntryInfo]:
        return self._log(checkpoint_id).entries(checkpoint_id)

    def undo_entry(self, entry_id: Id) -> SourceEntryInfo:
        found = [e for e in self.undo_entries(str(entry_id).rpartition(":")[0]) if e.id == str(entry_id)]
        if not found:
            raise UnknownId(f"no file change {entry_id!r}")
        return found[0]

    def undo_read(self, entry_id: Id) -> tuple[bytes | None, bytes | None]:
        return self._log(entry_id).read(entry_id)
