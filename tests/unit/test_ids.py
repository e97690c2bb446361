"""An id as a person gives it: whole, or the start of one, part by part for compound ids
(SESSION:TURN…): one rule for every verb that takes an id."""

from __future__ import annotations

from pathlib import Path

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


# The fixture homes' ids: Claude Code session 9c8b7a6d-5e4f-… with turn o1 and step 2:0; Codex
# session 0196f1c2-8a4b-… with turns 5 and 21, turn 21's checkpoint call_B2 and its entry 0.
FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
CLAUDE = str(FIXTURES / "claude_home")
CODEX = str(FIXTURES / "codex_home")


def _said(argv, capsys) -> tuple[int, str, str]:
    from memtui.cli import main

    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize("argv, shown", [
    (["show", CLAUDE, "--task", "9c8b7a6d:o1"], "task 9c8b7a6d-5e4f-4a3b-2c1d-0e9f8a7b6c5d:o1  completed"),
    (["log", CLAUDE, "--task", "9c8b:o"], "task 9c8b7a6d-5e4f-4a3b-2c1d-0e9f8a7b6c5d:o1  completed"),
    (["show", CLAUDE, "--step", "9c8b7a6d:2:0"], "step 9c8b7a6d-5e4f-4a3b-2c1d-0e9f8a7b6c5d:2:0  task"),
    (["show", CODEX, "--task", "0196f1c2:2"], "task 0196f1c2-8a4b-7c3d-9e8f-1a2b3c4d5e6f:21  completed"),
    (["show", CODEX, "--checkpoint", "0196:call_B"], "checkpoint 0196f1c2-8a4b-7c3d-9e8f-1a2b3c4d5e6f:call_B2"),
    (["show", CODEX, "--entry", "0196f1c2:call_B2:0"], "entry 0196f1c2-8a4b-7c3d-9e8f-1a2b3c4d5e6f:call_B2:0"),
    (["export", CODEX, "--task", "0196f1c2:21", "--format", "md"], "task 0196f1c2-8a4b-7c3d-9e8f-1a2b3c4d5e6f:21:"),
    (["log", CODEX, "--session", "0196f1c2"], "session 0196f1c2-8a4b-7c3d-9e8f-1a2b3c4d5e6f"),
])
def test_every_part_of_a_compound_id_may_be_shortened_in_every_verb(argv, shown, capsys):
    code, out, err = _said(argv, capsys)
    assert (code, err) == (0, "") and shown in out


def test_a_shortened_id_of_a_rollback_names_the_checkpoint(tmp_path, capsys):
    code, out, _ = _said(["rollback", CODEX, "--checkpoint", "0196f1c2:call_B", "--dry-run", "--root", str(tmp_path)],
                         capsys)
    assert "tally/format.py" in out and "dry run: nothing was written" in out


def test_a_shortened_id_that_names_several_or_none_says_so_in_one_line(capsys):
    code, _, err = _said(["show", CODEX, "--task", "0196f1c2"], capsys)
    assert code == 2 and err.startswith("memtui: '0196f1c2' starts 2 task ids (") and err.count("\n") == 1
    code, _, err = _said(["show", CODEX, "--task", "ffff:1"], capsys)
    assert code == 2 and "'ffff:1'" in err and err.count("\n") == 1
