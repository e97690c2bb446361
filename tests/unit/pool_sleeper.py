"""A part parser for the worker-pool tests: slow, and each part too large for a pipe's buffer,
so a build killed mid-way leaves workers at work and a result half-sent."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any


class Part:
    lazy: tuple[str, ...] = ()
    side: tuple[str, ...] = ()

    def __init__(self, name: str) -> None:
        self.name = name
        self.data = b"x" * (4 << 20)  # more than a pipe holds: its sender blocks until it is read

    def side_tables(self) -> dict:
        return {}


def parse(path: Path, cursor: Any) -> tuple[Part, None]:
    time.sleep(0.3)
    return Part(path.name), None


def reopen() -> str:
    """What a worker started afresh opens (forked_map's `reopen`): here, a name."""
    return "opened in the worker"


def read(on: str, item: int) -> tuple[str, bytes]:
    """forked_map's function: slow, its result too large for a pipe's buffer."""
    time.sleep(0.3)
    return on, b"x" * (4 << 20)


def reopen_where() -> str:
    """A `reopen` that opens what the environment names (as a source finds memtui's cache folder)."""
    import os

    return os.environ.get("XDG_CACHE_HOME", "")


def read_fast(on: str, item: int) -> str:
    return on


def cannot_reopen() -> str:
    raise OSError("the source is gone")
