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
    """(name, home) of every real home (fixtures/real/NAME, laid out as its tool lays it out) and
    every live one (fixtures/live/AGENT/SCENARIO/home/.claude or .codex)."""
    found = [(f"real/{folder.name}", folder) for folder in sorted(REAL.iterdir())
             if (folder / "projects").is_dir() or (folder / "sessions").is_dir()]
    if LIVE.is_dir():
        for home in sorted([*LIVE.glob("*/*/home/.claude"), *LIVE.glob("*/*/home/.codex")]):
            if (home / "projects").is_dir() or (home / "sessions").is_dir():
                found.append((f"live/{home.parents[2].name}/{home.parents[1].name}", home))
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
    return Path(shutil.copytree(fixture, dest / fixture.name, symlinks=True))


def _memtui(capsys, home: Path, by: str) -> dict[str, dict]:
    assert main(["usage", str(home), "--by", by, "--json"]) == 0
    return {row["key"]: row for row in json.loads(capsys.readouterr().out)["rows"]}


RULES = {
    "lines": "a reply written on several lines without a requestId (the scripted model of the live fixtures"
             " sends none) is counted once by memtui (by message.id, its largest counts), once by ccusage's"
             " session report (at its first line's counts: 2.1.90 streams output 1 there), once a line by"
             " ccusage's daily report (by the line's uuid: a fork's copy of a line, same uuid, once)",
    "split": "a reply whose cache_creation_input_tokens its cache_creation split does not add up to (the"
             " scripted model writes a zero split) has that total counted as 5-minute writes by memtui and"
             " only the split by ccusage",
}
"""Counting rules memtui and ccusage apply differently, for replies the real API never writes so."""


def recount(home: Path, rules: str, by: str) -> dict[str, dict[str, int]]:
    """The Claude Code home's tokens per day or session, counted independently under memtui's rules
    or ccusage's (RULES): the row differences the comparison accepts are exactly these."""
    rows: dict[str, dict[str, int]] = {}
    seen: dict = {}
    for path in sorted(home.glob("projects/**/*.jsonl")):
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines()):
            record = json.loads(line)
            message = record.get("message")
            if record.get("type") != "assistant" or not isinstance(message, dict) or "usage" not in message:
                continue
            usage = message["usage"]
            split = usage.get("cache_creation")
            total = usage.get("cache_creation_input_tokens", 0)
            if rules == "ccusage":  # its session report counts such a message once, its daily report once a line
                once = record.get("requestId") or by == "session"
                key = (message.get("id"), record.get("requestId")) if once else record.get("uuid", (path, number))
                written = sum(split.values()) if isinstance(split, dict) else total
            else:
                key = (message.get("id"), record.get("requestId"))
                written = max(total, sum(v for v in (split or {}).values() if isinstance(v, int)))
            counts = {"input": usage.get("input_tokens", 0), "output": usage.get("output_tokens", 0),
                      "cache_read": usage.get("cache_read_input_tokens", 0), "cache_write": written}
            row = record["timestamp"][:10] if by == "day" else record["sessionId"]
            old = seen.get(key)
            if old is not None and rules == "ccusage":
                continue  # ccusage keeps the first line it met
            seen[key] = (row, counts if old is None else {k: max(v, old[1][k]) for k, v in counts.items()})
    for row, counts in seen.values():
        total_row = rows.setdefault(row, dict.fromkeys(counts, 0))
        for k, v in counts.items():
            total_row[k] += v
    return rows


def _agree(name: str, key: str, ours: dict, cost: float, tokens: dict, explained: dict | None = None) -> str | None:
    """Why a row disagrees, or None (it agrees, or its difference is listed, or `explained`:
    recounted under each tool's rules, each tool's figures are what its rules give)."""
    theirs = {"input": tokens["inputTokens"], "output": tokens["outputTokens"],
              "cache_read": tokens["cacheReadTokens"], "cache_write": tokens["cacheCreationTokens"]}
    mine = {k: ours[k] for k in theirs}
    if (name, key) in DIFFERENCES:
        return None
    if mine != theirs and explained is not None:
        if explained["memtui"].get(key) == mine and explained["ccusage"].get(key) == theirs:
            print(f"    {key}: differs by RULES ({'; '.join(RULES)}): {mine} | {theirs}")
            return None
    if mine != theirs:
        return f"{key}: tokens {mine} vs ccusage {theirs}"
    if ours["cost"] is not None and ours["cache_write"] and ours["agents"] == ["codex"]:
        # ccusage prices an OpenAI model's cache writes at 1.25× its input price (Anthropic's premium);
        # OpenAI bills them as ordinary input, as genai-prices does.
        from memtui.core.usage import Pricer, Tokens
        premium = 0.25 * sum(Pricer().cost(model, Tokens(input=ours["cache_write"])) or 0 for model in ours["models"])
        if abs(ours["cost"] + premium - cost) <= 0.01 * cost:
            print(f"    {key}: differs by the cache-write premium ccusage adds for OpenAI: ${ours['cost']} + ${premium:.6f}")
            return None
    if ours["cost"] is None or abs(ours["cost"] - cost) > 0.01 * max(cost, 1e-9):
        return f"{key}: cost {ours['cost']} vs ccusage {cost}"
    return None


def _explained(name: str, home: Path, by: str) -> dict | None:
    """Only the live homes (replies of a scripted model) may differ by RULES."""
    if not name.startswith("live/"):
        return None
    if not (home / "projects").is_dir():
        return None
    return {"memtui": recount(home, "memtui", by), "ccusage": recount(home, "ccusage", by)}


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
    explained = _explained(name, home, "day")
    wrong = [why for row in theirs
             if (why := _agree(name, row["period"], ours[row["period"]], row["totalCost"], row, explained))]
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
    explained = _explained(name, home, "session")
    wrong = [why for key, row in matched.items()
             if (why := _agree(name, key, ours[key], row["totalCost"], row, explained))]
    assert not wrong, wrong
