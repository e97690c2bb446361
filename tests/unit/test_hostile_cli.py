"""Every CLI verb that prints stored text prints hostile text literally: Rich markup as typed,
ESC as ␛, BEL as ␇, bidi overrides as � — never a raw escape a terminal would act on."""

from __future__ import annotations

import json

import pytest

from hostile_text import HOSTILE, SHOWN, assert_no_raw, hostile_workspace
from memtui.cli import main
from memtui.core.store import AgentStore

@pytest.fixture(scope="module")
def hostile(tmp_path_factory):
    root = hostile_workspace(tmp_path_factory.mktemp("hostile") / "ws")
    with AgentStore.open(root) as store:
        store.start_task(store.start_session("other"), "live " + HOSTILE)  # GC's preview: a live task
    return root


@pytest.mark.parametrize("verb", [
    ["log"], ["show", "--task", "1"], ["show", "--step", "1", "--diff"], ["show", "--checkpoint", "1", "--diff"],
    ["gc", "--dry-run"], ["search", "evil"], ["rollback", "--checkpoint", "1", "--dry-run"], ["decisions"],
])
def test_text_output_shows_hostile_text_literally(hostile, capsys, verb):
    main([verb[0], str(hostile), *verb[1:]])
    out = capsys.readouterr().out
    assert SHOWN in out, out
    assert_no_raw(out)


def strings(value) -> list[str]:
    if isinstance(value, dict):
        return [s for v in value.values() for s in strings(v)]
    if isinstance(value, list):
        return [s for v in value for s in strings(v)]
    return [value] if isinstance(value, str) else []


@pytest.mark.parametrize("verb", [["gc", "--dry-run", "--json"], ["search", "evil", "--json"], ["log", "--json"]])
def test_json_output_keeps_the_text_exact_and_writes_no_control_raw(hostile, capsys, verb):
    """The data parse back exactly; the text itself (what a terminal shows) holds no raw
    control character nor bidi override (both \\u-escaped)."""
    main([verb[0], str(hostile), *verb[1:]])
    out = capsys.readouterr().out
    assert_no_raw(out)
    assert any(HOSTILE in s for s in strings(json.loads(out)))


def test_an_error_line_shows_hostile_text_literally(hostile, capsys):
    """A one-line error naming something from the data (here a path) prints it literally on
    stderr, as the text output does."""
    assert main(["log", str(hostile / f"gone {HOSTILE}")]) == 2
    err = capsys.readouterr().err
    assert SHOWN in err, err
    assert_no_raw(err)
