"""The team store's engines: `memtui push` (memtui.core.team.push). The store itself, on
PostgreSQL, is memtui.core.store.team."""
