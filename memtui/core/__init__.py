"""The memtui core: storage, GC, rollback, memory documents and foreign sources. No UI imports."""
