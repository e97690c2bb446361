"""Turning untrusted data into displayable text, and the small formats every pane shares.

Titles, tool arguments and results, file paths and contents come from agents and from the
files they edited: they may hold Rich markup (`[bold red]`), ANSI escape sequences or other
control characters. None of it may be interpreted. Everything the UI shows from the store
goes through `safe_text` (a `rich.text.Text`, never parsed as markup) with control
characters replaced by their visible Unicode "control picture" (ESC → ␛).
"""

from __future__ import annotations

import re
from datetime import datetime, timezone

from rich.style import Style
from rich.text import Text

# C0 controls (except tab/newline when multi-line text is allowed), DEL, and C1 controls.
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f\x80-\x9f]")
_CONTROL_WITH_NEWLINES = re.compile(r"[\x00-\x1f\x7f\x80-\x9f]")


def _picture(match: re.Match[str]) -> str:
    code = ord(match.group())
    if code < 0x20:
        return chr(0x2400 + code)  # ␀ … ␟
    if code == 0x7F:
        return "\u2421"  # ␡
    return "\ufffd"  # C1 controls: no picture; the replacement character says "something was here"


def sanitize(value: object, multiline: bool = False) -> str:
    """`value` as a string with control characters made visible (newlines/tabs kept if multiline)."""
    text = value if isinstance(value, str) else str(value)
    if multiline:
        return _CONTROL.sub(_picture, text)
    return _CONTROL_WITH_NEWLINES.sub(_picture, text)


def safe_text(value: object, style: str | Style = "", multiline: bool = False) -> Text:
    """A Rich `Text` of untrusted data, shown literally: no markup, no escapes, no controls."""
    return Text(sanitize(value, multiline), style=style, no_wrap=not multiline, end="")


def one_line(value: object, width: int = 80) -> str:
    """A sanitized single line, whitespace collapsed, cut to `width` with an ellipsis."""
    text = " ".join(sanitize(value, multiline=True).split())
    return text if len(text) <= width else text[: max(width - 1, 0)] + "…"


def human_bytes(n: int | None) -> str:
    """1536 → "1.5 KB" (powers of 1024, one decimal under 10)."""
    if n is None:
        return "—"
    size = float(n)
    for unit in ("B", "KB", "MB", "GB", "TB"):
        if size < 1024 or unit == "TB":
            if unit == "B":
                return f"{int(size)} B"
            return f"{size:.1f} {unit}" if size < 10 else f"{size:.0f} {unit}"
        size /= 1024
    return f"{n} B"  # pragma: no cover


def human_duration(ms: int | float | None) -> str:
    """850 → "850ms", 12_300 → "12.3s", 125_000 → "2m05s"."""
    if ms is None:
        return "—"
    if ms < 1000:
        return f"{int(ms)}ms"
    seconds = ms / 1000
    if seconds < 60:
        return f"{seconds:.1f}s"
    minutes, secs = divmod(int(seconds), 60)
    if minutes < 60:
        return f"{minutes}m{secs:02d}s"
    hours, minutes = divmod(minutes, 60)
    return f"{hours}h{minutes:02d}m"


def human_tokens(n: int) -> str:
    """12_345 → "12.3k"."""
    if n < 1000:
        return str(n)
    if n < 1_000_000:
        return f"{n / 1000:.1f}k"
    return f"{n / 1_000_000:.1f}M"


def human_cost(cost: float) -> str:
    """Dollars, with sub-cent precision kept visible."""
    if not cost:
        return "—"
    return f"${cost:.4f}" if cost < 0.01 else f"${cost:.2f}"


def relative_time(when: datetime | None, now: datetime) -> str:
    """"just now", "5m ago", "3h ago", "2d ago", then the date."""
    if when is None:
        return "—"
    if when.tzinfo is None:
        when = when.replace(tzinfo=timezone.utc)
    seconds = (now - when).total_seconds()
    if seconds < 0:
        return when.astimezone().strftime("%Y-%m-%d %H:%M")
    if seconds < 60:
        return "just now"
    if seconds < 3600:
        return f"{int(seconds // 60)}m ago"
    if seconds < 86400:
        return f"{int(seconds // 3600)}h ago"
    if seconds < 86400 * 30:
        return f"{int(seconds // 86400)}d ago"
    return when.astimezone().strftime("%Y-%m-%d")


def clock_time(when: datetime | None) -> str:
    """Local wall-clock time of day, "14:03:27"."""
    if when is None:
        return "—"
    return when.astimezone().strftime("%H:%M:%S")
