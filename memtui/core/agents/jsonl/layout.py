"""What a JSONL session store looks like: `sessions/*.jsonl` whose first record is the session's
meta (a key, no role), or a `memory/history.jsonl` log. Discovery and the reader both ask it."""

from __future__ import annotations

from pathlib import Path

from memtui.core.sources.jsonl import first_record


def is_meta(record: dict) -> bool:
    """A session file's first record: its meta (a key, no role)."""
    return "key" in record and "role" not in record


def is_jsonl_store(root: Path) -> bool:
    """True if `root` holds a JSONL session store (session files or a history log)."""
    root = Path(root)
    if (root / "memory" / "history.jsonl").is_file():
        return True
    sessions = root / "sessions"
    if not sessions.is_dir():
        return False
    for path in sorted(sessions.glob("*.jsonl"))[:20]:
        record = first_record(path, max_lines=1)
        if record is not None and is_meta(record):
            return True
    return False
