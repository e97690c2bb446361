"""The demo workspace: a realistic agent memory built only through the recorder API.

`build_demo(path, seed)` writes a small HTTP project, the store an agent kept while working
on it (open and closed sessions, sub-agent handoffs, every task status, orphans, hundreds of
steps, checkpoints) and its memory documents. The files on disk equal the latest recorded
after-contents, so rollback works on the demo. `scale=N` adds N generated tasks for
benchmarks. Everything is deterministic for a given seed.
"""

from __future__ import annotations

import os
import random
import shutil
import tempfile
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Callable

from memtui.core.atomic import put_in_place, remove_stale_temp_dirs, rename_fresh, temp_dir
from memtui.core.demo_data import files as F
from memtui.core.demo_data.write import write_files, write_memory
from memtui.core.errors import MemtuiError
from memtui.core.store import AgentStore
from memtui.core.store.paths import store_in

DEMO_START = datetime(2026, 11, 2, 9, 0, tzinfo=timezone.utc)
# Written last into every demo: the one kind of folder `--force` replaces whole (an earlier
# demo); any other folder holding files is never replaced.
DEMO_MARK = Path(".agent") / "memtui-demo"


def demo_start(before: datetime, scale: int | None = None) -> datetime:
    """When the demo's story starts so that all of it lies before `before`: DEMO_START (the
    same timestamps on every run, as the tests and screenshots expect) unless that would put
    the story's end past `before` — then early enough, at 09:00 UTC. The store's story takes
    under two days, the dates its memory documents mention under four; each generated task
    adds at most ~15 clock readings of at most 40 s (10 minutes)."""
    span = timedelta(days=4, minutes=10 * (scale or 0))
    if DEMO_START + span < before:
        return DEMO_START
    start = (before - span).astimezone(timezone.utc)
    return start.replace(hour=9, minute=0, second=0, microsecond=0)


class DemoClock:
    """A deterministic clock: every reading moves time forward by a few seconds."""

    def __init__(self, start: datetime = DEMO_START, seed: int = 1) -> None:
        self.now = start
        self._rng = random.Random(seed)

    def __call__(self) -> datetime:
        self.now += timedelta(seconds=self._rng.uniform(2, 40))
        return self.now

    def skip(self, **delta: float) -> None:
        self.now += timedelta(**delta)


@dataclass
class _Agent:
    """Plays an agent: keeps the workspace files in memory and records what it does."""

    store: AgentStore
    rng: random.Random
    files: dict[str, bytes]

    def step(self, task: int, tool: str, args, result, **kw) -> int:
        kw.setdefault("tokens_in", self.rng.randint(800, 6000))
        kw.setdefault("tokens_out", self.rng.randint(40, 900))
        kw.setdefault("duration_ms", self.rng.randint(30, 4000))
        kw.setdefault("cost", round((kw["tokens_in"] * 3 + kw["tokens_out"] * 15) / 1_000_000, 5))
        return self.store.record_step(task, tool, args, result, **kw)

    def read(self, task: int, path: str) -> None:
        text = self.files[path].decode()
        numbered = "\n".join(f"{i + 1:>4}  {line}" for i, line in enumerate(text.splitlines()[:60]))
        self.step(task, "read_file", {"path": path}, numbered)

    def search(self, task: int, query: str) -> None:
        hits = [
            {"path": p, "line": i + 1, "text": line.strip()}
            for p, data in sorted(self.files.items()) if p.endswith(".py")
            for i, line in enumerate(data.decode(errors="replace").splitlines()) if query in line
        ][:20]
        self.step(task, "search", {"query": query, "glob": "**/*.py"}, {"matches": hits, "count": len(hits)})

    def write(self, task: int, path: str, after: bytes | None, tool: str = "edit_file", args=None) -> int:
        before = self.files.get(path)
        step = self.step(task, tool, args or {"path": path}, {"ok": True, "bytes": len(after or b"")})
        self.store.record_checkpoint(task, step, {path: (before, after)})
        if after is None:
            self.files.pop(path, None)
        else:
            self.files[path] = after
        return step

    def edit(self, task: int, path: str, old: str, new: str) -> int:
        text = self.files[path].decode()
        if old not in text:
            raise AssertionError(f"demo edit does not apply to {path}: {old[:40]!r}")
        args = {"path": path, "old_string": old, "new_string": new}
        return self.write(task, path, text.replace(old, new, 1).encode(), args=args)

    def run_tests(self, task: int, passed: int, failed: int = 0, error: str | None = None) -> None:
        green, red, reset = "\x1b[32m", "\x1b[31m", "\x1b[0m"
        lines = ["============================= test session starts ==============================",
                 "platform linux -- Python 3.11.7, pytest-8.3.5", "rootdir: /home/dev/tinyhttp",
                 f"collected {passed + failed} items", ""]
        lines += [f"tests/test_router.py {'.' * min(passed, 40)}{'F' * failed}"]
        if failed:
            lines += ["", "=================================== FAILURES ===================================",
                      "___________________________ test_path_params ___________________________",
                      "E       AssertionError: assert None == (<function hello>, {'id': '42'})",
                      "E        +  where None = <Router>.match('GET', '/users/42')",
                      f"{red}========================= {failed} failed, {passed} passed in 0.41s ========================={reset}"]
        else:
            lines += [f"{green}============================== {passed} passed in 0.38s =============================={reset}"]
        self.step(task, "run_tests", {"command": "pytest -q"}, "\n".join(lines),
                  status="error" if failed else "ok", error=error)


