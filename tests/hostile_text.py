"""Hostile text for the tests that check it is shown literally: Rich markup, ANSI escapes, a
bell and a bidi override as stored text may hold them; how each must be drawn; and the checks
that nothing of it reaches the terminal raw or styled."""

from __future__ import annotations

import re
from pathlib import Path
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


def hostile_workspace(root: Path, text: str = HOSTILE) -> Path:
    """A memtui workspace at `root` with `text` in every field a user reads: the session's
    title, its task's (title, a message, a step's tool, arguments, result and error, a file
    change named with it and its contents, the summary), MEMORY.md and a decision."""
    from memtui.core.memory.decisions import add_decision
    from memtui.core.store import AgentStore

    in_file = text.replace("\x00", "")  # a NUL makes a file binary: no text diff to show
    root.mkdir(parents=True)
    with AgentStore.open(root) as store:
        tid = store.start_task(store.start_session(text), "task " + text)
        store.add_message(tid, "user", "message " + text)
        step = store.record_step(tid, "tool " + text, {"path": text, "note": text}, "result " + text,
                                 error="err " + text)
        store.record_checkpoint(tid, step, {f"src/f {in_file}.py": (b"old\n", f"new {in_file}\n".encode())})
        store.finish_task(tid, "completed", summary="sum " + text)
    (root / "MEMORY.md").write_text("mem " + text + "\n")
    add_decision(root, root / "DECISIONS.md", "D " + in_file, "p", "o", "c", "why " + text, date="2026-01-01")
    return root
