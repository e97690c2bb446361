"""Timestamps as foreign stores write them, parsed leniently."""

from __future__ import annotations

from datetime import datetime, timezone


def parse_time(value: object) -> datetime | None:
    """ISO-8601 text (with `Z`, offsets or none), epoch seconds/millis, or None.

    Aware values are converted to UTC (still aware); naive values are
    returned as written (RA.Aid writes naive local time: it cannot be placed more exactly).
    """
    if value is None or value == "":
        return None
    if isinstance(value, bool):
        return None  # true/false is not a time, though Python counts it as an int
    if isinstance(value, (int, float)):
        try:
            seconds = value / 1000 if value > 1e11 else value
            return datetime.fromtimestamp(seconds, tz=timezone.utc)
        except (OverflowError, OSError, ValueError):
            return None
    if isinstance(value, str):
        try:
            parsed = datetime.fromisoformat(value.strip())
            return parsed.astimezone(timezone.utc) if parsed.tzinfo else parsed
        except (ValueError, OverflowError):  # "0001-01-01T00:00:00+01:00" is before year 1 in UTC
            return None
    return None


def file_time(path) -> datetime:
    """A file's modification time (UTC), the fallback when records carry none."""
    import os

    return datetime.fromtimestamp(os.stat(path).st_mtime, tz=timezone.utc)


def sort_key(value: datetime | None) -> float:
    """A total order over mixed naive/aware/None datetimes (None first)."""
    if value is None:
        return float("-inf")
    if value.tzinfo is None:
        return value.replace(tzinfo=timezone.utc).timestamp()
    return value.timestamp()
