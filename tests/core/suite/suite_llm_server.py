#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""A loopback OpenAI-compatible LLM server for suites (many tasks, many runs at once).

It is the llm tests' fake server (tests/core/llm/fake_llm_server.py) with one answer policy that
works for any KernelBench task: it finds the task's reference source in the prompt (the code block
holding ``class Model(`` and ``get_inputs``) and answers with that model renamed ``ModelNew`` (a
correct candidate). $FAKE_SUITE_RULES (JSON, task-name substring -> behaviour) makes some tasks
fail on purpose:

  copy    the renamed reference (correct; the default), with its PyTorch call replaced by plain
          tensor arithmetic where the server knows one (ReLU, softmax), so the detectors do not flag
          it as "PyTorch does the work"; other tasks' copies are flagged (integrity.reference_call)
  broken  code that does not parse (every answer: the run ends without a correct candidate)
  hang    a forward that never returns (the worker's run limit or the suite's task limit ends it)
  crash   a forward that kills its own process (the worker crashes)
  nocode  an answer without a code block
  stall   no answer at all (the connection stays open: a hanging LLM call)

$FAKE_LLM_DELAY_MS delays every answer (an LLM's latency; the benchmarks use it). The port is
printed on the first stdout line.
"""
import json
import os
import re
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "llm"))
import fake_llm_server as base  # noqa: E402

_BLOCK = re.compile(r"```python\n(.*?)```", re.S)
# Reference forward bodies and equivalents written without a PyTorch compute call.
_CLEAN = [
    (re.compile(r"return torch\.relu\((\w+)\)"), r"return \1.clamp(min=0)"),
    (re.compile(r"return torch\.softmax\((\w+), dim=1\)"),
     r"e = (\1 - \1.amax(dim=1, keepdim=True)).exp()\n        return e / e.sum(dim=1, keepdim=True)"),
]

def reference_of(messages):
    for m in messages:
        content = m.get("content") or ""
        if isinstance(content, list):
            content = "".join(part.get("text", "") for part in content if isinstance(part, dict))
        for block in _BLOCK.findall(content):
            if "class Model(" in block and "get_inputs" in block:
                return block
    return None

def behaviour_of(messages):
    ref = reference_of(messages) or ""
    rules = json.loads(os.environ.get("FAKE_SUITE_RULES", "{}") or "{}")
    for key, value in rules.items():
        if key in ref:
            return value
    return "copy"


def answer_for(messages):
    ref = reference_of(messages)
    if ref is None:
        return "I cannot find the reference model in the prompt."
    behaviour = behaviour_of(messages)
    code = ref.replace("class Model(", "class ModelNew(").replace("super(Model, self)", "super(ModelNew, self)")
    for pattern, clean in _CLEAN:
        code = pattern.sub(clean, code)
    if behaviour == "broken":
        code = "import torch\nclass ModelNew(torch.nn.Module:\n    pass\n"
    elif behaviour == "nocode":
        return "No code this time."
    elif behaviour in ("hang", "crash"):
        body = ("        while True:\n            pass\n" if behaviour == "hang"
                else "        import os, signal\n        os.kill(os.getpid(), signal.SIGKILL)\n")
        code = ("import torch\nimport torch.nn as nn\n\n\nclass ModelNew(nn.Module):\n"
                "    def __init__(self, *args, **kwargs):\n        super().__init__()\n\n"
                "    def forward(self, *args):\n" + body)
    return "Here is the kernel:\n\n```python\n" + code.rstrip() + "\n```\n\nA direct version of the reference."

class SuiteHandler(base.Handler):
    def do_POST(self):
        length = int(self.headers.get("Content-Length") or 0)
        try:
            req = json.loads(self.rfile.read(length).decode("utf-8"))
        except ValueError:
            return self.send_json(400, {"error": {"message": "request body is not JSON"}})
        messages = req.get("messages", [])
        if behaviour_of(messages) == "stall":
            time.sleep(3600)
            return None
        text = answer_for(messages)
        delay = int(os.environ.get("FAKE_LLM_DELAY_MS", "0") or 0)
        if delay:
            time.sleep(delay / 1000.0)
        return self.answer(text, req.get("model", "m"), req.get("stream"))


def main():
    base.serve(SuiteHandler)


if __name__ == "__main__":
    main()
