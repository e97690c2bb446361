"""The content store: exact round trips, dedup, bounded chains, legacy reads, corruption."""

from __future__ import annotations

import zlib
from itertools import pairwise

import pytest
import zstandard as zstd
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memtui.core import content as codec
from memtui.core.errors import ChainTooLong, ContentTooLarge, CorruptContent
from memtui.core.store import AgentStore


def _task(store):
    sid = store.start_session("s")
    return store.start_task(sid, "t")


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(before=st.one_of(st.none(), st.binary(max_size=3000)), after=st.one_of(st.none(), st.binary(max_size=3000)))
def test_round_trip_arbitrary_bytes(store, before, after):
    task = _task(store)
    cp = store.record_checkpoint(task, None, {"f.bin": (before, after)})
    (entry,) = store.checkpoint_entries(cp)
    store._cache.clear()  # read from the database, not the write cache
    assert store.read_entry(entry.id) == (before, after)


@pytest.mark.parametrize("data", [b"", b"\xff\xfe\x00 not utf-8 \x80", bytes(range(256)) * 40, "héllo ✓\n".encode() * 500])
def test_round_trip_edge_cases(store, data):
    task = _task(store)
    cp = store.record_checkpoint(task, None, {"x": (data, data + b"!")})
    store._cache.clear()
    assert store.read_entry(store.checkpoint_entries(cp)[0].id) == (data, data + b"!")


def test_identical_contents_are_stored_once(store):
    task = _task(store)
    text = b"def f():\n    return 1\n" * 200
    for i in range(5):
        store.record_checkpoint(task, None, {f"copy{i}.py": (None, text)})
    assert store.query("SELECT COUNT(*) FROM blob")[0][0] == 1
    # the after of one edit is the before of the next: one new blob per edit
    v = [text + b"# %d\n" % i for i in range(4)]
    for a, b in pairwise(v):
        store.record_checkpoint(task, None, {"copy0.py": (a, b)})
    assert store.query("SELECT COUNT(*) FROM blob")[0][0] == 1 + 4


def test_long_version_chain_reads_within_bound(store):
    task = _task(store)
    text = b"".join(b"line %d: some source text here\n" % i for i in range(400))
    versions = [text]
    for i in range(300):
        new = versions[-1].replace(b"line %d:" % (i % 400), b"LINE %d:" % i, 1) + b"# edit %d\n" % i
        store.record_checkpoint(task, None, {"src/a.py": (versions[-1], new)})
        versions.append(new)
    depths = [r[0] for r in store.query("SELECT depth FROM blob")]
    assert max(depths) <= codec.MAX_CHAIN
    assert sum(r[0] for r in store.query("SELECT codec = 'delta' FROM blob")) > 250  # deltas are used
    stored = store.query("SELECT SUM(stored), SUM(size) FROM blob")[0]
    assert stored[0] < stored[1] * 0.05
    store._cache.clear()
    for cp in store.checkpoints(task)[::37]:
        entry = store.checkpoint_entries(cp.id)[0]
        before, after = store.read_entry(entry.id)
        assert (before, after) == (versions[cp.id - 1], versions[cp.id])


def test_base_choice_keeps_every_chain_within_the_cap_and_runs_one_edit_deltas():
    # The writer's rule (content_writer._bases) over 70,000 versions of one path, taking the
    # deepest of the bases it tries (whichever gives the smallest delta may be taken).
    depth = [1]
    for n in range(1, 70000):
        qualifying = [depth[v] for v, deepest in codec.base_versions(n) if depth[v] <= deepest]
        assert qualifying  # version 0 always qualifies: nothing is stored whole after it
        depth.append(max(qualifying[:codec.base_tries(n)]) + 1)
        if n % codec.RUN:
            assert next(codec.base_versions(n))[0] == n - 1 and codec.base_tries(n) == 1
    assert max(depth) <= codec.MAX_CHAIN
    assert list(codec.base_versions(0)) == []
    run = codec.RUN
    assert [v for v, _ in codec.base_versions(12 * run)] == [11 * run, 8 * run, 0]
    assert [v for v, _ in codec.base_versions(3 * run)] == [2 * run, 0]  # the previous run's is the skip one


