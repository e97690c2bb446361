"""A scripted model on 127.0.0.1: one HTTP server answering the four API families the agents
speak, each reply chosen from the conversation in the request (stateless, so retries are safe).

    with StubModel(script, log=Path("requests.jsonl")) as model:   # model.url: http://127.0.0.1:PORT
        ...run the agent against model.url...

Families (one codec each, by request path): Anthropic Messages (`/v1/messages`), OpenAI
Responses (`/v1/responses`), OpenAI Chat Completions (`/v1/chat/completions`), Gemini
(`/v1beta/models/<m>:streamGenerateContent` / `:generateContent`). A codec turns the request
into a `Conversation` (user texts, calls, results in order) and a `Reply` into the family's
stream. `Script.reply` picks the reply: the last user message that holds a scripted prompt
names the script, the tool results after it say which step comes next; a conversation whose
last user message holds no scripted prompt, no tool result and no `<task-notification>` is the
agent's own side request (a title, a summary) and gets a plain text with no usage.
"""

from __future__ import annotations

import hashlib
import json
import re
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, Callable

from .scenario import Scenario, Step, Usage


@dataclass
class Message:
    """One message of a conversation, whatever the family: who spoke, what text, how many tool
    calls it made (assistant) or results it carried (user/tool)."""

    role: str  # "user" | "assistant"
    text: str = ""
    calls: int = 0
    results: int = 0


@dataclass
class Reply:
    """What the model says back: text, tool calls (name, arguments, id), usage."""

    text: str = ""
    calls: list[tuple[str, dict, str]] = field(default_factory=list)
    usage: Usage = Usage(input=0, output=0)
    json_object: dict | None = None  # a side request that asked for JSON gets this


NO_USAGE = Usage(input=0, output=0)
SIDE_TEXT = "Scripted session"


class Script:
    """The scenario as the stub plays it. `render(step, where)` (the agent's) turns a step into
    the reply's text and tool calls; `where` is (prompt index, step index), for stable ids."""

    def __init__(self, scenario: Scenario, render: Callable[[Step, tuple[int, int]], tuple[str, list[tuple[str, dict]]]],
                 side_text: str = SIDE_TEXT, side_request: Callable[[dict], bool] = lambda body: False,
                 text_calls: Callable[[Step], int] | None = None,
                 command_request: Callable[[dict], str | None] = lambda body: None) -> None:
        self.scripts = scenario.scripts()
        self.commands = scenario.commands()
        self.render = render
        # An agent whose tool uses are in the reply's text (Cline's XML) says how many a step makes.
        self.text_calls = text_calls
        self.side_text = side_text
        self.side_request = side_request  # the agent's own judgement: a title or commit-message request
        self.command_request = command_request  # …and the command (/compact) a request is made for

    def _script_of(self, text: str) -> str | None:
        # The longest prompt found wins: a sub-agent's prompt may quote a shorter one.
        found = [p for p in self.scripts if p in text]
        return max(found, key=len) if found else None

    def reply(self, conversation: list[Message], body: dict | None = None) -> Reply:
        if body is not None and self.side_request(body):
            return Reply(self.side_text)
        command = self.command_request(body) if body is not None else None
        if command in self.commands:  # e.g. /compact's summary: one text reply, as scripted
            step = self.commands[command][0]
            return Reply(step.text, [], step.usage)
        users = [i for i, m in enumerate(conversation) if m.role == "user"]
        if not users:
            return Reply(self.side_text)
        last = conversation[users[-1]]
        if self._script_of(last.text) is None and not last.results and "<task-notification>" not in last.text:
            return Reply(self.side_text)
        for i in reversed(users):
            prompt = self._script_of(conversation[i].text)
            if prompt is not None:
                break
        else:
            return Reply(self.side_text)
        steps = self.scripts[prompt]
        after = conversation[i + 1:]
        answered = sum(m.results for m in after)
        last_results = max((n for n, m in enumerate(after) if m.results), default=-1)
        if answered >= sum(self._calls(s, self.render(s, (0, 0))) for s in steps) and any(
                m.role == "assistant" and not m.calls for m in after[last_results + 1:]):
            return Reply(self.side_text)  # the script is played out (a notification came after it)
        index = 0
        rendered = None
        for index, step in enumerate(steps):
            rendered = self.render(step, (list(self.scripts).index(prompt), index))
            if answered < self._calls(step, rendered) or index == len(steps) - 1:
                break
            answered -= self._calls(step, rendered)
        step = steps[index]
        text, calls = rendered
        if index == len(steps) - 1 and answered >= self._calls(step, rendered) and self._calls(step, rendered):
            return Reply(self.side_text)  # past the script (never loop on a call)
        ids = [_call_id(prompt, index, n) for n in range(len(calls))]
        return Reply(text, [(name, args, cid) for (name, args), cid in zip(calls, ids)], step.usage)


    def _calls(self, step: Step, rendered: tuple[str, list]) -> int:
        return self.text_calls(step) if self.text_calls is not None else len(rendered[1])