def build_demo(path: str | Path | None = None, seed: int = 1, scale: int | None = None,
               clock: Callable[[], datetime] | None = None, progress: Callable[[int, int], None] | None = None,
               force: bool = False, before: datetime | None = None) -> Path:
    """Write the demo workspace at `path` (a new temporary directory when None); return it.
    Every timestamp lies before `before` (default: now).

    The demo writes README.md, pyproject.toml, MEMORY.md and more into a new or empty folder.
    `force` replaces, whole, a folder an earlier demo made (it holds DEMO_MARK); any other
    folder that holds anything is refused (DemoRefused, nothing written), `force` or not: a
    project, the user's home or a folder holding it, an agent's home or store.

    The demo is built in a temp folder beside `path` and put in place whole (`put_in_place`):
    a build killed at any point leaves the folder as it was or the whole demo, and a temp
    folder that the next build removes."""
    # Without a path the temporary folder is made once the demo is built: a build killed
    # midway leaves no empty folder behind, only a temp folder the next build removes.
    given = Path(path).expanduser() if path is not None else Path(tempfile.gettempdir()) / "memtui-demo"
    root = Path(os.path.abspath(given))  # '.' or '..' by its name: the folder is swapped, not its alias
    # A link given as PATH: the folder it names gets the demo (the link stays). Not without a
    # PATH: a link in the shared temp folder may be anyone's.
    place = root.resolve() if path is not None and root.is_symlink() else root
    remove_stale_temp_dirs(place.parent)  # what a killed build left: before any refusal
    if path is not None:
        _refuse(root, place, force)
    place.parent.mkdir(parents=True, exist_ok=True)
    built = temp_dir(place)
    built.mkdir(mode=0o700 if path is None else 0o777)  # a temporary demo: this user's alone from the start
    try:
        _build(built, seed, scale, clock, progress, before)
        if path is None:
            built.chmod(0o700)  # as private as a mkdtemp folder
            root = rename_fresh(built, "memtui-demo-")
        else:
            put_in_place(built, place)
    except BaseException:
        shutil.rmtree(built, ignore_errors=True)
        raise
    return root


def _refuse(root: Path, place: Path, force: bool) -> None:
    """DemoRefused unless the demo may go to `root` (`place`: the folder it names; see build_demo)."""
    if root.exists() and not root.is_dir():
        raise DemoRefused(f"{root} is a file, not a folder")
    above = next((folder for folder in root.parents if folder.exists()), None)  # made with its parents
    if above is not None and not above.is_dir():
        raise DemoRefused(f"{above} is a file, not a folder: no demo can be made in it")
    if not root.is_dir() or not any(root.iterdir()):
        return
    if not (place / DEMO_MARK).is_file():
        what = "a memtui store" if store_in(root).exists() else "files"
        raise DemoRefused(f"{root} holds {what} an earlier memtui demo did not make: not replaced, even with"
                          " --force; choose a new or empty folder")
    if not force:
        raise DemoRefused(f"{root} holds an earlier memtui demo; pass --force to replace it whole, or choose"
                          " a new or empty folder")


