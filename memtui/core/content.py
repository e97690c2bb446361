"""The content store codec: how file contents of checkpoint entries are kept.

Scheme (why, in short): contents are addressed by the SHA-256 of their raw bytes, so an
identical content — above all the *after* of one edit that is the *before* of the next — is
stored once. A new content of a path is stored as the smallest of: raw bytes, a zstd frame,
or a zstd frame that uses an earlier version of the same path as its dictionary (a delta).
The delta base is chosen in runs (`base_versions`): within a run of RUN versions each is a
delta against the one before it (the smallest deltas: one edit each); the first version of a
run is a delta against an earlier run's first version chosen by skip-delta over run numbers
(run k against run k & (k - 1), as Subversion does per version), and only where that base's
chain leaves room for a whole run. So reading any version walks at most MAX_CHAIN objects,
a cap also checked whenever a delta is chosen. The first content of a new path may be a delta
against a shallow blob of a related path (a file renamed, or one like it: `kin`).
Entries and deltas reference a content by the blob's integer id (schema 4; by the hash
before): the hash is stored once, on the blob. Older databases held zlib BLOBs or plain
text inline in the entry row: `decode_legacy` still reads them.

Every read verifies the hash; a broken stream raises CorruptContent, never returns b"";
a declared or actual size over the limit raises ContentTooLarge before inflating.
"""

from __future__ import annotations

import hashlib
import zlib
from dataclasses import dataclass
from typing import Callable, Iterator, Sequence

import zstandard as zstd

from memtui.core.errors import ChainTooLong, ContentTooLarge, CorruptContent

DEFAULT_LIMIT = 64 * 1024 * 1024
MAX_CHAIN = 16  # objects read to reconstruct any version, base included
RAW_BELOW = 64  # tiny contents are not worth a frame header
ZSTD_LEVEL = 6
# Every content is first compressed at ZSTD_LEVEL, to be compared with its deltas. One kept as
# a whole frame, or whose best delta is not 10% smaller than that frame, is compressed again
# at FULL_LEVEL (up to FULL_SLOW_BELOW bytes; DELTA_LEVEL above): a frame that wins then is
# kept. Measured on 1,500 commits of a real history (tests/bench/storage.py): content 1.6%
# smaller (an 863 KiB SVG rewritten whole is stored as a level-19 frame instead of a delta),
# for 118 extra compressions of 3,000 contents, ~10% of the write time.
FULL_LEVEL = 19
FULL_SLOW_BELOW = 1024 * 1024
# Deltas: zstd's slowest levels find ~3% smaller deltas than level 12 for ~20% more time on
# source files (a few ms each); past DELTA_SLOW_BELOW bytes (base and content together) they
# cost seconds, so larger files are encoded at DELTA_LEVEL.
DELTA_LEVEL = 12
DELTA_SLOW_LEVEL = 19
DELTA_SLOW_BELOW = 256 * 1024
# Versions per run of one-step deltas (see base_versions). Measured on 1,500 commits of a real
# history (tests/bench/storage.py): 8 stores 10% fewer content bytes than per-version
# skip-delta (runs of 1); 12 saves a little more but leaves first versions of runs without a
# base once run numbers have many bits set, and 16 cannot fit under MAX_CHAIN.
RUN = 8
# The deepest chain a related path's blob may have to be the base of a new path's first
# version: the new path's runs then still fit under MAX_CHAIN, and its runs' first versions
# keep two levels to chain to the previous run's rather than back to version 0 (measured:
# 1.3% fewer content bytes than the deepest that fits, MAX_CHAIN - RUN - 1; shallower loses
# good related bases).
KIN_DEPTH = MAX_CHAIN - RUN - 3

# A delta frame is written without zstd's 4-byte magic number and without the content size
# (the blob row holds the size): ~5 bytes less per delta, most of which are under 256 bytes
# (schema 6). Older deltas are whole frames; a frame header cannot begin with the magic's first
# byte (its reserved bit is set), so the two never mix up.
ZSTD_MAGIC = b"\x28\xb5\x2f\xfd"

CODEC_RAW = "raw"
CODEC_ZSTD = "zstd"
CODEC_DELTA = "delta"
CODEC_MISSING = "missing"  # a placeholder the schema-4 upgrade made for a content already lost


