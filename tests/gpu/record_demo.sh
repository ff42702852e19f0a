#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Records the bundled demo runs on a GPU machine: each task's shipped cassette replayed through the
# real pipeline (`kwb run`, no API key needed), every candidate evaluated on the GPU by the real
# worker. The runs land in OUT/runs; copy the ones to ship into resources/demo/.
# Usage: tests/gpu/record_demo.sh KWB_BINARY OUT_DIR [TASK_NAME...]   (default: 39_GRU 40_GRUHidden 37_LSTMCn)
# Runs the tasks concurrently: the evaluator's GPU lock serialises the GPU work, so timings stay
# clean while one run's CPU work (imports, prompts, detectors) overlaps another's GPU work.
set -u
kwb=$1; out=$2; shift 2
tasks=("$@"); [ ${#tasks[@]} -gt 0 ] || tasks=(39_GRU 40_GRUHidden 37_LSTMCn)
export KWB_DATA_DIR=${KWB_DATA_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
export KWB_PYTHON=${KWB_PYTHON:-python3}
limit=${KWB_RECORD_LIMIT_S:-420}
mkdir -p "$out/runs"
for t in "${tasks[@]}"; do
    ( start=$(date +%s)
      timeout "$limit" "$kwb" run "$KWB_DATA_DIR/tasks/level3/$t.py" --device cuda --auto --runs-dir "$out/runs" \
          > "$out/$t.log" 2>&1
      echo "record_demo: $t exit $? after $(( $(date +%s) - start )) s" | tee -a "$out/$t.log" ) &
done
wait
