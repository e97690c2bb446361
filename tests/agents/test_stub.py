"""The scripted model picks each reply from the conversation alone: the step after the tool
results already answered, never a new round for a Claude Code <task-notification>, plain text
with no usage once the script is played out or for the agent's own errands."""

from __future__ import annotations

import json
import urllib.request

from .agents import AGENTS
from .scenario import Scenario, Shell, Step, SubAgent, Turn, Usage, Write
from .stub import Message, Script, StubModel

SCENARIO = Scenario("t", turns=(Turn("Do the thing.", [
    Step([SubAgent("Helper: write a.txt.", [Step([Write("a.txt", "a\n")]), Step(text="Wrote it.")])],
         usage=Usage(output=7)),
    Step([Shell("true")], usage=Usage(output=5)),
    Step(text="All done.", usage=Usage(output=3)),
]),))


def script(tmp_path):
    agent = AGENTS["claude-code"]
    return Script(SCENARIO, lambda step, where: agent.render(step, tmp_path))


def test_the_step_after_the_answered_results(tmp_path):
    s = script(tmp_path)
    first = s.reply([Message("user", "Do the thing.")])
    assert [c[0] for c in first.calls] == ["Agent"] and first.usage.output == 7
    second = s.reply([Message("user", "Do the thing."), Message("assistant", calls=1), Message("user", results=1)])
    assert [c[0] for c in second.calls] == ["Bash"]
    # The same request again (a retry) gets the same reply, ids included.
    assert s.reply([Message("user", "Do the thing."), Message("assistant", calls=1), Message("user", results=1)]) == second


def test_a_sub_agents_conversation_follows_its_own_script(tmp_path):
    reply = script(tmp_path).reply([Message("user", "<system-reminder>…</system-reminder>\nHelper: write a.txt.")])
    assert [c[0] for c in reply.calls] == ["Write"]


def test_a_task_notification_after_the_last_step_gets_text_without_usage(tmp_path):
    done = [Message("user", "Do the thing."), Message("assistant", calls=1), Message("user", results=1),
            Message("assistant", calls=1), Message("user", results=1), Message("assistant", "All done.")]
    reply = script(tmp_path).reply([*done, Message("user", "<task-notification>agent finished</task-notification>")])
    assert reply.calls == [] and reply.usage.output == 0


def test_an_errand_of_the_agent_is_answered_with_text(tmp_path):
    reply = script(tmp_path).reply([Message("user", "Do the thing."), Message("assistant", "ok"),
                                    Message("user", "Write a 5-word title for this conversation.")])
    assert reply.calls == [] and reply.usage.output == 0


def test_the_server_streams_anthropic_events_and_logs_the_request(tmp_path):
    log = tmp_path / "requests.jsonl"
    with StubModel(script(tmp_path), log) as model:
        body = json.dumps({"model": "m", "stream": True, "messages": [{"role": "user", "content": "Do the thing."}]})
        request = urllib.request.Request(f"{model.url}/v1/messages?beta=true", data=body.encode(), method="POST",
                                         headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(request, timeout=10) as response:
            events = [line[7:] for line in response.read().decode().splitlines() if line.startswith("event: ")]
    assert events[0] == "message_start" and events[-1] == "message_stop" and "content_block_delta" in events
    [logged] = [json.loads(line) for line in log.read_text().splitlines()]
    assert logged["path"] == "/v1/messages?beta=true" and logged["reply"]["calls"][0][0] == "Agent"
