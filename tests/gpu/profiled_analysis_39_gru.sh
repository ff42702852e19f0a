#!/bin/sh
# SPDX-License-Identifier: MIT
# GPU machine: a real `kwb run` of 39_GRU with profiling on (no API key: the shipped cassette is
# replayed; one seed, no tuning stages), then what the issue asks to see: the analysis prompt's
# "Profiler metrics (Nsight Compute)" section as it was sent, each profiled candidate's roofline
# (kwb show) and what profiling cost (the run's "profile" log lines).
#   KWB=build/app/cli/kwb OUT=/tmp/pa sh tests/gpu/profiled_analysis_39_gru.sh
# Without Qt on the GPU machine, carry a bundle made here with tests/gpu/bundle_kwb.sh and set
# KWB=<bundle>/bin/kwb LD_LIBRARY_PATH=<bundle>/lib KWB_DATA_DIR=<this checkout>.
set -eu
KWB=${KWB:-build/app/cli/kwb}
OUT=${OUT:-$PWD/profiled_analysis}
PY=${KWB_PYTHON:-python3}
mkdir -p "$OUT"
if ! command -v ncu >/dev/null 2>&1 && [ ! -x /usr/local/cuda/bin/ncu ]; then
    echo "SKIP: no ncu (Nsight Compute) on this machine"
    exit 0
fi
env -u OPENAI_API_KEY -u DEEPSEEK_API_KEY -u OPENROUTER_API_KEY -u ANTHROPIC_API_KEY -u KWB_PROVIDER \
    KWB_CONFIG_DIR="$OUT/config" KWB_PYTHON="$PY" \
    "$KWB" run tasks/level3/39_GRU.py --seeds 1 --no-stages --device cuda --trials 2 --repeat 5 \
    --runs-dir "$OUT/runs" >"$OUT/run.log" 2>&1 || { tail -30 "$OUT/run.log"; exit 1; }
RUN=$(ls -d "$OUT"/runs/*/ | head -1)
echo "== run $RUN"
grep -E "^(profile|eval|baseline|seed1)" "$OUT/run.log" || true
echo "== the analysis prompt's metrics section, as sent"
"$PY" - "$RUN" <<'PYEOF'
import glob, json, sys
for f in sorted(glob.glob(sys.argv[1] + "/llm/x*.json")):
    x = json.load(open(f))
    if not x.get("call_type", "").startswith("algorithm_analysis"):
        continue
    text = x["messages"][-1]["content"]
    start = text.index("## Profiler metrics (Nsight Compute)")
    print("[%s %s]" % (f.rsplit("/", 1)[-1], x["call_type"]))
    print(text[start:text.index("## The kernel", start)].rstrip())
PYEOF
echo "== kwb show (profiles)"
"$KWB" show "$RUN" | sed -n '/^profiles (Nsight Compute)/,$p'
"$KWB" show "$RUN" --html "$OUT/report.html" >/dev/null 2>&1 || true
