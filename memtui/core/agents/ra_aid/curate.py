"""Curating RA.Aid's memory: deleting key facts, snippets and research notes by id, never one
attached to the most recent human input (RA.Aid's own GC protects those). The one write memtui
makes into an RA.Aid database, and only when the user asked for it.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from memtui.core.errors import MemtuiError
from memtui.core.model import MemoryItem
from memtui.core.agents.ra_aid.source import ITEM_TABLES, RaAidSource
from memtui.core.sqlite_readonly import connect_readwrite


class CurateRefused(MemtuiError):
    """Nothing to delete: every requested item was missing or protected."""


@dataclass(frozen=True)
class CuratePlan:
    """What `apply_curate` would delete, and what it refuses and why."""

    path: Path
    current_input_id: int | None
    delete: tuple[MemoryItem, ...]
    refused: tuple[tuple[str, int, str], ...]  # (kind, id, reason)


def plan_curate(path: Path, facts=(), snippets=(), notes=()) -> CuratePlan:
    """Plan deleting RA.Aid key facts, snippets and research notes by id.

    Items attached to the most recent human input are refused (RA.Aid's own GC protects
    them); ids that do not exist are refused as not found. Reads only.
    """
    source = RaAidSource(path)
    items = {(item.kind, item.id): item for item in source.memory_items()}
    delete: list[MemoryItem] = []
    refused: list[tuple[str, int, str]] = []
    for kind, ids in (("fact", facts), ("snippet", snippets), ("note", notes)):
        for raw in dict.fromkeys(ids):
            item = items.get((kind, int(raw)))
            if item is None:
                refused.append((kind, int(raw), "not found"))
            elif item.protected:
                refused.append((kind, item.id, f"attached to the most recent human input #{source.current_input_id}"))
            else:
                delete.append(item)
    return CuratePlan(Path(source.path), source.current_input_id, tuple(delete), tuple(refused))


def apply_curate(plan: CuratePlan) -> int:
    """Delete the planned items in one transaction; returns how many rows went.

    The protection is checked again inside the transaction, so an input RA.Aid recorded
    since the plan was made still protects its items; then nothing is deleted.
    """
    if not plan.delete:
        return 0
    conn = connect_readwrite(plan.path)
    try:
        conn.execute("BEGIN IMMEDIATE")
        try:
            row = conn.execute("SELECT id FROM human_input ORDER BY created_at DESC, id DESC LIMIT 1").fetchone()
            current = row[0] if row else None
            deleted = 0
            for item in plan.delete:
                table = ITEM_TABLES[item.kind]
                hit = conn.execute(f'SELECT human_input_id FROM "{table}" WHERE id = ?', (item.id,)).fetchone()
                if hit is None:
                    continue
                if hit[0] is not None and hit[0] == current:
                    raise CurateRefused(
                        f"{item.kind} #{item.id} is now attached to the most recent human input #{current}; nothing deleted"
                    )
                deleted += conn.execute(f'DELETE FROM "{table}" WHERE id = ?', (item.id,)).rowcount
            conn.execute("COMMIT")
            return deleted
        except BaseException:
            conn.execute("ROLLBACK")
            raise
    finally:
        conn.close()
