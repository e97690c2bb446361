"""`memtui search` lists a first page of hits by default and says how many it left out;
--all (or --json) lists every one, --limit N the first N."""

from __future__ import annotations

import json

from memory_workspace import FILES, make_workspace

from memtui.cli import main

LLAMAS = 1_100


def _run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def _workspace(tmp_path):
    notes = FILES["MEMORY.md"] + "".join(f"- llama {i}\n" for i in range(LLAMAS))
    return make_workspace(tmp_path / "ws", {**FILES, "MEMORY.md": notes})


def test_every_hit_can_be_listed_and_a_cut_list_says_so(tmp_path, capsys):
    root = str(_workspace(tmp_path))
    code, out, err = _run(capsys, "search", root, "llama")
    assert code == 0 and len(out.splitlines()) == 200
    assert err.strip() == f"{LLAMAS - 200:,} more matches not shown (--limit N or --all lists them)", err
    code, out, err = _run(capsys, "search", root, "llama", "--all")
    lines = out.splitlines()
    assert code == 0 and len(lines) == LLAMAS and err == ""
    assert lines[-1].endswith(f": - llama {LLAMAS - 1}"), lines[-1]
    code, out, err = _run(capsys, "search", root, "llama", "--json")
    assert [h["text"] for h in json.loads(out)] == [f"- llama {i}" for i in range(LLAMAS)] and err == ""
    code, out, err = _run(capsys, "search", root, "llama", "--limit", "5", "--json")
    assert len(json.loads(out)) == 5
    assert err.strip() == f"{LLAMAS - 5:,} more matches not shown (--limit N or --all lists them)", err
    code, out, err = _run(capsys, "search", root, "llama 1099", "--limit", "1")
    assert code == 0 and len(out.splitlines()) == 1 and err == ""


def test_help_says_how_to_list_every_hit(capsys):
    try:
        main(["search", "--help"])
    except SystemExit:
        pass
    out = " ".join(capsys.readouterr().out.split())
    assert "--all every hit" in out and "default 200, or every hit with --json" in out, out
