"""The thinking blocks of one Claude Code turn, read from its transcript on demand.

The index keeps no thinking (a step is a call, a reply's text or an event); an export asks
for them, so they are read here from the lines the turn spans: from its prompt to its last
step. Claude Code writes each content block of a reply as its own line, the thinking before
the text or call it led to; a line written twice (the same message and block) counts once.
"""

from __future__ import annotations

import json
from datetime import datetime

from memtui.core.agents.claude_code.tables import Turn
from memtui.core.sources.fields import RECORD_ERRORS, field
from memtui.core.sources.timestamps import parse_time


def turn_thinking(turn: Turn) -> list[tuple[str, datetime | None]]:
    """(text, when) of every non-empty thinking block of `turn`, in the order written."""
    ends = [item.offset for item in turn.items if item.transcript == turn.transcript]
    if not ends:
        return []
    out: list[tuple[str, datetime | None]] = []
    seen: set[tuple[object, str]] = set()
    try:
        with open(turn.transcript, "rb") as handle:
            handle.seek(turn.offset)
            position = turn.offset
            for line in handle:
                if position > max(ends):
                    break
                position += len(line)
                if b'"thinking"' not in line:
                    continue
                try:
                    record = json.loads(line)
                    if field(record, "type", kind=str) != "assistant" or (
                            turn.agent_id is None and field(record, "isSidechain", kind=bool, default=False)):
                        continue
                    blocks = field(record, "message", "content", kind=(list, str), default=[])
                    key = field(record, "message", "id", kind=str, default="") or field(record, "uuid", kind=str, default="")
                except RECORD_ERRORS:
                    continue
                for block in blocks if isinstance(blocks, list) else []:
                    text = block.get("thinking") if isinstance(block, dict) and block.get("type") == "thinking" else None
                    if isinstance(text, str) and text.strip() and (key, text) not in seen:
                        seen.add((key, text))
                        out.append((text, parse_time(record.get("timestamp"))))
    except OSError:
        return out
    return out
