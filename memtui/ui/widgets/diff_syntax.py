"""Syntax highlighting for DiffView: display lines lexed lazily in blocks, and syntax tokens
cut at the edges of intra-line changes.

File contents are untrusted: they become plain text pieces (Rich markup is never parsed),
control characters and bidi overrides are made visible by `memtui.core.diff.display_line`.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import PurePath
from typing import TYPE_CHECKING, Iterable

from textual.cache import LRUCache

if TYPE_CHECKING:  # pygments is imported when a file is first shown, not at start-up
    from pygments.lexer import Lexer

TokenType = tuple[str, ...]
LineTokens = tuple[tuple[str, TokenType], ...]

#: Lines lexed together; a block starts lexing at a nearby "top-level" line for correct state.
HIGHLIGHT_BLOCK = 128
#: How far back a block looks for a line starting in column 0 to start lexing from.
HIGHLIGHT_LOOKBACK = 64
#: Blocks bigger than this (minified files, data) are shown without syntax highlighting.
HIGHLIGHT_MAX_CHARS = 200_000


class SyntaxLines:
    """Display lines of one side of a file, lexed lazily in blocks and cached."""

    def __init__(self, lines: list[str], lexer: Lexer | None, strip_cr: bool = False) -> None:
        self.lines = lines
        self.lexer = lexer
        self.strip_cr = strip_cr
        self._blocks: LRUCache[int, list[LineTokens]] = LRUCache(64)
        self._display: LRUCache[int, str] = LRUCache(4096)

    def display(self, index: int) -> str:
        """The sanitized text of one line."""
        text = self._display.get(index)
        if text is None:
            from memtui.core.diff import display_line  # the diff engine: not before the first frame

            text = display_line(self.lines[index], strip_cr=self.strip_cr)
            self._display[index] = text
        return text

    def tokens(self, index: int) -> LineTokens:
        """(text, token type) pieces of one display line."""
        block = index // HIGHLIGHT_BLOCK
        lines = self._blocks.get(block)
        if lines is None:
            lines = self._lex_block(block)
            self._blocks[block] = lines
        return lines[index - block * HIGHLIGHT_BLOCK]

    def _lex_block(self, block: int) -> list[LineTokens]:
        start = block * HIGHLIGHT_BLOCK
        end = min(start + HIGHLIGHT_BLOCK, len(self.lines))
        from memtui.core.diff import display_line

        display = [display_line(line, strip_cr=self.strip_cr) for line in self.lines[start:end]]
        from pygments.token import Token

        plain: list[LineTokens] = [((text, Token.Text),) for text in display]
        if self.lexer is None or sum(map(len, display)) > HIGHLIGHT_MAX_CHARS:
            return plain
        # Start lexing at a line in column 0 (a def, class, import, tag …) so that strings and
        # comments opened just above the block are less likely to leave the lexer in a wrong state.
        sync = start
        for k in range(start - 1, max(start - HIGHLIGHT_LOOKBACK, 0) - 1, -1):
            line = self.lines[k]
            if line and not line[0].isspace():
                sync = k
                break
        lead = [display_line(line, strip_cr=self.strip_cr) for line in self.lines[sync:start]]
        code = "\n".join(lead + display) + "\n"
        result: list[list[tuple[str, TokenType]]] = [[]]
        try:
            for token_type, text in self.lexer.get_tokens(code):
                parts = text.split("\n")
                for k, part in enumerate(parts):
                    if k:
                        result.append([])
                    if part:
                        result[-1].append((part, token_type))
        except Exception:  # a lexer bug must not take the view down
            return plain
        result = result[len(lead) :][: len(display)]
        if len(result) != len(display) or any(
            "".join(text for text, _ in pieces) != line for pieces, line in zip(result, display)
        ):
            return plain
        return [tuple(pieces) for pieces in result]


@lru_cache(maxsize=1024)
def _lexer_class(name: str) -> type[Lexer] | None:
    # pygments tries every lexer's file name patterns: remember the answer per file name.
    from pygments.lexers import find_lexer_class_for_filename

    try:
        return find_lexer_class_for_filename(name)
    except Exception:
        return None


def lexer_for(path: str) -> Lexer | None:
    """A pygments lexer chosen by the file name only (guessing from content is slow), or None."""
    lexer = _lexer_class(PurePath(path).name)
    if lexer is None:
        return None
    try:
        return lexer(stripnl=False, ensurenl=False, tabsize=0)
    except Exception:
        return None


def split_by_spans(
    tokens: LineTokens, spans: list[tuple[int, int]]
) -> Iterable[tuple[str, TokenType, bool]]:
    """Cut syntax tokens at the edges of changed spans: (text, token type, inside a change)."""
    if not spans:
        for text, token_type in tokens:
            yield text, token_type, False
        return
    edges = sorted({edge for span in spans for edge in span})
    pos = 0
    for text, token_type in tokens:
        end = pos + len(text)
        cut = pos
        for edge in edges:
            if pos < edge < end:
                piece = text[cut - pos : edge - pos]
                yield piece, token_type, _inside(spans, cut)
                cut = edge
        yield text[cut - pos :], token_type, _inside(spans, cut)
        pos = end


def _inside(spans: list[tuple[int, int]], offset: int) -> bool:
    return any(start <= offset < end for start, end in spans)
