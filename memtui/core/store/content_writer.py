"""Storing file contents: each distinct content once, as raw bytes, a zstd frame or a delta.

Mixed into AgentStore beside the Recorder; runs inside the recorder's transaction on the
store's write connection (`_db`, `_sql`), with the content cache and `read_blob` for bases.
How a base is chosen is memtui.core.content's (`base_versions`, KIN_DEPTH); this module
finds the rows. Raw SQL: it runs for every content recorded.
"""

from __future__ import annotations

import posixpath
from typing import TYPE_CHECKING, Any, Iterable, Protocol

from memtui.core import content as codec
# The submodule itself: `from memtui.core.store import packs` asks the package's lazy __getattr__,
# which loads agent_store, which imports this module (ImportError when this one is imported first).
import memtui.core.store.packs as packs
from memtui.core.store.schema import BY_HASH, SHALLOW, by_hash

KIN_TRIES = 3  # paths deleted in the same checkpoint, and paths of the same name, tried as bases
KIN_SIBLINGS = 3  # same-folder files of the same kind tried as the base of a new path's first content
SIBLING_SCAN = 200  # paths of one folder looked at to find them

if TYPE_CHECKING:
    from peewee import Database

    from memtui.core.store.dialect import Dialect


class BlobCache(Protocol):
    """The store's cache of blob contents by id (what a new content's delta base is read from)."""

    def put(self, key: Any, value: bytes) -> None: ...


