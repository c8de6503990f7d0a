#!/usr/bin/env python3
"""A loopback mock model server for the real-CLI tests: answers with canned text, never calls out.

It speaks just enough of four wire formats for the agent CLIs the presets start:
  POST /v1/messages                 Anthropic Messages, streamed (Claude Code)
  POST /v1/responses                OpenAI Responses, streamed (Codex)
  POST /v1/chat/completions         OpenAI Chat Completions, streamed or not (aider via litellm)
  POST /v1beta/models/M:ACTION      Gemini generateContent / streamGenerateContent (Gemini CLI)
Anything else gets a 404.

The answer comes from a script file (JSON): a list of rules
  {"when": "substring of the request body" | null, "text": "...", "as": "text" | "tool",
   "status": 500 (optional: answer with this HTTP error instead),
   "repeat": true (optional: call the tool again even after its result, to exhaust retries)}
The first rule whose `when` occurs in the request body (or is null) answers. `as: "tool"` makes
the Anthropic answer a call of the `StructuredOutput` tool whose input is `text` parsed as JSON
(Claude Code's --json-schema); other formats always answer with `text`.

Usage: mock_model.py --script FILE --port-file FILE [--log FILE] [--max-requests N]
It binds 127.0.0.1 on a random port, writes the port to --port-file once it listens, and stops by
itself after --max-requests requests (default 200) or 10 minutes, whichever comes first.
"""

import argparse
import json
import os
import sys
import threading
import time
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

ARGS = None
RULES = []
COUNT = 0
LOCK = threading.Lock()


def pick(body):
    for rule in RULES:
        when = rule.get("when")
        if when is None or when in body:
            return rule
    return {"text": "no rule matched", "as": "text"}


