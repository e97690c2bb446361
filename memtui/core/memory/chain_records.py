"""The records of an agent's memory chain that the chain's builder and its lint share: a file
of the chain, a problem found in it, and the bounded read of one file."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class ChainFile:
    """One file of an agent's chain.

    `loaded_bytes` / `loaded_lines` are how much of it the agent reads at start (0 for a file
    loaded on demand, shadowed, or entirely past a limit; `reason` says which). `tokens` is
    the estimated token count of the loaded part. `depth` is the import depth (0 = found by
    the agent's own search), for drawing the import tree.
    """

    path: Path
    scope: str
    order: int
    bytes: int
    lines: int
    tokens: int
    loaded_bytes: int
    loaded_lines: int
    on_demand: bool
    reason: str
    imported_by: Path | None = None
    depth: int = 0

    @property
    def truncated(self) -> bool:
        """Only part of the file is loaded."""
        return 0 < self.loaded_bytes < self.bytes

    @property
    def cut_byte(self) -> int | None:
        """Offset of the first byte the agent never sees, for a truncated file."""
        return self.loaded_bytes if self.truncated else None

    def to_json(self) -> dict:
        return {
            "path": str(self.path), "scope": self.scope, "order": self.order, "bytes": self.bytes,
            "lines": self.lines, "tokens": self.tokens, "loaded_lines": self.loaded_lines,
            "loaded_bytes": self.loaded_bytes, "truncated": self.truncated, "on_demand": self.on_demand,
            "imported_by": None if self.imported_by is None else str(self.imported_by), "reason": self.reason,
        }


@dataclass(frozen=True)
class ChainProblem:
    """Something in the chain that makes the agent miss or misread memory. `line` is 1-based,
    None for the whole file."""

    file: Path
    line: int | None
    rule: str
    message: str

    def to_json(self) -> dict:
        return {"file": str(self.file), "line": self.line, "rule": self.rule, "message": self.message}


@dataclass
class FileRead:
    """A bounded read of one file: `data` holds at most chain.READ_LIMIT bytes (`complete` says
    whether that is all of it); `size` and `lines` count the whole file; `error` is set (and
    data empty) when it could not be read."""

    path: Path
    data: bytes = b""
    size: int = 0
    lines: int = 0
    complete: bool = True
    error: str | None = None

    @property
    def text(self) -> str:
        return self.data.decode("utf-8", "replace")
