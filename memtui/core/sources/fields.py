"""Typed reads of foreign records: a field has the type memtui expects, or the record is a
reported problem.

Other agents' files are untrusted input. Every value an adapter takes from a record goes
through `field`, which walks nested objects and checks the type at the end; a value of the
wrong type raises FieldError naming the dotted path and what was found, and the adapter
reports that record (file, line, what was wrong) and reads on. A missing field is not an
error: formats drift, and a default says what memtui assumes.
"""

from __future__ import annotations

from typing import Any

# What each expected type is called in a problem message.
_NAMES = {str: "text", int: "an integer", float: "a number", bool: "true/false", dict: "an object", list: "a list"}


class FieldError(ValueError):
    """A field of a foreign record has an unexpected type."""


def _describe(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true/false"
    for kind, name in _NAMES.items():
        if isinstance(value, kind):
            return name
    return type(value).__name__


def _matches(value: Any, kind: type | tuple[type, ...]) -> bool:
    kinds = kind if isinstance(kind, tuple) else (kind,)
    if isinstance(value, bool) and bool not in kinds:
        return False  # True is an int to Python, never to a record
    if float in kinds and isinstance(value, int):
        return True
    return isinstance(value, kinds)


def field(record: Any, *path: str, kind: type | tuple[type, ...], default: Any = None) -> Any:
    """`record[path[0]][path[1]]…` if it has type `kind`; `default` when a key is missing
    or null; FieldError when a value on the way is not an object or the value has another type."""
    value = record
    for key in path:  # the common case, a JSON record's own dicts and a value of the exact type, first
        if value.__class__ is not dict:
            break
        value = value.get(key)
        if value is None:
            return default
    else:
        if value.__class__ is kind or (kind.__class__ is tuple and value.__class__ in kind):  # type: ignore[operator]
            return value
    value = record
    for depth, key in enumerate(path):
        if not isinstance(value, dict):
            where = ".".join(path[:depth]) or "record"
            raise FieldError(f"{where}: expected an object, found {_describe(value)}")
        value = value.get(key)
        if value is None:
            return default
    if not _matches(value, kind):
        names = " or ".join(_NAMES.get(k, k.__name__) for k in (kind if isinstance(kind, tuple) else (kind,)))
        raise FieldError(f"{'.'.join(path)}: expected {names}, found {_describe(value)}")
    return value


def count(record: Any, *path: str) -> int:
    """A non-negative integer count (token usage); 0 when missing. Floats with an integer
    value are accepted (some writers emit 12.0)."""
    value = field(record, *path, kind=(int, float), default=0)
    if isinstance(value, float) and not value.is_integer():
        raise FieldError(f"{'.'.join(path)}: expected an integer, found {value!r}")
    if value < 0:
        raise FieldError(f"{'.'.join(path)}: expected a count, found {value!r}")
    return int(value)


def objects(record: Any, *path: str) -> list[dict]:
    """The objects in a list field (non-object items are skipped); [] when missing."""
    items = field(record, *path, kind=list, default=[])
    return [item for item in items if isinstance(item, dict)]


# Exceptions a record of an unexpected shape can still raise deep inside an adapter; caught
# per record as a last line of defence, so one odd line never makes a whole source unreadable.
RECORD_ERRORS = (FieldError, TypeError, ValueError, AttributeError, KeyError, IndexError, RecursionError)


def loads(text: str | bytes) -> Any:
    """A JSON document decoded as `json.loads` decodes it, by orjson where it can (several
    times faster on the large records agents write); what orjson refuses and json takes (NaN,
    unpaired surrogates, nesting deeper than orjson's limit) goes to json, which raises
    json.JSONDecodeError (or RecursionError) where both refuse."""
    import json

    import orjson

    try:
        return orjson.loads(text)
    except orjson.JSONDecodeError:
        return json.loads(text)