def _call_id(prompt: str, step: int, n: int) -> str:
    return hashlib.sha256(f"{prompt}\0{step}\0{n}".encode()).hexdigest()[:24]


# ---------------------------------------------------------------------------- codecs


def _texts(content: Any) -> str:
    if isinstance(content, str):
        return content
    out = []
    for part in content or []:
        if isinstance(part, dict):
            if isinstance(part.get("text"), str):
                out.append(part["text"])
            elif part.get("type") == "tool_result":  # Claude Code quotes notes in results
                continue
    return "\n".join(out)


def anthropic_conversation(body: dict) -> list[Message]:
    out = []
    for m in body.get("messages", []):
        content = m.get("content")
        blocks = content if isinstance(content, list) else []
        out.append(Message(m.get("role", "user"), _texts(content),
                           calls=sum(1 for b in blocks if isinstance(b, dict) and b.get("type") == "tool_use"),
                           results=sum(1 for b in blocks if isinstance(b, dict) and b.get("type") == "tool_result")))
    return out


def responses_conversation(body: dict) -> list[Message]:
    out: list[Message] = []
    items = body.get("input", [])
    if isinstance(items, str):
        items = [{"type": "message", "role": "user", "content": items}]
    for item in items:
        kind = item.get("type", "message")
        if kind == "message":
            role = "assistant" if item.get("role") == "assistant" else "user"
            if item.get("role") in ("developer", "system"):
                continue
            out.append(Message(role, _texts(item.get("content"))))
        elif kind in ("function_call", "custom_tool_call", "local_shell_call"):
            out.append(Message("assistant", calls=1))
        elif kind in ("function_call_output", "custom_tool_call_output", "local_shell_call_output"):
            out.append(Message("user", results=1))
    return out


def chat_conversation(body: dict) -> list[Message]:
    out = []
    for m in body.get("messages", []):
        role = m.get("role")
        if role == "tool":
            out.append(Message("user", results=1))
        elif role == "assistant":
            out.append(Message("assistant", _texts(m.get("content")), calls=len(m.get("tool_calls") or [])))
        elif role == "user":
            text = _texts(m.get("content"))
            out.append(Message("user", text, results=len(_XML_RESULT.findall(text))))
    return out


# A tool result an agent sends back as text (Cline: "[write_to_file for 'greet.py'] Result:").
_XML_RESULT = re.compile(r"^\[[a-z_]+(?: for '[^\n]*')?\] Result:", re.M)


def gemini_conversation(body: dict) -> list[Message]:
    out = []
    for c in body.get("contents", []):
        parts = c.get("parts", [])
        role = "assistant" if c.get("role") == "model" else "user"
        out.append(Message(role, _texts(parts), calls=sum(1 for p in parts if "functionCall" in p),
                           results=sum(1 for p in parts if "functionResponse" in p)))
    return out


def _sse(event: str | None, data: Any) -> bytes:
    head = f"event: {event}\n" if event else ""
    return f"{head}data: {json.dumps(data)}\n\n".encode()


