"""Every option of every verb says in --help what it is for; and `memtui open --help` (the
verb `memtui PATH` runs) says that PATH may be any store memtui reads, not only a workspace or
an agent.db — `memtui ~/.claude` opens a Claude Code home."""

from __future__ import annotations

import argparse

import pytest

from memtui.cli import VERBS, build_parser, main


def _verb_parser(verb: str) -> argparse.ArgumentParser:
    parser = build_parser(verb)
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return sub.choices[verb]


@pytest.mark.parametrize("verb", VERBS)
def test_every_option_has_a_help_line(verb):
    bare = [a.option_strings or [a.dest] for a in _verb_parser(verb)._actions if not a.help]
    assert bare == [], f"memtui {verb} --help lists {bare} with no description"


def test_open_help_names_the_stores_it_opens(capsys):
    with pytest.raises(SystemExit):
        main(["open", "--help"])
    out = " ".join(capsys.readouterr().out.split())
    assert "agent home" in out and "transcript" in out, out


def test_the_verbs_list_names_every_home_cleanup_cleans(capsys):
    """`memtui --help`: cleanup and pin name every agent whose home cleanup cleans (Gemini CLI
    too: the lines said "a Claude Code / Codex home"), and export names its folder of pages."""
    from memtui.core.homes import cleanable_agents

    with pytest.raises(SystemExit):
        main(["--help"])
    out = " ".join(capsys.readouterr().out.split())
    for verb, after in (("cleanup", "restore"), ("pin", "stats")):
        start = out.index(f" {verb} ")
        line = out[start:out.index(f" {after} ", start)]
        assert all(agent.label in line for agent in cleanable_agents()), line
    start = out.index(" export ")
    assert "--all" in out[start:out.index(" usage ", start)]
