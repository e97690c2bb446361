"""The driver `memtui serve` runs the app under: textual's WebDriver, one packet at a time.

textual's WebDriver writes its stdout packets (screen data, meta, file chunks) with a bare
`os.write` from two threads: the app's thread draws the screen, the input thread answers
textual-serve's requests for the chunks of a file the app delivers (an export). A chunk
(up to 64 KiB) is larger than a pipe writes atomically; when the server reads slower than
the app writes (a busy machine), the chunk's write waits for room, a screen frame slips into
the middle of it, and the server's framing is lost: it never sees the chunk, and the
browser's download is cancelled. Here each packet goes out under one lock, one at a time.
"""

from __future__ import annotations

import threading
from typing import Any

from textual import constants

TEXTUAL_WEB_DRIVER = "textual.drivers.web_driver:WebDriver"


def web_driver_class() -> Any:
    """SerialWebDriver where textual-serve asks for textual's WebDriver; else None (textual picks).
    The web driver is imported only then: a terminal or a test never loads it."""
    if constants.DRIVER != TEXTUAL_WEB_DRIVER:
        return None
    from textual.drivers.web_driver import WebDriver

    class SerialWebDriver(WebDriver):
        """WebDriver whose packets never interleave: each is written whole, one at a time."""

        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            self.packet_lock = threading.Lock()

        # WebDriver's three ways out: each writes one packet to a blocking pipe (whole, unless a
        # signal cuts it short), and none of them starts before the one under way is done.
        def write(self, data: str) -> None:
            with self.packet_lock:
                super().write(data)

        def write_meta(self, data: dict[str, object]) -> None:
            with self.packet_lock:
                super().write_meta(data)

        def write_binary_encoded(self, data: tuple[str | bytes, ...]) -> None:
            with self.packet_lock:
                super().write_binary_encoded(data)

    return SerialWebDriver
