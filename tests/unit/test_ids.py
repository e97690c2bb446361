"""An id as a person gives it: whole, or the start of one (one rule for `memtui log/export
--session`, `memtui restore --session` and `memtui pin`)."""

from __future__ import annotations

import pytest

from memtui.core.errors import MemtuiError
from memtui.core.ids import unique_start


def test_a_whole_id_names_its_session_even_when_a_longer_id_starts_with_it():
    # the archived-session lookup (restore.archived_id) alone refused "abc" as starting two ids.
    assert unique_start("abc", ["abcd", "abc"], "archived sessions") == "abc"


def test_the_unique_start_of_an_id_names_it():
    assert unique_start("d6e0", ["019c", "d6e0bada"], "sessions") == "d6e0bada"
    assert unique_start("ffff", ["019c", "d6e0bada"], "sessions") is None
    assert unique_start("", ["019c"], "sessions") is None


def test_a_start_shared_by_several_ids_is_refused_naming_the_first_three():
    with pytest.raises(MemtuiError) as refused:
        unique_start("a", ["a1", "a2", "a3", "a4", "a1"], "codex sessions in /h")
    assert str(refused.value) == "'a' starts 4 codex sessions in /h (a1, a2, a3, …): give more of the id"
