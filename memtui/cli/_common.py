"""Helpers every verb shares: printing text or JSON, and opening stores."""

from __future__ import annotations

import json
import sys
from dataclasses import asdict, is_dataclass
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, cast

from memtui.core.display import json_safe, sanitize

if TYPE_CHECKING:
    from memtui.core.memory_source import Capability
    from memtui.core.store import AgentStore


def _default(value: Any) -> Any:
    if callable(getattr(value, "to_json", None)):  # results say their own JSON shape
        return value.to_json()
    if is_dataclass(value) and not isinstance(value, type):
        return asdict(value)
    if isinstance(value, datetime):
        return value.isoformat()
    if isinstance(value, Path):
        return str(value)
    if isinstance(value, (set, frozenset)):
        return sorted(value)
    if isinstance(value, bytes):
        return value.decode("utf-8", "replace")
    raise TypeError(f"cannot serialise {type(value).__name__}")


def dump_json(obj: Any, indent: int | None = 2) -> str:
    """The one JSON of the CLI's --json output: objects with `to_json()` in their own shape,
    other dataclasses field by field, datetimes as ISO 8601, paths and bytes as text.
    `indent=None` is compact (and several times faster: Python's encoder runs in C then)."""
    separators = None if indent is not None else (",", ":")
    return json_safe(json.dumps(obj, default=_default, indent=indent, separators=separators, ensure_ascii=False))


def emit(obj: Any, as_json: bool, text: Callable[[Any], str]) -> None:
    """Print `obj` as JSON or through `text`. JSON is indented for a person at a terminal and
    compact for a program reading a pipe or a file. The text is shown literally: stored text
    in it (paths, titles, messages) cannot move the cursor or recolour the terminal."""
    if as_json:
        sys.stdout.write(dump_json(obj, indent=2 if sys.stdout.isatty() else None) + "\n")
    else:
        sys.stdout.write(sanitize(text(obj), multiline=True) + "\n")


def cleanable_homes() -> str:
    """The agents whose homes `memtui cleanup` cleans, for a verb's help: "Claude Code, Codex or
    Gemini CLI" (from the registry, so an agent given a cleanup is named at once)."""
    from memtui.core.homes import cleanable_agents

    labels = [a.label for a in cleanable_agents()]
    return labels[0] if len(labels) == 1 else f"{', '.join(labels[:-1])} or {labels[-1]}"


def add_json_flag(parser) -> None:
    parser.add_argument("--json", action="store_true", help="print machine-readable JSON")


def open_store(path: str | Path, need: "Capability | None" = None) -> "AgentStore":
    """The memtui store PATH means (memtui.core.resolve), opened read-only; a verb that writes
    does so through `store.writer()`. `need`: what the verb does (Capability.GC …); another
    agent's store at PATH is refused saying it can't, and what to open instead.

    Never creates one: a verb pointed at the wrong folder says so instead of leaving an
    empty .agent/agent.db behind, and a file that is not a store (even an empty one) is refused.
    """
    from memtui.core.resolve import resolve

    source = resolve(path, need, kind=None if need is not None else "memtui").source
    return cast("AgentStore", source)  # `need` is a capability of memtui's own store only


def root_folder(value: str | None) -> Path | None:
    """`--root DIR` as a folder that exists (None when not given): a mistyped one is one line,
    not a rollback that says to pass the --root it was given."""
    from memtui.core.errors import MemtuiError

    if not value:
        return None
    root = Path(value).expanduser()
    if not root.is_dir():
        raise MemtuiError(f"--root {value}: {'not a folder' if root.exists() else 'no such folder'}")
    return root
