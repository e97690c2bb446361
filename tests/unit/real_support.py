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
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


# -- Claude Code ------------------------------------------------------------------------------

INJECTED_PREFIXES = ("<", "[Request interrupted by user")


def _user_text(rec: dict) -> str | None:
    """The text of a user record, None for tool results."""
    content = rec.get("message", {}).get("content")
    if isinstance(content, str):
        return content
    if any(block.get("type") == "tool_result" for block in content):
        return None
    return "\n".join(block.get("text", "") for block in content if block.get("type") == "text")


def claude_counts(home: Path) -> dict[str, int]:
    """Counted by hand rules, over every transcript under home/projects:

    typed: user text lines of a main transcript that nobody injected (no isMeta, no compaction
    summary, not starting with a tag or an interrupt marker); commands: `<command-name>` lines
    not answered by `<local-command-stdout>` (they start work, so they are shown as prompts);
    tool_calls: distinct tool_use ids; file_changes: Edit/Write/MultiEdit results with a
    filePath and no error; output_tokens: per reply (message.id, requestId) the largest
    output_tokens seen, summed; superseded: typed prompts on a branch abandoned at a real fork
    (a parent with two or more typed-prompt children; the last one written stays).
    """
    out = dict(typed=0, commands=0, tool_calls=0, file_changes=0, output_tokens=0, superseded=0)
    tool_ids: set[str] = set()
    for path in sorted((home / "projects").rglob("*.jsonl")):
        recs = records(path)
        main = "subagents" not in path.parts and not path.name.startswith("agent-")
        names: dict[str, str] = {}
        replies: dict[tuple, int] = {}
        typed_uuids: list[str] = []
        parents: dict[str, str | None] = {}
        for n, rec in enumerate(recs):
            if isinstance(rec.get("uuid"), str):
                parents[rec["uuid"]] = rec.get("parentUuid")
            if rec.get("type") == "assistant":
                msg = rec["message"]
                key = (msg.get("id"), rec.get("requestId"))
                replies[key] = max(replies.get(key, 0), int(msg.get("usage", {}).get("output_tokens", 0)))
                for block in msg.get("content", []):
                    if block.get("type") == "tool_use":
                        tool_ids.add(block["id"])
                        names[block["id"]] = block["name"]
            elif rec.get("type") == "user":
                text = _user_text(rec)
                result = rec.get("toolUseResult")
                if text is None:
                    for block in rec["message"]["content"]:
                        if (block.get("type") == "tool_result" and not block.get("is_error")
                                and names.get(block.get("tool_use_id")) in ("Edit", "Write", "MultiEdit")
                                and isinstance(result, dict) and result.get("filePath")):
                            out["file_changes"] += 1
                    continue
                if not main or rec.get("isSidechain") or rec.get("isMeta") or rec.get("isCompactSummary"):
                    continue
                if "<command-name>" in text:
                    later = recs[n + 1:]
                    nxt = next((r for r in later if r.get("type") == "assistant"
                                or (r.get("type") == "user" and "<local-command-stdout>" in (_user_text(r) or ""))), None)
                    if nxt is not None and nxt.get("type") == "assistant":
                        out["commands"] += 1
                    continue
                if not text.strip().startswith(INJECTED_PREFIXES):
                    out["typed"] += 1
                    typed_uuids.append(rec["uuid"])
        out["output_tokens"] += sum(replies.values())
        out["superseded"] += _abandoned(typed_uuids, parents)
    out["tool_calls"] = len(tool_ids)
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
    of those; output_tokens: the last cumulative `total_token_usage.output_tokens`.
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
        totals = [p["info"]["total_token_usage"]["output_tokens"] for t, p in items
                  if p.get("type") == "token_count" and isinstance(p.get("info"), dict)]
        out["output_tokens"] += totals[-1] if totals else 0
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
