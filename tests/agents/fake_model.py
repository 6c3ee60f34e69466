"""A scripted model server on 127.0.0.1 for driving real coding agents offline.

It speaks just enough of each agent's model API to run one tool call and finish:
  - Anthropic Messages with SSE (Claude Code): POST /v1/messages
  - OpenAI Responses with SSE (Codex CLI): POST /v1/responses
  - Gemini streamGenerateContent with SSE (Gemini CLI): POST /v1beta/models/M:streamGenerateContent
  - OpenAI chat completions with SSE (OpenCode's openai-compatible provider, Copilot CLI's own
    provider): POST /v1/chat/completions

The script is a list of shell commands (`--command`, repeatable): the first request of a
conversation that offers a shell tool gets a call of that tool with the first command; a
request that carries the result of the n-th call gets the (n+1)-th command, or the text
"done" after the last. Requests without a shell tool (titles, summaries) get "ok".

Every request body is appended to `--log` (one JSON object per line: path, body), so a test
can check what the model really received: the tool results, the hook's reasons.

    python3 fake_model.py --port-file PORT --log requests.jsonl --command 'rm -rf build'
"""

import argparse
import json
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


def sse(events):
    out = []
    for name, data in events:
        out.append(f"event: {name}\ndata: {json.dumps(data)}\n\n")
    return "".join(out).encode()


class Script:
    def __init__(self, commands):
        self.commands = commands
        self.lock = threading.Lock()

    def next_command(self, results_seen):
        """The command for the next turn, or None when the script is done."""
        if results_seen < len(self.commands):
            return self.commands[results_seen]
        return None


# --- Anthropic Messages -------------------------------------------------------------------

ANTHROPIC_SHELL_TOOLS = ("Bash",)


def anthropic_tool_results(body):
    n = 0
    for message in body.get("messages", []):
        content = message.get("content")
        if isinstance(content, list):
            n += sum(1 for block in content if isinstance(block, dict)
                     and block.get("type") == "tool_result")
    return n


def anthropic_reply(body, script):
    tools = [t.get("name") for t in body.get("tools", []) if isinstance(t, dict)]
    shell = next((t for t in ANTHROPIC_SHELL_TOOLS if t in tools), None)
    results = anthropic_tool_results(body)
    command = script.next_command(results) if shell else None
    model = body.get("model", "claude-sonnet-4-5")
    start = {"type": "message_start", "message": {
        "id": f"msg_{results}", "type": "message", "role": "assistant", "model": model,
        "content": [], "stop_reason": None, "stop_sequence": None,
        "usage": {"input_tokens": 10, "output_tokens": 1}}}
    if command is not None:
        block = {"type": "tool_use", "id": f"toolu_{results + 1:02d}", "name": shell, "input": {}}
        delta = {"type": "input_json_delta",
                 "partial_json": json.dumps({"command": command, "description": "run it"})}
        stop = "tool_use"
    else:
        text = "done" if shell else "ok"
        block = {"type": "text", "text": ""}
        delta = {"type": "text_delta", "text": text}
        stop = "end_turn"
    events = [
        ("message_start", start),
        ("content_block_start", {"type": "content_block_start", "index": 0, "content_block": block}),
        ("content_block_delta", {"type": "content_block_delta", "index": 0, "delta": delta}),
        ("content_block_stop", {"type": "content_block_stop", "index": 0}),
        ("message_delta", {"type": "message_delta",
                           "delta": {"stop_reason": stop, "stop_sequence": None},
                           "usage": {"output_tokens": 5}}),
        ("message_stop", {"type": "message_stop"}),
    ]
    if body.get("stream"):
        return "text/event-stream", sse(events)
    content = [dict(block, input=json.loads(delta["partial_json"]))] if command is not None \
        else [{"type": "text", "text": delta["text"]}]
    message = dict(start["message"], content=content, stop_reason=stop)
    return "application/json", json.dumps(message).encode()


