"""Wrong-typed fields in foreign records: every field of every record of the fixture stores
(Claude Code, Codex, JSONL sessions, RA.Aid) replaced, one at a time, by values of other
types; the store is then opened and read through everything the app and the CLI read. An
exception that is not a one-line MemtuiError is a crash, counted by the code site it came
from (the last frame inside memtui/).
"""

from __future__ import annotations

import json
import random
import shutil
import sqlite3
import traceback
import types
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterator

import harness as h

FIXTURES = h.ROOT / "tests" / "fixtures"
STORES = {  # kind: (fixture folder, the path discovery is pointed at, relative to the copy)
    "claude-code": ("claude_home", "projects"),
    "codex": ("codex_home", "sessions"),
    "jsonl-sessions": ("jsonl_store", "."),
    "ra-aid": ("ra_aid_project", ".ra-aid"),
    "claude-code shapes": ("shapes/claude_home", "projects"),
    "codex shapes": ("shapes/codex_home", "sessions"),
}


def _deep(n: int) -> Any:
    value: Any = "bottom"
    for _ in range(n):
        value = [value]
    return value


WRONG: tuple[Any, ...] = (None, True, 0, -1, 2 ** 70, 1.5, "", "x", "2025-13-45T99:99:99Z", [], [1, "a"], {},
                          {"a": {"b": 1}}, _deep(40))
WRONG_SQL: tuple[Any, ...] = (None, -1, 2 ** 62, 1.5, "", "x", "not json {", b"\x00\xff", "0001-01-01T00:00:00+01:00")


@dataclass
class FuzzFigures:
    cases: int = 0
    crashes: int = 0
    sites: Counter = field(default_factory=Counter)
    wrong: int = 0  # cases whose results carried a wrong-typed field (silently wrong)
    wrong_fields: Counter = field(default_factory=Counter)
    examples: dict[str, str] = field(default_factory=dict)

    def add(self, other: "FuzzFigures") -> None:
        self.cases += other.cases
        self.crashes += other.crashes
        self.sites.update(other.sites)
        self.wrong += other.wrong
        self.wrong_fields.update(other.wrong_fields)
        for k, v in other.examples.items():
            self.examples.setdefault(k, v)

    def line(self, label: str) -> str:
        return (f"| wrong-typed fields, {label} | {self.cases} cases | {self.crashes} crashes at {len(self.sites)} code"
                f" sites | {self.wrong} silently wrong results ({len(self.wrong_fields)} fields) |")


def _site(exc: BaseException) -> str:
    frames = [f for f in traceback.extract_tb(exc.__traceback__) if "/memtui/" in f.filename]
    last = frames[-1] if frames else traceback.extract_tb(exc.__traceback__)[-1]
    return f"{Path(last.filename).name}:{last.lineno} {type(exc).__name__}"


def wrong_fields(obj: Any) -> list[str]:
    """Fields of a read-model record whose value does not have the declared type: a result
    that is silently wrong (a panel would show garbage or fail later, far from the cause)."""
    import dataclasses
    import typing

    out = []
    hints = typing.get_type_hints(type(obj))
    for f in dataclasses.fields(obj):
        hint, value = hints.get(f.name), getattr(obj, f.name)
        if hint is None or hint is Any:
            continue
        kinds = tuple(typing.get_origin(a) or a for a in (typing.get_args(hint) if isinstance(hint, types.UnionType)
                                                           else (hint,)))
        if any(k is Any for k in kinds):
            continue
        if float in kinds:
            kinds += (int,)
        if not isinstance(value, kinds):
            out.append(f"{type(obj).__name__}.{f.name} = {value!r:.40}")
    return out


def read_everything(path: Path) -> tuple[int, list[str]]:
    """Discover the stores at `path` and read all of it as the app and the CLI would; the number
    of records read and the wrong-typed fields among them."""
    from memtui.core.errors import MemtuiError
    from memtui.core.discovery import discover

    n = 0
    wrong: list[str] = []

    def seen(records):
        records = list(records)
        for r in records:
            wrong.extend(wrong_fields(r))
        return records

    for source in discover(path, env={}):
        try:
            source.to_json()  # what `memtui sources` prints
            store = source.open()
            store.counts()
            store.problems()
            sessions = seen(store.sessions())
            tasks = [t for s in sessions for t in seen(store.tasks(s.id))] + seen(store.tasks(None))
            for task in tasks:
                seen([store.task(task.id)])
                n += len(seen(store.steps(task.id))) + len(seen(store.messages(task.id)))
                n += len(seen(store.references(task.id)))
                for cp in seen(store.checkpoints(task.id)):
                    for entry in seen(store.checkpoint_entries(cp.id)):
                        try:
                            before, after = store.read_entry(entry.id)
                        except MemtuiError:
                            pass
                        else:
                            wrong += [f"read_entry({entry.id!r}) gave {type(x).__name__}" for x in (before, after)
                                      if x is not None and not isinstance(x, bytes)]
                        n += 1
            items = getattr(store, "memory_items", None)
            if callable(items):
                n += len(seen(items()))
        except MemtuiError:
            pass
        finally:
            source.close()
    return n, wrong


