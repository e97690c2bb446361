"""One file change as an agent's own record holds it (a tool call's arguments and result),
before it becomes an entry of the read model."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass
class RecordedChange:
    """A file a tool call changed: its path as recorded and the contents memtui could
    establish from the record (None where unknown; an `added` file has no before).
    `reason` says why a side is unknown; `diff` is the agent's own diff text, where it
    keeps one."""

    path: str
    kind: str  # "added" | "modified" | "deleted"
    before: str | None
    after: str | None
    before_known: bool
    after_known: bool
    reason: str = ""
    diff: str | None = None
