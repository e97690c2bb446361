"""The scenarios every agent that can express them runs (see scenario.py for the language).

Prompts are distinct across scenarios and turns: the stub finds its place by them. Usages
differ per step (and carry cache reads and writes) so a token total that counts a reply twice
or drops one shows.
"""

from __future__ import annotations

from .scenario import Delete, Edit, MultiEdit, Read, Scenario, Shell, Step, SubAgent, Turn, Usage, Write

CHECKPOINTS = {"CLAUDE_CODE_ENABLE_SDK_FILE_CHECKPOINTING": "1"}
# The Claude Code releases that fork the whole conversation into the session's subagents folder
# for a compaction (`agent-acompact-*`) and a side question (`agent-aside_question-*`). 2.1.197
# and 2.1.332 answer the same /compact and side question and write no fork.
FORKING = ("2.1.90",)

NOTES = "# Notes\n\nalpha\nbeta\ngamma\n"
GREET = 'def greet(name):\n    return "Hello, " + name\n'

SCENARIOS: tuple[Scenario, ...] = (
    Scenario("create-edit", files={"notes.md": NOTES}, env=CHECKPOINTS, turns=(
        Turn("Create greet.py with a greet function, then rename beta to delta in notes.md.", [
            Step([Write("greet.py", GREET)], text="Writing greet.py.",
                 usage=Usage(input=1200, output=41, cache_read=0, cache_write=3100)),
            Step([Read("notes.md")], usage=Usage(input=70, output=12, cache_read=3100)),
            Step([Edit("notes.md", "beta\n", "delta\n")], usage=Usage(input=90, output=23, cache_read=3100, cache_write=250)),
            Step(text="Created greet.py and renamed beta to delta.", usage=Usage(input=60, output=17, cache_read=3350)),
        ]),
    )),
    Scenario("multi-edit-delete", files={"notes.md": NOTES, "old.txt": "obsolete\n"}, env=CHECKPOINTS, turns=(
        Turn("Uppercase alpha and gamma in notes.md in one edit, then delete old.txt.", [
            Step([Read("notes.md")], usage=Usage(input=600, output=14, cache_write=2500)),
            Step([MultiEdit("notes.md", (("alpha\n", "ALPHA\n"), ("gamma\n", "GAMMA\n")))],
                 usage=Usage(input=800, output=52, cache_write=2900)),
            Step([Delete("old.txt")], usage=Usage(input=70, output=19, cache_read=2900)),
            Step(text="Uppercased two lines and removed old.txt.", usage=Usage(input=40, output=11, cache_read=2990)),
        ]),
    )),
    Scenario("shell-error", files={"notes.md": NOTES}, turns=(
        Turn("List the workspace, then show missing.txt.", [
            Step([Shell("printf 'one\\ntwo\\nthree\\n' && ls")], usage=Usage(input=500, output=30, cache_write=1500)),
            Step([Shell("cat missing.txt", fails=True)], usage=Usage(input=80, output=21, cache_read=1500)),
            Step(text="missing.txt does not exist.", usage=Usage(input=50, output=9, cache_read=1600)),
        ]),
    )),
    Scenario("subagent", files={"notes.md": NOTES}, env=CHECKPOINTS, only=("claude-code", "opencode", "gemini-cli"), turns=(
        Turn("Ask a helper to write todo.md, then report.", [
            Step([SubAgent("Helper task: write todo.md listing two chores.", [
                Step([Write("todo.md", "# Todo\n\n- water plants\n- file taxes\n")],
                     usage=Usage(input=400, output=37, cache_write=1200)),
                Step(text="Wrote todo.md with two chores.", usage=Usage(input=30, output=8, cache_read=1200)),
            ], description="write todo")], usage=Usage(input=900, output=44, cache_write=2800)),
            Step(text="The helper wrote todo.md.", usage=Usage(input=60, output=7, cache_read=2800)),
        ]),
    )),
    Scenario("resume", files={"notes.md": NOTES}, env=CHECKPOINTS, turns=(
        Turn("First prompt: add epsilon to notes.md.", [
            Step([Read("notes.md")], usage=Usage(input=650, output=13, cache_write=1900)),
            Step([Edit("notes.md", "gamma\n", "gamma\nepsilon\n")], usage=Usage(input=700, output=26, cache_write=2000)),
            Step(text="Added epsilon.", usage=Usage(input=40, output=5, cache_read=2000)),
        ]),
        Turn("Second prompt, resumed: add zeta to notes.md and create done.txt.", resume=True, steps=[
            Step([Read("notes.md")], usage=Usage(input=250, output=11, cache_read=2040)),
            Step([Edit("notes.md", "epsilon\n", "epsilon\nzeta\n"), Write("done.txt", "done\n")],
                 usage=Usage(input=300, output=48, cache_read=2040, cache_write=400)),
            Step(text="Added zeta and wrote done.txt.", usage=Usage(input=45, output=12, cache_read=2440)),
        ]),
    )),
    Scenario("long-result", files={"notes.md": NOTES}, turns=(
        Turn("Print the numbers from 1 to 12000.", [
            Step([Shell("seq 1 12000")], usage=Usage(input=300, output=15, cache_write=1000)),
            Step(text="Printed 12000 numbers.", usage=Usage(input=20000, output=8, cache_read=1000)),
        ]),
    )),
    Scenario("compact-auto", files={"notes.md": NOTES}, only=("codex",), settings={"model_auto_compact_token_limit": "20000"},
             turns=(
        Turn("Before the context fills: write c.txt.", [
            Step([Write("c.txt", "c\n")], usage=Usage(input=600, output=20, cache_write=1800)),
            Step(text="Wrote c.txt.", usage=Usage(input=30000, output=5, cache_read=1800)),
        ]),
        Turn("After the automatic compaction: write d.txt.", resume=True, steps=[
            Step([Write("d.txt", "d\n")], usage=Usage(input=400, output=21, cache_write=900)),
            Step(text="Wrote d.txt.", usage=Usage(input=30, output=6, cache_read=900)),
        ]),
    )),
    Scenario("compact", files={"notes.md": NOTES}, only=("claude-code",), turns=(
        Turn("Before compacting: write a.txt.", [
            Step([Write("a.txt", "a\n")], usage=Usage(input=600, output=20, cache_write=1800)),
            Step(text="Wrote a.txt.", usage=Usage(input=30, output=5, cache_read=1800)),
        ]),
        Turn("/compact", resume=True),
        Turn("After compacting: write b.txt.", resume=True, steps=[
            Step([Write("b.txt", "b\n")], usage=Usage(input=400, output=21, cache_write=900)),
            Step(text="Wrote b.txt.", usage=Usage(input=30, output=6, cache_read=900)),
        ]),
    )),
)

