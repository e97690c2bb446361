"""Decision logs (04-decision-log.md, DECISIONS.md): a tolerant reader and a writer that
appends in the file's own format.

memtui writes entries as (DESIGN.md §4)::

    ## 2026-11-02 Drop the plugin loader
    - Problem: …
    - Options: …
    - Chosen: …
    - Why: …

and reads what people and agents actually write: any heading level, `**Why:**` or
`**Why**:`, numbered entries with indented fields, synonyms such as Decision / Rationale /
Context / Alternatives, fields spanning several lines, and `### Why` sub-headings.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import date as Date
from pathlib import Path

from memtui.core.errors import MemtuiError, NotUtf8
from memtui.core.memory.documents import decode_utf8, disk_version, iter_prose_lines, open_fence
from memtui.core.memory.save import save_document

# What an empty field is written as, and values that say nothing.
PLACEHOLDERS: frozenset[str] = frozenset({"", "…", "...", "?", "-", "—", "todo", "tbd", "n/a", "none"})
FIELDS: tuple[str, ...] = ("problem", "options", "chosen", "why")
LABELS: dict[str, str] = {"problem": "Problem", "options": "Options", "chosen": "Chosen", "why": "Why"}

# Names a field goes by in the wild (lower-cased) → canonical field.
_SYNONYMS: dict[str, str] = {
    "problem": "problem", "context": "problem", "issue": "problem", "question": "problem",
    "situation": "problem", "问题": "problem", "背景": "problem",
    "options": "options", "option": "options", "options considered": "options",
    "alternatives": "options", "alternatives considered": "options", "considered": "options",
    "选项": "options", "方案": "options", "备选": "options",
    "chosen": "chosen", "choice": "chosen", "decision": "chosen", "decided": "chosen",
    "outcome": "chosen", "选择": "chosen", "决定": "chosen", "结论": "chosen",
    "why": "why", "rationale": "why", "reason": "why", "reasons": "why", "because": "why",
    "reasoning": "why", "原因": "why", "理由": "why",
}

_HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
_NUMBERED = re.compile(r"^(\d+)[.)]\s+(.*)$")
_FIELD = re.compile(
    r"^(?P<indent>\s*)(?P<bullet>[-*+]\s+|\d+[.)]\s+)?"
    r"(?P<open>\*\*|__)?(?P<name>[^:：*_\n]{1,40}?)\s*"
    r"(?:(?P<close1>\*\*|__)\s*[:：]|[:：]\s*(?P<close2>\*\*|__)?)"
    r"\s*(?P<value>.*)$"
)
_DATE = re.compile(r"^\s*(?:\*\*|__)?\[?(\d{4}-\d{2}-\d{2})\]?(?:\*\*|__)?\s*[-–—:|,]?\s*(.*)$")


@dataclass(frozen=True)
class Decision:
    """One entry of a decision log. `line`/`end_line` are 1-based and inclusive."""

    index: int
    line: int
    end_line: int
    title: str
    date: str | None = None
    problem: str = ""
    options: str = ""
    chosen: str = ""
    why: str = ""

    @property
    def missing_why(self) -> bool:
        """No reason given: empty, or a placeholder such as "…" or "TODO"."""
        return self.why.strip().strip("*_ ").lower() in PLACEHOLDERS


@dataclass(frozen=True)
class LogStyle:
    """How a log writes its entries, so an appended one looks like its neighbours."""

    heading_level: int = 2  # 0: numbered list entries
    bullet: str = "- "
    bold: str = ""  # "inside" (**Why:**), "outside" (**Why**:), or ""
    labels: dict[str, str] = field(default_factory=lambda: dict(LABELS))
    next_number: int = 1


@dataclass
class _Draft:
    line: int
    title: str
    date: str | None
    fields: dict[str, list[str]] = field(default_factory=dict)
    last_field: str | None = None
    end_line: int = 0
    dated: bool = False
    numbered: bool = False


def field_name(name: str) -> str | None:
    """The canonical field a label stands for, or None."""
    return _SYNONYMS.get(name.strip().strip("*_").strip().lower())


def parse_decisions(text: str) -> list[Decision]:
    """All entries of a decision log. A heading or top-level numbered item starts an entry
    if it is dated or followed by at least one recognised field; the document's title and
    other prose are not entries."""
    drafts: list[_Draft] = []
    current: _Draft | None = None
    for number, line in iter_prose_lines(text):
        heading = _HEADING.match(line)
        if heading:
            label = field_name(heading.group(2).rstrip(":："))
            if label and current is not None:
                current.fields.setdefault(label, [])
                current.last_field = label
                current.end_line = number
                continue
            current = _start(number, heading.group(2))
            drafts.append(current)
            continue
        numbered = _NUMBERED.match(line)
        if numbered and _field_match(numbered.group(2)) is None and _numbered_starts_entry(current):
            current = _start(number, numbered.group(2))
            current.numbered = True
            drafts.append(current)
            continue
        if current is None:
            continue
        if not line.strip():
            continue
        current.end_line = number
        m = _field_match(line)
        if m is not None:
            name, value = m
            current.fields.setdefault(name, [])
            if value:
                current.fields[name].append(value)
            current.last_field = name
        elif current.last_field is not None:
            current.fields[current.last_field].append(_strip_bullet(line))
    decisions = []
    for draft in drafts:
        if not draft.fields and not draft.dated:
            continue
        values = {name: _join(draft.fields.get(name, [])) for name in FIELDS}
        title = draft.title or (values["problem"].splitlines() or [""])[0]
        decisions.append(
            Decision(
                index=len(decisions),
                line=draft.line,
                end_line=max(draft.end_line, draft.line),
                title=title,
                date=draft.date,
                **values,
            )
        )
    return decisions


def read_decisions(path: Path) -> list[Decision]:
    """Entries of the decision log at `path` (undecodable bytes are replaced for reading)."""
    return parse_decisions(Path(path).read_bytes().decode("utf-8", "replace"))


def detect_style(text: str) -> LogStyle:
    """The heading level, bullet and bold style of the log's existing entries."""
    decisions = parse_decisions(text)
    if not decisions:
        return LogStyle()
    lines = text.splitlines()
    first = decisions[0]
    opener = lines[first.line - 1]
    heading = _HEADING.match(opener)
    level = len(heading.group(1)) if heading else 0
    bullet, bold = "- ", ""
    observed: dict[str, str] = {}  # first spelling of each field in the file
    seen_style = False
    for decision in decisions:
        for line in lines[decision.line : decision.end_line]:
            m = _FIELD.match(line)
            canonical = field_name(m.group("name")) if m else None
            if canonical is None:
                continue
            observed.setdefault(canonical, m.group("name").strip())
            if not seen_style:
                bullet = (m.group("indent") or "") + (m.group("bullet") or "")
                if m.group("close1"):
                    bold = "outside"
                elif m.group("close2"):
                    bold = "inside"
                seen_style = True
    numbers = [int(m.group(1)) for line in lines if (m := _NUMBERED.match(line))]
    labels = {**LABELS, **observed}
    return LogStyle(level, bullet, bold, labels, (max(numbers) + 1) if numbers else 1)


