"""Turning untrusted data into displayable text, and the small formats every pane shares.

Titles, tool arguments and results, file paths and contents come from agents and from the
files they edited: they may hold Rich markup (`[bold red]`), ANSI escape sequences or other
control characters. None of it may be interpreted. Everything the UI shows from the store
goes through `safe_text` (a `rich.text.Text`, never parsed as markup) made safe by the
core's one sanitiser (memtui.core.display: control pictures, ESC → ␛, bidi overrides → �).
Byte counts use the core's one formatter, so the CLI and the UI print the same label.
"""

from __future__ import annotations

import re
from datetime import datetime, timezone

from rich.cells import cell_len
from rich.console import Console, ConsoleOptions, RenderResult
from rich.measure import Measurement
from rich.style import Style
from rich.terminal_theme import DEFAULT_TERMINAL_THEME, TerminalTheme
from rich.text import Span, Text

from memtui.core.display import human_bytes, one_line, sanitize

__all__ = ["EndKept", "Fitting", "ansi_text", "clock_time", "contrast", "human_bytes", "human_cost", "human_duration", "human_tokens", "one_line",
           "readable", "relative_time", "safe_text", "sanitize"]


def safe_text(value: object, style: str | Style = "", multiline: bool = False) -> Text:
    """A Rich `Text` of untrusted data, shown literally: no markup, no escapes, no controls."""
    return Text(sanitize(value, multiline), style=style, no_wrap=not multiline, end="",
                overflow=None if multiline else "ellipsis")


class EndKept:
    """One line whose end tells it apart (a path: `…/projects/-home-ann-work-api`): when it
    is wider than the room it is drawn in, it loses its START behind `…`, not its end.
    Rich only cuts at the end, and a table cell learns its width only when drawn.
    `middle=True` keeps both ends instead (`checkpo…after_blob`: a name whose start says what
    it belongs to and whose end tells it from its siblings)."""

    def __init__(self, text: Text, *, middle: bool = False) -> None:
        self.text = text
        self.middle = middle

    def __rich_measure__(self, console: Console, options: ConsoleOptions) -> Measurement:
        return Measurement(1, self.text.cell_len)

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        width = options.max_width
        if not self.middle or self.text.cell_len <= width or width < 5:
            yield kept_end(self.text, width)
            return
        head = self.text.copy()
        head.truncate((width - 1) * 2 // 5, overflow="crop")  # the start, in cells
        head.rstrip()  # a wide character cut in two leaves a space
        line = head + kept_end(self.text, width - head.cell_len)
        line.no_wrap, line.overflow, line.end = True, "crop", ""
        yield line


class Fitting:
    """A label said in several forms, longest first (`Orphans (tasks without a session)`,
    `Orphans (no session)`, `Orphans`): drawn as the first form that fits the room it is
    drawn in, so a narrow column reads a whole shorter label rather than a cut longer one.
    The last form is cut with `…` when even it does not fit."""

    def __init__(self, *forms: Text) -> None:
        self.forms = forms

    def __rich_measure__(self, console: Console, options: ConsoleOptions) -> Measurement:
        return Measurement(min(form.cell_len for form in self.forms), max(form.cell_len for form in self.forms))

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        width = options.max_width
        line = next((form for form in self.forms if form.cell_len <= width), self.forms[-1]).copy()
        line.truncate(width, overflow="ellipsis")
        line.no_wrap, line.end = True, ""
        yield line


def kept_end(text: Text, width: int) -> Text:
    """`text` cut to `width` cells from the start (`…` + its last width-1 cells)."""
    if text.cell_len <= width:
        line = text.copy()
    elif width <= 1:
        line = Text("…"[:width])
    else:
        line = Text("…", style=text.style) + text[start_within(text.plain, len(text.plain), width - 1):]
    line.no_wrap, line.overflow, line.end = True, "crop", ""
    return line


def start_within(plain: str, end: int, room: int) -> int:
    """Where the longest run of `plain` that ends at `end` and fits in `room` cells starts."""
    start = end
    while start and cell_len(plain[start - 1]) <= room:
        start -= 1
        room -= cell_len(plain[start])
    return start


_SGR = re.compile(r"\x1b\[[0-9;]{0,32}m")
"""An ANSI "select graphic rendition" sequence: colours and bold, nothing else."""

MIN_CONTRAST = 3.0
"""The least contrast (WCAG ratio, 1–21) a colour from agent output needs against the background
it is drawn on to be kept; 3 is WCAG's floor for large text. Below it the text takes the
theme's own colour: an audit must not show text an agent has hidden."""


def ansi_text(value: str, background: tuple[int, int, int] = (0, 0, 0),
              palette: TerminalTheme | None = None) -> Text:
    """Tool output that colours itself (`\x1b[31m`): the SGR colour codes are rendered (Rich
    parses them) where they stay readable on `background` (`readable`; `palette` gives the
    RGB of the 16 standard colours); every other control character or escape is shown
    visibly, as by safe_text."""
    if "\x1b[" not in value:
        return safe_text(value, multiline=True)
    pieces, last = [], 0
    for match in _SGR.finditer(value):
        pieces += [sanitize(value[last:match.start()], multiline=True), match.group()]
        last = match.end()
    pieces.append(sanitize(value[last:], multiline=True))
    text = readable(Text.from_ansi("".join(pieces), end=""), background, palette or DEFAULT_TERMINAL_THEME)
    text.no_wrap = False
    return text


def readable(text: Text, background: tuple[int, int, int], palette: TerminalTheme) -> Text:
    """`text` with only what keeps every character readable on `background`: no background
    colours (same as the text's: black on black), no dim, conceal, reverse or blink, and no
    text colour within MIN_CONTRAST of the background (a 256-colour or truecolour near match);
    bold, italic, underline, strike and the readable colours stay."""
    spans = [Span(span.start, span.end, _readable_style(span.style, background, palette)) for span in text.spans]
    return Text(text.plain, style=_readable_style(text.style, background, palette), spans=spans,
                end=text.end, no_wrap=text.no_wrap, overflow=text.overflow)


def _readable_style(style: str | Style, background: tuple[int, int, int], palette: TerminalTheme) -> Style:
    if isinstance(style, str):
        style = Style.parse(style) if style else Style.null()
    color = style.color
    if color is not None and (color.is_default or
                              contrast(tuple(color.get_truecolor(palette, foreground=True)), background) < MIN_CONTRAST):
        color = None
    if color is style.color and not (style.bgcolor or style.dim or style.conceal or style.reverse or style.blink
                                     or style.blink2):
        return style  # readable as it is
    return Style(color=color, bold=style.bold, italic=style.italic, underline=style.underline, strike=style.strike)


def contrast(first: tuple[int, int, int], second: tuple[int, int, int]) -> float:
    """The WCAG contrast ratio of two colours: 1 (the same) to 21 (black and white)."""
    def luminance(rgb: tuple[int, int, int]) -> float:
        linear = [c / 255 / 12.92 if c <= 10 else ((c / 255 + 0.055) / 1.055) ** 2.4 for c in rgb]
        return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]

    light, dark = sorted((luminance(first), luminance(second)), reverse=True)
    return (light + 0.05) / (dark + 0.05)


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
    """12_345 → "12.3k", 5_448_012_345 → "5.4B": the largest unit that keeps the number under
    1000 as it is shown (999_960 → "1.0M", not "1000.0k")."""
    if n < 1000:
        return str(n)
    for size, unit in ((1000, "k"), (1_000_000, "M")):
        if round(n / size, 1) < 1000:
            return f"{n / size:.1f}{unit}"
    return f"{n / 1_000_000_000:.1f}B"


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