def content_hash(data: bytes) -> bytes:
    """The address of a content: the 32-byte SHA-256 digest of the raw bytes.

    Stored as a BLOB rather than hex, once per content (blob.hash; from schema 5 indexed by its
    first 8 bytes); from schema 4 entries and deltas reference the blob's integer id instead.
    """
    return hashlib.sha256(data).digest()


def hash_hex(value: bytes | str | None) -> str | None:
    """A content hash for display (and for --json): lowercase hex."""
    if value is None or isinstance(value, str):
        return value
    return bytes(value).hex()


def hash_key(value: bytes | str) -> bytes:
    """A content hash as stored, from hex or bytes."""
    return bytes.fromhex(value) if isinstance(value, str) else bytes(value)


def base_versions(version: int) -> Iterator[tuple[int, int]]:
    """Earlier versions of the same path to delta-encode `version` against, preferred first,
    each with the deepest chain it may have to be taken (`base_tries` say how many that
    qualify are tried; the smallest delta wins).

    Inside a run: the version before. A run's first version (or one whose predecessor's chain
    is full, as in stores written before runs): the previous run's first version, then those
    of earlier runs by skip-delta over run numbers, each only if its chain leaves room for a
    run after it; version 0 last, whose chain always does.
    """
    if version == 0:
        return
    if version % RUN:
        yield version - 1, MAX_CHAIN - 1
    run = version // RUN
    if version % RUN == 0:
        if run - 1 != run & (run - 1):
            yield (run - 1) * RUN, MAX_CHAIN - RUN
        run &= run - 1
    while True:
        yield run * RUN, MAX_CHAIN - RUN
        if run == 0:
            return
        run &= run - 1


def base_tries(version: int) -> int:
    """How many qualifying bases of `base_versions` to try: inside a run the version before is
    the one to take; a run's first version tries three (its chain may be any of them)."""
    return 1 if version % RUN else 3


@dataclass(frozen=True)
class Encoded:
    """One content ready to insert: codec, payload, base key (for deltas) and chain depth."""

    codec: str
    data: bytes
    base: int | bytes | None
    depth: int


def _dict(base: bytes) -> zstd.ZstdCompressionDict:
    return zstd.ZstdCompressionDict(base, dict_type=zstd.DICT_TYPE_RAWCONTENT)


def encode(data: bytes, base: bytes | None = None, base_key: int | bytes | None = None, base_depth: int = 0,
           others: Sequence[tuple[bytes, int | bytes, int]] = ()) -> Encoded:
    """Choose the smallest representation of `data`: raw, a zstd frame, or a delta against
    `base` (stored under `base_key`, its chain `base_depth` objects) or one of `others`
    ((bytes, key, depth) each); a delta only if its chain stays ≤ MAX_CHAIN."""
    best = Encoded(CODEC_RAW, data, None, 1)
    if len(data) < RAW_BELOW:
        return best
    full = zstd.ZstdCompressor(level=ZSTD_LEVEL, write_content_size=True).compress(data)
    if len(full) < len(best.data):
        best = Encoded(CODEC_ZSTD, full, None, 1)
    for source, key, depth in ((base, base_key, base_depth), *others):
        if source and key is not None and depth + 1 <= MAX_CHAIN:
            level = DELTA_SLOW_LEVEL if len(data) + len(source) < DELTA_SLOW_BELOW else DELTA_LEVEL
            params = zstd.ZstdCompressionParameters.from_level(
                level, source_size=len(data), dict_size=len(source), write_content_size=False,
                format=zstd.FORMAT_ZSTD1_MAGICLESS,
            )
            delta = zstd.ZstdCompressor(dict_data=_dict(source), compression_params=params).compress(data)
            if len(delta) < len(best.data):
                best = Encoded(CODEC_DELTA, delta, key, depth + 1)
    if best.codec != CODEC_RAW and (best.codec == CODEC_ZSTD or 10 * len(best.data) > 9 * len(full)):
        level = FULL_LEVEL if len(data) < FULL_SLOW_BELOW else DELTA_LEVEL
        again = zstd.ZstdCompressor(level=level, write_content_size=True).compress(data)
        if len(again) < len(best.data):
            best = Encoded(CODEC_ZSTD, again, None, 1)
    return best


