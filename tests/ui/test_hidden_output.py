"""Agent output never hides text from the auditor: colours from ANSI escapes in a step's
result are drawn only where every character stays readable (the step detail, `o`)."""

from __future__ import annotations

from pathlib import Path

from rich.segment import Segment

from conftest import screen_text
from memtui.core.store import AgentStore
from memtui.ui.screens.step_detail import StepDetailScreen
from memtui.ui.text import MIN_CONTRAST, contrast

# Each word is hidden, or nearly, by the escapes before it on a dark or a light screen.
WORST = {
    "BLACK-ON-BLACK": "\x1b[30;40m",
    "WHITE-ON-WHITE": "\x1b[97;107m",
    "DIMMED": "\x1b[2m",
    "CONCEALED": "\x1b[8m",
    "REVERSED-BLACK": "\x1b[7;30;40m",
    "NEAR-256": "\x1b[38;5;233;48;5;234m",
    "GREY-256-ALONE": "\x1b[38;5;234m",
    "TRUE-NEAR": "\x1b[38;2;20;20;22;48;2;21;21;21m",
    "TRUE-DARK-ALONE": "\x1b[38;2;16;16;16m",
    "TRUE-LIGHT-ALONE": "\x1b[38;2;250;250;250m",
    "BLINKING-BLACK": "\x1b[5;30m",
}
RESULT = "\n".join(f"{escape}{word}\x1b[0m plain" for word, escape in WORST.items()) + "\n\x1b[1;31mRED-BOLD\x1b[0m"


def _cells(app, word: str) -> list[Segment]:
    """What the screen draws for `word`: a segment (character, style) per cell, the style read
    from the screen where it is drawn (Screen.get_style_at)."""
    for y, line in enumerate(screen_text(app).splitlines()):
        at = line.find(word)
        if at >= 0:
            return [Segment(char, app.screen.get_style_at(at + i, y)) for i, char in enumerate(word)]
    raise AssertionError(f"{word} is not on the screen")


async def _worst_cases_are_readable(tmp_path: Path, open_app, settled, theme: str) -> None:
    with AgentStore.open(tmp_path) as store:
        task = store.start_task(store.start_session("hidden"), "Hide text")
        store.record_step(task, "bash", {"command": "hide"}, RESULT)
    async with open_app(tmp_path, size=(120, 48)) as pilot:
        app = pilot.app
        app.theme = theme
        await pilot.press("3", "home", "o")
        await settled(pilot)
        assert isinstance(app.screen, StepDetailScreen)
        for word in WORST:
            for segment in _cells(app, word):
                style = segment.style
                fg, bg = style.color.get_truecolor(), style.bgcolor.get_truecolor()
                assert contrast(tuple(fg), tuple(bg)) >= MIN_CONTRAST, (theme, word, segment)
                assert not (style.dim or style.conceal or style.reverse or style.blink), (theme, word, segment)
        # Colours that stay readable are still drawn: red is red, and bold.
        (red,) = {segment.style.color.get_truecolor() for segment in _cells(app, "RED-BOLD")}
        assert red.red > 2 * max(red.green, red.blue)
        assert all(segment.style.bold for segment in _cells(app, "RED-BOLD"))


async def test_hidden_text_is_readable_in_the_step_detail_on_a_dark_theme(tmp_path, open_app, settled) -> None:
    await _worst_cases_are_readable(tmp_path, open_app, settled, "textual-dark")


async def test_hidden_text_is_readable_in_the_step_detail_on_a_light_theme(tmp_path, open_app, settled) -> None:
    await _worst_cases_are_readable(tmp_path, open_app, settled, "textual-light")
