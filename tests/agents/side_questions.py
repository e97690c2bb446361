"""A side question to a Claude Code session, as its SDK asks one: the `side_question` control
request of `--input-format stream-json` (what /btw asks in the terminal). It is answered beside
the conversation, which does not move on; 2.1.8x-9x writes the answer into the session's
`subagents/agent-aside_question-*.jsonl`, after a copy of the conversation."""

from __future__ import annotations

import json
import subprocess


def ask_side_question(argv: list[str], question: str, *, cwd, env, timeout) -> subprocess.CompletedProcess:
    """Run `argv` (a resumed stream-json session), ask `question`, close stdin once the answer is
    back (the run waits on stdin till then); exit code 1 when no answer came."""
    request = {"type": "control_request", "request_id": "aside-1",
               "request": {"subtype": "side_question", "question": question}}
    proc = subprocess.Popen(argv, cwd=cwd, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    assert proc.stdin and proc.stdout
    proc.stdin.write(json.dumps(request) + "\n")
    proc.stdin.flush()
    out = []
    for line in proc.stdout:
        out.append(line)
        if '"control_response"' in line and '"aside-1"' in line:
            break
    try:
        rest, err = proc.communicate(input="", timeout=timeout)  # closes stdin: the run ends
    except subprocess.TimeoutExpired:
        proc.kill()
        raise
    answered = any('"subtype":"success"' in line.replace(" ", "") and '"aside-1"' in line for line in out)
    return subprocess.CompletedProcess(argv, proc.returncode if answered else 1, "".join(out) + rest, err)