# --- OpenAI Responses ---------------------------------------------------------------------

RESPONSES_SHELL_TOOLS = ("exec_command", "shell_command", "shell", "local_shell")


def responses_tool_results(body):
    items = body.get("input", [])
    if not isinstance(items, list):
        return 0
    return sum(1 for item in items if isinstance(item, dict)
               and item.get("type") in ("function_call_output", "local_shell_call_output",
                                         "custom_tool_call_output"))


def responses_reply(body, script):
    tools = []
    for t in body.get("tools", []):
        if isinstance(t, dict):
            tools.append(t.get("name") or t.get("type"))
    shell = next((t for t in RESPONSES_SHELL_TOOLS if t in tools), None)
    results = responses_tool_results(body)
    command = script.next_command(results) if shell else None
    if command is not None:
        if shell == "exec_command":
            arguments = {"cmd": command}
        elif shell == "shell":
            arguments = {"command": ["bash", "-lc", command]}
        else:
            arguments = {"command": command}
        item = {"type": "function_call", "id": f"fc_{results + 1}", "call_id": f"call_{results + 1}",
                "name": shell, "arguments": json.dumps(arguments), "status": "completed"}
    else:
        item = {"type": "message", "id": f"msg_{results + 1}", "role": "assistant",
                "status": "completed",
                "content": [{"type": "output_text", "text": "done" if shell else "ok",
                             "annotations": []}]}
    response = {"id": f"resp_{results + 1}", "object": "response", "status": "in_progress",
                "model": body.get("model", "gpt-5.1-codex"), "output": []}
    usage = {"input_tokens": 10, "input_tokens_details": {"cached_tokens": 0},
             "output_tokens": 5, "output_tokens_details": {"reasoning_tokens": 0},
             "total_tokens": 15}
    added = dict(item, arguments="") if item["type"] == "function_call" else dict(item, content=[])
    events = [
        ("response.created", {"type": "response.created", "sequence_number": 0,
                              "response": response}),
        ("response.output_item.added", {"type": "response.output_item.added",
                                        "sequence_number": 1, "output_index": 0, "item": added}),
        ("response.output_item.done", {"type": "response.output_item.done", "sequence_number": 2,
                                       "output_index": 0, "item": item}),
        ("response.completed", {"type": "response.completed", "sequence_number": 3,
                                "response": dict(response, status="completed", output=[item],
                                                 usage=usage)}),
    ]
    return "text/event-stream", sse(events)


# --- Gemini generateContent ----------------------------------------------------------------

GEMINI_SHELL_TOOLS = ("run_shell_command",)


def gemini_tool_results(body):
    n = 0
    for content in body.get("contents", []):
        for part in content.get("parts", []) if isinstance(content, dict) else []:
            if isinstance(part, dict) and "functionResponse" in part:
                n += 1
    return n


def gemini_reply(body, script, path):
    tools = []
    for tool in body.get("tools", []) or []:
        for decl in tool.get("functionDeclarations", []) if isinstance(tool, dict) else []:
            tools.append(decl.get("name"))
    shell = next((t for t in GEMINI_SHELL_TOOLS if t in tools), None)
    results = gemini_tool_results(body)
    command = script.next_command(results) if shell else None
    if command is not None:
        part = {"functionCall": {"name": shell, "args": {"command": command, "description": "run it"}}}
    else:
        part = {"text": "done" if shell else "ok"}
    response = {"candidates": [{"content": {"role": "model", "parts": [part]},
                                "finishReason": "STOP", "index": 0}],
                "usageMetadata": {"promptTokenCount": 10, "candidatesTokenCount": 5,
                                  "totalTokenCount": 15},
                "modelVersion": "gemini-2.5-flash"}
    if "streamGenerateContent" in path:
        return "text/event-stream", f"data: {json.dumps(response)}\r\n\r\n".encode()
    return "application/json", json.dumps(response).encode()


