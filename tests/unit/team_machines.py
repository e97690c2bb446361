"""Three simulated machines for the push tests, built from the real transcripts of
tests/fixtures/real (mixed_homes) and memtui's own seeded demo store:

- laptop: a Claude Code home (spotter-small + agtrace) and a memtui workspace (demo, seed 1);
- devbox: the same Claude Code home (the same sessions, copied: shared across machines) and a
  Codex home (agtrace + localpush);
- ci: the Codex home and a memtui workspace of its own (demo, seed 2).

`transcript_machines` builds the same three from the transcripts alone (no demo stores: quicker).

Each machine's PATHs are what `memtui push PATH…` is given there; `env` is its environment
(HOME and the agents' variables pointing into its own scratch folders).
"""

from __future__ import annotations

import shutil
from dataclasses import dataclass
from pathlib import Path

from mixed_homes import claude_home, codex_home

from memtui.core.demo import build_demo


@dataclass
class Machine:
    name: str
    home: Path
    paths: list[Path]

    @property
    def env(self) -> dict[str, str]:
        return {"HOME": str(self.home), "CLAUDE_CONFIG_DIR": str(self.home / "claude"),
                "CODEX_HOME": str(self.home / "codex"), "XDG_CACHE_HOME": str(self.home / "cache"),
                "XDG_DATA_HOME": str(self.home / "data"), "XDG_STATE_HOME": str(self.home / "state"),
                "XDG_CONFIG_HOME": str(self.home / "config")}


def transcript_machines(root: Path) -> list[Machine]:
    """laptop: the Claude Code home; devbox: the same Claude Code sessions and the Codex home;
    ci: the Codex home."""
    originals = root / "originals"
    claude, codex = claude_home(originals), codex_home(originals)
    machines = []
    for name, parts in (("laptop", {"claude": claude}), ("devbox", {"claude": claude, "codex": codex}),
                        ("ci", {"codex": codex})):
        home = root / name
        for folder, source in parts.items():
            shutil.copytree(source, home / folder, symlinks=True)
        machines.append(Machine(name, home, [home / folder for folder in parts]))
    return machines


def build_machines(root: Path, demo_scale: int = 20) -> list[Machine]:
    originals = root / "originals"
    claude, codex = claude_home(originals), codex_home(originals)
    demo1 = build_demo(originals / "demo1", seed=1, scale=demo_scale)
    demo2 = build_demo(originals / "demo2", seed=2, scale=demo_scale)
    machines = []
    for name, parts in (("laptop", {"claude": claude, "work": demo1}),
                        ("devbox", {"claude": claude, "codex": codex}),
                        ("ci", {"codex": codex, "work": demo2})):
        home = root / name
        home.mkdir(parents=True)
        for folder, source in parts.items():
            shutil.copytree(source, home / folder, symlinks=True)
        machines.append(Machine(name, home, [home / folder for folder in parts]))
    return machines