def _build(root: Path, seed: int, scale: int | None, clock: Callable[[], datetime] | None,
           progress: Callable[[int, int], None] | None, before: datetime | None) -> None:
    start = demo_start(before or datetime.now(timezone.utc), scale)
    clock = clock or DemoClock(start, seed=seed)
    with AgentStore.open(root, clock=clock) as store:
        files = record_demo(store, clock, seed, scale, progress)
    write_files(root, files)
    write_memory(root, start)
    (root / DEMO_MARK).write_text("Made by `memtui demo`: `memtui demo PATH --force` may replace this folder"
                                  " whole.\n", encoding="utf-8")


def record_demo(store: AgentStore, clock: Callable[[], datetime], seed: int = 1, scale: int | None = None,
                progress: Callable[[int, int], None] | None = None) -> dict[str, bytes]:
    """Record the demo's sessions into `store`, opened on `clock` (the story moves a DemoClock on
    between its steps): the team-store tests record it on PostgreSQL too. Returns the
    workspace's files as the story left them."""
    agent = _Agent(store, random.Random(seed), {
        "src/tinyhttp/router.py": F.ROUTER_V0.encode(), "src/tinyhttp/parser.py": F.PARSER_V0.encode(),
        "src/tinyhttp/server.py": F.SERVER_V0.encode(), "tests/test_router.py": F.TEST_ROUTER_V0.encode(),
        "README.md": F.README_V0.encode(), "pyproject.toml": F.PYPROJECT.encode(),
    })
    _story(agent, clock)
    if scale:
        _scaled(agent, scale, progress)
    return agent.files


class DemoRefused(MemtuiError):
    """The demo would overwrite what is already in the folder."""


def _skip(clock, **delta: float) -> None:
    if isinstance(clock, DemoClock):
        clock.skip(**delta)