SCENARIOS += (
    # A prompt that opens with a tag (pasted HTML) is still a prompt; a local command (/context)
    # is none, wherever its output is written (a user line, or from 2.1.1xx a system line).
    Scenario("tagged-prompt", files={"notes.md": NOTES}, env=CHECKPOINTS, only=("claude-code",), turns=(
        Turn('<section class="notes">alpha beta gamma</section> Add omega to notes.md.', [
            Step([Read("notes.md")], usage=Usage(input=610, output=16, cache_write=2050)),
            Step([Edit("notes.md", "gamma\n", "gamma\nomega\n")], usage=Usage(input=700, output=25, cache_write=2150)),
            Step(text="Added omega.", usage=Usage(input=42, output=5, cache_read=2150)),
        ]),
        Turn("/context", resume=True),
        Turn("After the context report: write omega.txt.", resume=True, steps=[
            Step([Write("omega.txt", "omega\n")], usage=Usage(input=390, output=22, cache_write=960)),
            Step(text="Wrote omega.txt.", usage=Usage(input=36, output=6, cache_read=960)),
        ]),
    )),
    # A `cd` in a shell step: Claude Code keeps the shell's folder and records it as the cwd of
    # the records after it; the session's project stays the folder it started in.
    Scenario("cd-mid-session", files={"notes.md": NOTES, "sub/inner.md": "inner\n"}, env=CHECKPOINTS,
             only=("claude-code",), turns=(
        Turn("Move into sub, then edit sub/inner.md and notes.md from there.", [
            Step([Shell("cd sub && pwd")], usage=Usage(input=560, output=18, cache_write=1950)),
            Step([Read("sub/inner.md")], usage=Usage(input=80, output=14, cache_read=1950)),
            Step([Edit("sub/inner.md", "inner\n", "inner\nmore\n")], usage=Usage(input=90, output=29, cache_read=1950)),
            Step([Read("notes.md")], usage=Usage(input=85, output=13, cache_read=2000)),
            Step([Edit("notes.md", "beta\n", "BETA\n")], usage=Usage(input=95, output=26, cache_read=2050)),
            Step(text="Edited both from sub.", usage=Usage(input=50, output=8, cache_read=2100)),
        ]),
        Turn("Back in the workspace: write top.txt.", resume=True, steps=[
            Step([Write("top.txt", "top\n")], usage=Usage(input=300, output=20, cache_write=800)),
            Step(text="Wrote top.txt.", usage=Usage(input=30, output=5, cache_read=800)),
        ]),
    )),
    # A reply reporting a nearly full context: resumed, Claude Code compacts by itself before the
    # next prompt (2.1.90: through a summariser fork, agent-acompact-*).
    Scenario("autocompact", files={"notes.md": NOTES}, env=CHECKPOINTS, only=("claude-code",), versions=FORKING,
             compaction=Step(text="Summary: a.txt written. Next: After the automatic compaction: write b.txt.",
                             usage=Usage(input=3000, output=41, cache_read=1800)),
             turns=(
        Turn("Before the context fills: write a.txt.", [
            Step([Write("a.txt", "a\n")], usage=Usage(input=600, output=20, cache_write=1800)),
            Step(text="Wrote a.txt.", usage=Usage(input=185000, output=5, cache_read=1800)),
        ]),
        Turn("After the automatic compaction: write b.txt.", resume=True, steps=[
            Step([Write("b.txt", "b\n")], usage=Usage(input=400, output=21, cache_write=900)),
            Step(text="Wrote b.txt.", usage=Usage(input=30, output=6, cache_read=900)),
        ]),
    )),
    Scenario("forks", files={"notes.md": NOTES}, env=CHECKPOINTS, only=("claude-code",), versions=FORKING, turns=(
        Turn("Fork setup: add eta to notes.md.", [
            Step([Read("notes.md")], usage=Usage(input=640, output=15, cache_write=2100)),
            Step([Edit("notes.md", "gamma\n", "gamma\neta\n")], usage=Usage(input=720, output=27, cache_write=2200)),
            Step(text="Added eta.", usage=Usage(input=45, output=6, cache_read=2200)),
        ]),
        Turn("Side question: which word did you add to notes.md?", kind="aside", steps=[
            Step(text="I added eta after gamma.", usage=Usage(input=2300, output=11, cache_read=2200)),
        ]),
        Turn("/compact", resume=True, kind="command", steps=[
            Step(text="Summary: notes.md gained eta after gamma.", usage=Usage(input=2400, output=38, cache_read=2200)),
        ]),
        Turn("After the forks: write theta.txt.", resume=True, steps=[
            Step([Write("theta.txt", "theta\n")], usage=Usage(input=380, output=24, cache_write=950)),
            Step(text="Wrote theta.txt.", usage=Usage(input=35, output=7, cache_read=950)),
        ]),
    )),
)

BY_NAME = {s.name: s for s in SCENARIOS}
