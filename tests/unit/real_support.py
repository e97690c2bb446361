"""Real transcripts published by other projects (tests/fixtures/real, see PROVENANCE.md), and
small counters that read them independently of memtui — the expected numbers of the tests.

The counters are deliberately plain: they follow the formats as documented, share no code
with memtui's adapters, and are checked by hand against the files once.
"""

from __future__ import annotations

import json
import shutil
from collections import defaultdict
from pathlib import Path

import zstandard

REAL = Path(__file__).resolve().parent.parent / "fixtures" / "real"


def real_home(name: str, dest: Path) -> Path:
    """A copy of fixtures/real/<name> under `dest`, `*.zst` files decompressed."""
    root = dest / name
    for path in sorted((REAL / name).rglob("*")):
        if not path.is_file():
            continue
        target = root / path.relative_to(REAL / name)
        target.parent.mkdir(parents=True, exist_ok=True)
        if path.suffix == ".zst":
            target.with_suffix("").write_bytes(zstandard.ZstdDecompressor().decompress(path.read_bytes(), max_output_size=1 << 28))
        else:
            shutil.copyfile(path, target)
    return root


def many_sessions(name: str, dest: Path, copies: int) -> Path:
    """A Claude Code home of `copies` times the sessions of fixtures/real/<name>: each top-level
    transcript (projects/P/ID.jsonl) copied under new session ids (ID replaced in its lines too,
    as the tool writes it); the originals kept."""
    import uuid

    home = real_home(name, dest)
    originals = [p for p in sorted(home.glob("projects/*/*.jsonl"))]
    for n in range(1, copies):
        for number, path in enumerate(originals):
            new = str(uuid.UUID(int=n << 16 | number))
            path.with_name(f"{new}.jsonl").write_text(path.read_text(encoding="utf-8").replace(path.stem, new),
                                                      encoding="utf-8")
    return home


def user_home(tmp_path: Path, monkeypatch) -> Path:
    """A user's home folder (HOME) holding the agents' homes as the tools lay them out: ~/.claude
    (real Claude Code transcripts) and ~/.codex (a real Codex rollout); no agent home is named
    by CLAUDE_CONFIG_DIR or CODEX_HOME."""
    home = tmp_path / "me"
    home.mkdir()
    shutil.move(str(real_home("claude-2.1.39-spotter", tmp_path / "c")), home / ".claude")
    shutil.move(str(real_home("codex-0.66.0-agtrace", tmp_path / "x")), home / ".codex")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.delenv("CLAUDE_CONFIG_DIR", raising=False)
    monkeypatch.delenv("CODEX_HOME", raising=False)
    return home


def records(path: Path) -> list[dict]:
    """The JSON objects of a JSONL file; a line cut off mid-write (a live transcript's last) is
    left out, as memtui reports it."""
    out = []
    # Split on newlines only: str.splitlines() also splits inside a JSON string at U+2028,
    # U+0085 and the like, which JSON leaves unescaped (and a transcript may hold).
    for line in path.read_text(encoding="utf-8", errors="replace").split("\n"):
        try:
            record = json.loads(line) if line.strip() else None
        except json.JSONDecodeError:
            continue
        if isinstance(record, dict):
            out.append(record)
    return out


# -- Claude Code ------------------------------------------------------------------------------

# What Claude Code itself lists as the user's prompts (its rewind list: the messages one can go
# back to) leaves out user lines holding these tags — output of local commands and of `!`
# shell commands, background-task notifications, ticks, teammates' messages — and its synthetic
# interrupt markers. Any other text is a prompt, a tag-led one too (pasted HTML, a program's
# `<observed_from_primary_session>` prompt). (The rule of its resume picker's *first prompt*,
# which skips any tag-led text, is a title rule, not a prompt rule.) `<bash-input>` (the `!`
# command itself) and `<command-name>` lines are counted apart: they ask no model.
NOT_PROMPTS = ("<local-command-stdout>", "<local-command-stderr>", "<bash-stdout>", "<bash-stderr>",
               "<task-notification>", "<tick>", "<teammate-message", "<bash-input>")
INTERRUPTED = "[Request interrupted by user"
IDE_CONTEXT = ("<ide_opened_file>", "<ide_selection>", "<ide_diagnostics>")


