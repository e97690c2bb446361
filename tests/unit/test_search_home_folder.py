"""`memtui search ~`: the home folder searches what `memtui ~` shows — the agents' sessions —
as ctrl+f in that app does. The verb refused it ("~ is not a workspace: no .agent/ folder and
no memory documents") while `memtui ~`, `memtui log ~` and `memtui export ~` all read it."""

from __future__ import annotations

import json

from memtui.cli import main

from real_support import user_home


def _run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_search_of_the_home_folder_searches_the_sessions_memtui_shows_there(tmp_path, monkeypatch, capsys):
    home = user_home(tmp_path, monkeypatch)
    code, out, err = _run(capsys, "search", str(home / ".claude"), "otel", "--all", "--json")
    assert code == 0, err
    from_claude = json.loads(out)
    assert len(from_claude) > 10  # the word is all over this home's transcripts
    monkeypatch.chdir(home)
    code, out, err = _run(capsys, "search", str(home), "otel", "--all", "--json")
    assert code == 0, err
    assert json.loads(out) == from_claude