def format_decision(
    style: LogStyle, title: str, problem: str, options: str, chosen: str, why: str, date: str | None = None
) -> str:
    """One entry in `style`, ending with a newline."""
    day = date or Date.today().isoformat()
    head = f"{day} {title.strip()}".strip()
    if style.heading_level:
        lines = [f"{'#' * style.heading_level} {head}"]
    else:
        lines = [f"{style.next_number}. {head}"]
    bullet = style.bullet or ("   - " if not style.heading_level else "- ")
    for name, value in zip(FIELDS, (problem, options, chosen, why), strict=True):
        label = style.labels.get(name, LABELS[name])
        if style.bold == "inside":
            key = f"**{label}:**"
        elif style.bold == "outside":
            key = f"**{label}**:"
        else:
            key = f"{label}:"
        body = " ".join(part.strip() for part in value.strip().splitlines()) or "…"
        lines.append(f"{bullet}{key} {body}")
    return "\n".join(lines) + "\n"


def append_decision(
    text: str, title: str, problem: str, options: str, chosen: str, why: str, date: str | None = None
) -> str:
    """`text` with a new entry appended in the log's own format, separated by a blank line."""
    style = detect_style(text)
    entry = format_decision(style, title, problem, options, chosen, why, date)
    if not text.strip(" \t\r\n"):  # str.strip() would also drop form feeds and other controls: content
        return "# Decision log\n\n" + entry
    body = text if text.endswith("\n") else text + "\n"
    fence = open_fence(body)
    if fence is not None:  # an entry appended inside an unclosed code block would never read back
        body += fence + "\n"
    tight = style.heading_level == 0 and "\n\n" not in body.rstrip("\n").split("\n1. ", 1)[-1]
    if not tight and not body.endswith("\n\n"):
        body += "\n"  # a blank line between entries, unless the file's numbered list has none
    return body + entry


