"""The truth of a run, written from the scenario alone (never from memtui): the prompts, the
tool calls by the agent's tool names, each file change with its before/after bytes and
sha256, the side questions (under the turn they followed), the tokens the scripted model
reported (a command's own request and a side question included)."""

from __future__ import annotations

import hashlib
from pathlib import Path

from .scenario import Delete, Edit, MultiEdit, Scenario, Shell, Step, SubAgent, Usage, Write


def sha(text: str | None) -> str | None:
    return None if text is None else hashlib.sha256(text.encode()).hexdigest()


def apply_op(files: dict[str, str], op) -> tuple[str, str | None, str | None] | None:
    """Play one operation on `files` (path → text); the change it made, or None."""
    if isinstance(op, Write):
        before = files.get(op.path)
        files[op.path] = op.content
        return op.path, before, op.content
    if isinstance(op, (Edit, MultiEdit)):
        before = files[op.path]
        after = before
        for old, new in (op.edits if isinstance(op, MultiEdit) else ((op.old, op.new),)):
            assert old in after, f"{op.path}: {old!r} is not there to replace"
            after = after.replace(old, new, 1)
        files[op.path] = after
        return op.path, before, after
    if isinstance(op, Delete):
        return op.path, files.pop(op.path), None
    return None  # a read or a shell command changes no file


def _add(total: dict, usage: Usage) -> None:
    for key in ("input", "output", "cache_read", "cache_write"):
        total[key] += getattr(usage, key)


def truth_of(scenario: Scenario, agent, repo: Path, model: str) -> dict:
    """truth.json of `scenario` played by `agent` in `repo` (absolute paths as the run used)."""
    files = dict(scenario.files)
    changes: list[dict] = []
    usage = {"input": 0, "output": 0, "cache_read": 0, "cache_write": 0}
    turns = []

    def play(steps: tuple[Step, ...], turn: int, depth: int) -> tuple[list[str], list[dict]]:
        names: list[str] = []
        subagents: list[dict] = []
        for step in steps:
            _add(usage, step.usage)
            for op in step.calls:
                called = agent.tool_names(op, repo)
                names += called
                if isinstance(op, SubAgent):
                    sub_names, _ = play(op.steps, turn, depth + 1)
                    subagents.append({"prompt": op.prompt, "tool_calls": sub_names,
                                      "output_tokens": sum(s.usage.output for s in op.steps)})
                    continue
                change = apply_op(files, op)
                if change is not None:
                    path, before, after = change
                    changes.append({"turn": len(turns), "path": path, "by": "subagent" if depth else "main",
                                    "op": type(op).__name__, "tools": called,
                                    "kind": "added" if before is None else "deleted" if after is None else "modified",
                                    "before": before, "after": after, "before_sha256": sha(before),
                                    "after_sha256": sha(after)})
        return names, subagents

    asides = []
    for turn in scenario.turns:
        if turn.kind == "aside":  # answered beside the session: no turn of its own, no change
            for step in turn.steps:
                _add(usage, step.usage)
            asides.append({"question": turn.prompt, "after_turn": len(turns) - 1,
                           "output_tokens": sum(s.usage.output for s in turn.steps)})
            turns[-1]["asides"].append(asides[-1])
            continue
        names, subagents = play(turn.steps, len(turns), 0)
        turns.append({"prompt": turn.prompt, "command": turn.kind == "command", "resume": turn.resume, "tool_calls": names,
                      "subagents": subagents, "asides": [],
                      "answer": " ".join(s.text for s in turn.steps if s.text) if turn.kind == "command" else None,
                      "output_tokens": sum(s.usage.output for s in turn.steps),
                      "shell": [op.command for s in turn.steps for op in s.calls if isinstance(op, Shell)],
                      "errors": sum(1 for s in turn.steps for op in s.calls if isinstance(op, Shell) and op.fails)})
    if scenario.compaction is not None:  # the agent's own, in no turn of the script
        _add(usage, scenario.compaction.usage)
    return {
        "scenario": scenario.name,
        "auto_compaction": None if scenario.compaction is None else {
            "answer": scenario.compaction.text, "output_tokens": scenario.compaction.usage.output},
        "workspace": str(repo),
        "sessions": 1 + sum(1 for t in scenario.turns[1:] if not t.resume and t.kind != "aside"),
        "prompts": [t.prompt for t in scenario.turns if t.kind == "prompt"],
        "commands": [t.prompt for t in scenario.turns if t.kind == "command"],
        "asides": asides,
        "turns": turns,
        "tool_calls": [n for t in turns for n in t["tool_calls"]],
        "file_changes": changes,
        "files_before": dict(scenario.files),
        "files_after": files,
        "output_tokens": usage["output"],
        "cost_inputs": {"model": model, **{f"{k}_tokens": v for k, v in usage.items()}},
    }
