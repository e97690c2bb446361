"""Styles a list widget looks up while it draws (or fills), looked up once per pass.

Textual's DataTable and Tree ask, for every line they draw, for the widget's Rich style (worked
out from every ancestor's styles each time) and for component styles (`get_component_styles`
builds a fresh RenderStyles, merging the component's rules, at each call: the tree does it three
times a line for its guides; `get_component_rich_style` keeps its answers only until the next
refresh, and adding a row refreshes). While one pass over the lines (or one page of rows being
added) runs, none of them can change, so `StylesPerPass` keeps what was looked up until the pass
ends (`styles_fixed`); outside a pass it asks Textual.
"""

from __future__ import annotations

from contextlib import contextmanager
from typing import Any, Iterator

from rich.style import Style
from textual.css.styles import RenderStyles
from textual.geometry import Region
from textual.strip import Strip


class StylesPerPass:
    """Mixed into a Widget subclass (first, so its lookups come first)."""

    _pass: dict[Any, Any] | None = None

    @property
    def rich_style(self) -> Style:
        memo = self._pass
        if memo is None:
            return super().rich_style  # type: ignore[misc,no-any-return]
        style = memo.get("")
        if style is None:
            style = memo[""] = super().rich_style  # type: ignore[misc]
        return style  # type: ignore[no-any-return]

    def get_component_styles(self, *names: str) -> RenderStyles:
        memo = self._pass
        if memo is None:
            return super().get_component_styles(*names)  # type: ignore[misc,no-any-return]
        styles = memo.get(names)
        if styles is None:
            styles = memo[names] = super().get_component_styles(*names)  # type: ignore[misc]
        return styles  # type: ignore[no-any-return]

    def get_component_rich_style(self, *names: str, partial: bool = False, default: Style | None = None) -> Style:
        memo = self._pass
        if memo is None:
            return super().get_component_rich_style(*names, partial=partial, default=default)  # type: ignore[misc,no-any-return]
        key = (names, partial, default)
        style = memo.get(key)
        if style is None:
            style = memo[key] = super().get_component_rich_style(  # type: ignore[misc]
                *names, partial=partial, default=default)
        return style  # type: ignore[no-any-return]

    @contextmanager
    def styles_fixed(self) -> Iterator[None]:
        """Within: every style looked up is kept (nested uses keep the outer pass)."""
        if self._pass is not None:
            yield
            return
        self._pass = {}
        try:
            yield
        finally:
            self._pass = None

    def render_lines(self, crop: Region) -> list[Strip]:
        with self.styles_fixed():
            return super().render_lines(crop)  # type: ignore[misc,no-any-return]
