"""YAML front matter of a memory document (every Claude Code skill's SKILL.md has one).

    ---
    name: bisect
    description: Find the commit that broke a test
    ---
    # Body …

`split_front_matter` returns the fields as (key, value) pairs in file order and the body
below the closing `---`. Only the shape skills use is read (top-level `key: value`, a value
continued on indented lines, `- item` lists); anything else stays a line of its own, shown
as written. No YAML library: nothing in the block is evaluated.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class FrontMatter:
    """The fields of a front-matter block and where the body starts."""

    fields: tuple[tuple[str, str], ...]
    body: str
    body_line: int
    """1-based line number of the body's first line in the file."""


def split_front_matter(text: str) -> FrontMatter | None:
    """The front matter of `text`, or None when it does not open with a closed `---` block."""
    lines = text.split("\n")
    if not lines or lines[0].rstrip() != "---":
        return None
    try:
        end = next(i for i in range(1, len(lines)) if lines[i].rstrip() in ("---", "..."))
    except StopIteration:
        return None  # never closed: not front matter, just a rule
    fields: list[list[str]] = []
    for line in lines[1:end]:
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        key, sep, value = line.partition(":")
        if sep and not line[:1].isspace() and key.strip() and " " not in key.strip():
            fields.append([key.strip(), value.strip()])
        elif fields:  # a continuation or a list item of the key above
            item = line.strip()
            fields[-1][1] = f"{fields[-1][1]} {item}".strip() if not item.startswith("- ") else (
                f"{fields[-1][1]}, {item[2:]}".lstrip(", "))
        else:
            fields.append(["", line.strip()])
    return FrontMatter(tuple((k, _unquote(v)) for k, v in fields), "\n".join(lines[end + 1:]), end + 2)


def _unquote(value: str) -> str:
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'":
        return value[1:-1]
    return value
