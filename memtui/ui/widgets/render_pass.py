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
from typing import TYPE_CHECKING, Any, Iterator

from rich.style import Style
from textual.css.styles import RenderStyles
from textual.geometry import Region
from textual.strip import Strip
from textual.widget import Widget


if TYPE_CHECKING:  # mixed into a Widget subclass: type-checked as one
    _Mixin = Widget
else:  # a plain mixin at run time: Textual takes CSS type names and component classes along the first base
    _Mixin = object


class StylesPerPass(_Mixin):
    """Mixed into a Widget subclass (first, so its lookups come first)."""

    _pass: dict[Any, Any] | None = None

    @property
    def rich_style(self) -> Style:
        memo = self._pass
        if memo is None:
            return super().rich_style
        style = memo.get("")
        if style is None:
            style = memo[""] = super().rich_style
        return style

    def get_component_styles(self, *names: str) -> RenderStyles:
        memo = self._pass
        if memo is None:
            return super().get_component_styles(*names)
        styles = memo.get(names)
        if styles is None:
            styles = memo[names] = super().get_component_styles(*names)
        return styles

    def get_component_rich_style(self, *names: str, partial: bool = False, default: Style | None = None) -> Style:
        memo = self._pass
        if memo is None:
            return super().get_component_rich_style(*names, partial=partial, default=default)
        key = (names, partial, default)
        style = memo.get(key)
        if style is None:
            style = memo[key] = super().get_component_rich_style(
                *names, partial=partial, default=default)
        return style

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
            return super().render_lines(crop)
