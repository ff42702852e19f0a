#!/bin/bash
# SPDX-License-Identifier: MIT
# Figures for suites (not a test; prints numbers):
#  1. wall time of one suite of the small CPU tasks through the loopback LLM server
#     (tests/core/suite/suite_llm_server.py, every answer delayed by DELAY_MS like a real LLM's
#     latency) with --jobs 1 and with --jobs 4, same settings;
#  2. with --slurm: the Slurm backend's overhead per evaluation against the local evaluator, on the
#     single-node test cluster (tests/core/suite/slurm_cluster.sh, needs root), via kwb_bench_slurm.
# Usage: tests/bench/bench_suite.sh [BUILD_DIR=build] [DELAY_MS=1000] [--slurm]
set -euo pipefail
src=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-build}
delay=${2:-1000}
slurm=${3:-}
kwb="$build/app/cli/kwb"
[ -x "$kwb" ] || { echo "bench_suite: build kwb first ($kwb)" >&2; exit 2; }
tmp=$(mktemp -d)
server=
cleanup() {
    [ -n "$server" ] && kill "$server" 2>/dev/null || true
    [ -f "$tmp/cluster/slurm.conf" ] && bash "$src/tests/core/suite/slurm_cluster.sh" stop "$tmp/cluster"
    rm -rf "$tmp"
}
trap cleanup EXIT
FAKE_LLM_DELAY_MS=$delay /usr/bin/python3 "$src/tests/core/suite/suite_llm_server.py" > "$tmp/port" &
server=$!
while [ ! -s "$tmp/port" ]; do sleep 0.1; done
mkdir -p "$tmp/config"
printf '{"providers": [{"name": "fake", "wire": "openai", "base_url": "http://127.0.0.1:%s/v1", "model": "suite", "api_key_env": "", "max_retries": 0}]}\n' \
    "$(head -n 1 "$tmp/port")" > "$tmp/config/providers.json"
tasks=("$src/tasks/level1" "$src/tasks/level2" "$src/tests/data/tasks/relu_small.py" "$src/tests/data/tasks/gru_small.py"
       "$src/tests/data/tasks/lstm_small.py" "$src/tests/data/tasks/gru_hidden_small.py" "$src/tests/data/tasks/lstm_fc_small.py")
common=(--provider fake --device cpu --seeds 2 --max-repairs 1 --threshold 0 --no-stages --trials 2 --repeat 10)
echo "suite: ${#tasks[@]} arguments (9 small CPU tasks), LLM latency ${delay} ms per answer, $(nproc) cores, load $(cut -d' ' -f1 /proc/loadavg)"
for jobs in 1 4; do
    start=$(date +%s.%N)
    KWB_CONFIG_DIR="$tmp/config" KWB_PYTHON=/usr/bin/python3 "$kwb" suite "${tasks[@]}" "${common[@]}" --jobs "$jobs" \
        --suite-dir "$tmp/suite-j$jobs" > "$tmp/out-j$jobs.txt" || true
    end=$(date +%s.%N)
    evals=$(cat "$tmp"/suite-j$jobs/runs/*/console.log | grep -c "^eval c[0-9]* ([^)]*):" || true)
    summary=$(grep "tasks:" "$tmp/out-j$jobs.txt" | head -1)
    printf -- "--jobs %d: %.1f s wall, %d candidate evaluations; %s\n" "$jobs" "$(echo "$end - $start" | bc)" "$evals" "$summary"
done
if [ "$slurm" = --slurm ]; then
    mkdir -p "$tmp/cluster"
    if out=$(bash "$src/tests/core/suite/slurm_cluster.sh" start "$tmp/cluster" 2>&1); then
        export SLURM_CONF="$tmp/cluster/slurm.conf"
        "$build/tests/bench/kwb_bench_slurm" 5 250
    else
        echo "slurm: no test cluster: $out"
    fi
fi
