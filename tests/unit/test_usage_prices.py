"""Tokens in each agent's terms, and what they cost from the price table (genai-prices)."""

from __future__ import annotations

from datetime import UTC, date, datetime

import pytest
from genai_prices import Usage, calc_price
from hypothesis import given, settings
from hypothesis import strategies as st

from memtui.core.usage import Pricer, Tokens, find_model, from_anthropic, from_openai, price_table

FEB = datetime(2026, 2, 11, 12, 0, tzinfo=UTC)


# -- field mapping -------------------------------------------------------------------------
def test_anthropic_input_excludes_cache_reads_and_writes_split_5m_and_1h():
    usage = {"input_tokens": 12, "output_tokens": 300, "cache_read_input_tokens": 40_000,
             "cache_creation_input_tokens": 5_000,
             "cache_creation": {"ephemeral_5m_input_tokens": 3_000, "ephemeral_1h_input_tokens": 2_000}}
    tokens = from_anthropic(usage)
    assert tokens == Tokens(input=12, output=300, cache_read=40_000, cache_write_5m=3_000, cache_write_1h=2_000)
    assert tokens.prompt == 12 + 40_000 + 5_000 and tokens.total == 45_312


def test_anthropic_cache_writes_without_a_split_are_five_minute_writes():
    tokens = from_anthropic({"input_tokens": 3, "output_tokens": 9, "cache_creation_input_tokens": 700})
    assert (tokens.cache_write_5m, tokens.cache_write_1h) == (700, 0)


def test_anthropic_thinking_is_output_not_extra():
    tokens = from_anthropic({"input_tokens": 1, "output_tokens": 900, "output_tokens_details": {"thinking_tokens": 600}})
    assert tokens.output == 900 and tokens.reasoning == 600 and tokens.total == 901


def test_openai_input_includes_cached_and_output_includes_reasoning():
    # Codex's token_count: input_tokens counts the cached ones too; total_tokens = input + output.
    usage = {"input_tokens": 10_000, "cached_input_tokens": 8_000, "output_tokens": 500,
             "reasoning_output_tokens": 320, "total_tokens": 10_500}
    tokens = from_openai(usage)
    assert tokens == Tokens(input=2_000, output=500, cache_read=8_000, reasoning=320)
    assert tokens.total == usage["total_tokens"]


def test_malformed_counts_are_zero_not_errors():
    assert from_anthropic({"input_tokens": "12", "output_tokens": -4, "cache_creation": []}) == Tokens()
    assert from_openai(None) == Tokens()


# -- prices ----------------------------------------------------------------------------------
MILLION = 1_000_000


@pytest.mark.parametrize(("tokens", "dollars"), [
    # Anthropic's published price of Claude Opus 4.6 (prompts up to 200k tokens): $5 in, $25 out
    # per million, cache reads 0.1×, 5-minute writes 1.25×, 1-hour writes 2× the input price.
    (Tokens(input=100_000), 0.5),
    (Tokens(input=1, output=100_000), 2.5 + 5e-6),
    (Tokens(cache_read=100_000), 0.05),
    (Tokens(cache_write_5m=100_000), 0.625),
    (Tokens(cache_write_1h=100_000), 1.0),
])
def test_each_kind_of_token_has_its_own_price(tokens, dollars):
    assert Pricer().cost("claude-opus-4-6", tokens, FEB) == pytest.approx(dollars)


def test_openai_cached_input_is_priced_as_cache_reads():
    # gpt-5.3-codex: $1.75 in, $0.175 cached, $14 out per million.
    tokens = from_openai({"input_tokens": MILLION, "cached_input_tokens": 600_000, "output_tokens": 100_000,
                          "reasoning_output_tokens": 80_000})
    assert Pricer().cost("gpt-5.3-codex", tokens, FEB) == pytest.approx(0.4 * 1.75 + 0.6 * 0.175 + 0.1 * 14)