def test_a_renamed_file_is_stored_as_a_small_delta_and_reads_back(store):
    task = _task(store)
    text = b"".join(b"def function_%d(x):\n    return x * %d + 17\n\n" % (i, i * 7919 % 1000) for i in range(600))
    store.record_checkpoint(task, None, {"src/old_name.py": (None, text)})
    moved = text.replace(b"function_599", b"renamed_599")
    cp = store.record_checkpoint(task, None, {"src/old_name.py": (text, None), "lib/new_name.py": (None, moved)})
    row = store.query("SELECT b.codec, b.stored FROM blob b JOIN path p ON p.id = b.path_id"
                      " WHERE p.path = 'lib/new_name.py'")[0]
    assert row[0] == "delta" and row[1] < 200 < len(zlib.compress(moved, 9))
    store._cache.clear()
    entries = {e.path: e for e in store.checkpoint_entries(cp)}
    assert store.read_entry(entries["lib/new_name.py"].id) == (None, moved)
    assert store.read_entry(entries["src/old_name.py"].id) == (text, None)


def test_a_new_file_like_its_neighbours_is_a_delta_against_one(store):
    task = _task(store)
    head = b"".join(b"# licence line %d of a long shared header\n" % i for i in range(200))
    store.record_checkpoint(task, None, {"pkg/a.py": (None, head + b"A = 1\n")})
    cp = store.record_checkpoint(task, None, {"pkg/b.py": (None, head + b"B = 2\n")})
    stored = store.query("SELECT b.stored FROM blob b JOIN path p ON p.id = b.path_id WHERE p.path = 'pkg/b.py'")[0][0]
    assert stored < 100
    store._cache.clear()
    assert store.read_entry(store.checkpoint_entries(cp)[0].id) == (None, head + b"B = 2\n")


def _legacy_entry(store, before, after):
    task = _task(store)
    cp = store.record_checkpoint(task, None, {"old.txt": (b"x", b"y")})
    (entry,) = store.checkpoint_entries(cp)
    store.execute("UPDATE checkpoint_entry SET before_blob = NULL, after_blob = NULL,"
                         " before_legacy = ?, after_legacy = ? WHERE id = ?", (before, after, entry.id))
    return entry.id


def test_legacy_zlib_blob_and_plain_text_still_read(store):
    original = b"print('hello')\n" * 50
    eid = _legacy_entry(store, zlib.compress(original, 6), "plain text after\n")
    assert store.read_entry(eid) == (original, b"plain text after\n")


def test_legacy_truncated_zlib_is_an_error_not_empty(store):
    eid = _legacy_entry(store, zlib.compress(b"abc" * 1000, 6)[:-8], "x")
    with pytest.raises(CorruptContent):
        store.read_entry(eid)


def _single_blob(store, data):
    task = _task(store)
    cp = store.record_checkpoint(task, None, {"f": (None, data)})
    store._cache.clear()
    return store.checkpoint_entries(cp)[0]


