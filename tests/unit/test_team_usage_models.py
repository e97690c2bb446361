"""`memtui usage --by model` (and by day) on a team store reads what the same homes give on the
machine itself: each step keeps its model and its tokens by kind (team schema 10), so every
reply is grouped under its model and priced from the same table as the local report prices it.
The same assertions run over the machine's own homes and over a team store they were pushed
into (a real PostgreSQL server), with the real Claude Code and Codex transcripts of
tests/fixtures/real (team_machines.transcript_machines: devbox has both)."""

from __future__ import annotations

import json

import pytest
from team_machines import transcript_machines

from memtui.cli import main
from memtui.core.team.push import push

# The models the devbox's transcripts name (tests/fixtures/real: agtrace, localpush, spotter-small).
MODELS = {"claude-opus-4-6", "claude-sonnet-4-5-20250929", "claude-haiku-4-5-20251001", "gpt-5.3-codex",
          "gpt-5.1-codex-max"}


@pytest.fixture(scope="module")
def devbox(tmp_path_factory):
    return transcript_machines(tmp_path_factory.mktemp("machines"))[1]


@pytest.fixture(scope="module")
def team(devbox, pg_cluster) -> str:
    url = pg_cluster.new_database()
    push(devbox.paths, url, machine=devbox.name, env=devbox.env)
    return url


def _usage(where: str, by: str, devbox, team, capsys, monkeypatch) -> dict:
    for key, value in devbox.env.items():
        monkeypatch.setenv(key, value)
    monkeypatch.delenv("MEMTUI_TEAM_URL", raising=False)
    argv = ["usage", str(devbox.home)] if where == "local" else ["usage", "--team", team]
    assert main([*argv, "--by", by, "--json"]) == 0, capsys.readouterr().err
    return json.loads(capsys.readouterr().out)


def _figures(report: dict) -> dict[str, tuple]:
    kinds = ("input", "output", "cache_read", "cache_write_5m", "cache_write_1h", "reasoning")
    return {row["key"]: (tuple(row[k] for k in kinds), row["cost"], row["replies"], row["sessions"], row["unpriced"],
                         row["first"], row["last"]) for row in report["rows"]}


@pytest.mark.parametrize("where", ["local", "team"])
def test_usage_by_model_names_each_model_and_costs_what_the_machine_does(where, devbox, team, capsys, monkeypatch):
    local = {by: _usage("local", by, devbox, team, capsys, monkeypatch) for by in ("model", "day")}
    report = _usage(where, "model", devbox, team, capsys, monkeypatch)
    rows = {row["key"]: row for row in report["rows"]}
    assert set(rows) == MODELS  # no "(no model recorded)" row
    for name, row in rows.items():
        assert row["cost"] > 0 and not row["unpriced"], name
    # Cache reads and writes are kept apart from the uncached prompt, and priced as such.
    opus = rows["claude-opus-4-6"]
    assert opus["cache_read"] > opus["input"] > 0 and opus["cache_write"] > 0
    assert rows["gpt-5.3-codex"]["cache_read"] > 0
    assert _figures(report) == _figures(local["model"])
    assert report["total"]["cost"] == pytest.approx(local["model"]["total"]["cost"], rel=1e-9)

    by_day = _usage(where, "day", devbox, team, capsys, monkeypatch)
    assert _figures(by_day) == _figures(local["day"])


def test_the_usage_table_names_the_models_on_a_team_store(team, devbox, capsys, monkeypatch):
    for key, value in devbox.env.items():
        monkeypatch.setenv(key, value)
    assert main(["usage", "--team", team, "--by", "model"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert {line.split()[0] for line in lines[1:1 + len(MODELS)]} == MODELS


def test_a_page_of_steps_on_a_team_store_names_each_steps_model_and_tokens(team, devbox):
    """What the step timeline reads: each step of a page with the model and tokens by kind the
    machine's own reader gives it, a page at a time as the app asks (offset, limit)."""
    from memtui.core.discovery import discover_given
    from memtui.core.store.team import TeamStore

    with TeamStore.open(team, readonly=True) as store:
        by_origin = {(o, t): tid for tid, o, t in store.query(
            "SELECT t.id, o.agent || ':' || o.session_key, t.origin_task FROM task t JOIN origin o ON o.id = t.origin_id")}
        compared = 0
        for entry in discover_given(devbox.home / "claude", env=devbox.env):
            with entry.open() as source:
                for session in source.sessions()[:3]:
                    for task in source.tasks(session.id):
                        team_id = by_origin[(f"{entry.kind}:{session.id}", str(task.id))]
                        local = [(s.seq, s.tool, s.model, s.usage) for s in source.steps(task.id)]
                        pages = [store.steps(team_id, offset, 7) for offset in range(0, len(local) + 7, 7)]
                        assert [(s.seq, s.tool, s.model, s.usage) for page in pages for s in page] == local
                        compared += sum(1 for *_, usage in local if usage is not None)
        assert compared > 0  # steps with tokens by kind were among them