def _user_text(rec: dict) -> str | None:
    """The text of a user record, None for tool results; IDE context blocks before the typed
    text are not part of it."""
    content = rec.get("message", {}).get("content")
    if isinstance(content, str):
        return content
    if any(block.get("type") == "tool_result" for block in content):
        return None
    texts = [block.get("text", "") for block in content if block.get("type") == "text"]
    typed = [t for t in texts if not t.lstrip().startswith(IDE_CONTEXT)]
    return "\n".join(typed or texts)


def _local_output(rec: dict) -> bool:
    """A local command's output: a user line (or, from 2.1.1xx, a `system` line of subtype
    `local_command`) holding `<local-command-stdout>` — the command ran without the model."""
    if rec.get("type") == "system" and rec.get("subtype") == "local_command":
        return True
    return rec.get("type") == "user" and "<local-command-stdout>" in (_user_text(rec) or "")


def _session_of(path: Path, projects: Path) -> str:
    """The session a transcript belongs to: a main file's name, a `<session>/subagents` file's
    folder, a 2.0.x `agent-*.jsonl` beside the session the id its records carry."""
    if "subagents" in path.relative_to(projects).parts:
        return path.parent.parent.name
    if path.name.startswith("agent-"):
        first = next((r for r in records(path) if isinstance(r.get("sessionId"), str)), {})
        return first.get("sessionId", path.stem)
    return path.stem


def claude_session_counts(home: Path) -> dict[str, dict[str, int]]:
    """Counted by hand rules, per session, over every transcript under home/projects (a
    session's main transcript first, then its sub-agent files by name). A record belongs to
    the first transcript of its session that holds it: a record by `uuid`, a reply by
    `message.id`, a tool call by its `tool_use` id, each counted once (a 2.1.8x compaction
    summariser or side question copies the whole conversation before its own records).

    typed: user text lines of a main transcript that Claude Code lists as prompts (see
    NOT_PROMPTS: no isMeta, no compaction summary, no interrupt marker, no tag of output or
    notification; IDE context blocks before the typed text are skipped); commands:
    `<command-name>` lines not answered by a local command's output (they start work, so they
    are shown as prompts); tool_calls:
    distinct tool_use ids; file_changes: distinct Edit/Write/MultiEdit calls whose result has
    a filePath (a sub-agent's result record has no toolUseResult: its call's file_path) and
    no error; output_tokens: per reply the largest output_tokens seen, summed;
    superseded: typed prompts on a branch abandoned at a real fork (a parent with two or more
    typed-prompt children; the last one written stays; a prompt that ended interrupted and was
    sent again word for word is not a branch).
    """
    projects = home / "projects"
    files = sorted(projects.rglob("*.jsonl"), key=lambda p: (_session_of(p, projects), p.name.startswith("agent-") or "subagents" in p.parts, str(p)))
    out: dict[str, dict[str, int]] = {}
    held: dict[str, tuple[set, set, set]] = {}
    for path in files:
        sid = _session_of(path, projects)
        counts = out.setdefault(sid, dict(typed=0, commands=0, tool_calls=0, file_changes=0, output_tokens=0, superseded=0))
        uuids, messages, tools = held.setdefault(sid, (set(), set(), set()))
        recs = [r for r in records(path) if r.get("uuid") not in uuids]
        main = "subagents" not in path.parts and not path.name.startswith("agent-")
        names: dict[str, str] = {}
        targets: dict[str, str | None] = {}
        changes: set[str] = set()
        replies: dict[tuple, int] = {}
        typed: list[tuple[str, str]] = []
        parents: dict[str, str | None] = {}
        ends: dict[str, str] = {}  # typed prompt uuid → the kind of its turn's last line
        for n, rec in enumerate(recs):
            if isinstance(rec.get("uuid"), str):
                parents[rec["uuid"]] = rec.get("parentUuid")
            if rec.get("type") == "assistant":
                msg = rec["message"]
                if msg.get("id") in messages:
                    continue
                key = (msg.get("id"), rec.get("requestId"))
                replies[key] = max(replies.get(key, 0), int(msg.get("usage", {}).get("output_tokens", 0)))
                for block in msg.get("content", []):
                    if block.get("type") == "tool_use" and block["id"] not in tools:
                        tools.add(block["id"])
                        names[block["id"]] = block["name"]
                        targets[block["id"]] = (block.get("input") or {}).get("file_path")
                if typed:
                    ends[typed[-1][0]] = "reply"
            elif rec.get("type") == "user":
                text = _user_text(rec)
                result = rec.get("toolUseResult")
                if text is None:
                    for block in rec["message"]["content"]:
                        # A sub-agent's result record has no toolUseResult: the call names the file.
                        path = result.get("filePath") if isinstance(result, dict) else (
                            targets.get(block.get("tool_use_id")) if "toolUseResult" not in rec else None)
                        if (block.get("type") == "tool_result" and not block.get("is_error")
                                and names.get(block.get("tool_use_id")) in ("Edit", "Write", "MultiEdit") and path):
                            changes.add(block["tool_use_id"])
                    continue
                if not main or rec.get("isSidechain") or rec.get("isMeta") or rec.get("isCompactSummary"):
                    continue
                if text.strip().startswith(INTERRUPTED) and typed:
                    ends[typed[-1][0]] = "interrupt"
                if "<command-name>" in text:
                    later = recs[n + 1:]
                    nxt = next((r for r in later if r.get("type") == "assistant" or _local_output(r)), None)
                    if nxt is not None and nxt.get("type") == "assistant":
                        counts["commands"] += 1
                    continue
                if not text.strip().startswith(INTERRUPTED) and not any(tag in text for tag in NOT_PROMPTS) \
                        and not rec.get("isVisibleInTranscriptOnly"):
                    counts["typed"] += 1
                    typed.append((rec["uuid"], text))
        counts["output_tokens"] += sum(replies.values())
        counts["file_changes"] += len(changes)
        resent = {u for u, t in typed if ends.get(u) == "interrupt"
                  and any(parents.get(o) == parents.get(u) and ot == t and o != u for o, ot in typed[typed.index((u, t)) + 1:])}
        counts["superseded"] += _abandoned([u for u, _t in typed if u not in resent], parents)
        uuids.update(r["uuid"] for r in recs if isinstance(r.get("uuid"), str))
        messages.update(k[0] for k in replies if k[0])
    for sid, (_u, _m, tools) in held.items():
        out[sid]["tool_calls"] = len(tools)
    return out


