"""Where packaged resources live: tcss/ from a wheel or from an editable install."""

from __future__ import annotations

from pathlib import Path


def tcss_dir() -> Path:
    """The folder of .tcss files: inside the package (wheel) or at the project root (editable)."""
    here = Path(__file__).resolve().parent
    for candidate in (here / "tcss", here.parent / "tcss"):
        if candidate.is_dir():
            return candidate
    raise FileNotFoundError("memtui's tcss/ folder is missing from this installation")


def app_css() -> list[Path]:
    """The app's stylesheet, app.tcss: the main screen and shared rules (other screens:
    CSS_PATH = screen_css(...))."""
    return [tcss_dir() / "app.tcss"]


def screen_css(name: str) -> list[Path]:
    """A screen's own stylesheet (its `CSS_PATH`): Textual reads it when the screen first opens,
    so the main screen's first paint parses only app.tcss."""
    return [tcss_dir() / name]
