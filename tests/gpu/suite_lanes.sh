#!/bin/bash
# SPDX-License-Identifier: MIT
# GPU lanes of `kwb suite` on a machine with at least 2 GPUs (kind nvidia-h200-x2):
# one suite of 8 GPU tasks (4 ReLU and 4 softmax sizes, KernelBench format, written here) through
# the loopback LLM server (tests/core/suite/suite_llm_server.py: deterministic answers, no key)
# with 1 lane (--gpus 0) and with 2 lanes (--gpus 0,1), --jobs 8 both times. Prints the wall time,
# candidates evaluated per minute, the scaling (target >= 1.8x), and checks that every task's best
# candidate (its code) and correctness are identical in both suites. Exit 1 when they differ.
# Usage: tests/gpu/suite_lanes.sh [BUILD_DIR=build] [SEEDS=6]
set -euo pipefail
src=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-build}
seeds=${2:-6}
kwb="$build/app/cli/kwb"
[ -x "$kwb" ] || { echo "suite_lanes: build kwb first ($kwb)" >&2; exit 2; }
gpus=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU' || true)
if [ "${gpus:-0}" -lt 2 ]; then echo "SKIP: suite_lanes needs 2 GPUs, found ${gpus:-0}"; exit 0; fi
python=${KWB_PYTHON:-python3}
"$python" -c 'import torch; assert torch.cuda.device_count() >= 2' || { echo "suite_lanes: $python has no torch with 2 CUDA devices" >&2; exit 2; }
tmp=$(mktemp -d)
server=
trap '[ -n "$server" ] && kill $server 2>/dev/null; rm -rf "$tmp"' EXIT

# The tasks: sizes large enough that the GPU does real work per trial.
mkdir -p "$tmp/tasks/level1"
n=0
for rows in 256 512 1024 2048; do
    n=$((n + 1))
    cat > "$tmp/tasks/level1/${n}_ReLU_${rows}.py" <<PY
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super(Model, self).__init__()

    def forward(self, x):
        return torch.relu(x)


def get_inputs():
    return [torch.randn($rows, 65536)]


def get_init_inputs():
    return []
PY
    n=$((n + 1))
    cat > "$tmp/tasks/level1/${n}_Softmax_${rows}.py" <<PY
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super(Model, self).__init__()

    def forward(self, x):
        return torch.softmax(x, dim=1)


def get_inputs():
    return [torch.randn($rows, 16384)]


def get_init_inputs():
    return []
PY
done

/usr/bin/env python3 "$src/tests/core/suite/suite_llm_server.py" > "$tmp/port" &
server=$!
while [ ! -s "$tmp/port" ]; do sleep 0.1; done
mkdir -p "$tmp/config"
printf '{"providers": [{"name": "fake", "wire": "openai", "base_url": "http://127.0.0.1:%s/v1", "model": "suite", "api_key_env": "", "max_retries": 0}]}\n' \
    "$(head -n 1 "$tmp/port")" > "$tmp/config/providers.json"
common=(--provider fake --device cuda --seeds "$seeds" --max-repairs 1 --threshold 0 --no-stages --trials 3 --repeat 50 --jobs 8)
echo "suite_lanes: 8 tasks, $seeds seeds each, $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1), $(nproc) cores"
declare -A wall
for lanes in 0 0,1; do
    start=$(date +%s.%N)
    KWB_CONFIG_DIR="$tmp/config" KWB_PYTHON="$python" "$kwb" suite "$tmp/tasks" "${common[@]}" --gpus "$lanes" \
        --suite-dir "$tmp/suite-$lanes" > "$tmp/out-$lanes.txt" 2>&1 || true
    end=$(date +%s.%N)
    wall[$lanes]=$(echo "$end - $start" | bc)
    tail -n 14 "$tmp/out-$lanes.txt"
done

/usr/bin/env python3 - "$tmp" "${wall[0]}" "${wall[0,1]}" <<'PY'
import hashlib, json, os, sys
tmp, w1, w2 = sys.argv[1], float(sys.argv[2]), float(sys.argv[3])

def load(lanes):
    d = os.path.join(tmp, "suite-" + lanes)
    s = json.load(open(os.path.join(d, "suite.json")))
    out, evaluated = {}, 0
    for e in s["entries"]:
        run_dir = os.path.join(d, e["run_dir"])
        run = json.load(open(os.path.join(run_dir, "run.json")))
        cands = {c["id"]: c for c in run["candidates"]}
        evaluated += sum(1 for c in run["candidates"] if c.get("eval") and c.get("kind") != "baseline")
        best = cands.get(e.get("best_candidate") or "")
        code = hashlib.sha256(open(os.path.join(run_dir, best["code_file"]), "rb").read()).hexdigest()[:16] if best else None
        out[e["task"]] = (e["state"], e["correct"], code, e.get("speedup_vs_eager"))
    return out, evaluated

one, n1 = load("0")
two, n2 = load("0,1")
r1, r2 = n1 / (w1 / 60.0), n2 / (w2 / 60.0)
print("1 lane : %6.1f s wall, %3d candidates evaluated, %6.1f candidates/min" % (w1, n1, r1))
print("2 lanes: %6.1f s wall, %3d candidates evaluated, %6.1f candidates/min" % (w2, n2, r2))
print("scaling: %.2fx (target >= 1.8x)" % (r2 / r1 if r1 else float("nan")))
same = True
for task in sorted(one):
    a, b = one[task], two.get(task)
    ok = b is not None and a[:3] == b[:3] and a[2] is not None
    same = same and ok
    print("  %-22s %s  1 lane: %s correct=%s best=%s x%.2f | 2 lanes: %s correct=%s best=%s x%.2f" % (
        task, "same" if ok else "DIFFERENT", a[0], a[1], a[2], a[3] or 0, b[0] if b else "-", b[1] if b else "-",
        b[2] if b else "-", (b[3] or 0) if b else 0))
print("every task's best identical in both: %s" % ("yes" if same else "NO"))
sys.exit(0 if same else 1)
PY