def claude_counts(home: Path) -> dict[str, int]:
    """claude_session_counts, summed over the home's sessions."""
    out = dict(typed=0, commands=0, tool_calls=0, file_changes=0, output_tokens=0, superseded=0)
    for counts in claude_session_counts(home).values():
        for key in out:
            out[key] += counts[key]
    return out


def _abandoned(prompts: list[str], parents: dict[str, str | None]) -> int:
    siblings: dict[str | None, list[str]] = defaultdict(list)
    for uuid in prompts:
        siblings[parents.get(uuid)].append(uuid)
    losers = {u for group in siblings.values() if len(group) > 1 for u in group[:-1]}

    def lost(uuid: str | None) -> bool:
        seen = set()
        while uuid is not None and uuid not in seen:
            if uuid in losers:
                return True
            seen.add(uuid)
            uuid = parents.get(uuid)
        return False

    return sum(1 for u in prompts if lost(u))


# -- Codex ------------------------------------------------------------------------------------

PATCH_TOOLS = ("apply_patch", "applypatch")


def _items(path: Path) -> list[tuple[str, dict]]:
    """(type, payload) per line: `{timestamp, type, payload}` lines, or early flat items."""
    out = []
    for rec in records(path):
        payload = rec.get("payload")
        out.append((rec.get("type"), payload) if isinstance(payload, dict) else (rec.get("type"), rec))
    return out


def _patch_of(payload: dict) -> str | None:
    """The patch text a call carries, by the rules Codex documents for apply_patch."""
    name = payload.get("name")
    if payload.get("type") == "custom_tool_call":
        return payload.get("input") if name in PATCH_TOOLS else None
    if payload.get("type") != "function_call":
        return None
    try:
        args = json.loads(payload.get("arguments") or "{}")
    except json.JSONDecodeError:
        return None
    if name in PATCH_TOOLS:
        return args.get("input")
    command = args.get("command", args.get("cmd"))
    if isinstance(command, list) and command and command[0] in PATCH_TOOLS:
        return command[1]
    script = command[-1] if isinstance(command, list) and command else command
    if isinstance(script, str) and any(tool in script for tool in PATCH_TOOLS) and "*** Begin Patch" in script:
        begin = script.index("*** Begin Patch")
        end = script.find("*** End Patch", begin)
        return script[begin:] if end < 0 else script[begin:end + len("*** End Patch")]
    return None