def check_chain(blob_hash: bytes, chain: tuple[bytes, ...]) -> None:
    """Refuse to read `blob_hash` as the base of the deltas in `chain` if that loops or
    makes the chain longer than MAX_CHAIN objects (the writer never does either)."""
    name = bytes(blob_hash).hex()[:12]
    if blob_hash in chain:
        raise ChainTooLong(f"content {chain[0].hex()[:12]} has a delta chain that loops back to {name}")
    if len(chain) >= MAX_CHAIN:
        raise ChainTooLong(f"content {chain[0].hex()[:12]} has a delta chain longer than {MAX_CHAIN} objects")


def _check_declared(frame: bytes, limit: int) -> None:
    try:
        declared = zstd.frame_content_size(frame)
    except zstd.ZstdError as exc:
        raise CorruptContent(f"not a valid zstd frame: {exc}") from None
    if declared > limit:
        raise ContentTooLarge(f"content declares {declared} bytes, over the {limit}-byte limit")


def _check_magicless(frame: bytes, size: int, name: str) -> None:
    """A delta frame is written without a content size; python-zstandard allocates whatever size
    a header declares before decoding, so a damaged header that declares one (a flipped first
    byte can claim exabytes) is refused here unless it is the row's own size."""
    try:
        declared = zstd.frame_content_size(ZSTD_MAGIC + frame[:32])  # the header, made whole
    except zstd.ZstdError as exc:
        raise CorruptContent(f"content {name} is a damaged delta frame: {exc}") from None
    if declared not in (-1, size):
        raise CorruptContent(f"content {name} is a damaged delta frame: its header declares {declared} bytes, "
                             f"the content has {size}")


def decode(
    codec: str,
    data: bytes,
    size: int,
    expected_hash: bytes,
    load_base: Callable[[int | bytes], bytes],
    base: int | bytes | None,
    limit: int = DEFAULT_LIMIT,
) -> bytes:
    """Reconstruct and verify one content. `load_base` returns the verified bytes of a base key."""
    expected_hash = bytes(expected_hash)
    name = expected_hash.hex()[:12]
    if codec == CODEC_MISSING:
        raise CorruptContent(f"content {name} is missing from the store")
    if size > limit:
        raise ContentTooLarge(f"content {name} is {size} bytes, over the {limit}-byte limit")
    if data is None:
        raise CorruptContent(f"content {name} has no stored payload")
    data = bytes(data)
    try:
        if codec == CODEC_RAW:
            out = data
        elif codec == CODEC_ZSTD:
            _check_declared(data, limit)
            out = zstd.ZstdDecompressor().decompress(data, max_output_size=limit)
        elif codec == CODEC_DELTA:
            if base is None:
                raise CorruptContent(f"delta {name} has no base")
            if data[:4] == ZSTD_MAGIC:  # a whole frame (schema ≤ 5)
                _check_declared(data, limit)
                out = zstd.ZstdDecompressor(dict_data=_dict(load_base(base))).decompress(data, max_output_size=limit)
            else:  # no size in the frame: it inflates to at most the row's size (≤ limit, checked above)
                _check_magicless(data, size, name)
                out = zstd.ZstdDecompressor(dict_data=_dict(load_base(base)), format=zstd.FORMAT_ZSTD1_MAGICLESS
                                            ).decompress(data, max_output_size=max(size, 1))
        else:
            raise CorruptContent(f"content {name} has unknown codec {codec!r}")
    except zstd.ZstdError as exc:
        raise CorruptContent(f"content {name} failed to decompress: {exc}") from None
    if len(out) != size or content_hash(out) != expected_hash:
        raise CorruptContent(f"content {name} does not match its hash")
    return out


def decode_legacy(value: bytes | str | None, limit: int = DEFAULT_LIMIT) -> bytes | None:
    """Read content stored inline by the older scheme: a zlib BLOB, or plain text."""
    if value is None:
        return None
    if isinstance(value, str):
        return value.encode("utf-8", "surrogateescape")
    d = zlib.decompressobj()
    try:
        out = d.decompress(bytes(value), limit + 1)
    except zlib.error as exc:
        raise CorruptContent(f"legacy zlib content failed to decompress: {exc}") from None
    if len(out) > limit or d.unconsumed_tail:
        raise ContentTooLarge(f"legacy content inflates past the {limit}-byte limit")
    if not d.eof:
        raise CorruptContent("legacy zlib content is truncated")
    return out


def encode_legacy(data: bytes) -> bytes | str:
    """The older scheme, for benchmarks and tests: zlib level 6 when it is smaller, else text."""
    packed = zlib.compress(data, 6)
    if len(packed) < len(data):
        return packed
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return packed
