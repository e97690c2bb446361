"""Cleanup benchmark on real transcripts replicated to a realistic home.

    python tests/bench/cleanup.py [--fixtures tests/fixtures/real] [--cache DIR] [--quick]

Builds once (under --cache, default /tmp/memtui-bench/cleanup-v1; never committed) a Claude
Code home of ≥ 2,000 sessions and a Codex home, ≥ 500 MiB together, by replicating the real
published transcripts in tests/fixtures/real (each replica a new session id, written into
its records; old mtimes). Then, on a working copy, in one run:

- list: inventory + plan of the 2,000-session home, warm (anchor: walking and stat-ing every
  file of the home, the floor of any listing), and listing the archive's manifests;
- archive: `memtui cleanup --archive` of everything → archive bytes / original bytes and
  throughput (anchors: `tar | zstd -19 --long` and `tar | xz -9` of the same files as one
  stream, and the same two per session, the unit memtui archives);
- restore: every session back, throughput, and every file byte-exact (sha256, mtime, mode).
"""

from __future__ import annotations

import argparse
import hashlib
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from datetime import datetime, timedelta, timezone
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

import zstandard  # noqa: E402

from memtui.core.cleanup import apply_cleanup, list_archived, plan_cleanup, restore_session  # noqa: E402
from memtui.core.homes import take_inventory  # noqa: E402

MIB = 1 << 20
NOW = datetime.now(timezone.utc)


def _read(path: Path) -> bytes:
    data = path.read_bytes()
    return zstandard.ZstdDecompressor().decompressobj().decompress(data) if path.suffix == ".zst" else data


def _strip(name: str) -> str:
    return name[:-4] if name.endswith(".zst") else name


def real_sessions(fixtures: Path) -> tuple[list[dict], list[dict]]:
    """(claude, codex): each {"id", "files": {relative path: bytes}} of one real session."""
    claude, codex = [], []
    for project in sorted(fixtures.glob("*/projects/*")):
        for transcript in sorted(project.glob("*.jsonl*")):
            name = _strip(transcript.name)
            if name.startswith("agent-"):
                continue
            sid = name[: -len(".jsonl")]
            files = {f"{sid}.jsonl": _read(transcript)}
            for extra in sorted((project / sid).rglob("*")) if (project / sid).is_dir() else []:
                if extra.is_file():
                    files[_strip(str(extra.relative_to(project)))] = _read(extra)
            for agent in sorted(project.glob("agent-*.jsonl*")):
                files[_strip(agent.name)] = _read(agent)
            claude.append({"id": sid, "files": files})
    for rollout in sorted(fixtures.glob("*/sessions/**/rollout-*.jsonl*")):
        name = _strip(rollout.name)
        codex.append({"id": name[-len("00000000-0000-0000-0000-000000000000.jsonl"):-len(".jsonl")], "files": {name: _read(rollout)}})
    return claude, codex


def _put(path: Path, data: bytes, age_days: int) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    when = (NOW - timedelta(days=age_days)).timestamp()
    os.utime(path, (when, when))


def _replicate(target: Path, real: dict, n: int, age: int, project: str) -> int:
    new = str(uuid.UUID(int=n + 1))
    old = real["id"].encode()
    for rel, data in real["files"].items():
        _put(target / "projects" / project / rel.replace(real["id"], new), data.replace(old, new.encode()), age)
    return sum(map(len, real["files"].values()))


