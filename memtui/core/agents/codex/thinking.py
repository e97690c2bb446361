"""The reasoning summaries of one Codex turn, read from its rollout on demand.

Codex keeps the model's reasoning encrypted; what a reader can see is the summary it writes
beside it (`response_item` of type `reasoning`, `summary: [{"type": "summary_text", "text"}]`;
a flat rollout of early releases has the item itself on the line). The index keeps none of
it: an export asks, and the lines from the turn's prompt to its last step are read here.
"""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

from memtui.core.agents.codex.tables import Turn
from memtui.core.sources.jsonl import iter_records
from memtui.core.sources.timestamps import parse_time


def turn_reasoning(turn: Turn, path: Path) -> list[tuple[str, datetime | None]]:
    """(summary text, when) of each reasoning item of `turn` with a summary, in order."""
    start = turn.id.rsplit(":", 1)[-1]
    first = int(start) if start.isdigit() else 0
    last = max((item.line for item in turn.items), default=first)
    out: list[tuple[str, datetime | None]] = []
    for lineno, _offset, rec in iter_records(path, []):
        if lineno < first:
            continue
        if lineno > last:
            break
        payload = rec.get("payload") if rec.get("type") == "response_item" else rec
        if not isinstance(payload, dict) or payload.get("type") != "reasoning":
            continue
        summary = payload.get("summary")
        texts = [s.get("text") for s in summary if isinstance(s, dict)] if isinstance(summary, list) else []
        text = "\n\n".join(t for t in texts if isinstance(t, str) and t.strip())
        if text:
            out.append((text, parse_time(rec.get("timestamp"))))
    return out
