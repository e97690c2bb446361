"""Memory documents of the demo workspace, as an agent that follows the init.d layout keeps them."""

MEMORY_MD = """# Memory

## User preferences
- Prefers small, reviewable commits with imperative subjects.
- Wants tests run with `pytest -q` before any commit.
- Dislikes new dependencies; ask first.

## Stable decisions
- Routing uses compiled regular expressions; see 04-decision-log.md (2026-11-03).
- Header folding follows RFC 9110 §5.3.
"""

PROJECT_MEMORY_MD = """# Project memory: tinyhttp

## Structure
- `src/tinyhttp/router.py` — URL routing with `<name>` path parameters
- `src/tinyhttp/parser.py` — HTTP/1.1 request parsing
- `src/tinyhttp/server.py` — threaded socket server
- `tests/` — pytest suite

## Build and test
- `pip install -e .`
- `pytest -q`

## Known issues
- `tests/test_server.py::test_keepalive` is flaky on slow machines (timeout 0.5 s).
"""

SESSION_SUMMARY_MD = """# Session summary

## Current goal
Ship tinyhttp 0.3 with path parameters and the split parser.

## Verified results
- Router path parameters: 14 tests pass (`pytest -q tests/test_router.py`).
- Parser split into `parser.py` + `headers.py`; fuzz corpus runs clean.

## Active Checkpoint
- Goal: release 0.3.0
- Last reliable result: full suite green at 11:42 (`pytest -q`, 31 passed)
- First unfinished item: choose the version bump (waiting for the user)
- Next action: update CHANGELOG.md and tag once the user answers

## Next step
Ask the user whether path parameters justify 0.3.0 or 1.0.0.
"""

PLAN_MD = """# Plan: tinyhttp 0.3

## Goal
Path parameters in routes, a parser that rejects malformed heads, a faster test suite.

## Out of scope
- HTTP/2, TLS, async server.

## Approach
1. Router: compile patterns once, return `(handler, params)`.
2. Parser: split header handling into `headers.py`; cap header count.
3. Tests: profile the slowest tests, shorten socket timeouts.

## Acceptance
- `pytest -q` green; new tests for params and malformed requests.
- README quickstart shows a parameterised route.
"""

PROGRESS_MD = """# Progress

## Done
- [x] Router path parameters — evidence: `pytest -q tests/test_router.py` (14 passed)
- [x] Parser split — evidence: `tests/test_parser.py`, fuzz corpus clean

## Waiting
- [ ] Version bump — waiting for the user's answer

## Next
- [ ] Profile slow tests (`pytest --durations=10`)
- [ ] Update CHANGELOG.md
"""

NAVIGATION_MD = """# Navigation

- Source: `src/tinyhttp/`
- Router: `src/tinyhttp/router.py`
- Parser: `src/tinyhttp/parser.py`
- Tests: `tests/test_router.py`
- Project config: `pyproject.toml`
- Plan: `.agent/plan/PLAN.md`
"""

PRINCIPLES_MD = """# Principles

1. Read before editing; never edit a file you have not opened in this session.
2. Run the narrowest test first, then the suite.
3. Record a decision when you choose between real options.
4. Keep PROGRESS.md true: evidence or it did not happen.
5. Ask the user before adding a dependency.
"""

INIT_PROGRESS_MD = """# Progress pointer

Read `.agent/plan/PROGRESS.md` for the live list. Last cold start: 2026-11-04.
"""

DECISION_LOG_MD = """# Decision log

## 2026-11-02 Compile route patterns with regular expressions
- Problem: exact string matching cannot express `/users/<id>`.
- Options: a trie of segments; regular expressions compiled at registration; a third-party router.
- Chosen: regular expressions compiled in `Router.add`.
- Why: simplest code, patterns are few, and matching cost stays negligible next to socket I/O.

## 2026-11-03 Split header handling out of the parser
- Problem: `parse_request` mixed request-line and header logic; folding rules were duplicated.
- Options: keep one module; split `headers.py`.
- Chosen: split `headers.py` with a single `fold` function.
- Why: one place for RFC 9110 folding, and it can be fuzzed on its own.

## 2026-11-04 Keep the threaded server
- Problem: the async rewrite experiment doubled the code size.
- Options: asyncio server; keep threads.
- Chosen: keep the threaded server for 0.3.

## 2026-11-05 Shorten socket timeouts in tests
- Problem: the suite spends 9 s waiting on accept timeouts.
- Options: mock sockets; shorten timeouts to 50 ms in tests.
- Chosen: shorten timeouts via a fixture.
- Why: tests keep using real sockets, and the suite drops to about 2 s.
"""

RUN_INIT_SH = """#!/bin/sh
# Read the init.d files in order at every cold start.
for f in "$(dirname "$0")"/init.d/*.md; do
  echo "=== $f"
  cat "$f"
done
"""

SKILL_MD = """---
name: bisect-flaky-test
description: Find the commit that made a test flaky by running it many times per commit.
---

# Bisect a flaky test

1. Reproduce: `pytest -q tests/test_server.py::test_keepalive --count 50`.
2. `git bisect start HEAD <last good tag>`.
3. At each step run the test 50 times; mark bad on any failure.
4. Record the culprit commit and the failure rate in PROGRESS.md.
"""
