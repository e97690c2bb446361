"""The footer of keys, rebuilt only when the keys it shows change.

Textual's Footer rebuilds every key whenever the screen's bindings are updated (each focus
move, each `refresh_bindings`): on the main screen that was part of every pane switch.
KeyFooter hands an update on to Footer only when what it would show (key, label, enabled,
tooltip) differs from what it shows.

Textual's Footer also draws nothing new while the app has no focus (a page served by
`memtui serve` that nobody has clicked or typed in yet): the keys drawn before the store
opened stayed until the first key. KeyFooter rebuilds its keys whether or not the app has
the focus.
"""

from __future__ import annotations

from textual.screen import Screen
from textual.widgets import Footer


class KeyFooter(Footer):
    """A Footer that skips rebuilding the same keys, and follows them without the focus."""

    shown: tuple[tuple[str, str, bool, str], ...] | None = None
    """(key, description, enabled, tooltip) of each key the footer shows."""

    def bindings_changed(self, screen: Screen) -> None:
        if not (self.is_attached and screen is self.screen):
            return
        shown = tuple((b.key, b.description, enabled, tooltip)
                      for _, b, enabled, tooltip in screen.active_bindings.values() if b.show)
        if shown == self.shown:
            return
        self.shown = shown
        super().bindings_changed(screen)  # Footer's own: its keys, rebuilt while the app has the focus
        if not screen.app.app_focus:
            self.call_after_refresh(self.recompose)