def log(line):
    if ARGS.log:
        with LOCK, open(ARGS.log, "a", encoding="utf-8") as f:
            f.write(line + "\n")


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, fmt, *args):  # keep stderr quiet; the request log says enough
        pass

    def count(self):
        global COUNT
        with LOCK:
            COUNT += 1
            n = COUNT
        if n >= ARGS.max_requests:
            threading.Thread(target=self.server.shutdown, daemon=True).start()

    def not_found(self):
        self.send_response(404)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def do_HEAD(self):
        self.count()
        log(f"HEAD {self.path}")
        self.not_found()

    def do_GET(self):
        self.count()
        log(f"GET {self.path}")
        self.not_found()

    def do_POST(self):
        self.count()
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length).decode("utf-8", "replace")
        log(f"POST {self.path} {len(raw)} bytes encoding={self.headers.get('Content-Encoding')}")
        try:
            body = json.loads(raw) if raw else {}
        except ValueError:
            body = {}
        path = self.path.split("?", 1)[0]
        status = pick(raw).get("status")
        if status:
            return self.error_reply(int(status))
        if path.endswith("/messages"):
            self.serve_anthropic(raw, body)
        elif path.endswith("/responses"):
            self.serve_responses(raw, body)
        elif path.endswith("/chat/completions"):
            self.serve_chat(raw, body)
        elif ":streamGenerateContent" in path or ":generateContent" in path:
            self.serve_gemini(raw, path)
        elif ":countTokens" in path:
            self.json_reply({"totalTokens": 10})
        else:
            self.not_found()

    # --- helpers ---------------------------------------------------------------------------
    def json_reply(self, obj):
        data = json.dumps(obj).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def error_reply(self, status):
        data = json.dumps({"error": {"type": "mock_error", "code": status,
                                     "message": f"mock server answered {status} as scripted"}}).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def sse(self, events):
        """events: list of (event name or None, data object)."""
        chunks = []
        for name, data in events:
            head = f"event: {name}\n" if name else ""
            chunks.append(f"{head}data: {json.dumps(data)}\n\n")
        payload = "".join(chunks).encode()
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    # --- Anthropic Messages ------------------------------------------------------------------
    def serve_anthropic(self, raw, body):
        rule = pick(raw)
        tools = [t.get("name") for t in body.get("tools") or [] if isinstance(t, dict)]
        last = (body.get("messages") or [{}])[-1]
        content = last.get("content") if isinstance(last, dict) else None
        after_tool = isinstance(content, list) and any(
            isinstance(c, dict) and c.get("type") == "tool_result" for c in content
        )
        msg_id = "msg_" + uuid.uuid4().hex[:24]
        usage = {"input_tokens": 10, "output_tokens": 10}
        events = [
            ("message_start", {"type": "message_start", "message": {
                "id": msg_id, "type": "message", "role": "assistant", "model": body.get("model", "mock"),
                "content": [], "stop_reason": None, "stop_sequence": None, "usage": usage}}),
        ]
        if rule.get("as") == "tool" and "StructuredOutput" in tools and (rule.get("repeat") or not after_tool):
            events += [
                ("content_block_start", {"type": "content_block_start", "index": 0, "content_block": {
                    "type": "tool_use", "id": "toolu_" + uuid.uuid4().hex[:24], "name": "StructuredOutput",
                    "input": {}}}),
                ("content_block_delta", {"type": "content_block_delta", "index": 0, "delta": {
                    "type": "input_json_delta", "partial_json": json.dumps(json.loads(rule["text"]))}}),
                ("content_block_stop", {"type": "content_block_stop", "index": 0}),
            ]
            stop = "tool_use"
        else:
            text = "Done." if after_tool else rule["text"]
            events += [
                ("content_block_start", {"type": "content_block_start", "index": 0,
                                         "content_block": {"type": "text", "text": ""}}),
                ("content_block_delta", {"type": "content_block_delta", "index": 0,
                                         "delta": {"type": "text_delta", "text": text}}),
                ("content_block_stop", {"type": "content_block_stop", "index": 0}),
            ]
            stop = "end_turn"
        events += [
            ("message_delta", {"type": "message_delta", "delta": {"stop_reason": stop, "stop_sequence": None},
                               "usage": {"output_tokens": 10}}),
            ("message_stop", {"type": "message_stop"}),
        ]
        self.sse(events)

    # --- OpenAI Responses ----------------------------------------------------------------------
    def serve_responses(self, raw, body):
        text = pick(raw)["text"]
        rid = "resp_" + uuid.uuid4().hex[:24]
        item_id = "msg_" + uuid.uuid4().hex[:24]
        item = {"id": item_id, "type": "message", "role": "assistant", "status": "completed",
                "content": [{"type": "output_text", "text": text, "annotations": []}]}
        resp = {"id": rid, "object": "response", "created_at": int(time.time()), "status": "in_progress",
                "model": body.get("model", "mock"), "output": []}
        done = dict(resp, status="completed", output=[item],
                    usage={"input_tokens": 10, "input_tokens_details": {"cached_tokens": 0},
                           "output_tokens": 10, "output_tokens_details": {"reasoning_tokens": 0},
                           "total_tokens": 20})
        events = [
            ("response.created", {"type": "response.created", "response": resp}),
            ("response.output_item.added", {"type": "response.output_item.added", "output_index": 0,
                                            "item": dict(item, status="in_progress", content=[])}),
            ("response.output_text.delta", {"type": "response.output_text.delta", "item_id": item_id,
                                            "output_index": 0, "content_index": 0, "delta": text}),
            ("response.output_item.done", {"type": "response.output_item.done", "output_index": 0,
                                           "item": item}),
            ("response.completed", {"type": "response.completed", "response": done}),
        ]
        self.sse(events)

    # --- OpenAI Chat Completions ---------------------------------------------------------------
    def serve_chat(self, raw, body):
        text = pick(raw)["text"]
        cid = "chatcmpl-" + uuid.uuid4().hex[:24]
        model = body.get("model", "mock")
        usage = {"prompt_tokens": 10, "completion_tokens": 10, "total_tokens": 20}
        if body.get("stream"):
            base = {"id": cid, "object": "chat.completion.chunk", "created": int(time.time()), "model": model}
            events = [
                (None, dict(base, choices=[{"index": 0, "delta": {"role": "assistant", "content": text},
                                            "finish_reason": None}])),
                (None, dict(base, choices=[{"index": 0, "delta": {}, "finish_reason": "stop"}], usage=usage)),
            ]
            chunks = "".join(f"data: {json.dumps(d)}\n\n" for _, d in events) + "data: [DONE]\n\n"
            payload = chunks.encode()
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)
        else:
            self.json_reply({"id": cid, "object": "chat.completion", "created": int(time.time()),
                             "model": model, "usage": usage,
                             "choices": [{"index": 0, "finish_reason": "stop",
                                          "message": {"role": "assistant", "content": text}}]})

    # --- Gemini ----------------------------------------------------------------------------------
    def serve_gemini(self, raw, path):
        text = pick(raw)["text"]
        obj = {"candidates": [{"content": {"role": "model", "parts": [{"text": text}]},
                               "finishReason": "STOP", "index": 0}],
               "usageMetadata": {"promptTokenCount": 10, "candidatesTokenCount": 10, "totalTokenCount": 20},
               "modelVersion": "mock"}
        if ":streamGenerateContent" in path:
            self.sse([(None, obj)])
        else:
            self.json_reply(obj)


def main():
    global ARGS, RULES
    p = argparse.ArgumentParser()
    p.add_argument("--script", required=True)
    p.add_argument("--port-file", required=True)
    p.add_argument("--log")
    p.add_argument("--max-requests", type=int, default=200)
    p.add_argument("--lifetime", type=float, default=600.0)
    ARGS = p.parse_args()
    with open(ARGS.script, encoding="utf-8") as f:
        RULES = json.load(f)
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    tmp = ARGS.port_file + ".tmp"
    with open(tmp, "w") as f:
        f.write(str(server.server_address[1]))
    os.replace(tmp, ARGS.port_file)
    threading.Timer(ARGS.lifetime, server.shutdown).start()
    try:
        server.serve_forever()
    finally:
        os._exit(0)


if __name__ == "__main__":
    sys.exit(main())
