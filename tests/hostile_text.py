"""Hostile text for the tests that check it is shown literally: Rich markup, ANSI escapes, a
bell and a bidi override as stored text may hold them; how each must be drawn; and the checks
that nothing of it reaches the terminal raw or styled."""

from __future__ import annotations

import re
from typing import Any

HOSTILE = "[bold red]HX[/] \x1b[31mred\x1b[0m \u202eevil\u202c bell\x07"
SHOWN = "[bold red]HX[/] ␛[31mred␛[0m �evil� bell␇"
"""HOSTILE as it must be drawn: the markup as typed, ESC as ␛, the bidi marks as �, BEL as ␇."""

RAW = re.compile("[\x00-\x09\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")
"""A control character (but the line break) or a bidi override: what a terminal acts on."""


def assert_no_raw(text: str, where: str = "") -> None:
    """No raw control character nor bidi override in `text` (what was drawn or printed)."""
    raw = sorted({f"U+{ord(c):04X}" for c in RAW.findall(text)})
    assert not raw, f"{where}: raw {raw} drawn:\n{text}"


def drawn(widget: Any) -> list[tuple[str, list]]:
    """Each line `widget` draws: its text and the segments holding 'HX' (HOSTILE's markup)."""
    lines = []
    for y in range(widget.size.height):
        strip = widget.render_line(y)
        lines.append(("".join(s.text for s in strip), [s for s in strip if "HX" in s.text]))
    return lines


def assert_unstyled(lines: list[tuple[str, list]]) -> None:
    """HOSTILE's markup is drawn as typed, in the style of the text around it (not bold red)."""
    held = [seg for _, segs in lines for seg in segs]
    assert held and all("[bold red]HX" in seg.text for seg in held)
    assert not any(seg.style and seg.style.color and seg.style.color.name == "red" for seg in held)


def assert_literal(lines: list[tuple[str, list]]) -> None:
    """HOSTILE is drawn whole and literally in `lines` (from `drawn`)."""
    text = "\n".join(t for t, _ in lines)
    assert "[bold red]HX[/]" in text and "␛[31mred␛[0m" in text and "�evil�" in text, text
    assert_no_raw(text)
    assert_unstyled(lines)
