"""What tokens cost, from a maintained price table: genai-prices.

genai-prices (pydantic) ships a dated snapshot of the providers' price pages (Anthropic,
OpenAI, Google …) inside the package: no network at run time. Its prices carry their start
dates, so a reply is priced at the price in force on the day it was made, and its model
matching knows dated ids (`claude-sonnet-4-5-20250929`), `-thinking` variants and
provider-prefixed names (`anthropic/claude-…`).

Pricing one reply through `calc_price` takes ~0.7 ms; a home of thousands of sessions has
hundreds of thousands of replies. A price is linear in each count within one tier (a tier is
chosen by the request's whole prompt, e.g. Sonnet's prompts over 200k tokens), so `Pricer`
asks the table once per model, price period and tier for the price of each kind of token and
multiplies; tests/unit/test_usage_prices.py holds it to `calc_price` on random replies.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from datetime import UTC, date, datetime
from decimal import Decimal
from functools import cache
from importlib.metadata import PackageNotFoundError, version
from typing import Any

from memtui.core.usage.tokens import Tokens

TABLE = "genai-prices"


@dataclass(frozen=True)
class PriceTable:
    """Which price table priced the tokens: its package, version and date."""

    name: str
    version: str
    dated: date | None
    """The latest price change the table records that is in force on the day it was asked
    (the package itself names no date)."""

    @property
    def label(self) -> str:
        """"genai-prices 0.2.3, prices as of 2026-09-28" — shown wherever a cost is."""
        when = f", prices as of {self.dated.isoformat()}" if self.dated else ""
        return f"{self.name} {self.version}{when}"

    def as_dict(self) -> dict[str, Any]:
        return {"name": self.name, "version": self.version,
                "dated": self.dated.isoformat() if self.dated else None}


def price_table(today: date | None = None, starts: "list[date] | None" = None) -> PriceTable:
    """The price table in use and its date (as of `today`, default the real one); `starts`: the
    table's price start dates as `price_start_dates` gives them, when kept from an earlier run
    (the table is then not loaded)."""
    today = today or datetime.now(UTC).date()
    dates = price_start_dates() if starts is None else starts
    return PriceTable(TABLE, table_version(), max((d for d in dates if d <= today), default=None))


@cache
def table_version() -> str:
    """The price table's package version."""
    try:
        return version(TABLE)
    except PackageNotFoundError:  # pragma: no cover (a dependency of memtui)
        return "?"


@cache
def price_start_dates() -> list[date]:
    """Every date a price in the table starts on, in order (a table's date is the latest of
    them in force)."""
    from genai_prices.data_snapshot import get_snapshot
    from genai_prices.types import StartDateConstraint

    found = set()
    for provider in get_snapshot().providers:
        for model in provider.models:
            for conditional in model.prices if isinstance(model.prices, list) else ():
                if isinstance(conditional.constraint, StartDateConstraint):
                    found.add(conditional.constraint.start_date)
    return sorted(found)


@dataclass(frozen=True)
class _Rates:
    """USD per token of each kind, within one tier of one model's price."""

    input: float
    output: float
    cache_read: float
    cache_write_5m: float
    cache_write_1h: float

    def cost(self, tokens: Tokens) -> float:
        return (tokens.input * self.input + tokens.output * self.output + tokens.cache_read * self.cache_read
                + tokens.cache_write_5m * self.cache_write_5m + tokens.cache_write_1h * self.cache_write_1h)


class _ModelPrice:
    """One model's price in one period: the tiers' thresholds and the rates in each."""

    def __init__(self, model_price: Any) -> None:
        from genai_prices.types import TieredPrices

        self._price = model_price
        starts = {tier.start for value in vars(model_price).values() if isinstance(value, TieredPrices)
                  for tier in value.tiers}
        self.thresholds = sorted(starts)
        self._rates: dict[int, _Rates] = {}

    def rates(self, prompt: int) -> _Rates:
        tier = sum(1 for start in self.thresholds if prompt > start)  # genai-prices: over the start
        if tier not in self._rates:
            self._rates[tier] = self._probe(tier)
        return self._rates[tier]

    def _probe(self, tier: int) -> _Rates:
        from genai_prices import Usage

        # A prompt size inside the tier: at the first threshold for the base tier, one over a start above it.
        if not self.thresholds:
            size = 1_000_000
        elif tier == 0:
            size = self.thresholds[0]
        else:
            size = self.thresholds[tier - 1] + 1

        def per_token(**counts: int) -> Decimal:
            return self._price.calc_price(Usage(input_tokens=size, **counts))["total_price"] / size

        uncached = per_token()
        return _Rates(input=float(uncached),
                      output=float(per_token(output_tokens=size) - uncached),
                      cache_read=float(per_token(cache_read_tokens=size)),
                      cache_write_5m=float(per_token(cache_write_tokens=size)),
                      cache_write_1h=float(per_token(cache_write_tokens=size, cache_write_1h_tokens=size)))


class Pricer:
    """Prices replies: `cost(model, tokens, at)` in USD, None for a model the table lacks.

    Thread-safe; one Pricer keeps what it looked up (models, periods, tiers) for its life."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._models: dict[str, Any] = {}  # model as written → genai-prices ModelInfo, or None
        self._periods: dict[tuple[str, datetime], _ModelPrice] = {}
        self._by_price: dict[int, _ModelPrice] = {}

    def known(self, model: str) -> bool:
        """Whether the table has a price for `model` as the transcript names it."""
        return self._model(model) is not None

    def cost(self, model: str, tokens: Tokens, at: datetime | None = None) -> float | None:
        """What `tokens` of one reply by `model` cost at `at` (now when None): None when the
        table has no such model; 0.0 for no tokens whatever the model (Claude Code's
        `<synthetic>` replies used none)."""
        if not tokens:
            return 0.0
        info = self._models[model] if model in self._models else self._model(model)
        if info is None:
            return None
        when = (at or datetime.now(UTC)).replace(second=0, microsecond=0)
        key = (model, when)
        price = self._periods.get(key)  # a dict read needs no lock; a miss is looked up under it
        if price is None:
            with self._lock:
                found = info.get_prices(when)
                price = self._by_price.setdefault(id(found), _ModelPrice(found))
                self._periods[key] = price
        return price.rates(tokens.prompt).cost(tokens)

    def _model(self, model: str) -> Any:
        with self._lock:
            if model not in self._models:
                self._models[model] = find_model(model)
            return self._models[model]


@cache
def shared_pricer() -> Pricer:
    """One Pricer for the process (what it looked up is kept for the next caller)."""
    return Pricer()


def find_model(model: str) -> Any:
    """genai-prices' ModelInfo for a model named as an agent wrote it, or None.

    A provider prefix (`anthropic/…`, `openai/…`) is read as LiteLLM writes it, a Bedrock id
    (`us.anthropic.claude-…-v1:0`) as AWS's, a Vertex id (`claude-…@20250929`) as Google's; what
    the table does not know by its full name is tried without a trailing `-thinking`."""
    from genai_prices.data_snapshot import get_snapshot

    name = model.strip()
    if not name:
        return None
    snapshot = get_snapshot()
    candidates = [name] + ([name.removesuffix("-thinking")] if name.endswith("-thinking") else [])
    for candidate in candidates:
        provider = ("litellm" if "/" in candidate else "aws" if "anthropic." in candidate
                    else "google" if "@" in candidate else None)
        try:
            _provider, info = snapshot.find_provider_model(candidate, None, provider, None)
        except LookupError:
            continue
        return info
    return None