DECISION_LOG_LOCATIONS: tuple[str, ...] = (
    ".agent/init.d/04-decision-log.md",
    "DECISIONS.md",
    ".agent/DECISIONS.md",
)


def find_decision_logs(root: Path) -> list[Path]:
    """Decision logs present in the workspace, the init.d one first."""
    root = Path(root).resolve()
    found = [root / rel for rel in DECISION_LOG_LOCATIONS if (root / rel).is_file()]
    found += sorted(p for p in (root / ".agent" / "init.d").glob("*decision*.md") if p not in found)
    return found


def default_decision_log(root: Path) -> Path:
    """Where a new decision goes: the first existing log, else 04-decision-log.md in init.d
    if the workspace has that layout, else DECISIONS.md at the root."""
    root = Path(root).resolve()
    logs = find_decision_logs(root)
    if logs:
        return logs[0]
    if (root / ".agent" / "init.d").is_dir():
        return root / DECISION_LOG_LOCATIONS[0]
    return root / "DECISIONS.md"


def add_decision(
    root: Path, path: Path, title: str, problem: str, options: str, chosen: str, why: str, date: str | None = None
):
    """Append an entry to the log file at `path` (created if missing) through the safe save:
    the previous version goes to history, and a write by the agent in between is a conflict.
    Returns the new DiskVersion."""
    _check_date(date)
    data, version = disk_version(path)
    text = ""
    if data is not None:
        text, error = decode_utf8(data)
        if text is None:
            raise NotUtf8(f"{Path(path).name}: {error}")
    new = append_decision(text, title, problem, options, chosen, why, date)
    return save_document(root, path, new, version)


# --- internals ---------------------------------------------------------------------------


def _check_date(date: str | None) -> None:
    """A date given for a new entry is a real day written YYYY-MM-DD (as entries are read)."""
    import datetime as dt

    if date is None:
        return
    try:
        ok = re.fullmatch(r"\d{4}-\d{2}-\d{2}", date) is not None and dt.date.fromisoformat(date) is not None
    except ValueError:
        ok = False
    if not ok:
        raise MemtuiError(f"{date!r} is not a date: give the day as YYYY-MM-DD, e.g. 2026-11-02")


def _start(number: int, heading: str) -> _Draft:
    m = _DATE.match(heading)
    if m:
        return _Draft(number, _clean_title(m.group(2)), m.group(1), dated=True, end_line=number)
    return _Draft(number, _clean_title(heading), None, end_line=number)


def _numbered_starts_entry(current: _Draft | None) -> bool:
    # In a log of heading entries, a numbered list under a field is part of that field;
    # numbered items are entries only at the top, after a plain title, or among themselves.
    return current is None or current.numbered or (not current.fields and not current.dated)


def _clean_title(title: str) -> str:
    title = title.strip()
    if len(title) > 4 and title[:2] in ("**", "__") and title[-2:] == title[:2]:
        title = title[2:-2]
    return title.strip(" -–—:")


def _field_match(line: str) -> tuple[str, str] | None:
    m = _FIELD.match(line)
    if not m:
        return None
    name = field_name(m.group("name"))
    if name is None:
        return None
    value = m.group("value").strip()
    if m.group("open") and not (m.group("close1") or m.group("close2")):
        return None
    return name, value


def _strip_bullet(line: str) -> str:
    return re.sub(r"^\s*(?:[-*+]\s+|\d+[.)]\s+)?", "", line).rstrip()


def _join(parts: list[str]) -> str:
    return "\n".join(part for part in parts if part).strip()

