"""Tokens and what they cost: every agent's usage in one shape, priced from a maintained table,
grouped by day, week, month, model, project or session.

    from memtui.core.usage import Pricer, Tokens, from_anthropic
    Pricer().cost("claude-sonnet-4-5-20250929", from_anthropic(record["message"]["usage"]), at)

Agent-neutral: an agent package maps its records to `Tokens` (tokens.py); prices.py prices
them; report.py groups them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from memtui.core.lazy_names import lazy_getattr

if TYPE_CHECKING:
    from memtui.core.usage.collect import priced_steps, task_costs, session_replies, source_replies, step_reply, step_tokens
    from memtui.core.usage.kept import Usage, kept_priced, session_costs
    from memtui.core.usage.prices import PriceTable, Pricer, find_model, price_table, shared_pricer
    from memtui.core.usage.report import (
        GROUPINGS,
        ORIGIN_GROUPINGS,
        Group,
        Priced,
        Reply,
        Report,
        by_task,
        cost_text,
        price,
        summarise,
        unpriced_note,
    )
    from memtui.core.usage.tokens import NO_TOKENS, Tokens, from_anthropic, from_openai

_WHERE = {name: module for module, names in {
    "collect": ('priced_steps', 'task_costs', 'session_replies', 'source_replies', 'step_reply', 'step_tokens'),
    "kept": ('Usage', 'kept_priced', 'session_costs'),
    "prices": ('PriceTable', 'Pricer', 'find_model', 'price_table', 'shared_pricer'),
    "report": ('GROUPINGS', 'ORIGIN_GROUPINGS', 'Group', 'Priced', 'Reply', 'Report', 'by_task', 'cost_text', 'price', 'summarise', 'unpriced_note'),
    "tokens": ('NO_TOKENS', 'Tokens', 'from_anthropic', 'from_openai'),
}.items() for name in names}
"""Each name of the package → its module, loaded on first use: `memtui.core.usage.tokens`, which
every agent's model imports, loads no price table (importlib.metadata, genai-prices) with it."""


__getattr__ = lazy_getattr("memtui.core.usage", _WHERE)


__all__ = ["GROUPINGS", "ORIGIN_GROUPINGS", "Group", "NO_TOKENS", "PriceTable", "Priced", "Pricer", "Reply", "Report", "Tokens",
           "Usage", "by_task", "cost_text", "kept_priced", "find_model", "from_anthropic", "from_openai", "price", "price_table", "priced_steps", "session_costs", "shared_pricer", "task_costs", "session_replies", "source_replies", "step_reply", "step_tokens",
           "summarise", "unpriced_note"]
