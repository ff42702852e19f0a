#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The llm tests' fake server (tests/core/llm/fake_llm_server.py, a real HTTP server on loopback that
streams OpenAI chunks split at odd places) plus one scenario for the pipeline tests: "script".

A request whose model is "script:NAME" gets the next answer of $FAKE_LLM_SCRIPT_DIR/NAME.json, a JSON
list of answer strings, in request order (the pipeline makes one call at a time). When the list is
used up the answer says so (no code), which the pipeline reports as a failed generation. Every
request is appended to $FAKE_LLM_SCRIPT_DIR/NAME.requests.jsonl so a test can check what was sent.
"""
import json
import os
import sys
import threading

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "llm"))
import fake_llm_server as base  # noqa: E402

_next = {}
_lock = threading.Lock()


class ScriptedHandler(base.Handler):
    def do_POST(self):
        peek = self.headers.get("X-Kwb-Scenario")
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length)
        try:
            req = json.loads(raw.decode("utf-8"))
        except ValueError:
            return self.send_json(400, {"error": {"message": "request body is not JSON"}})
        model = req.get("model", "")
        scenario = peek or model.split(":")[0]
        if scenario != "script":
            # Hand the request to the base handler unchanged.
            import io
            self.rfile = io.BytesIO(raw)
            return base.Handler.do_POST(self)
        name = model.split(":", 1)[1] if ":" in model else "default"
        folder = os.environ.get("FAKE_LLM_SCRIPT_DIR", ".")
        with open(os.path.join(folder, name + ".json"), encoding="utf-8") as f:
            answers = json.load(f)
        with _lock:
            n = _next.get(name, 0)
            _next[name] = n + 1
            with open(os.path.join(folder, name + ".requests.jsonl"), "a", encoding="utf-8") as log:
                log.write(json.dumps({"n": n, "messages": req.get("messages", [])}, ensure_ascii=False) + "\n")
        text = answers[n] if n < len(answers) else "The script for %s has no answer %d." % (name, n + 1)
        return self.answer(text, model, req.get("stream"), n)


def main():
    base.serve(ScriptedHandler)


if __name__ == "__main__":
    main()
