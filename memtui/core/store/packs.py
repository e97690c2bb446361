"""Packs: the stored frames of many blobs in one row (schema 7).

Why: a blob row that held its own frame left, after VACUUM, the remainder of every frame
that overflowed its 1 KiB pages in the table's leaf pages, where pieces of 100–990 bytes
fit badly (measured on 1,500 commits of a real history: 131 KiB of 1,690 unused, 8% of the
file). A pack keeps the frames of consecutive blobs back to back, so only a pack's own
remainder is left to fit. Each blob row still stands for one content — its hash, size, codec,
base, depth, path and version, which GC and dedup count on — and names where its frame is:
`pack` and `at` (byte offset; its length is `stored`).

A new frame is written *loose*, in the blob row's own `data` (`pack` NULL), as before packs;
once the loose frames add up to PACK_BYTES, `seal` moves them into packs in the same
transaction (a recorded step's commit). Reading a packed frame reads one row: the slice of
its pack (`READ_SQL`), so a version still reads ≤ MAX_CHAIN objects. GC deletes blobs and then
`repack`s the packs that held their frames, in the same transaction: a pack keeps only live
frames, or goes.
"""

from __future__ import annotations

from typing import Callable, Iterable

# Loose frames are sealed once they add up to this; a pack holds at most this much, unless a
# single frame is larger (it gets a pack of its own). Measured on 1,500 commits of a real
# history, after VACUUM: packs of 16 KiB leave 7 KiB unused (64 KiB: 4 KiB) against 131 KiB
# for frames in their blob rows; a read slices one pack, so smaller packs read less per object.
PACK_BYTES = 16 * 1024

# The loose blobs (schema.INDEXES makes the index): few, so the sum is cheap to keep asking.
LOOSE_SQL = "SELECT COALESCE(SUM(stored), 0) FROM blob WHERE pack IS NULL"

# One blob's frame, loose or packed (schema ≥ 7): codec, frame, size, base, hash. As a BLOB even
# where a damaged row holds text (the hash check then refuses it; a text would not even decode).
READ_SQL = ("SELECT b.codec, CAST(CASE WHEN b.pack IS NULL THEN b.data ELSE substr(p.data, b.at + 1, b.stored) END"
            " AS BLOB), b.size, b.base, b.hash FROM blob b LEFT JOIN pack p ON p.id = b.pack WHERE b.id = ?")

Execute = Callable[..., object]  # (sql, params) -> a cursor: the store's or the upgrade's connection


def seal_if_full(execute: Execute) -> int:
    """Seal the loose frames if they add up to PACK_BYTES; the packs written."""
    if execute(LOOSE_SQL, ()).fetchone()[0] < PACK_BYTES:
        return 0
    return seal(execute)


def seal(execute: Execute) -> int:
    """Move every loose frame into packs of up to PACK_BYTES, in blob order; the packs written.
    Only one pack's frames are held in memory at a time (the upgrade seals a whole store)."""
    rows = execute("SELECT id, stored FROM blob WHERE pack IS NULL ORDER BY id", ()).fetchall()
    packs = 0
    for group in _groups(rows):
        marks = ",".join("?" * len(group))
        # As a BLOB: a frame SQLite holds as text (even not UTF-8) is packed as its bytes (the
        # hash check on read judges them), instead of failing the seal and with it the upgrade.
        frames = dict(execute(f"SELECT id, CAST(data AS BLOB) FROM blob WHERE id IN ({marks})", group).fetchall())
        _write_pack(execute, None, [(blob_id, bytes(frames[blob_id] or b"")) for blob_id in group])
        packs += 1
    return packs


def _groups(rows: list[tuple[int, int]]) -> Iterable[list[int]]:
    """Blob ids [(id, stored)] in runs of up to PACK_BYTES (a larger frame alone)."""
    group: list[int] = []
    size = 0
    for blob_id, stored in rows:
        if group and (size + stored > PACK_BYTES or len(group) >= 500):
            yield group
            group, size = [], 0
        group.append(blob_id)
        size += stored
    if group:
        yield group


def _write_pack(execute: Execute, pack_id: int | None, frames: list[tuple[int, bytes]]) -> None:
    """Write `frames` [(blob id, frame)] as pack `pack_id` (a new one if None) and point their
    blob rows at it (a loose frame's own copy is emptied)."""
    data = b"".join(frame for _, frame in frames)
    first, last = min(b for b, _ in frames), max(b for b, _ in frames)
    if pack_id is None:
        pack_id = execute("INSERT INTO pack (first_blob, last_blob, data) VALUES (?, ?, ?) RETURNING id",
                          (first, last, data)).fetchall()[0][0]
    else:
        execute("UPDATE pack SET first_blob = ?, last_blob = ?, data = ? WHERE id = ?", (first, last, data, pack_id))
    at = 0
    for blob_id, frame in frames:
        execute("UPDATE blob SET pack = ?, at = ?, data = X'' WHERE id = ?", (pack_id, at, blob_id))
        at += len(frame)


def repack(execute: Execute, pack_ids: Iterable[int], lock: str = "") -> None:
    """After blobs were deleted: each of `pack_ids` keeps only the frames of blobs still there
    (its blob ids lie between its `first_blob` and `last_blob`), or is deleted with none left.
    `lock`: how the pack row is locked before its frames are read (the dialect's `lock_row`)."""
    for pack_id in sorted(set(pack_ids)):
        row = execute("SELECT first_blob, last_blob FROM pack WHERE id = ?" + lock, (pack_id,)).fetchone()
        if row is None:
            continue
        first, last = row
        frames = execute("SELECT b.id, CAST(substr(p.data, b.at + 1, b.stored) AS BLOB) FROM blob b JOIN pack p ON p.id = b.pack"
                         " WHERE b.id BETWEEN ? AND ? AND b.pack = ? ORDER BY b.at", (first, last, pack_id)).fetchall()
        if not frames:
            execute("DELETE FROM pack WHERE id = ?", (pack_id,))
            continue
        _write_pack(execute, pack_id, [(blob_id, bytes(frame)) for blob_id, frame in frames])