def _story(a: _Agent, clock) -> None:
    s, rng = a.store, a.rng
    # 1. Routing, closed: a sketch, a failed attempt, a fix (each superseding the last).
    s1 = s.start_session("Add request routing with path parameters")
    t = s.start_task(s1, "Sketch the router API")
    s.add_message(t, "user", "Routes need path parameters like /users/<id>.")
    a.read(t, "src/tinyhttp/router.py")
    a.search(t, "def match")
    a.read(t, "tests/test_router.py")
    for _ in range(6):
        a.step(t, "think", {"note": "compare trie vs regex"}, "Regex compiled at registration is simplest.")
    s.finish_task(t, "completed", "Chose compiled regular expressions for route patterns.")
    t = s.start_task(s1, "Implement path parameters")
    for old, new in F.ROUTER_EDITS[:3]:
        a.edit(t, "src/tinyhttp/router.py", old, new)
    a.run_tests(t, passed=1, failed=1, error="1 test failed: test_path_params")
    a.step(t, "read_file", {"path": "src/tinyhttp/routes.py"}, None, status="error",
           error="FileNotFoundError: [Errno 2] No such file or directory: 'src/tinyhttp/routes.py'")
    s.finish_task(t, "failed", "match() still returned the bare handler; tests expected (handler, params).")
    t = s.start_task(s1, "Fix path parameters after review")
    s.add_message(t, "user", "match() should return (handler, params).")
    for old, new in F.ROUTER_EDITS[3:]:
        a.edit(t, "src/tinyhttp/router.py", old, new)
    for old, new in F.TEST_ROUTER_EDITS:
        a.edit(t, "tests/test_router.py", old, new)
    for old, new in F.SERVER_EDITS[:2]:
        a.edit(t, "src/tinyhttp/server.py", old, new)
    a.run_tests(t, passed=3)
    s.finish_task(t, "completed", "Path parameters work; server passes params on the request.")
    s.close_session(s1)
    _skip(clock, hours=20)

    # 2. Older closed sessions: finished work nothing references any more (GC fodder).
    for title in ("Investigate slow CI on macOS runners", "Tidy pyproject metadata"):
        so = s.start_session(title)
        for n in range(2):
            t = s.start_task(so, f"{title.split()[0]} pass {n + 1}")
            a.read(t, "pyproject.toml")
            for _ in range(rng.randint(8, 16)):
                a.step(t, "bash", {"command": "pytest -q --durations=5"},
                       "slowest durations:\n0.52s call tests/test_server.py::test_keepalive\n0.11s setup")
            s.finish_task(t, "completed" if n else "cancelled", f"{title}: pass {n + 1} done.")
        s.close_session(so)
        _skip(clock, hours=3)

    # 3. A parent hands off to sub-agents whose sessions are closed (two levels deep).
    s3 = s.start_session("Refactor the parser with sub-agents")
    parent = s.start_task(s3, "Split the parser into modules")
    s.add_message(parent, "user", "Split header handling out of the parser; use sub-agents for tests.")
    a.read(parent, "src/tinyhttp/parser.py")
    a.step(parent, "handoff", {"agent": "headers", "brief": "move header folding into headers.py"}, {"ok": True})
    sa = s.start_session("sub-agent: headers module")
    child = s.start_task(sa, "Move header folding into headers.py", parent_task_id=parent)
    a.write(child, "src/tinyhttp/headers.py", F.HEADERS_MODULE.encode(), tool="write_file")
    for old, new in F.PARSER_EDITS:
        a.edit(child, "src/tinyhttp/parser.py", old, new)
    a.run_tests(child, passed=5)
    s.finish_task(child, "completed", "headers.py holds fold(); parser caps headers at 100.")
    s.close_session(sa)
    a.step(parent, "handoff", {"agent": "tests", "brief": "write parser tests and a fuzz corpus"}, {"ok": True})
    sb = s.start_session("sub-agent: parser tests")
    child2 = s.start_task(sb, "Write parser tests", parent_task_id=parent)
    a.write(child2, "tests/test_parser.py", F.TEST_PARSER.encode(), tool="write_file")
    sc = s.start_session("sub-agent: fuzz corpus")
    grandchild = s.start_task(sc, "Build a fuzz corpus for the parser", parent_task_id=child2)
    a.write(grandchild, "tests/fuzz/seeds.bin", F.FUZZ_SEEDS, tool="write_file")
    a.write(grandchild, "tests/fuzz/README.md", b"Seeds for fuzzing parse_request.\n", tool="write_file")
    a.step(grandchild, "bash", {"command": "python -m tests.fuzz --runs 10000"}, "10000 runs, 0 crashes")
    s.finish_task(grandchild, "completed", "Fuzz corpus of 2 seeds; 10,000 runs without a crash.")
    s.close_session(sc)
    a.run_tests(child2, passed=7)
    s.finish_task(child2, "completed", "Parser tests cover the request line and malformed heads.")
    s.close_session(sb)
    a.run_tests(parent, passed=12)
    s.finish_task(parent, "completed", "Parser split across parser.py and headers.py, with tests and fuzz seeds.")
    _skip(clock, hours=5)

    # 4. Docs: a pinned task (the user wants to keep its diffs) superseded by a later one.
    s4 = s.start_session("Docs pass [WIP] — quickstart")
    t = s.start_task(s4, "Rewrite README quickstart")
    a.edit(t, "README.md", "    router.add(\"GET\", \"/\", lambda request: \"hi\")\n",
           "    router.add(\"GET\", \"/users/<id>\", lambda request: f\"user {request.params['id']}\")\n")
    a.write(t, "docs/logo.png", F.LOGO_PNG, tool="write_file")
    s.finish_task(t, "completed", "Quickstart shows a parameterised route.")
    s.pin(t)
    t = s.start_task(s4, "Remove the draft docs page")
    a.write(t, "docs/draft.md", b"# Draft\n\nTo be removed.\n", tool="write_file")
    a.write(t, "docs/draft.md", None, tool="delete_file")
    a.step(t, "bash", {"command": "echo '[bold red]not markup[/]' \x1b[31mred\x1b[0m"},
           "[bold red]not markup[/] \x1b[31mred\x1b[0m\r\x07done")
    s.finish_task(t, "completed", "Removed docs/draft.md.")
    s.close_session(s4)
    _skip(clock, hours=2)

    # 5. An experiment whose session was deleted: its tasks become orphans.
    s5 = s.start_session("Experiment: async server")
    t = s.start_task(s5, "Prototype an asyncio server")
    a.write(t, "experiments/aserver.py", b"import asyncio\n\n\nasync def main():\n    ...\n", tool="write_file")
    s.finish_task(t, "completed", "Prototype doubled the code size; abandoned.")
    t = s.start_task(s5, "Benchmark the asyncio prototype")
    a.step(t, "bash", {"command": "python experiments/bench.py"}, "running... 1200 req/s")
    s.delete_session(s5)
    _skip(clock, hours=6)

    # 6. Release: a cancelled draft superseded by a task waiting for the user.
    s6 = s.start_session("Release 0.3")
    t = s.start_task(s6, "Draft the changelog")
    a.write(t, "CHANGELOG.md", b"# Changelog\n\n## 0.3.0\n- Path parameters\n", tool="write_file")
    s.finish_task(t, "cancelled", "User asked to decide the version first.")
    t = s.start_task(s6, "Choose the version bump")
    a.read(t, "pyproject.toml")
    a.edit(t, "CHANGELOG.md", "- Path parameters\n", "- Path parameters in routes\n- Parser rejects malformed heads\n")
    s.ask(t, "Path parameters change match()'s return type. Release as 0.3.0 or 1.0.0?")
    _skip(clock, hours=1)

    # 7. Current work: a running task with many steps.
    s7 = s.start_session("Speed up the test suite")
    t = s.start_task(s7, "Profile and shorten slow tests")
    s.add_message(t, "user", "The suite takes 9 seconds; make it fast.")
    a.run_tests(t, passed=31)
    for i in range(150):
        tool = rng.choice(["read_file", "search", "bash", "think"])
        if tool == "read_file":
            a.read(t, rng.choice(sorted(p for p in a.files if p.endswith(".py"))))
        elif tool == "search":
            a.search(t, rng.choice(["timeout", "socket", "def test_", "Router("]))
        elif tool == "bash":
            a.step(t, "bash", {"command": "pytest -q --durations=3"},
                   f"0.{rng.randint(10, 60)}s call tests/test_server.py::test_keepalive")
        else:
            a.step(t, "think", {"note": f"hypothesis {i}"}, "accept() timeout dominates")
    a.edit(t, "src/tinyhttp/server.py", *F.SERVER_EDITS[2])


