"""Which prompts of a Claude Code transcript were rewound: only real forks count.

Records form a tree through `parentUuid`. Many nodes have two children without anything
being rewound: a hook's progress line beside the reply, a tool result beside the next tool
call of the same reply. A compaction starts a new root (`parentUuid: null`, with a
`logicalParentUuid` that may name a record no longer in the file). None of these is a
rewind. A rewind (`/rewind`, or editing an earlier prompt) writes a new prompt as a sibling
of the old one: a real fork is a node with two or more prompt children, and the branch
that holds the newest record wins; prompts on the other branches are superseded.
"""

from __future__ import annotations

from collections import defaultdict


def superseded_prompts(parents: dict[str, str | None], order: dict[str, int], prompts: set[str]) -> set[str]:
    """The prompt uuids on abandoned branches.

    `parents` maps each record uuid to its parent (parentUuid, else logicalParentUuid),
    `order` gives each uuid's position in the file, `prompts` are the uuids of prompts.
    """
    prompt_children: dict[str, list[str]] = defaultdict(list)
    for uuid in prompts:
        parent = parents.get(uuid)
        if parent is not None:
            prompt_children[parent].append(uuid)
    forks = {parent: kids for parent, kids in prompt_children.items() if len(kids) > 1}
    if not forks:
        return set()
    # The newest record under each node: children come after parents in the file, so one
    # pass from the end carries each node's newest position up to its parent.
    newest = dict(order)
    for uuid in sorted(order, key=order.__getitem__, reverse=True):
        parent = parents.get(uuid)
        if parent is not None and parent in newest and newest[uuid] > newest[parent]:
            newest[parent] = newest[uuid]
    losers = set()
    for kids in forks.values():
        winner = max(kids, key=lambda u: newest.get(u, -1))
        losers.update(k for k in kids if k != winner)
    out = set()
    for uuid in prompts:
        node: str | None = uuid
        seen: set[str] = set()
        while node is not None and node not in seen:
            if node in losers:
                out.add(uuid)
                break
            seen.add(node)
            node = parents.get(node)
    return out
