"""One size formatter and one sanitiser, shared by the CLI, the UI and the diff view."""

from __future__ import annotations

import pytest

from memtui.core.display import human_bytes, one_line, sanitize
from memtui.core.paths import normalise_path, relative_parts
from memtui.core.errors import PathEscape


@pytest.mark.parametrize("n, shown", [
    (None, "—"), (0, "0 B"), (1023, "1023 B"), (1024, "1.0 KiB"), (1536, "1.5 KiB"),
    (14_000, "14 KiB"), (248 * 1024, "248 KiB"), (5 * 1024**2, "5.0 MiB"), (3 * 1024**3 // 2, "1.5 GiB"),
])
def test_sizes_are_binary_and_labelled_kib_mib(n, shown):
    assert human_bytes(n) == shown


@pytest.mark.parametrize("n, shown", [
    (0, "0"), (999, "999"), (1000, "1.0k"), (12_345, "12.3k"), (999_940, "999.9k"), (999_960, "1.0M"),
    (56_800_000, "56.8M"), (999_949_999, "999.9M"), (999_950_000, "1.0B"), (5_448_012_345, "5.4B"),
])
def test_token_counts_take_the_unit_that_keeps_them_under_a_thousand(n, shown):
    """A heavy home's cache reads run to billions: 5.4B, never 5448.0M (nor 1000.0k)."""
    from memtui.ui.text import human_tokens

    assert human_tokens(n) == shown


def test_cli_and_ui_print_the_same_label_for_the_same_bytes():
    from memtui.cli import gc, stats
    from memtui.ui import text

    assert text.human_bytes is human_bytes is stats.human_bytes is gc.human_bytes


TROJAN = "access = 'user' \u202e } \u2066if admin\u2069 \u2067"


def test_bidi_overrides_ansi_and_controls_are_shown_visibly():
    shown = sanitize(f"{TROJAN}\x1b[31mred\x1b[0m\x07\r")
    assert not any(0x202A <= ord(c) <= 0x202E or 0x2066 <= ord(c) <= 0x2069 for c in shown)
    assert shown.count("\ufffd") == 4
    assert "␛[31mred␛[0m␇␍" in shown
    assert sanitize("a\tb\nc", multiline=True) == "a\tb\nc"
    assert sanitize("a\tb\nc") == "a␉b␊c"
    assert one_line("x" * 10 + "\u202e", width=5) == "xxxx…"


def test_the_ui_and_the_diff_view_use_the_one_sanitiser():
    from memtui.core.diff import display_line
    from memtui.ui.text import safe_text

    assert "\ufffd" in safe_text(TROJAN).plain and "\u202e" not in safe_text(TROJAN).plain
    assert safe_text(TROJAN).plain == sanitize(TROJAN) == display_line(TROJAN)


@pytest.mark.parametrize("path, one", [("./a//b.txt", "a/b.txt"), ("a\\b", "a/b"), ("x", "x")])
def test_one_spelling_of_a_recorded_path(path, one):
    assert normalise_path(path) == one


@pytest.mark.parametrize("path, why", [("/etc/passwd", "absolute"), ("C:/x", "absolute"), ("a/../../b", "'..'"),
                                       ("", "empty"), ("./", "empty"), ("a\x00b", "invalid")])
def test_a_path_leading_out_is_refused_saying_why(path, why):
    with pytest.raises(PathEscape, match=why):
        relative_parts(path)
