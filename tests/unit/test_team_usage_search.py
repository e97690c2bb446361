"""Usage and search on a team store (a real PostgreSQL server) pushed from three machines built
from the real transcripts (team_machines.transcript_machines): `memtui usage --team URL --by
machine` costs each machine what `memtui usage` costs it on the machine itself, `--agent` keeps
one agent's sessions of every machine, and search hits name the machine and agent their task was
pushed from."""

from __future__ import annotations

import json

import pytest
from team_machines import transcript_machines

from memtui.cli import main
from memtui.core.team.push import push


@pytest.fixture(scope="module")
def machines(tmp_path_factory):
    return transcript_machines(tmp_path_factory.mktemp("machines"))


@pytest.fixture(scope="module")
def team(machines, pg_cluster) -> str:
    url = pg_cluster.new_database()
    for machine in machines:
        push(machine.paths, url, machine=machine.name, env=machine.env)
    return url


def _json(capsys, argv: list[str]) -> dict | list:
    assert main(argv) == 0, capsys.readouterr().err
    return json.loads(capsys.readouterr().out)


def _on(machine, monkeypatch) -> None:
    """Run the next verbs as on `machine` (its HOME and agents' folders)."""
    for key, value in machine.env.items():
        monkeypatch.setenv(key, value)


def test_usage_by_machine_costs_what_each_machine_costs_itself(machines, team, capsys, monkeypatch):
    report = _json(capsys, ["usage", "--team", team, "--by", "machine", "--json"])
    rows = {row["key"]: row for row in report["rows"]}
    assert set(rows) == {"laptop", "devbox", "ci"}
    for machine in machines:
        with monkeypatch.context() as patch:
            _on(machine, patch)
            own = [_json(capsys, ["usage", str(path), "--json"])["total"] for path in machine.paths]
        cost = sum(total["cost"] for total in own)
        assert cost > 0
        assert rows[machine.name]["cost"] == pytest.approx(cost, rel=1e-6), machine.name
        assert rows[machine.name]["replies"] == sum(total["replies"] for total in own)
        assert rows[machine.name]["sessions"] == sum(total["sessions"] for total in own)
    # devbox pushed the laptop's Claude Code sessions: the same cost, counted for each machine.
    assert rows["devbox"]["cost"] > rows["laptop"]["cost"]
    assert report["total"]["cost"] == pytest.approx(sum(r["cost"] for r in rows.values()))

    codex = _json(capsys, ["usage", "--team", team, "--by", "machine", "--agent", "codex", "--json"])
    assert {row["key"] for row in codex["rows"]} == {"devbox", "ci"}
    assert {a for row in codex["rows"] for a in row["agents"]} == {"codex"}

    assert main(["usage", "--team", team, "--by", "machine"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].split()[0] == "machine" and {line.split()[0] for line in lines[1:4]} == {"laptop", "devbox", "ci"}


def test_usage_by_machine_needs_a_team_store(machines, capsys, monkeypatch):
    laptop = machines[0]
    _on(laptop, monkeypatch)
    monkeypatch.delenv("MEMTUI_TEAM_URL", raising=False)
    assert main(["usage", str(laptop.paths[0]), "--by", "machine"]) == 2
    err = capsys.readouterr().err
    assert "--by machine needs a team store (--team URL)" in err and "Traceback" not in err
    assert main(["usage", "--team", "--by", "machine"]) == 2
    assert "--team needs a URL" in capsys.readouterr().err


def test_search_hits_name_the_machine_and_agent_of_their_task(team, capsys):
    # The agtrace sample edited myapp/hoge.py in Claude Code and in Codex: every machine has it.
    hits = _json(capsys, ["search", team, "hoge", "--json"])
    found = {(h["machine"], h["agent"]) for h in hits if "task" in h}
    assert found == {("laptop", "claude-code"), ("devbox", "claude-code"), ("devbox", "codex"), ("ci", "codex")}
    assert main(["search", team, "hoge", "--kind", "task"]) == 0
    out = capsys.readouterr().out
    assert "[ci · codex] task " in out and "[laptop · claude-code] task " in out
