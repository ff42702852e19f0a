#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""A scripted LLM server on 127.0.0.1 for the provider tests (OpenAI Chat Completions and
Anthropic Messages wire formats).

Run: python3 fake_llm_server.py  -> prints the port on its first stdout line, then serves until
killed. The scenario is the request's model name up to an optional ':tag' (the tag only gives a
test its own per-scenario request counter), or the X-Kwb-Scenario header.

Scenarios: ok, reasoning, no-usage, no-code, empty, rate-limit (429 + Retry-After: 1, then ok),
flaky-500 (500, then ok), always-500, stall (first chunk, then silence), stall-before (silence
before the headers), slow (a chunk every 20 ms for 4 s), malformed (200 with a broken body),
malformed-stream, truncated (stream cut before the end), big (10 MB answer), unauthorized (401
echoing the key like some services do), not-found (404), require-key (401 unless the key equals
$FAKE_EXPECTED_KEY), inspect (the answer is the request as JSON, secrets left out).
Only the standard library is used; streamed bytes are split at odd places on purpose (mid-line,
mid-UTF-8 character, between CR and LF).
"""
import json
import os
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

# The answer every successful scenario streams: multi-byte characters so splits land inside them.
ANSWER = (
    "Here is the kernel — fused, résumé ✓ 🚀:\n"
    "```python\n"
    "import torch\n"
    "import torch.nn as nn\n\n"
    "class ModelNew(nn.Module):\n"
    "    def forward(self, x):\n"
    "        return x * 2  # ünïcödé 日本語\n"
    "```\n"
    "Done."
)
REASONING = "Think: the GRU is launch-bound → fuse the time loop. 思考"
SPLITS = [1, 7, 3, 13, 2, 5, 1, 11, 4]

_counts = {}
_lock = threading.Lock()


def count(key):
    with _lock:
        _counts[key] = _counts.get(key, 0) + 1
        return _counts[key]


def split_bytes(data):
    out, i, k = [], 0, 0
    while i < len(data):
        n = SPLITS[k % len(SPLITS)]
        out.append(data[i:i + n])
        i += n
        k += 1
    return out


def openai_chunks(text, reasoning="", usage=True, model="m", finish=True, done=True, step=10):
    events = []
    base = {"id": "chatcmpl-1", "object": "chat.completion.chunk", "model": model}
    for i in range(0, len(reasoning), 9):
        events.append(dict(base, choices=[{"index": 0, "delta": {"reasoning_content": reasoning[i:i + 9]},
                                           "finish_reason": None}]))
    for i in range(0, len(text), step):
        events.append(dict(base, choices=[{"index": 0, "delta": {"content": text[i:i + step]},
                                           "finish_reason": None}]))
    if finish:
        events.append(dict(base, choices=[{"index": 0, "delta": {}, "finish_reason": "stop"}]))
    if usage:
        events.append(dict(base, choices=[], usage={"prompt_tokens": 123, "completion_tokens": 45,
                                                    "total_tokens": 168}))
    # CRLF line endings, as some proxies send them.
    body = "".join("data: %s\r\n\r\n" % json.dumps(e, ensure_ascii=False) for e in events)
    if done:
        body += "data: [DONE]\r\n\r\n"
    return body.encode("utf-8")


def anthropic_events(text, reasoning=""):
    ev = [("message_start", {"type": "message_start", "message": {
        "id": "msg_1", "type": "message", "role": "assistant", "content": [],
        "usage": {"input_tokens": 77, "output_tokens": 1}}})]
    idx = 0
    if reasoning:
        ev.append(("content_block_start", {"type": "content_block_start", "index": idx,
                                           "content_block": {"type": "thinking", "thinking": ""}}))
        ev.append(("content_block_delta", {"type": "content_block_delta", "index": idx,
                                           "delta": {"type": "thinking_delta", "thinking": reasoning}}))
        ev.append(("content_block_stop", {"type": "content_block_stop", "index": idx}))
        idx += 1
    ev.append(("content_block_start", {"type": "content_block_start", "index": idx,
                                       "content_block": {"type": "text", "text": ""}}))
    ev.append(("ping", {"type": "ping"}))
    for i in range(0, len(text), 8):
        ev.append(("content_block_delta", {"type": "content_block_delta", "index": idx,
                                           "delta": {"type": "text_delta", "text": text[i:i + 8]}}))
    ev.append(("content_block_stop", {"type": "content_block_stop", "index": idx}))
    ev.append(("message_delta", {"type": "message_delta", "delta": {"stop_reason": "end_turn"},
                                 "usage": {"output_tokens": 55}}))
    ev.append(("message_stop", {"type": "message_stop"}))
    body = "".join("event: %s\ndata: %s\n\n" % (name, json.dumps(d, ensure_ascii=False)) for name, d in ev)
    return body.encode("utf-8")


class Handler(BaseHTTPRequestHandler):
    def answer(self, text, model, stream, n=0):
        """An OpenAI chat answer carrying `text`: streamed in chunks, or one JSON body with usage."""
        if stream:
            return self.stream(openai_chunks(text, "", True, model=model), delay=0)
        return self.send_json(200, {"id": "chatcmpl-s", "object": "chat.completion", "model": model,
                                    "choices": [{"index": 0, "finish_reason": "stop",
                                                 "message": {"role": "assistant", "content": text}}],
                                    "usage": {"prompt_tokens": 100 + n, "completion_tokens": 50 + n,
                                              "total_tokens": 150 + 2 * n}})

    protocol_version = "HTTP/1.0"  # close after each reply: the body ends with the connection

    def log_message(self, fmt, *args):  # keep the test output quiet
        pass

    def send_body(self, status, body, ctype="application/json", headers=None):
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        for k, v in (headers or {}).items():
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(body)

    def send_json(self, status, obj, headers=None):
        self.send_body(status, json.dumps(obj, ensure_ascii=False).encode("utf-8"), headers=headers)

    def stream(self, data, delay=0.002, stall_after=None, piece=None):
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream; charset=utf-8")
        self.send_header("Cache-Control", "no-cache")
        self.end_headers()
        self.wfile.flush()
        try:
            pieces = split_bytes(data) if piece is None else [data[i:i + piece] for i in range(0, len(data), piece)]
            for i, piece in enumerate(pieces):
                if stall_after is not None and i == stall_after:
                    time.sleep(30)
                    return
                self.wfile.write(piece)
                self.wfile.flush()
                if delay and i % 3 == 0:  # often enough that reads end mid-piece, cheap enough to be fast
                    time.sleep(delay)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client cancelled or timed out: what the test wanted

    def do_POST(self):
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length)
        try:
            req = json.loads(raw.decode("utf-8"))
        except ValueError:
            return self.send_json(400, {"error": {"message": "request body is not JSON"}})
        model = req.get("model", "")
        scenario = self.headers.get("X-Kwb-Scenario") or model.split(":")[0]
        n = count(model)
        anthropic = self.path.rstrip("/").endswith("/v1/messages")
        auth = self.headers.get("Authorization", "")
        key = auth[len("Bearer "):] if auth.startswith("Bearer ") else self.headers.get("x-api-key", "")
        if anthropic and not self.headers.get("anthropic-version"):
            return self.send_json(400, {"type": "error", "error": {"type": "invalid_request_error",
                                                                   "message": "anthropic-version header missing"}})
        if not anthropic and not self.path.rstrip("/").endswith("/chat/completions"):
            return self.send_json(404, {"error": {"message": "no route %s" % self.path}})
        streaming = bool(req.get("stream"))
        text, reasoning, usage = ANSWER, "", True

        if scenario == "rate-limit" and n == 1:
            return self.send_json(429, {"error": {"message": "slow down"}}, headers={"Retry-After": "1"})
        if scenario == "flaky-500" and n == 1:
            return self.send_json(500, {"error": {"message": "upstream hiccup"}})
        if scenario == "always-500":
            return self.send_json(503, {"error": {"message": "overloaded"}})
        if scenario == "unauthorized":
            return self.send_json(401, {"error": {"message": "Incorrect API key provided: %s" % key}})
        if scenario == "require-key" and key != os.environ.get("FAKE_EXPECTED_KEY", "\0"):
            return self.send_json(401, {"error": {"message": "invalid key"}})
        if scenario == "not-found":
            return self.send_json(404, {"error": {"message": "The model `%s` does not exist" % model}})
        if scenario == "stall-before":
            time.sleep(30)
            return
        if scenario == "malformed":
            return self.send_body(200, b'{"choices": [{"message": {"content": "half')
        if scenario == "malformed-stream":
            return self.stream(b'data: {"choices": [{"delta": {"content": "hi"}}]}\n\ndata: {oops\n\n')
        if scenario == "reasoning":
            reasoning = REASONING
        elif scenario == "no-usage":
            usage = False
        elif scenario == "no-code":
            text = "I cannot write this kernel, but here is an explanation of GRUs instead."
        elif scenario == "empty":
            text = ""
        elif scenario == "big":
            text = "```python\n" + ("# padding line of a very long answer...\n" * (10 * 1024 * 1024 // 40)) + "```"
        elif scenario == "inspect":
            seen = {"path": self.path, "body": req,
                    "has_auth": bool(key), "anthropic_version": self.headers.get("anthropic-version")}
            text = json.dumps(seen, sort_keys=True)

        if anthropic:
            if streaming:
                return self.stream(anthropic_events(text, reasoning))
            content = ([{"type": "thinking", "thinking": reasoning}] if reasoning else []) + \
                [{"type": "text", "text": text}]
            return self.send_json(200, {"id": "msg_1", "type": "message", "role": "assistant", "content": content,
                                        "stop_reason": "end_turn",
                                        "usage": {"input_tokens": 77, "output_tokens": 55}})
        if not streaming:
            body = {"id": "chatcmpl-1", "object": "chat.completion", "model": model,
                    "choices": [{"index": 0, "finish_reason": "stop",
                                 "message": {"role": "assistant", "content": text}}]}
            if reasoning:
                body["choices"][0]["message"]["reasoning_content"] = reasoning
            if usage:
                body["usage"] = {"prompt_tokens": 123, "completion_tokens": 45, "total_tokens": 168}
            return self.send_json(200, body)
        if scenario == "truncated":
            return self.stream(openai_chunks(text, finish=False, usage=False, done=False)[:200])
        if scenario == "stall":
            return self.stream(openai_chunks(text, reasoning, usage), stall_after=60)
        if scenario == "slow":
            return self.stream(openai_chunks(text * 4, reasoning, usage), delay=0.02)
        if scenario == "big":
            return self.stream(openai_chunks(text, usage=usage, step=4093), delay=0, piece=65521)
        return self.stream(openai_chunks(text, reasoning, usage))


def serve(handler):
    """Serves `handler` on a free loopback port (printed on the first stdout line) until killed."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    server.daemon_threads = True
    print(server.server_address[1], flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass


def main():
    serve(Handler)


if __name__ == "__main__":
    main()
