"""Agent homes whose sessions worked in different folders, made from the real transcripts of
tests/fixtures/real (PROVENANCE.md): a Claude Code home with the spotter-small project's
sessions and the agtrace sample's, a Codex home with the agtrace and localpush rollouts.

Only where the project lived is changed: `moved` rewrites a recorded folder everywhere in the
text (as if the project had been there), `cwd_to` rewrites only the `cwd` fields.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from real_support import real_home

SPOTTER = "/home/marco/projects/spotter"  # spotter-small's recorded cwd
PLAN_TASK = "491e126e-1e71-469c-ade2-fcc8af567c74:cc2c7130-8a1e-4f3c-8f99-b54aa375b7a7"  # its Write of plan.md
AGTRACE = "/Users/zawakin/agent-sample"  # the agtrace sample's recorded cwd (Claude Code and Codex)
HOGE_TASK = "7f2abd2d-7cfc-4447-9ddd-3ca8d14e02e9:f370ce0f-84e8-42ab-a6c9-c5d925abd271"  # its edit of myapp/hoge.py
CODEX_HOGE_TASK = "019b04ae-b1c6-7c72-a134-a4c2de66058c:4"  # Codex's apply_patch adding myapp/hoge.py


def _gather(names: list[str], tmp: Path, home: Path) -> Path:
    for name in names:
        unpacked = real_home(name, tmp / "unpacked")
        for f in unpacked.rglob("*.jsonl"):
            target = home / f.relative_to(unpacked)
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.move(f, target)
    return home


def claude_home(tmp: Path) -> Path:
    return _gather(["claude-2.1.38-spotter-small", "claude-2.0.28-agtrace"], tmp, tmp / "claude")


def codex_home(tmp: Path) -> Path:
    return _gather(["codex-0.66.0-agtrace", "codex-0.104-localpush"], tmp, tmp / "codex")


def moved(home: Path, old: str, new: Path) -> None:
    """Every mention of the folder `old` in the transcripts becomes `new`."""
    for f in home.rglob("*.jsonl"):
        f.write_text(f.read_text(encoding="utf-8").replace(old + "/", f"{new}/").replace(f'"{old}"', f'"{new}"'),
                     encoding="utf-8")


def cwd_to(home: Path, old: str, new: Path) -> None:
    """Only the `cwd` fields at or under `old` become `new` (file paths stay as recorded)."""

    def fix(value):
        if isinstance(value, dict):
            return {k: (str(new) if k == "cwd" and isinstance(v, str) and (v == old or v.startswith(old + "/"))
                        else fix(v)) for k, v in value.items()}
        return [fix(v) for v in value] if isinstance(value, list) else value

    for f in home.rglob("*.jsonl"):
        lines = f.read_text(encoding="utf-8").splitlines()
        f.write_text("".join((json.dumps(fix(json.loads(line))) if line.strip() else line) + "\n" for line in lines),
                     encoding="utf-8")


def written_plan(home) -> bytes:
    """The content spotter-small's Write left in plan.md, read from the transcript."""
    for f in home.rglob("*.jsonl"):
        for line in f.read_text(encoding="utf-8").splitlines():
            content = json.loads(line).get("message", {}).get("content")
            for block in content if isinstance(content, list) else []:
                if block.get("name") == "Write" and block["input"]["file_path"].endswith("/plan.md"):
                    return block["input"]["content"].encode()
    raise AssertionError("no Write in the transcripts")


def spotter_project(home: Path, project: Path) -> Path:
    """spotter-small's project living in `project` (made here; `home` rewritten to say so), with
    plan.md as the task's Write left it and an untouched keep.txt."""
    project.mkdir()
    moved(home, SPOTTER, project)
    (project / "plan.md").write_bytes(written_plan(home))
    (project / "keep.txt").write_text("untouched\n")
    return project
