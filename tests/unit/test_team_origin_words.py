"""The `machine:`/`agent:` words of the sessions filter on a team store: a machine's name may hold
spaces and quotes (`--machine "Ana's laptop"`), written in quotes in the filter; the rest of the
filter is kept as typed (tests/ui/test_team_sessions_ui.py filters a pushed team store so)."""

from __future__ import annotations

import pytest

from memtui.core.team.origin_words import origin_word, split_origin_words


@pytest.mark.parametrize("text, words, rest", [
    ("machine:laptop fix", {"machine": "laptop"}, "fix"),
    ('machine:"Ana\'s laptop" fix', {"machine": "Ana's laptop"}, "fix"),
    ("fix MACHINE:'ci  west' agent:codex", {"machine": "ci  west", "agent": "codex"}, "fix"),
    ("machine:'say \"hi\" box'", {"machine": 'say "hi" box'}, ""),
    ("don't machine:Ana's", {"machine": "Ana's"}, "don't"),  # a bare value runs to the next space
    ("machine: fix", {}, "machine: fix"),  # no value: no word
    ("machine:a machine:b", {"machine": "b"}, ""),
    ("the machine:x-ray", {"machine": "x-ray"}, "the"),
    ("supermachine:x", {}, "supermachine:x"),
])
def test_origin_words_and_the_rest(text, words, rest):
    assert split_origin_words(text) == (words, rest)


@pytest.mark.parametrize("name", ["laptop", "Ana's laptop", 'say "hi"', "ci  west", "tab\there"])
def test_a_written_word_reads_back_as_its_name(name):
    word = origin_word("machine", name)
    assert split_origin_words(f"fix {word} bug") == ({"machine": name}, "fix bug")
    assert (word == f"machine:{name}") == (name == "laptop")  # quoted only where it must be
