"""Ids as people give them: whole, or the start of one (`memtui cleanup` and `memtui log`
print another agent's long ids shortened)."""

from __future__ import annotations

from typing import Iterable

from memtui.core.errors import MemtuiError


def unique_start(given: str, ids: Iterable[str], what: str) -> str | None:
    """The one of `ids` that is `given`, else the one `given` starts; None when none is.
    Several starting with it: MemtuiError "'ab' starts 2 `what` (ab1, ab2): give more of the
    id", listing the first three in the order of `ids`."""
    ids = list(dict.fromkeys(ids))
    if given in ids:
        return given
    matches = [i for i in ids if given and i.startswith(given)]
    if len(matches) == 1:
        return matches[0]
    if matches:
        shown = ", ".join(matches[:3]) + (", …" if len(matches) > 3 else "")
        raise MemtuiError(f"{given!r} starts {len(matches)} {what} ({shown}): give more of the id")
    return None
