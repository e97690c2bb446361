"""The footer of keys, rebuilt only when the keys it shows change.

Textual's Footer rebuilds every key whenever the screen's bindings are updated (each focus
move, each `refresh_bindings`), and each new key mounts in the compact style and then flips
out of it: two style passes per key. On the main screen that was most of the style work
before the first frame and part of every pane switch. KeyFooter rebuilds when what it would
show (key, label, enabled, tooltip) differs from what it shows, and builds each key in its
final style.
"""

from __future__ import annotations

from typing import Any

from textual.screen import Screen
from textual.widgets import Footer
from textual.widgets._footer import FooterKey


class KeyFooter(Footer):
    """A Footer that skips rebuilding the same keys."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._shown: tuple | None = None

    def compose(self):  # type: ignore[override]
        for widget in super().compose():
            if isinstance(widget, FooterKey) and not widget.has_class("-command-palette"):
                # Bound to the footer's compact style: start in it (no class flip on mount).
                widget.set_reactive(FooterKey.compact, self.compact)
            yield widget

    def bindings_changed(self, screen: Screen) -> None:
        if not (screen.app.app_focus and self.is_attached and screen is self.screen):
            super().bindings_changed(screen)  # remembers that bindings are ready, draws nothing
            return
        shown = tuple((b.key, b.description, enabled, tooltip)
                      for _, b, enabled, tooltip in screen.active_bindings.values() if b.show)
        if shown != self._shown:
            self._shown = shown
            super().bindings_changed(screen)