def _scaled(a: _Agent, n_tasks: int, progress: Callable[[int, int], None] | None) -> None:
    """N generated tasks in sessions of eight, ~10 steps and 2 checkpoints each."""
    s, rng = a.store, a.rng
    results = [("bash", {"command": "pytest -q"}, "\n".join(
        f"tests/test_{m}.py::test_case_{k} PASSED [{k}%]" for k in range(rng.randint(15, 40))))
        for m in ("router", "parser", "server", "headers")]
    results += [("read_file", {"path": p}, a.files[p].decode()[:1500]) for p in sorted(a.files)
                if p.endswith(".py")]
    pool = [f"src/tinyhttp/gen/module_{i:02}.py" for i in range(40)]
    contents = {p: "".join(f"def f{i}(x):\n    return x + {i}\n\n" for i in range(60)).encode() for p in pool}
    session = None
    for i in range(n_tasks):
        with s.transaction():
            if i % 8 == 0:
                if session is not None:
                    s.close_session(session)
                session = s.start_session(f"Generated session {i // 8 + 1}")
            t = s.start_task(session, f"Generated task {i + 1}")
            for _ in range(10):
                tool, args, result = rng.choice(results)
                a.step(t, tool, args, result)
            for _ in range(2):
                path = rng.choice(pool)
                old = contents[path]
                line = rng.randrange(60)
                new = old.replace(f"return x + {line}\n".encode(), f"return x * {rng.randint(2, 99)} + {line}\n".encode(), 1)
                step = a.step(t, "edit_file", {"path": path}, {"ok": True})
                s.record_checkpoint(t, step, {path: (old, new)})
                contents[path] = new
            if rng.random() < 0.9:
                s.finish_task(t, rng.choice(["completed"] * 8 + ["failed", "cancelled"]), f"Task {i + 1} done.")
        if progress and (i + 1) % 500 == 0:
            progress(i + 1, n_tasks)
    a.files.update(contents)
