"""Lint memory documents for the ways they mislead the next agent.

Rules (each finding carries file, line, rule, message; line 0 means "the whole file"):

- `initd-too-long`         an init.d file longer than 50 lines (read at every cold start)
- `missing-active-checkpoint`  SESSION_SUMMARY.md without an "Active Checkpoint" section
                           while the store has an unfinished (running / waiting) task
- `possibly-stale`         PROGRESS.md or SESSION_SUMMARY.md older than the newest checkpoint
- `decision-missing-why`   a decision-log entry without a "why"
- `memory-too-long`        MEMORY.md longer than 200 lines
- `navigation-missing-path`  a path in 01-navigation.md that does not exist in the workspace
                           (in backticks, a link, or a list item: `- scheduler: src/core/scheduler.ts`)

Store facts come in as plain arguments so the linter runs without a store (and in tests).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

from memtui.core.memory.decisions import parse_decisions
from memtui.core.memory.discover import MemoryDocument, discover_documents
from memtui.core.memory.documents import iter_prose_lines, markdown_headings
from memtui.core.rollback_records import ROLLBACK_LABELS

INIT_D_MAX_LINES = 50
MEMORY_MAX_LINES = 200

RULES: dict[str, str] = {
    "initd-too-long": f"init.d file longer than {INIT_D_MAX_LINES} lines",
    "missing-active-checkpoint": "SESSION_SUMMARY.md lacks an Active Checkpoint while a task is unfinished",
    "possibly-stale": "progress or summary older than the newest checkpoint",
    "decision-missing-why": "decision without a why",
    "memory-too-long": f"MEMORY.md longer than {MEMORY_MAX_LINES} lines",
    "navigation-missing-path": "path in 01-navigation.md does not exist",
}

_DECISION_LOGS = ("04-decision-log.md", "DECISIONS.md")
_STALE_NAMES = ("PROGRESS.md", "SESSION_SUMMARY.md")
_FILE_EXTENSIONS = frozenset(
    "md markdown py pyi sh bash toml json jsonl txt yml yaml cfg ini js ts tsx jsx rs go c h cpp "
    "java kt rb lock db sqlite tcss css html svg csv sql env".split()
)
_BACKTICK = re.compile(r"`([^`\n]+)`")
_LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")
_BULLET_PATH = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s+(\S+)")
_LABEL_PATH = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s+[^:`\[\]]{1,80}?:\s+(\S+)")
_LINK_WHOLE = re.compile(r"\[[^\]]*\]\([^)]*\)")
_ACTIVE_CHECKPOINT = re.compile(r"active\s+checkpoint|活动检查点|当前检查点", re.IGNORECASE)


@dataclass(frozen=True)
class Finding:
    """One lint finding. `file` is relative to the workspace root; `line` 1-based, None for the whole file."""

    file: str
    line: int | None
    rule: str
    message: str


def lint_workspace(
    root: Path,
    *,
    unfinished_task: bool = False,
    newest_checkpoint_at: datetime | None = None,
    documents: list[MemoryDocument] | None = None,
) -> list[Finding]:
    """All findings for the workspace at `root`, ordered by file and line.

    `unfinished_task` and `newest_checkpoint_at` are facts from the store (pass the
    defaults when there is none); naive datetimes are taken as UTC.
    """
    root = Path(root).resolve()
    docs = discover_documents(root) if documents is None else documents
    findings: list[Finding] = []
    for doc in docs:
        try:
            text = doc.path.read_bytes().decode("utf-8", "replace")
        except OSError:
            continue
        findings.extend(lint_document(root, doc, text, unfinished_task, newest_checkpoint_at))
    findings.sort(key=lambda f: (f.file, f.line or 0, f.rule))
    return findings


def lint_document(
    root: Path,
    doc: MemoryDocument,
    text: str,
    unfinished_task: bool = False,
    newest_checkpoint_at: datetime | None = None,
) -> list[Finding]:
    """Findings for one document whose text is `text`."""
    out: list[Finding] = []
    name = doc.path.name
    if doc.kind == "init.d" and doc.format == "markdown" and doc.lines > INIT_D_MAX_LINES:
        out.append(
            Finding(doc.rel, INIT_D_MAX_LINES + 1, "initd-too-long",
                    f"{doc.lines} lines; init.d files are read at every cold start, keep them ≤ {INIT_D_MAX_LINES}")
        )
    if name == "MEMORY.md" and doc.lines > MEMORY_MAX_LINES:
        out.append(
            Finding(doc.rel, MEMORY_MAX_LINES + 1, "memory-too-long",
                    f"{doc.lines} lines; agents load only the first {MEMORY_MAX_LINES} or so, consolidate")
        )
    if name == "SESSION_SUMMARY.md" and unfinished_task and not _has_active_checkpoint(text):
        out.append(
            Finding(doc.rel, None, "missing-active-checkpoint",
                    "a task is still running or waiting, but there is no Active Checkpoint section "
                    "(goal, last reliable result, first unfinished item, next action)")
        )
    if name in _STALE_NAMES and newest_checkpoint_at is not None:
        checkpoint_at = _as_utc(newest_checkpoint_at)
        if doc.mtime < checkpoint_at:
            # to the second when the minutes agree: "23:59, before … 23:59" would read as a tie
            shown = "%Y-%m-%d %H:%M" + (":%S" if f"{doc.mtime:%Y%m%d%H%M}" == f"{checkpoint_at:%Y%m%d%H%M}" else "")
            out.append(
                Finding(doc.rel, None, "possibly-stale",
                        f"last written {doc.mtime.astimezone(timezone.utc):{shown}} UTC, before the newest checkpoint "
                        f"({checkpoint_at:{shown}} UTC); it may mislead the next agent")
            )
    if name in _DECISION_LOGS:
        for decision in parse_decisions(text):
            if decision.missing_why:
                out.append(
                    Finding(doc.rel, decision.line, "decision-missing-why",
                            f"decision \"{decision.title or '(untitled)'}\" does not say why")
                )
    if name == "01-navigation.md":
        for line, mentioned in navigation_paths(text):
            if not _exists_in(root, mentioned):
                out.append(
                    Finding(doc.rel, line, "navigation-missing-path", f"{mentioned} does not exist in the workspace")
                )
    return out


def navigation_paths(text: str) -> list[tuple[int, str]]:
    """Workspace paths a navigation file mentions, when they look like paths (a slash or a
    file extension): in `backticks`, as link targets, as the first word of a list item or
    after its label (`- scheduler: src/core/scheduler.ts`); any other word of a list item
    counts when it names a file (has an extension) or a folder (ends with a slash)."""
    found: list[tuple[int, str]] = []
    for number, line in iter_prose_lines(text):
        candidates = [(raw, False) for raw in _BACKTICK.findall(line) + _LINK.findall(line)]
        bullet = _BULLET_PATH.match(line)
        if bullet:
            prose = _BACKTICK.sub(" ", _LINK_WHOLE.sub(" ", line)).split()[1:]
            label = _LABEL_PATH.match(line)
            if not bullet.group(1).startswith(("`", "[")):
                candidates.append((bullet.group(1), False))
            if label:
                candidates.append((label.group(1), False))
            candidates += [(word, True) for word in prose]
        seen = set()
        for raw, strict in candidates:
            path = _as_path(raw.lstrip("([{<\"'").rstrip(")]}>\"',.;:!?"))
            if path and strict and not (_has_extension(path) or path.endswith("/")):
                continue  # "and/or", "client/server": prose, not a path
            if path and path not in seen:
                seen.add(path)
                found.append((number, path))
    return found


def _has_extension(path: str) -> bool:
    last = path.rstrip("/").rsplit("/", 1)[-1]
    return "." in last.strip(".") and last.rsplit(".", 1)[-1].lower() in _FILE_EXTENSIONS


def _as_path(raw: str) -> str | None:
    value = raw.strip().strip("*_`").rstrip(".,;:)")
    if not value or " " in value or "://" in value or value.startswith(("$", "-", "~", "/", "#", "@")):
        return None
    if any(ch in value for ch in "*?<>|{}=\"'"):
        return None  # globs, placeholders, commands
    value = value.split("#", 1)[0]
    value = re.sub(r":\d+(?::\d+)?$", "", value)  # path:line
    if value.startswith("./"):
        value = value[2:]
    if not value:
        return None
    if "/" in value or _has_extension(value):
        return value
    return None


def _exists_in(root: Path, rel: str) -> bool:
    try:
        return (root / rel).exists()
    except OSError:
        return False


def _has_active_checkpoint(text: str) -> bool:
    if any(_ACTIVE_CHECKPOINT.search(h.title) for h in markdown_headings(text)):
        return True
    # Also accept a bold or plain label line ("**Active Checkpoint:**") as the section.
    return any(
        _ACTIVE_CHECKPOINT.search(line) and line.lstrip("*_ ").lower().startswith(("active", "活动", "当前"))
        for _, line in iter_prose_lines(text)
    )


def _as_utc(moment: datetime) -> datetime:
    return moment.replace(tzinfo=timezone.utc) if moment.tzinfo is None else moment.astimezone(timezone.utc)


def store_facts(store) -> dict:
    """The keyword arguments lint_workspace takes from a store (or the defaults for None)."""
    if store is None:
        return {"unfinished_task": False, "newest_checkpoint_at": None}
    return {
        "unfinished_task": bool(store.has_unfinished_tasks()),
        # the agent's work: a rollback or undo memtui recorded is no newer activity of the agent
        "newest_checkpoint_at": store.newest_checkpoint_at(excluding=ROLLBACK_LABELS),
    }