def _succeeded(output) -> bool:
    text = output if isinstance(output, str) else ""
    try:
        data = json.loads(text)
    except json.JSONDecodeError:
        data = None
    if isinstance(data, dict) and isinstance(data.get("metadata"), dict):
        return data["metadata"].get("exit_code") == 0
    return text.startswith("Success")


def codex_counts(home: Path) -> dict[str, int]:
    """Counted by hand rules, over every rollout under `home`:

    typed: `event_msg/user_message` lines (or, in rollouts without them, user messages that
    are not injected `<…>` context); tool_calls: function, custom-tool and local-shell calls;
    patches: calls carrying an apply_patch/applypatch patch (custom tool, argv, or a shell
    script) whose output reports success; patch_files: `*** Add/Update/Delete File:` lines
    of those; output_tokens: what the cumulative `total_token_usage.output_tokens` grew by,
    summed (a total that drops is a new baseline: all of it is new).
    """
    out = dict(typed=0, tool_calls=0, patches=0, patch_files=0, output_tokens=0, web_searches=0, compactions=0)
    for path in sorted(home.rglob("rollout-*.jsonl")):
        items = _items(path)
        events = [p for t, p in items if t == "event_msg" and p.get("type") == "user_message"]
        if events:
            out["typed"] += len(events)
        else:
            for t, p in items:
                if p.get("type") == "message" and p.get("role") == "user":
                    text = "".join(c.get("text", "") for c in p.get("content", []))
                    out["typed"] += not text.lstrip().startswith(("<", "# AGENTS.md"))
        outputs = {p.get("call_id"): p.get("output") for t, p in items if p.get("type") in ("function_call_output", "custom_tool_call_output")}
        for t, p in items:
            if p.get("type") in ("function_call", "custom_tool_call", "local_shell_call"):
                out["tool_calls"] += 1
                patch = _patch_of(p)
                if patch is not None and _succeeded(outputs.get(p.get("call_id"))):
                    out["patches"] += 1
                    out["patch_files"] += sum(line.startswith(("*** Add File:", "*** Update File:", "*** Delete File:"))
                                              for line in patch.splitlines())
            elif p.get("type") == "web_search_call":
                out["web_searches"] += 1
            elif t == "compacted":
                out["compactions"] += 1
        totals = [p["info"]["total_token_usage"] for t, p in items
                  if p.get("type") == "token_count" and isinstance(p.get("info"), dict)]
        previous: dict = {}
        for total in totals:  # a total that drops starts again from zero (as ccusage reads it)
            dropped = any(total.get(k, 0) < previous.get(k, 0) for k in ("input_tokens", "output_tokens"))
            out["output_tokens"] += total["output_tokens"] - (0 if dropped else previous.get("output_tokens", 0))
            previous = total
    return out


# -- counts of one word, for search ------------------------------------------------------

def _text(content) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(b.get("text", "") for b in content if isinstance(b, dict))
    return ""


def claude_results_holding(home: Path, word: str) -> int:
    """tool_result blocks of the home's transcripts holding `word`; the word must be in no other
    part of them (prompts, replies, tool calls), so that each such result is one step hit."""
    found = 0
    for path in sorted(home.rglob("*.jsonl")):
        for rec in records(path):
            content = (rec.get("message") or {}).get("content")
            if isinstance(content, str):
                assert word not in content.lower()
                continue
            for block in content or []:
                if isinstance(block, dict) and block.get("type") == "tool_result":
                    found += word in _text(block.get("content")).lower()
                else:
                    assert word not in json.dumps(block, ensure_ascii=False).lower()
    return found


def codex_outputs_holding(home: Path, word: str) -> int:
    """function_call_output items of the home's rollouts holding `word` (in no call's arguments
    nor message)."""
    found = 0
    for path in sorted(home.rglob("rollout-*.jsonl")):
        for rec in records(path):
            payload = rec.get("payload") or {}
            if rec.get("type") != "response_item":
                continue
            if payload.get("type") == "function_call_output":
                found += word in str(payload.get("output")).lower()
            else:
                assert word not in json.dumps(payload, ensure_ascii=False).lower()
    return found