def test_flipped_byte_is_detected(store):
    entry = _single_blob(store, b"some compressible text " * 100)
    data = bytearray(store.query("SELECT data FROM blob WHERE hash = ?", (bytes.fromhex(entry.after_hash),))[0][0])
    data[len(data) // 2] ^= 0xFF
    store.execute("UPDATE blob SET data = ? WHERE hash = ?", (bytes(data), bytes.fromhex(entry.after_hash)))
    with pytest.raises(CorruptContent):
        store.read_entry(entry.id)


def test_truncated_stream_is_detected(store):
    entry = _single_blob(store, b"some compressible text " * 100)
    store.execute("UPDATE blob SET data = substr(data, 1, length(data) - 5) WHERE hash = ?", (bytes.fromhex(entry.after_hash),))
    with pytest.raises(CorruptContent):
        store.read_entry(entry.id)


def test_wrong_hash_is_detected(store):
    entry = _single_blob(store, b"raw bytes")  # stored raw (tiny)
    store.execute("UPDATE blob SET data = ? WHERE hash = ?", (b"RAW bytes", bytes.fromhex(entry.after_hash)))
    with pytest.raises(CorruptContent):
        store.read_entry(entry.id)


def test_decompression_bomb_is_refused_before_inflating(tmp_path):
    bomb = zstd.ZstdCompressor(level=19, write_content_size=True).compress(b"\0" * (8 * 1024 * 1024))
    assert len(bomb) < 4096
    with AgentStore.open(tmp_path / "ws", content_limit=1024 * 1024) as store:
        entry = _single_blob(store, b"small text " * 20)
        # A hostile row claims a small size but its frame declares 8 MiB.
        store.execute("UPDATE blob SET codec = 'zstd', data = ? WHERE hash = ?", (bomb, bytes.fromhex(entry.after_hash)))
        with pytest.raises(ContentTooLarge):
            store.read_entry(entry.id)
        store.execute("UPDATE blob SET size = ? WHERE hash = ?", (8 * 1024 * 1024, bytes.fromhex(entry.after_hash)))
        with pytest.raises(ContentTooLarge):
            store.read_entry(entry.id)


def test_legacy_zlib_bomb_is_refused():
    bomb = zlib.compress(b"\0" * (4 * 1024 * 1024), 9)
    with pytest.raises(ContentTooLarge):
        codec.decode_legacy(bomb, limit=1024 * 1024)


def test_small_or_incompressible_content_is_stored_raw():
    import os

    noise = os.urandom(5000)
    assert codec.encode(noise).codec == codec.CODEC_RAW
    assert codec.encode(b"tiny").codec == codec.CODEC_RAW
    assert codec.encode(b"abc" * 1000).codec == codec.CODEC_ZSTD


def test_a_delta_whose_base_is_itself_is_corruption_naming_the_entry(store):
    entry = _single_blob(store, b"some compressible text " * 100)
    h = bytes.fromhex(entry.after_hash)
    assert store.query("SELECT codec FROM blob WHERE hash = ?", (h,))[0][0] == "zstd"  # a valid frame
    store.execute("UPDATE blob SET codec = 'delta', base = id WHERE hash = ?", (h,))
    with pytest.raises(ChainTooLong, match=rf"checkpoint entry {entry.id}: .*loops"):
        store.read_entry(entry.id)


def _chain(store, length: int) -> int:
    """An entry whose after is the top of a hand-made delta chain of `length` objects."""
    text = f"chain {length}, version {{}} of a compressible text "
    below = text.format(0).encode() * 40
    entry = _single_blob(store, below)
    below_id = store.query("SELECT id FROM blob WHERE hash = ?", (bytes.fromhex(entry.after_hash),))[0][0]
    for i in range(1, length):
        data = text.format(i).encode() * 40
        enc = codec.encode(data, below, below_id, 0)  # depth 0: bypass the writer's cap
        assert enc.codec == "delta"
        h = codec.content_hash(data)
        below_id = store.execute("INSERT INTO blob (hash, codec, base, depth, size, stored, data) VALUES (?,?,?,?,?,?,?)",
                                 (h, enc.codec, enc.base, i + 1, len(data), len(enc.data), enc.data)).lastrowid
        below = data
    store.execute("UPDATE checkpoint_entry SET after_blob = ? WHERE id = ?", (below_id, entry.id))
    store._cache.clear()
    return entry.id


def test_a_delta_chain_of_the_cap_reads_and_one_longer_is_corruption(store):
    ok = _chain(store, codec.MAX_CHAIN)
    top = codec.MAX_CHAIN - 1
    assert store.read_entry(ok)[1] == f"chain {codec.MAX_CHAIN}, version {top} of a compressible text ".encode() * 40
    store._cache.clear()
    bad = _chain(store, codec.MAX_CHAIN + 1)
    with pytest.raises(ChainTooLong, match=rf"checkpoint entry {bad}: .*longer than {codec.MAX_CHAIN}"):
        store.read_entry(bad)


def test_a_moved_folder_tries_a_few_bases_per_file_and_stays_small(store, monkeypatch):
    """Moving N files deletes N paths for N new ones: each new path tries its likeliest old
    paths (same name first), not all N — else recording the move costs N² compressions inside
    the write transaction — and is still stored as a small delta."""
    task = _task(store)
    files = {f"old/mod_{i}.py": b"".join(b"def f_%d_%d(x):\n    return x * %d\n\n" % (i, j, i * j % 97)
                                        for j in range(300)) for i in range(40)}
    store.record_checkpoint(task, None, {path: (None, text) for path, text in files.items()})
    tried: list[int] = []
    real_encode = codec.encode

    def counting_encode(data, others=()):
        tried.append(len(others))
        return real_encode(data, others=others)

    monkeypatch.setattr(codec, "encode", counting_encode)
    moves = {path: (text, None) for path, text in files.items()}
    moves |= {path.replace("old/", "new/"): (None, text + b"# moved\n") for path, text in files.items()}
    store.record_checkpoint(task, None, moves)
    assert len(tried) == 40 and max(tried) <= 9
    rows = store.query("SELECT b.codec, b.stored FROM blob b JOIN path p ON p.id = b.path_id"
                       " WHERE p.path LIKE 'new/%'")
    packed = sum(len(zlib.compress(text, 9)) for text in files.values())
    assert len(rows) == 40 and all(c == "delta" for c, _ in rows) and sum(s for _, s in rows) < packed / 3


def _delta_entry(store):
    """An entry whose after is a delta (schema 6: a frame without magic number or size)."""
    task = _task(store)
    base = b"".join(b"line %d of a file edited once\n" % i for i in range(200))
    store.record_checkpoint(task, None, {"d.txt": (None, base)})
    cp = store.record_checkpoint(task, None, {"d.txt": (base, base.replace(b"line 7 ", b"line seven "))})
    entry = store.checkpoint_entries(cp)[0]
    h = bytes.fromhex(entry.after_hash)
    data, size, base_id = store.query("SELECT data, size, base FROM blob WHERE hash = ? AND codec = 'delta'", (h,))[0]
    store._cache.clear()
    return entry, h, data, size, base, base_id


def test_a_delta_is_a_bare_frame_and_damage_to_it_is_an_error(store):
    entry, h, data, size, base, _ = _delta_entry(store)
    assert data[:4] != codec.ZSTD_MAGIC and len(data) < 40
    assert store.read_entry(entry.id)[1] == base.replace(b"line 7 ", b"line seven ")
    for damaged in (data[:-3], data[:3], bytes([data[0]]) + bytes(b ^ 0x5A for b in data[1:])):
        store.execute("UPDATE blob SET data = ? WHERE hash = ?", (damaged, h))
        store._cache.clear()
        with pytest.raises(CorruptContent):
            store.read_entry(entry.id)
    # The row's size bounds the inflation: a frame that inflates past it is refused, not read.
    store.execute("UPDATE blob SET data = ?, size = ? WHERE hash = ?", (data, size - 10, h))
    store._cache.clear()
    with pytest.raises(CorruptContent):
        store.read_entry(entry.id)


def test_a_delta_written_as_a_whole_frame_by_schema_5_still_reads(store):
    entry, h, _, size, base, base_id = _delta_entry(store)
    after = base.replace(b"line 7 ", b"line seven ")
    params = zstd.ZstdCompressionParameters.from_level(19, source_size=size, dict_size=len(base),
                                                       write_content_size=True)
    whole = zstd.ZstdCompressor(dict_data=zstd.ZstdCompressionDict(base, dict_type=zstd.DICT_TYPE_RAWCONTENT),
                                compression_params=params).compress(after)
    assert whole[:4] == codec.ZSTD_MAGIC
    store.execute("UPDATE blob SET data = ?, stored = ? WHERE hash = ?", (whole, len(whole), h))
    assert store.read_entry(entry.id)[1] == after


def test_a_path_whose_newest_content_gc_took_records_on_and_lookups_use_the_index(store):
    from memtui.core.gc import apply_gc
    from memtui.core.store.schema import SHALLOW

    session = store.start_session("s")
    old = store.start_task(session, "old")
    text = b"".join(b"line %d\n" % i for i in range(300))
    for n in range(3):
        store.record_checkpoint(old, None, {"p.txt": (None, text + b"v%d\n" % n)})
    store.finish_task(old)
    store.start_task(session, "new")  # supersedes the old one: its contents go
    apply_gc(store)
    assert store.query("SELECT COUNT(*) FROM blob") == [(0,)]
    assert store.query("SELECT versions FROM path WHERE path = 'p.txt'") == [(3,)]
    live = store.start_task(session, "live")
    cp = store.record_checkpoint(live, None, {"p.txt": (text + b"v3\n", text + b"v4\n")})
    store._cache.clear()
    assert store.read_entry(store.checkpoint_entries(cp)[0].id) == (text + b"v3\n", text + b"v4\n")
    assert store.query("SELECT version FROM blob ORDER BY id") == [(3,), (4,)]  # numbers are not reused
    assert store.query("SELECT newest_blob = (SELECT MAX(id) FROM blob) FROM path WHERE path = 'p.txt'") == [(1,)]
    plan = str(store.query(f"EXPLAIN QUERY PLAN SELECT id FROM blob WHERE path_id = 1 AND version = 8 AND {SHALLOW}"))
    assert "blob_shallow" in plan


@pytest.mark.parametrize("first", [0xC0, 0xE4])
def test_a_delta_whose_damaged_header_declares_a_huge_size_is_corruption_naming_the_entry(store, first):
    """A flipped first byte of a magicless delta makes its header declare exabytes: refused
    from the header, before python-zstandard tries to allocate them (MemoryError)."""
    entry, h, data, _, _, _ = _delta_entry(store)
    store.execute("UPDATE blob SET data = ? WHERE hash = ?", (bytes([first]) + data[1:], h))
    store._cache.clear()
    with pytest.raises(CorruptContent, match=rf"checkpoint entry {entry.id}: content {h.hex()[:12]} is a damaged "
                                             r"delta frame: its header declares \d+ bytes"):
        store.read_entry(entry.id)


def test_the_cli_says_so_in_one_line_for_a_delta_with_a_damaged_header(tmp_path, capsys):
    from memtui.cli import main

    with AgentStore.open(tmp_path / "ws") as store:
        entry, h, data, _, _, _ = _delta_entry(store)
        store.execute("UPDATE blob SET data = ? WHERE hash = ?", (b"\xc0" + data[1:], h))
    # show lists the entry without its diff (exit 0); the rollback plan refuses it (exit 1).
    for argv, expected in ((["show", str(tmp_path / "ws"), "--entry", str(entry.id), "--diff"], 0),
                           (["rollback", str(tmp_path / "ws"), "--entry", str(entry.id), "--dry-run"], 1)):
        assert main(argv) == expected, argv
        out, err = capsys.readouterr()
        said = (out + err).strip()
        assert f"checkpoint entry {entry.id}: content {h.hex()[:12]} is a damaged delta frame" in said, argv
        assert "MemoryError" not in said and "Traceback" not in said