def _reply_id(raw: bytes) -> str:
    """An id for a reply, stable for one request (a retry gets the same) and new for the next."""
    return hashlib.sha256(raw).hexdigest()[:24]


def anthropic_stream(reply: Reply, model: str, rid: str) -> bytes:
    u = reply.usage
    msg_id = "msg_" + rid
    out = [_sse("message_start", {"type": "message_start", "message": {
        "id": msg_id, "type": "message", "role": "assistant", "model": model, "content": [],
        "stop_reason": None, "stop_sequence": None,
        "usage": {"input_tokens": u.input, "cache_creation_input_tokens": u.cache_write,
                  "cache_read_input_tokens": u.cache_read, "output_tokens": 1}}})]
    index = 0
    if reply.text or not reply.calls:
        out.append(_sse("content_block_start", {"type": "content_block_start", "index": 0,
                                                "content_block": {"type": "text", "text": ""}}))
        out.append(_sse("content_block_delta", {"type": "content_block_delta", "index": 0,
                                                "delta": {"type": "text_delta", "text": reply.text or SIDE_TEXT}}))
        out.append(_sse("content_block_stop", {"type": "content_block_stop", "index": 0}))
        index = 1
    for name, args, cid in reply.calls:
        out.append(_sse("content_block_start", {"type": "content_block_start", "index": index, "content_block": {
            "type": "tool_use", "id": "toolu_" + cid, "name": name, "input": {}}}))
        out.append(_sse("content_block_delta", {"type": "content_block_delta", "index": index,
                                                "delta": {"type": "input_json_delta", "partial_json": json.dumps(args)}}))
        out.append(_sse("content_block_stop", {"type": "content_block_stop", "index": index}))
        index += 1
    out.append(_sse("message_delta", {"type": "message_delta",
                                      "delta": {"stop_reason": "tool_use" if reply.calls else "end_turn", "stop_sequence": None},
                                      "usage": {"output_tokens": u.output}}))
    out.append(_sse("message_stop", {"type": "message_stop"}))
    return b"".join(out)


def anthropic_message(reply: Reply, model: str, rid: str) -> dict:
    u = reply.usage
    content: list[dict] = [{"type": "text", "text": reply.text or SIDE_TEXT}] if reply.text or not reply.calls else []
    content += [{"type": "tool_use", "id": "toolu_" + cid, "name": n, "input": a} for n, a, cid in reply.calls]
    return {"id": "msg_" + rid, "type": "message", "role": "assistant", "model": model, "content": content,
            "stop_reason": "tool_use" if reply.calls else "end_turn", "stop_sequence": None,
            "usage": {"input_tokens": u.input, "output_tokens": u.output, "cache_creation_input_tokens": u.cache_write,
                      "cache_read_input_tokens": u.cache_read}}


def responses_stream(reply: Reply, model: str, rid: str) -> bytes:
    u = reply.usage
    rid = "resp_" + rid
    base = {"id": rid, "object": "response", "created_at": int(time.time()), "model": model}
    out = [_sse("response.created", {"type": "response.created", "response": {**base, "status": "in_progress", "output": []}})]
    items: list[dict] = []
    n = 0
    if reply.text or not reply.calls:
        item_id = f"msg_{rid[5:]}"
        text = reply.text or SIDE_TEXT
        out.append(_sse("response.output_item.added", {"type": "response.output_item.added", "output_index": n, "item": {
            "type": "message", "id": item_id, "role": "assistant", "status": "in_progress", "content": []}}))
        out.append(_sse("response.output_text.delta", {"type": "response.output_text.delta", "item_id": item_id,
                                                       "output_index": n, "content_index": 0, "delta": text}))
        item = {"type": "message", "id": item_id, "role": "assistant", "status": "completed",
                "content": [{"type": "output_text", "text": text, "annotations": []}]}
        out.append(_sse("response.output_item.done", {"type": "response.output_item.done", "output_index": n, "item": item}))
        items.append(item)
        n += 1
    for name, args, cid in reply.calls:
        item = {"type": "function_call", "id": "fc_" + cid, "call_id": "call_" + cid, "name": name,
                "arguments": json.dumps(args), "status": "completed"}
        out.append(_sse("response.output_item.added", {"type": "response.output_item.added", "output_index": n,
                                                       "item": {**item, "arguments": "", "status": "in_progress"}}))
        out.append(_sse("response.output_item.done", {"type": "response.output_item.done", "output_index": n, "item": item}))
        items.append(item)
        n += 1
    # OpenAI counts cached and cache-written tokens inside input_tokens.
    prompt = u.input + u.cache_read + u.cache_write
    usage = {"input_tokens": prompt, "input_tokens_details": {"cached_tokens": u.cache_read, "cache_write_tokens": u.cache_write},
             "output_tokens": u.output, "output_tokens_details": {"reasoning_tokens": 0},
             "total_tokens": prompt + u.output}
    out.append(_sse("response.completed", {"type": "response.completed", "response": {
        **base, "status": "completed", "output": items, "usage": usage}}))
    return b"".join(out)


