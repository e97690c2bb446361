"""The footer of keys, rebuilt only when the keys it shows change.

Textual's Footer rebuilds every key whenever the screen's bindings are updated (each focus
move, each `refresh_bindings`), and each new key mounts in the compact style and then flips
out of it: two style passes per key. On the main screen that was most of the style work
before the first frame and part of every pane switch. KeyFooter rebuilds when what it would
show (key, label, enabled, tooltip) differs from what it shows, and builds each key in its
final style.

Textual's Footer also draws nothing new while the app has no focus (a page served by
`memtui serve` that nobody has clicked or typed in yet): the keys drawn before the store
opened stayed until the first key. KeyFooter follows the keys whether or not the app has
the focus.
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
        # Not Footer's: it returns early while the app has no focus.
        self._bindings_ready = True  # Footer composes no key before the bindings are ready
        if not (self.is_attached and screen is self.screen):
            return
        shown = tuple((b.key, b.description, enabled, tooltip)
                      for _, b, enabled, tooltip in screen.active_bindings.values() if b.show)
        if shown != self._shown:
            self._shown = shown
            self.call_after_refresh(self.recompose)
