"""The one way memtui shows untrusted text and byte counts, in the CLI and the UI alike.

Titles, tool arguments and results, file paths and contents come from agents and from the
files they edited: they may hold ANSI escape sequences, other control characters or
bidirectional overrides ("Trojan source" text that reads differently from what it is).
`sanitize` makes every one of them visible: C0 controls become their Unicode control
pictures (ESC → ␛, so an escape sequence reads as `␛[31m`), DEL becomes ␡, and C1 controls
and the bidi overrides U+202A–U+202E / U+2066–U+2069 become �. Rich markup needs no
escaping here: the UI never parses this text as markup (memtui.ui.text.safe_text).
"""

from __future__ import annotations

import math
import re

_BIDI = (*range(0x202A, 0x202F), *range(0x2066, 0x206A))

VISIBLE: dict[int, str] = {c: chr(0x2400 + c) for c in range(0x20)}
VISIBLE[0x7F] = "\u2421"
VISIBLE.update({c: "\ufffd" for c in range(0x80, 0xA0)})
VISIBLE.update({c: "\ufffd" for c in _BIDI})
"""Code point → what is shown instead (a `str.translate` table)."""

_VISIBLE_KEEPING_LINES = {c: s for c, s in VISIBLE.items() if c not in (0x09, 0x0A)}
_UNSAFE = re.compile("[\x00-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


def sanitize(value: object, multiline: bool = False) -> str:
    """`value` as a string with every control character and bidi override made visible
    (tabs and newlines kept when `multiline`)."""
    text = value if isinstance(value, str) else str(value)
    if not _UNSAFE.search(text):
        return text
    return text.translate(_VISIBLE_KEEPING_LINES if multiline else VISIBLE)


_RISKY_IN_JSON = re.compile("[\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]")


def json_safe(text: str) -> str:
    """JSON text (as `json.dumps(..., ensure_ascii=False)` writes it) with every code point a
    terminal or browser would act on \\u-escaped: DEL, C1 controls, bidi overrides and the
    Unicode line separators (json escapes C0 controls itself). It parses back identical."""
    if not _RISKY_IN_JSON.search(text):
        return text
    return _RISKY_IN_JSON.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


def one_line(value: object, width: int = 80) -> str:
    """A sanitized single line, whitespace collapsed, cut to `width` with an ellipsis."""
    text = " ".join(sanitize(value, multiline=True).split())
    return text if len(text) <= width else text[: max(width - 1, 0)] + "…"


def human_bytes(n: int | float | None) -> str:
    """A byte count in binary units: 512 → "512 B", 1536 → "1.5 KiB", 14_000 → "14 KiB",
    None → "—". One decimal under 10 of a unit; the same label in the CLI and the UI."""
    if n is None:
        return "—"
    size = float(n)
    sign = "-" if size < 0 else ""
    size = abs(size)
    for unit in ("B", "KiB", "MiB", "GiB", "TiB"):
        if size < 1024 or unit == "TiB":
            if unit == "B":
                return f"{sign}{int(size)} B"
            return f"{sign}{size:.1f} {unit}" if size < 9.95 else f"{sign}{size:.0f} {unit}"
        size /= 1024
    raise AssertionError("unreachable")  # pragma: no cover


def counted(n: int, noun: str, plural: str | None = None) -> str:
    """"1 step", "2 steps", "1,200 steps": a count with its noun, plural (`noun` + "s" unless
    given) unless one."""
    return f"{n:,} {noun}" if n == 1 else f"{n:,} {plural or noun + 's'}"


def percent(fraction: float) -> str:
    """A share as "62.8%"; a small share that is not zero keeps two significant digits
    ("0.013%"), so a figure never reads as nothing when it is something."""
    pct = fraction * 100
    if pct == 0 or abs(pct) >= 0.1:
        return f"{pct:.1f}%"
    if abs(pct) < 0.0001:
        return "<0.0001%"
    return f"{pct:.{1 - math.floor(math.log10(abs(pct)))}f}%"


def shown_lines(text: str) -> str:
    """A document's text for display: CRLF read as a line end, every other control character
    and bidi override made visible (an ESC in a file must not reach the terminal)."""
    return sanitize(text.replace("\r\n", "\n"), multiline=True)


def has_controls(text: str) -> bool:
    """Whether `text` holds a control character or bidi override other than tab and line ends."""
    return any(c not in "\t\n\r" for c in _UNSAFE.findall(text))