class ContentWriter:
    """`_path_id(path)` → the id entries and blobs name a path by (schema 6); `_put(path,
    path_id, data, kin)` → the blob id entries and deltas reference (schema ≥ 4), its frame
    written loose; `_seal()` once the contents of a checkpoint are in (schema 7)."""

    if TYPE_CHECKING:  # what AgentStore, which it is mixed into, gives it
        _db: Database
        _cache: BlobCache
        _dialect: Dialect

        def _sql(self, sql: str, params: tuple | list = ()) -> list[tuple]: ...

        def _run(self, sql: str, params: tuple | list = ()) -> Any: ...

        def read_blob(self, key: int | bytes | str) -> bytes: ...

    def _path_id(self, path: str) -> int:
        """The id of `path` in the path table, added on first use (each path is kept once)."""
        row = self._sql("SELECT id FROM path WHERE path = ?", (path,))
        return row[0][0] if row else self._run("INSERT INTO path (path) VALUES (?) RETURNING id", (path,)).fetchall()[0][0]

    def _put(self, path: str, path_id: int, data: bytes, kin: Iterable[int] = ()) -> int:
        """Store `data` once (by hash). A new content of a known path becomes a delta against
        an earlier version (codec.base_versions); the first content of a path may become one
        against a related path's blob: `kin` (blob ids, e.g. of files the same checkpoint
        deleted: a rename), files of the same name, or same-folder files of the same kind."""
        data = bytes(data)
        h = codec.content_hash(data)
        row = self._sql(f"SELECT id, codec FROM blob WHERE {BY_HASH}{self._dialect.share_lock}", by_hash(h))
        if row and row[0][1] == codec.CODEC_MISSING:  # a content lost before an upgrade comes back
            enc = codec.encode(data)
            self._run("UPDATE blob SET codec = ?, data = ?, size = ?, stored = ?, depth = 1, base = NULL,"
                                 " pack = NULL, at = NULL WHERE id = ?", (enc.codec, enc.data, len(data), len(enc.data), row[0][0]))
        if row:
            return row[0][0]
        version, newest = self._sql("SELECT versions, newest_blob FROM path WHERE id = ?", (path_id,))[0]
        bases: list[tuple[bytes, int, int]] = []
        if len(data) >= codec.RAW_BELOW:
            bases = (self._kin_bases(path, path_id, len(data), kin) if version == 0
                     else self._bases(path_id, version, newest))
        enc = codec.encode(data, others=bases)
        blob_id = self._run(
            "INSERT INTO blob (hash, codec, base, depth, size, stored, data, path_id, version)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id",
            (h, enc.codec, enc.base, enc.depth, len(data), len(enc.data), enc.data, path_id, version)).fetchall()[0][0]
        self._run("UPDATE path SET versions = ?, newest_blob = ? WHERE id = ?",
                             (version + 1, blob_id, path_id))
        self._cache.put(blob_id, data)
        return blob_id

    def _seal(self) -> None:
        """Once the loose frames add up to a pack, seal them (store.packs), in the caller's
        transaction."""
        packs.seal_if_full(self._run)

    def _version(self, path_id: int, version: int, newest: int | None) -> list[tuple[int, int]]:
        """[(id, depth)] of the path's blob of `version` if it is still kept: the newest one
        (base_versions asks for it inside a run), or a run's first one shallow enough to start
        another run's chain (indexed: no other is a base there)."""
        lock = self._dialect.share_lock
        return (self._sql(f"SELECT id, depth FROM blob WHERE id = ? AND path_id = ? AND version = ?{lock}",
                          (newest, path_id, version))
                or self._sql(f"SELECT id, depth FROM blob WHERE path_id = ? AND version = ? AND {SHALLOW}{lock}",
                             (path_id, version)))

    def _bases(self, path_id: int, version: int, newest: int | None) -> list[tuple[bytes, int, int]]:
        """Candidate bases (bytes, id, depth) among the path's earlier versions."""
        bases = []
        for base_version, deepest in codec.base_versions(version):
            row = self._version(path_id, base_version, newest)
            if row and row[0][1] <= deepest:
                bases.append((self.read_blob(row[0][0]), row[0][0], row[0][1]))
                if len(bases) == codec.base_tries(version):
                    break
        return bases

    def _kin_bases(self, path: str, path_id: int, size: int, kin: Iterable[int]) -> list[tuple[bytes, int, int]]:
        """Candidate bases (bytes, id, depth) for the first content of `path`: for each related
        path (for one deleted in this checkpoint: its newest blob first) its newest run-starting
        blob shallow enough (≤ KIN_DEPTH) that the new path's runs still fit."""
        name, ext = "/" + posixpath.basename(path), posixpath.splitext(path)[1]
        gone = [r for key in kin for r in self._sql(
            "SELECT path.id, path.path FROM blob JOIN path ON path.id = blob.path_id WHERE blob.id = ?", (key,))]
        # A folder renamed in one checkpoint deletes N paths for N new ones: try only the likeliest
        # few (same name, then same kind), or recording it costs N² compressions.
        gone.sort(key=lambda r: (not ("/" + r[1]).endswith(name), posixpath.splitext(r[1])[1] != ext))
        paths = [r[0] for r in gone[:KIN_TRIES]]
        renamed = set(paths)
        paths += [r[0] for r in self._sql(
            "SELECT id FROM path WHERE id != ? AND (path = ? OR substr(path, length(path) - ? + 1) = ?) LIMIT ?",
            (path_id, name[1:], len(name), name, KIN_TRIES))]
        paths += self._siblings(path, path_id, size)
        bases = []
        for other in dict.fromkeys(paths):
            # A path deleted in this checkpoint: its newest content (the one just deleted, most
            # likely the same file renamed); else, or for other kin, its newest run start (on a
            # real history the newest of those deltas 0.9% worse, and trying both 0.4%: a deeper
            # base leaves the new path's runs less room).
            lock = self._dialect.share_lock
            row = (other in renamed and self._sql(
                "SELECT b.id, b.depth FROM path p JOIN blob b ON b.id = p.newest_blob WHERE p.id = ?"
                f" AND b.depth <= ? AND b.codec != ?{lock and lock + ' OF b'}",
                (other, codec.KIN_DEPTH, codec.CODEC_MISSING))
                or self._sql(f"SELECT id, depth FROM blob WHERE path_id = ? AND {SHALLOW} AND depth <= ?"
                             f" AND codec != ? ORDER BY version DESC LIMIT 1{lock}",
                             (other, codec.KIN_DEPTH, codec.CODEC_MISSING)))
            if row:
                bases.append((self.read_blob(row[0][0]), row[0][0], row[0][1]))
        return bases

    def _siblings(self, path: str, path_id: int, size: int) -> list[int]:
        """Up to KIN_SIBLINGS paths in the folder of `path` with its extension, nearest in size
        (of their newest content) first."""
        folder, ext = posixpath.dirname(path), posixpath.splitext(path)[1]
        # The size of each one's newest content (if GC has not taken it).
        newest = "SELECT p.id, p.path, b.size FROM path p JOIN blob b ON b.id = p.newest_blob WHERE"
        if folder:  # the folder's paths are one range of the unique index on path
            rows = self._sql(f"{newest} p.path > ? AND p.path < ? AND p.id != ? LIMIT ?",
                             (folder + "/", folder + "0", path_id, SIBLING_SCAN))
        else:
            rows = self._sql(f"{newest} instr(p.path, '/') = 0 AND p.id != ? LIMIT ?", (path_id, SIBLING_SCAN))
        near = []
        for other, other_path, other_size in rows:
            if posixpath.dirname(other_path) != folder or posixpath.splitext(other_path)[1] != ext:
                continue
            near.append((abs(other_size - size), other))
        return [other for _, other in sorted(near)[:KIN_SIBLINGS]]