def _check(path: Path, figures: FuzzFigures, what: str) -> None:
    figures.cases += 1
    try:
        _, wrong = read_everything(path)
    except Exception as exc:  # noqa: BLE001 — any escape is what this counts
        figures.crashes += 1
        site = _site(exc)
        figures.sites[site] += 1
        figures.examples.setdefault(site, f"{what}: {type(exc).__name__}: {str(exc)[:120]}")
        return
    if wrong:
        figures.wrong += 1
        for w in wrong[:1]:
            key = w.split(" = ")[0].split(" gave ")[0]
            figures.wrong_fields[key] += 1
            figures.examples.setdefault(key, f"{what}: {w}")


# ----------------------------------------------------------------------------- JSONL stores
def field_paths(value: Any, prefix: tuple = (), depth: int = 0) -> Iterator[tuple]:
    """Every path to a value inside a JSON record (dict keys and list indexes)."""
    if depth > 6:
        return
    if isinstance(value, dict):
        for k, v in value.items():
            yield prefix + (k,)
            yield from field_paths(v, prefix + (k,), depth + 1)
    elif isinstance(value, list):
        for i, v in enumerate(value[:4]):
            yield prefix + (i,)
            yield from field_paths(v, prefix + (i,), depth + 1)


def _replace(record: Any, path: tuple, new: Any) -> Any:
    record = json.loads(json.dumps(record))
    target = record
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = new
    return record


def _get(record: Any, path: tuple) -> Any:
    for key in path:
        record = record[key]
    return record


def jsonl_cases(kind: str, work: Path, sample: int | None = None, seed: int = 0) -> Iterator[tuple[Path, int, tuple, Any]]:
    """(file, line index, field path, wrong value) for every field of every record."""
    folder, _ = STORES[kind]
    cases = []
    for file in sorted((work / folder).rglob("*.jsonl")):
        lines = file.read_bytes().splitlines()
        for i, raw in enumerate(lines):
            try:
                record = json.loads(raw)
            except ValueError:
                continue
            for path in field_paths(record):
                original = _get(record, path)
                for wrong in WRONG:
                    if type(wrong) is not type(original) or (isinstance(wrong, (list, dict)) and wrong != original):
                        cases.append((file, i, path, wrong))
    if sample is not None and sample < len(cases):
        cases = random.Random(seed).sample(cases, sample)
    yield from cases


def fuzz_jsonl_store(kind: str, tmp: Path, sample: int | None = None, seed: int = 0) -> FuzzFigures:
    folder, target = STORES[kind]
    work = tmp / kind
    shutil.copytree(FIXTURES / folder, work / folder)
    figures = FuzzFigures()
    for file, i, path, wrong in jsonl_cases(kind, work, sample, seed):
        original = file.read_bytes()
        lines = original.splitlines(keepends=True)
        record = json.loads(lines[i])
        end = b"\n" if lines[i].endswith(b"\n") else b""
        lines[i] = json.dumps(_replace(record, path, wrong)).encode() + end
        file.write_bytes(b"".join(lines))
        try:
            _check(work / folder / target, figures, f"{file.name}:{i + 1} {'.'.join(map(str, path))} = {wrong!r:.40}")
        finally:
            file.write_bytes(original)
    return figures


# ----------------------------------------------------------------------------- RA.Aid (SQLite)
def fuzz_ra_aid(tmp: Path, sample: int | None = None, seed: int = 0) -> FuzzFigures:
    folder, target = STORES["ra-aid"]
    work = tmp / "ra-aid"
    shutil.copytree(FIXTURES / folder, work / folder)
    db = work / folder / ".ra-aid" / "pk.db"
    pristine = db.read_bytes()
    conn = sqlite3.connect(db)
    cells = []
    for (table,) in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'"):
        cols = [r[1] for r in conn.execute(f'PRAGMA table_info("{table}")')]
        for (rowid,) in conn.execute(f'SELECT rowid FROM "{table}"'):
            cells += [(table, rowid, c, wrong) for c in cols if c != "id" for wrong in WRONG_SQL]
    conn.close()
    if sample is not None and sample < len(cells):
        cells = random.Random(seed).sample(cells, sample)
    figures = FuzzFigures()
    for table, rowid, col, wrong in cells:
        db.write_bytes(pristine)
        conn = sqlite3.connect(db)
        try:
            conn.execute(f'UPDATE "{table}" SET "{col}" = ? WHERE rowid = ?', (wrong, rowid))
            conn.commit()
        except sqlite3.DatabaseError:
            continue  # a constraint refused the value: the real program could not write it either
        finally:
            conn.close()
        _check(work / folder / target, figures, f"{table}.{col} (row {rowid}) = {wrong!r:.40}")
    db.write_bytes(pristine)
    return figures
