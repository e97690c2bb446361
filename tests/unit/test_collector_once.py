"""The UI leaves its heap out of the cycle collector once, not at every reload."""

from __future__ import annotations

import gc
import weakref

from memtui.ui.collector import keep_out_of_collections


class Node:
    pass


def test_a_reload_does_not_keep_garbage_cycles_for_good():
    keep_out_of_collections()  # the first full sessions list (maybe an earlier test's)
    node = Node()
    node.me = node  # a cycle: only the cycle collector frees it
    gone = weakref.ref(node)
    del node
    keep_out_of_collections()  # a reload of a followed store lists the sessions again
    gc.collect()
    assert gone() is None
