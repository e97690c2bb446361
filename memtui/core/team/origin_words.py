"""The `machine:NAME` and `agent:KIND` words of a filter over a team store's sessions.

    split_origin_words('machine:"Ana\'s laptop" fix')  # ({"machine": "Ana's laptop"}, "fix")
    origin_word("machine", "Ana's laptop")            # 'machine:"Ana\'s laptop"'

A machine's name is what `--machine` was given (or the hostname) and may hold spaces or quotes:
such a value is written in double quotes (or single ones, when it holds a double quote); a bare
value runs to the next space. The field's name is matched case-insensitively; what is not an
origin word is the rest of the filter, as typed (an apostrophe in it is just an apostrophe).
"""

from __future__ import annotations

import re
from functools import lru_cache
from types import MappingProxyType
from typing import Mapping

__all__ = ["ORIGIN_FIELDS", "split_origin_words", "origin_word"]

ORIGIN_FIELDS = ("machine", "agent")
"""The filter words that match where a session came from exactly: `machine:NAME`, `agent:KIND`."""

_WORD = re.compile(r"""(?<!\S)(machine|agent):(?:"([^"]*)"|'([^']*)'|(\S+))(?!\S)""", re.IGNORECASE)


@lru_cache(maxsize=64)  # a list's filter asks it once per row
def split_origin_words(text: str) -> tuple[Mapping[str, str], str]:
    """The origin words of `text` ({field: value}, the last one of a field wins; an empty value
    is no word) and the rest of it, its spaces squeezed."""
    found: dict[str, str] = {}

    def take(match: re.Match[str]) -> str:
        value = next((v for v in match.groups()[1:] if v is not None), "")
        if value:
            found[match.group(1).lower()] = value
        return " "

    rest = _WORD.sub(take, text)
    return MappingProxyType(found), " ".join(rest.split())


def origin_word(field: str, value: str) -> str:
    """The filter word that matches `value` of `field` exactly, quoted where it must be."""
    if value and not any(c.isspace() or c in "\"'" for c in value):
        return f"{field}:{value}"
    quote = "'" if '"' in value and "'" not in value else '"'
    return f"{field}:{quote}{value}{quote}"