@pytest.mark.parametrize("name", ["claude-sonnet-4-5-20250929", "claude-sonnet-4-5-20250929-thinking",
                                  "anthropic/claude-sonnet-4-5"])
def test_model_names_as_transcripts_write_them(name):
    tokens = Tokens(input=1_000, output=2_000, cache_read=50_000, cache_write_5m=3_000)
    pricer = Pricer()
    assert pricer.known(name)
    assert pricer.cost(name, tokens, FEB) == pytest.approx(pricer.cost("claude-sonnet-4-5", tokens, FEB))


def test_bedrock_and_vertex_ids_are_priced_at_their_providers_prices():
    tokens = Tokens(input=1_000, output=2_000)
    pricer = Pricer()
    for name in ("us.anthropic.claude-sonnet-4-5-20250929-v1:0", "claude-sonnet-4-5@20250929"):
        assert pricer.cost(name, tokens, FEB) == pytest.approx(pricer.cost("claude-sonnet-4-5", tokens, FEB), rel=0.15)


def test_an_unknown_model_has_no_price_never_zero():
    pricer = Pricer()
    assert pricer.cost("acme-coder-9000", Tokens(input=10, output=10), FEB) is None
    assert find_model("acme-coder-9000") is None
    assert pricer.cost("<synthetic>", Tokens(), FEB) == 0.0  # nothing used costs nothing, whatever the model


def test_a_long_prompt_is_priced_at_its_tier():
    # Sonnet 4.5: prompts over 200k tokens cost $6 in / $22.50 out instead of $3 / $15.
    pricer = Pricer()
    assert pricer.cost("claude-sonnet-4-5", Tokens(input=150_000, output=1_000), FEB) == pytest.approx(0.45 + 0.015)
    assert pricer.cost("claude-sonnet-4-5", Tokens(input=250_000, output=1_000), FEB) == pytest.approx(1.5 + 0.0225)


MODELS = ["claude-opus-4-6", "claude-sonnet-4-5-20250929", "claude-haiku-4-5-20251001", "claude-3-7-sonnet-20250219",
          "claude-opus-4-1-20250805", "gpt-5.3-codex", "gpt-5.1-codex-max", "gpt-5-codex", "gpt-4o"]
counts = st.integers(min_value=0, max_value=400_000)


@settings(max_examples=150, deadline=None)
@given(model=st.sampled_from(MODELS), input=counts, output=counts, read=counts, w5=counts, w1=counts,
       day=st.dates(min_value=date(2025, 1, 1), max_value=date(2026, 12, 31)))
def test_the_fast_path_agrees_with_calc_price(model, input, output, read, w5, w1, day):
    tokens = Tokens(input=input, output=output, cache_read=read, cache_write_5m=w5, cache_write_1h=w1)
    at = datetime(day.year, day.month, day.day, 9, 30, tzinfo=UTC)
    expected = calc_price(Usage(input_tokens=tokens.prompt, cache_read_tokens=read, cache_write_tokens=w5 + w1,
                                cache_write_1h_tokens=w1, output_tokens=output), model,
                          genai_request_timestamp=at).total_price
    assert Pricer().cost(model, tokens, at) == pytest.approx(float(expected), rel=1e-9, abs=1e-12)


def test_the_price_table_names_itself_and_its_date():
    table = price_table(today=date(2026, 12, 1))
    assert table.name == "genai-prices" and table.version[0].isdigit()
    assert table.dated is not None and table.dated <= date(2026, 12, 1)
    assert table.label.startswith(f"genai-prices {table.version}, prices as of 20")
    assert price_table(today=date(2025, 6, 1)).dated <= date(2025, 6, 1)


def test_codex_cache_writes_are_part_of_its_input():
    tokens = from_openai({"input_tokens": 4_300, "cached_input_tokens": 0, "cache_write_input_tokens": 3_100,
                          "output_tokens": 41, "total_tokens": 4_341})
    assert tokens == Tokens(input=1_200, output=41, cache_write_5m=3_100) and tokens.total == 4_341
