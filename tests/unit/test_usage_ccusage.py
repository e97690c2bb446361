"""memtui's cost per day and per session agrees with ccusage's on real homes.

ccusage (npm, `ccusage_support.VERSION`) is the most used usage tool beside the agents; it is
run for real, offline, on the same copies of the real homes in tests/fixtures/real (and the
homes the live-agent tests record into tests/fixtures/live, when there are any). Each day's and
each session's cost must agree within 1%, unless the row is in DIFFERENCES with the pricing
rule the two apply differently. Token counts are compared too, exactly. Skips, saying why,
where node/npm or the package cannot be had.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from memtui.cli import main
from tests.unit.ccusage_support import VERSION, ccusage, run
from tests.unit.real_support import REAL, real_home

LIVE = REAL.parent / "live"


def _homes() -> list[tuple[str, Path]]:
    """(name, fixture folder) of every real or live home laid out as its tool lays it out."""
    found = []
    for base in (REAL, LIVE):
        if not base.is_dir():
            continue
        for folder in sorted(p for p in base.iterdir() if p.is_dir()):
            if (folder / "projects").is_dir() or (folder / "sessions").is_dir():
                found.append((f"{base.name}/{folder.name}", folder))
    return found


HOMES = _homes()

DIFFERENCES: dict[tuple[str, str], str] = {
    ("real/claude-2.1.38-spotter-small", "2026-02-10"): (
        "ccusage's daily report also counts the streamed copies of a running sub-agent's replies that Claude"
        " Code 2.1 writes into the parent transcript as `progress` records (data.message): here a Haiku Plan"
        " agent whose own transcript (subagents/agent-*.jsonl) is not in the fixture, $0.038 of $0.929."
        " memtui counts a sub-agent from its own transcript, as ccusage's session report does (its three"
        " sessions add up to memtui's $0.890686 exactly); counting the copies too would count every reply of"
        " a sub-agent whose transcript is there twice over, and at their first streamed output counts"),
}
"""(home, row) → the rule memtui and ccusage apply differently there. Every other row agrees."""


@pytest.fixture(scope="module")
def binary():
    found, why = ccusage()
    if found is None:
        pytest.skip(f"ccusage {VERSION} is not available: {why}")
    return found


@pytest.fixture
def utc(monkeypatch, tmp_path):
    monkeypatch.setenv("TZ", "UTC")
    import time
    time.tzset()
    for name in ("HOME", "CLAUDE_CONFIG_DIR", "CODEX_HOME"):
        monkeypatch.setenv(name, str(tmp_path / f"no-{name.lower()}"))


def _copy(name: str, fixture: Path, dest: Path) -> Path:
    if fixture.parent == REAL:
        return real_home(fixture.name, dest)
    import shutil
    return Path(shutil.copytree(fixture, dest / fixture.name))


def _memtui(capsys, home: Path, by: str) -> dict[str, dict]:
    assert main(["usage", str(home), "--by", by, "--json"]) == 0
    return {row["key"]: row for row in json.loads(capsys.readouterr().out)["rows"]}


def _agree(name: str, key: str, ours: dict, cost: float, tokens: dict) -> str | None:
    """Why a row disagrees, or None."""
    theirs = {"input": tokens["inputTokens"], "output": tokens["outputTokens"],
              "cache_read": tokens["cacheReadTokens"], "cache_write": tokens["cacheCreationTokens"]}
    mine = {k: ours[k] for k in theirs}
    if (name, key) in DIFFERENCES:
        return None
    if mine != theirs:
        return f"{key}: tokens {mine} vs ccusage {theirs}"
    if ours["cost"] is None or abs(ours["cost"] - cost) > 0.01 * max(cost, 1e-9):
        return f"{key}: cost {ours['cost']} vs ccusage {cost}"
    return None


def _delegating_session(home: Path, period: str) -> str:
    """The session an `agent-*` transcript's records name (its delegating session), else `period`."""
    if not period.startswith("agent-"):
        return period
    for path in home.glob(f"projects/*/{period}.jsonl"):
        for line in path.read_text(encoding="utf-8").splitlines():
            record = json.loads(line)
            if isinstance(record.get("sessionId"), str):
                return record["sessionId"]
    return period


COUNTS = ("inputTokens", "outputTokens", "cacheReadTokens", "cacheCreationTokens", "totalCost")


def _plus(total: dict | None, row: dict) -> dict:
    return {k: (total or {}).get(k, 0) + row[k] for k in COUNTS}


@pytest.mark.parametrize(("name", "fixture"), HOMES, ids=[n for n, _ in HOMES])
def test_cost_per_day_agrees_with_ccusage(binary, utc, tmp_path, capsys, name, fixture):
    home = _copy(name, fixture, tmp_path)
    is_claude = (home / "projects").is_dir()
    theirs = run(binary, tmp_path, ["daily"], **({"claude": home} if is_claude else {"codex": home}))["daily"]
    ours = _memtui(capsys, home, "day")
    print(f"\n{name} by day (memtui | ccusage {VERSION}):")
    for row in theirs:
        mine = ours.get(row["period"], {})
        print(f"  {row['period']}  ${mine.get('cost')} | ${row['totalCost']:.6f}")
    assert sorted(ours) == sorted(r["period"] for r in theirs)
    wrong = [why for row in theirs if (why := _agree(name, row["period"], ours[row["period"]], row["totalCost"], row))]
    assert not wrong, wrong


@pytest.mark.parametrize(("name", "fixture"), HOMES, ids=[n for n, _ in HOMES])
def test_cost_per_session_agrees_with_ccusage(binary, utc, tmp_path, capsys, name, fixture):
    home = _copy(name, fixture, tmp_path)
    is_claude = (home / "projects").is_dir()
    theirs = run(binary, tmp_path, ["session"], **({"claude": home} if is_claude else {"codex": home}))["session"]
    ours = _memtui(capsys, home, "session")
    print(f"\n{name} by session (memtui | ccusage {VERSION}):")
    matched: dict[str, dict] = {}
    for row in theirs:
        # ccusage names a Claude Code session by its id, a Codex one by its rollout's path; a
        # Claude Code 2.0 sub-agent's transcript (agent-*.jsonl beside the session's) is a session
        # of its own to ccusage, a round of the session that delegated it to memtui: added there.
        period = _delegating_session(home, row["period"])
        key = next((k for k in ours if k == period or k in period), None)
        assert key is not None, f"ccusage's session {row['period']} is not one of memtui's: {sorted(ours)}"
        matched[key] = _plus(matched.get(key), row)
    for key, row in matched.items():
        print(f"  {key}  ${ours[key]['cost']} | ${row['totalCost']:.6f}")
    assert sorted(matched) == sorted(ours)
    wrong = [why for key, row in matched.items() if (why := _agree(name, key, ours[key], row["totalCost"], row))]
    assert not wrong, wrong