# --- OpenAI chat completions (OpenCode's openai-compatible provider) ----------------------

CHAT_SHELL_TOOLS = ("bash",)


def chat_tool_results(body):
    return sum(1 for m in body.get("messages", []) if isinstance(m, dict) and m.get("role") == "tool")


def chat_reply(body, script):
    tools = []
    for t in body.get("tools", []) or []:
        if isinstance(t, dict):
            tools.append((t.get("function") or {}).get("name"))
    shell = next((t for t in CHAT_SHELL_TOOLS if t in tools), None)
    results = chat_tool_results(body)
    command = script.next_command(results) if shell else None
    chunk = {"id": f"chatcmpl-{results + 1}", "object": "chat.completion.chunk", "created": 0,
             "model": body.get("model", "fake-model")}
    if command is not None:
        arguments = json.dumps({"command": command, "description": "run it"})
        delta = {"role": "assistant", "content": None,
                 "tool_calls": [{"index": 0, "id": f"call_{results + 1}", "type": "function",
                                 "function": {"name": shell, "arguments": arguments}}]}
        finish = "tool_calls"
    else:
        delta = {"role": "assistant", "content": "done" if shell else "ok"}
        finish = "stop"
    usage = {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}
    if not body.get("stream"):
        message = {"role": "assistant", "content": delta.get("content"),
                   "tool_calls": delta.get("tool_calls")}
        reply = dict(chunk, object="chat.completion",
                     choices=[{"index": 0, "message": message, "finish_reason": finish}], usage=usage)
        return "application/json", json.dumps(reply).encode()
    events = [dict(chunk, choices=[{"index": 0, "delta": delta, "finish_reason": None}]),
              dict(chunk, choices=[{"index": 0, "delta": {}, "finish_reason": finish}], usage=usage)]
    text = "".join(f"data: {json.dumps(e)}\n\n" for e in events) + "data: [DONE]\n\n"
    return "text/event-stream", text.encode()


def make_handler(script, log_path, log_lock):
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args):  # quiet
            pass

        def _send(self, status, content_type, payload):
            self.send_response(status)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(payload)))
            self.send_header("Connection", "close")
            self.end_headers()
            self.wfile.write(payload)

        def do_GET(self):
            # Model lists and the like: an empty, well-formed answer.
            self._send(200, "application/json", b'{"object":"list","data":[],"models":[]}')

        def do_HEAD(self):
            self._send(200, "application/json", b"")

        def do_POST(self):
            length = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(length) if length else b""
            try:
                body = json.loads(raw or b"{}")
            except ValueError:
                body = {}
            path = self.path.split("?", 1)[0]
            with log_lock, open(log_path, "a", encoding="utf-8") as log:
                log.write(json.dumps({"path": self.path, "body": body}) + "\n")
            with script.lock:
                if path.endswith("/messages/count_tokens"):
                    reply = ("application/json", b'{"input_tokens": 10}')
                elif path.endswith("/messages"):
                    reply = anthropic_reply(body, script)
                elif path.endswith("/chat/completions"):
                    reply = chat_reply(body, script)
                elif path.endswith("/responses"):
                    reply = responses_reply(body, script)
                elif path.endswith(":countTokens"):
                    reply = ("application/json", b'{"totalTokens": 10}')
                elif ":generateContent" in path or ":streamGenerateContent" in path:
                    reply = gemini_reply(body, script, path)
                else:
                    reply = ("application/json", b"{}")
            self._send(200, *reply)

    return Handler


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--port-file", required=True)
    parser.add_argument("--log", required=True)
    parser.add_argument("--command", action="append", default=[])
    args = parser.parse_args()
    server = ThreadingHTTPServer(("127.0.0.1", 0), make_handler(Script(args.command), args.log,
                                                                 threading.Lock()))
    with open(args.port_file + ".tmp", "w") as f:
        f.write(str(server.server_address[1]))
    import os
    os.replace(args.port_file + ".tmp", args.port_file)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
