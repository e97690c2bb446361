"""What one model reply used, in one shape whatever agent recorded it.

Agents write usage in their API's own terms, and the terms differ in what they include:

- Anthropic (Claude Code): `input_tokens` is the *uncached* prompt only; cache reads
  (`cache_read_input_tokens`) and cache writes (`cache_creation_input_tokens`, split into
  5-minute and 1-hour writes under `cache_creation.ephemeral_5m_input_tokens` /
  `ephemeral_1h_input_tokens` where the transcript says) come on top. Thinking is output.
- OpenAI (Codex): `input_tokens` *includes* `cached_input_tokens` (and, where newer Codex
  writes it, `cache_write_input_tokens`); `output_tokens` includes `reasoning_output_tokens`.

`Tokens` keeps the Anthropic reading (every count disjoint), so the columns add up to what
was sent and received and each count has one price.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any


# Not frozen, but compared and hashed by value as if it were, and never changed once made (every
# method makes a new one): an index build makes one per reply line and a usage report one per
# reply, and a frozen dataclass's __init__ (object.__setattr__ per field) cost three times more.
@dataclass(slots=True, unsafe_hash=True)
class Tokens:
    """Disjoint token counts of one or more replies.

    input: prompt tokens read neither from nor into the cache; output: generated tokens,
    reasoning included (`reasoning` says how many of them were reasoning); cache_read: prompt
    tokens read from the cache; cache_write_5m / cache_write_1h: prompt tokens written to it
    for five minutes / an hour.
    """

    input: int = 0
    output: int = 0
    cache_read: int = 0
    cache_write_5m: int = 0
    cache_write_1h: int = 0
    reasoning: int = 0

    @property
    def cache_write(self) -> int:
        """Every cache write, 5-minute and 1-hour."""
        return self.cache_write_5m + self.cache_write_1h

    @property
    def prompt(self) -> int:
        """Every prompt token: uncached, cache reads and cache writes."""
        return self.input + self.cache_read + self.cache_write_5m + self.cache_write_1h

    @property
    def total(self) -> int:
        """Every token sent or received."""
        # Spelt out, as `__bool__`: a report asks it of every reply (the properties on properties cost 4x).
        return self.input + self.cache_read + self.cache_write_5m + self.cache_write_1h + self.output

    def __bool__(self) -> bool:
        return self.input + self.cache_read + self.cache_write_5m + self.cache_write_1h + self.output > 0

    def __reduce__(self) -> tuple:
        # Pickled as its counts: an index keeps one per reply, and the dataclass's own state
        # (a walk over fields()) cost a cold build's pickling of its parts a third of its time.
        return Tokens, (self.input, self.output, self.cache_read, self.cache_write_5m, self.cache_write_1h, self.reasoning)

    def __add__(self, other: "Tokens") -> "Tokens":
        if not isinstance(other, Tokens):
            return NotImplemented
        # Spelt out: a report adds two Tokens per reply, and a walk over fields() costs ten times more.
        return Tokens(self.input + other.input, self.output + other.output, self.cache_read + other.cache_read,
                      self.cache_write_5m + other.cache_write_5m, self.cache_write_1h + other.cache_write_1h,
                      self.reasoning + other.reasoning)

    def largest(self, other: "Tokens") -> "Tokens":
        """The larger of each count: streaming snapshots of one reply, each complete so far."""
        if other is self or other == self:  # a reply's lines repeat their counts
            return self
        return Tokens(max(self.input, other.input), max(self.output, other.output), max(self.cache_read, other.cache_read),
                      max(self.cache_write_5m, other.cache_write_5m), max(self.cache_write_1h, other.cache_write_1h),
                      max(self.reasoning, other.reasoning))

    def minus(self, other: "Tokens") -> "Tokens":
        """What grew from `other` to `self`, never below 0 per count (a cumulative counter that
        went back, as after a context reset, grew by nothing)."""
        return Tokens(*(max(0, getattr(self, f.name) - getattr(other, f.name)) for f in fields(Tokens)))

    def as_dict(self) -> dict[str, int]:
        """The counts by name, with the derived cache_write, as `memtui usage --json` prints them."""
        return {"input": self.input, "output": self.output, "cache_read": self.cache_read,
                "cache_write": self.cache_write, "cache_write_5m": self.cache_write_5m,
                "cache_write_1h": self.cache_write_1h, "reasoning": self.reasoning}


NO_TOKENS = Tokens()


def _count(usage: Any, *path: str) -> int:
    value: Any = usage
    for key in path:
        if not isinstance(value, dict):
            return 0
        value = value.get(key)
    return _number(value)


def _number(value: Any) -> int:
    """A count as recorded: 0 when missing, not a number, or negative."""
    if value.__class__ is int:  # the common case first: read per reply line of a cold index build
        return value if value >= 0 else 0
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0:
        return 0
    return int(value)


def from_anthropic(usage: Any) -> Tokens:
    """An Anthropic Messages `usage` object (a Claude Code reply's `message.usage`).

    The 5-minute / 1-hour split comes from `cache_creation`; where it is absent, or says less
    than `cache_creation_input_tokens`, the rest is counted as 5-minute writes (the API's
    default lifetime)."""
    if not isinstance(usage, dict):
        return NO_TOKENS
    get = usage.get
    split, details = get("cache_creation"), get("output_tokens_details")
    written = _number(get("cache_creation_input_tokens"))
    hour = _number(split.get("ephemeral_1h_input_tokens")) if isinstance(split, dict) else 0
    five = _number(split.get("ephemeral_5m_input_tokens")) if isinstance(split, dict) else 0
    if hour + five > written:  # the split alone was written (or the total is stale): trust the split
        written = hour + five
    return Tokens(input=_number(get("input_tokens")), output=_number(get("output_tokens")),
                  cache_read=_number(get("cache_read_input_tokens")),
                  cache_write_5m=written - hour, cache_write_1h=hour,
                  reasoning=_number(details.get("thinking_tokens")) if isinstance(details, dict) else 0)


def from_openai(usage: Any) -> Tokens:
    """An OpenAI Responses usage object as Codex writes it in `token_count` events
    (`input_tokens` including `cached_input_tokens`, `output_tokens` including
    `reasoning_output_tokens`); the nested `*_details` spelling of the API is read too."""
    prompt = _count(usage, "input_tokens")
    cached = _count(usage, "cached_input_tokens") or _count(usage, "input_tokens_details", "cached_tokens")
    reasoning = (_count(usage, "reasoning_output_tokens")
                 or _count(usage, "output_tokens_details", "reasoning_tokens"))
    cached = min(cached, prompt)
    written = min(_count(usage, "cache_write_input_tokens"), prompt - cached)  # newer Codex counts cache writes
    return Tokens(input=prompt - cached - written, output=_count(usage, "output_tokens"), cache_read=cached,
                  cache_write_5m=written, reasoning=reasoning)