def build(cache: Path, fixtures: Path, min_bytes: int, min_sessions: int) -> Path:
    """The replicated homes under `cache` (built once; a marker says it is complete):
    `claude-list` ≥ `min_sessions` sessions for listing (mostly small ones, a big one every
    fourth round), and for archiving `claude` + `codex` ≥ `min_bytes` together, with real
    homes' mix of sizes (one big session for every four small ones: most bytes are in big
    sessions, as in the homes users report, e.g. anthropics/claude-code#24486: 924 MiB in 460)."""
    marker = cache / "complete"
    if marker.is_file():
        return cache
    shutil.rmtree(cache, ignore_errors=True)
    claude, codex = real_sessions(fixtures)
    big = [s for s in claude if sum(map(len, s["files"].values())) > MIB]
    small = [s for s in claude if s not in big]
    count = cycle = 0
    while count < min_sessions:
        for real in small + ([big[(cycle // 4) % len(big)]] if cycle % 4 == 0 and big else []):
            _replicate(cache / "claude-list", real, count, 31 + cycle % 300, f"-bench-project-{cycle % 40}")
            count += 1
        cycle += 1
    total = count = cycle = 0
    while total < min_bytes * 0.93:
        for real in small + [big[cycle % len(big)]]:
            total += _replicate(cache / "claude", real, count, 31 + cycle % 300, f"-bench-project-{cycle % 40}")
            count += 1
        cycle += 1
    codex_bytes = sum(len(d) for s in codex for d in s["files"].values())
    for n in range(max(1, int(min_bytes * 0.07) // max(1, codex_bytes))):
        for k, real in enumerate(codex):
            new = str(uuid.UUID(int=(1 << 100) + n * 16 + k))
            when = NOW - timedelta(days=31 + n % 300)
            data = next(iter(real["files"].values()))
            _put(cache / "codex" / "sessions" / f"{when:%Y/%m/%d}" / f"rollout-{when:%Y-%m-%dT%H-%M-%S}-{new}.jsonl",
                 data.replace(real["id"].encode(), new.encode()), 31 + n % 300)
    marker.write_text("ok")
    return cache


def tree_bytes(root: Path) -> tuple[int, int]:
    files = size = 0
    for folder, _dirs, names in os.walk(root):
        for name in names:
            files += 1
            size += os.lstat(os.path.join(folder, name)).st_size
    return files, size


def snapshot(root: Path) -> dict[str, tuple]:
    out = {}
    for folder, _dirs, names in os.walk(root):
        for name in names:
            path = os.path.join(folder, name)
            st = os.lstat(path)
            with open(path, "rb") as handle:
                out[path] = (st.st_size, st.st_mtime_ns, st.st_mode, hashlib.sha256(handle.read()).hexdigest())
    return out


def timed(fn, repeat: int = 1):
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - start)
    return result, times


def piped_size(cmd: str, cwd: Path) -> tuple[int, float]:
    start = time.perf_counter()
    out = subprocess.run(["bash", "-c", f"{cmd} | wc -c"], cwd=cwd, check=True, capture_output=True, text=True).stdout
    return int(out.strip()), time.perf_counter() - start


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--fixtures", type=Path, default=ROOT / "tests" / "fixtures" / "real")
    parser.add_argument("--cache", type=Path, default=Path(tempfile.gettempdir()) / "memtui-bench" / "cleanup-v1")
    parser.add_argument("--quick", action="store_true", help="a 60 MiB home of 300 sessions, no whole-home anchors")
    args = parser.parse_args()
    if not args.fixtures.is_dir():
        print(f"no real transcripts at {args.fixtures}", file=sys.stderr)
        return 2
    cache = args.cache.with_name(args.cache.name + "-quick") if args.quick else args.cache
    built, build_s = timed(lambda: build(cache, args.fixtures, (60 if args.quick else 500) * MIB, 300 if args.quick else 2000))
    claude_home = built / "claude-list"
    n_files, n_bytes = tree_bytes(claude_home)
    print(f"list home: {len(take_inventory(claude_home).sessions)} Claude Code sessions ({n_files} files, {n_bytes / MIB:.0f} MiB);"
          f" built in {build_s[0]:.0f} s (cached at {cache})")

    # -- list, warm -------------------------------------------------------------------------
    summaries = cache.parent / "summaries"
    shutil.rmtree(summaries, ignore_errors=True)
    take_inventory(claude_home)  # the page cache is warm from here on
    _, walk_t = timed(lambda: tree_bytes(claude_home), 3)
    inv, inv_t = timed(lambda: take_inventory(claude_home), 3)
    _, first_t = timed(lambda: take_inventory(claude_home, cache=summaries))
    _, plan_t = timed(lambda: plan_cleanup(take_inventory(claude_home, cache=summaries), keep_days=30, keep_last=5), 3)
    print(f"\nlist {len(inv.sessions)} sessions (page cache warm, best of 3)      seconds")
    print(f"  anchor: walk + lstat every file                   {min(walk_t):8.3f}")
    print(f"  inventory, reading every transcript's head + tail {min(inv_t):8.3f}")
    print(f"  inventory filling memtui's summary cache          {first_t[0]:8.3f}")
    print(f"  inventory + plan, summaries cached (--dry-run)    {min(plan_t):8.3f}")

    with tempfile.TemporaryDirectory(dir=cache.parent) as work:
        work = Path(work)
        homes = {"claude-code": work / "claude", "codex": work / "codex"}
        for agent, home in homes.items():
            shutil.copytree(built / home.name, home, symlinks=True)
        before = snapshot(work)
        raw = sum(v[0] for v in before.values())
        print(f"archive home: {len(take_inventory(homes['claude-code']).sessions)} Claude Code sessions"
              f" + {len(take_inventory(homes['codex']).sessions)} Codex threads, {len(before)} files, {raw / MIB:.0f} MiB")

        # -- anchors: the same files as one stream, and per session ------------------------
        anchors = {}
        if not args.quick:
            anchors["tar | zstd -19 --long (one stream)"] = piped_size("tar -cf - claude codex | zstd -19 --long -q -c", work)
            anchors["tar | xz -9 (one stream)"] = piped_size("tar -cf - claude codex | xz -9 -c", work)
        sample = take_inventory(homes["claude-code"]).sessions[:12] + take_inventory(homes["codex"]).sessions[:3]
        sample_raw = sum(s.bytes for s in sample)
        per = {"zstd -19 --long": 0, "xz -9": 0}
        per_t = {"zstd -19 --long": 0.0, "xz -9": 0.0}
        for s in sample:
            home = homes[s.agent]
            names = " ".join(f"'{f.path.relative_to(home)}'" for f in s.files)
            for label, cmd in (("zstd -19 --long", "zstd -19 --long -q -c"), ("xz -9", "xz -9 -c")):
                size, secs = piped_size(f"tar -cf - {names} | {cmd}", home)
                per[label] += size
                per_t[label] += secs

        # -- archive everything ------------------------------------------------------------
        archive = work / "archive"
        archived_bytes = 0
        start = time.perf_counter()
        unit_bytes = {}
        for agent, home in homes.items():
            plan = plan_cleanup(take_inventory(home), keep_days=0, keep_last=0)
            result = apply_cleanup(plan, archive)
            assert not result.skipped, result.skipped[:3]
            archived_bytes += result.archive_bytes
        archive_s = time.perf_counter() - start
        manifests, list_t = timed(lambda: list_archived(archive), 3)
        on_disk = tree_bytes(archive)[1]
        assert on_disk == archived_bytes, (on_disk, archived_bytes)
        classes: dict[str, list[int]] = {}
        for m in manifests:
            label = "sessions > 1 MiB" if m.bytes > MIB else "sessions ≤ 1 MiB"
            row = classes.setdefault(label, [0, 0, 0])
            row[0] += 1
            row[1] += m.bytes
            row[2] += m.archive_bytes
        sample_ids = {s.id for s in sample}
        sample_archive = sum(m.archive_bytes for m in manifests if m.id in sample_ids)
        left = tree_bytes(homes["claude-code"])[0] + tree_bytes(homes["codex"])[0]

        # -- restore everything ------------------------------------------------------------
        start = time.perf_counter()
        for session_id in {m.id for m in manifests}:
            restore_session(session_id, archive)
        restore_s = time.perf_counter() - start
        after = snapshot(work)
        exact = all(after.get(k) == v for k, v in before.items())

    print(f"\narchive of {len(manifests)} units ({raw / MIB:.0f} MiB in {len(before)} files; {left} files left in the homes)")
    print(f"  {'':40} {'bytes':>12} {'of raw':>8} {'seconds':>8} {'MiB/s':>7}")
    print(f"  {'memtui archive (tar.zst per session)':40} {archived_bytes:>12} {archived_bytes / raw:>8.2%} {archive_s:>8.1f} {raw / MIB / archive_s:>7.1f}")
    for label, (size, secs) in anchors.items():
        print(f"  {'anchor: ' + label:40} {size:>12} {size / raw:>8.2%} {secs:>8.1f} {raw / MIB / secs:>7.1f}")
    for label, (n, size, packed) in sorted(classes.items()):
        print(f"    {label + f' ({n})':38} {packed:>12} {packed / size:>8.2%}   (tar.zst only)")
    print(f"\nper session, {len(sample)} distinct sessions ({sample_raw / MIB:.1f} MiB)")
    print(f"  {'memtui archive':40} {sample_archive:>12} {sample_archive / sample_raw:>8.2%}")
    for label in per:
        print(f"  {'anchor: tar | ' + label:40} {per[label]:>12} {per[label] / sample_raw:>8.2%} {per_t[label]:>8.1f}")
    print(f"\nrestore of every unit: {restore_s:.1f} s, {raw / MIB / restore_s:.1f} MiB/s; byte-exact with mtime and mode: {exact}")
    print(f"list the archive ({len(manifests)} manifests, warm, best of 3): {min(list_t):.3f} s")
    return 0 if exact else 1


if __name__ == "__main__":
    raise SystemExit(main())