def _chat_usage(u: Usage) -> dict:
    return {"prompt_tokens": u.input + u.cache_read, "completion_tokens": u.output,
            "total_tokens": u.input + u.cache_read + u.output, "prompt_tokens_details": {"cached_tokens": u.cache_read}}


def chat_stream(reply: Reply, model: str, rid: str) -> bytes:
    cid = "chatcmpl-" + rid
    base = {"id": cid, "object": "chat.completion.chunk", "created": int(time.time()), "model": model}

    def chunk(delta: dict, finish: str | None = None) -> bytes:
        return _sse(None, {**base, "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]})

    out = [chunk({"role": "assistant", "content": ""})]
    if reply.text or not reply.calls:
        out.append(chunk({"content": reply.text or SIDE_TEXT}))
    for n, (name, args, call) in enumerate(reply.calls):
        out.append(chunk({"tool_calls": [{"index": n, "id": "call_" + call, "type": "function",
                                          "function": {"name": name, "arguments": json.dumps(args)}}]}))
    out.append(chunk({}, "tool_calls" if reply.calls else "stop"))
    out.append(_sse(None, {**base, "choices": [], "usage": _chat_usage(reply.usage)}))
    out.append(b"data: [DONE]\n\n")
    return b"".join(out)


def chat_message(reply: Reply, model: str, rid: str) -> dict:
    message: dict = {"role": "assistant", "content": reply.text or SIDE_TEXT}
    if reply.calls:
        message["tool_calls"] = [{"id": "call_" + c, "type": "function", "function": {"name": n, "arguments": json.dumps(a)}}
                                 for n, a, c in reply.calls]
    return {"id": "chatcmpl-" + rid, "object": "chat.completion", "created": int(time.time()), "model": model,
            "choices": [{"index": 0, "message": message, "finish_reason": "tool_calls" if reply.calls else "stop"}],
            "usage": _chat_usage(reply.usage)}


def gemini_response(reply: Reply, model: str) -> dict:
    u = reply.usage
    parts: list[dict] = []
    if reply.json_object is not None:
        parts.append({"text": json.dumps(reply.json_object)})
    elif reply.text or not reply.calls:
        parts.append({"text": reply.text or SIDE_TEXT})
    parts += [{"functionCall": {"id": c, "name": n, "args": a}} for n, a, c in reply.calls]
    return {"candidates": [{"content": {"role": "model", "parts": parts}, "finishReason": "STOP", "index": 0}],
            "usageMetadata": {"promptTokenCount": u.input + u.cache_read, "candidatesTokenCount": u.output,
                              "cachedContentTokenCount": u.cache_read, "totalTokenCount": u.input + u.cache_read + u.output},
            "modelVersion": model}


def _gemini_json_answer(body: dict) -> dict | None:
    """A side request asking for JSON (Gemini CLI's next-speaker check, loop check…): an object
    of its schema's properties, the user to speak next, nothing wrong."""
    config = body.get("generationConfig") or {}
    schema = config.get("responseJsonSchema") or config.get("responseSchema")
    if config.get("responseMimeType") != "application/json" or not isinstance(schema, dict):
        return None
    answer: dict = {}
    for name, prop in (schema.get("properties") or {}).items():
        kind = str(prop.get("type", "string")).lower()
        answer[name] = {"boolean": False, "number": 0, "integer": 0, "array": [], "object": {}}.get(kind, "user" if "speaker" in name else "")
    return answer


# ---------------------------------------------------------------------------- server


class StubModel:
    """The server: `url` once started; every request is appended to `log` (path, headers, body,
    the reply chosen) as one JSON line."""

    def __init__(self, script: Script, log: Path) -> None:
        self.script = script
        self.log = log
        self._lock = threading.Lock()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._server.handle_error = lambda request, address: None  # an agent hanging up mid-request
        self.url = f"http://127.0.0.1:{self._server.server_address[1]}"
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    def __enter__(self) -> "StubModel":
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._server.shutdown()
        self._server.server_close()

    def _record(self, entry: dict) -> None:
        with self._lock, self.log.open("a") as f:
            f.write(json.dumps(entry) + "\n")

    def answer(self, method: str, path: str, headers: dict, raw: bytes) -> tuple[int, str, bytes]:
        try:
            body = json.loads(raw) if raw else {}
        except ValueError:
            body = {}
        route = path.split("?")[0]
        model = str(body.get("model", "stub"))
        rid = _reply_id(raw)
        reply: Reply | None = None
        if method != "POST":
            status, ctype, data = 404, "application/json", b'{"error": "not found"}'
        elif route.endswith("/messages/count_tokens"):
            status, ctype, data = 200, "application/json", b'{"input_tokens": 100}'
        elif route.endswith("/messages"):
            reply = self.script.reply(anthropic_conversation(body), body)
            if body.get("stream"):
                status, ctype, data = 200, "text/event-stream", anthropic_stream(reply, model, rid)
            else:
                status, ctype, data = 200, "application/json", json.dumps(anthropic_message(reply, model, rid)).encode()
        elif route.endswith("/responses"):
            reply = self.script.reply(responses_conversation(body), body)
            status, ctype, data = 200, "text/event-stream", responses_stream(reply, model, rid)
        elif route.endswith("/chat/completions"):
            reply = self.script.reply(chat_conversation(body), body)
            if body.get("stream"):
                status, ctype, data = 200, "text/event-stream", chat_stream(reply, model, rid)
            else:
                status, ctype, data = 200, "application/json", json.dumps(chat_message(reply, model, rid)).encode()
        elif ":streamGenerateContent" in route or ":generateContent" in route:
            model = route.rsplit("/", 1)[-1].split(":")[0]
            reply = self.script.reply(gemini_conversation(body), body)
            if reply.text == self.script.side_text and not reply.calls:
                reply.json_object = _gemini_json_answer(body)
            answer = gemini_response(reply, model)
            if ":streamGenerateContent" in route:
                status, ctype, data = 200, "text/event-stream", _sse(None, answer)
            else:
                status, ctype, data = 200, "application/json", json.dumps(answer).encode()
        elif ":countTokens" in route:
            status, ctype, data = 200, "application/json", b'{"totalTokens": 100}'
        else:
            status, ctype, data = 404, "application/json", b'{"error": "not found"}'
        self._record({"method": method, "path": path, "headers": headers, "body": body, "status": status,
                      "reply": None if reply is None else {"text": reply.text, "calls": reply.calls, "usage": vars(reply.usage)}})
        return status, ctype, data

    def _handler(self):
        stub = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def _serve(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length) if length else b""
                if self.headers.get("Content-Encoding") == "gzip" and raw:
                    import gzip
                    raw = gzip.decompress(raw)
                elif self.headers.get("Content-Encoding") == "zstd" and raw:
                    import zstandard
                    raw = zstandard.ZstdDecompressor().decompressobj().decompress(raw)
                status, ctype, data = stub.answer(self.command, self.path, dict(self.headers), raw)
                self.send_response(status)
                self.send_header("Content-Type", ctype)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            do_GET = do_POST = do_HEAD = _serve

            def log_message(self, *args) -> None:
                pass

        return Handler
