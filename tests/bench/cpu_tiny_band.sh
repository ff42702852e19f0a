#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The judge on this CPU against the tiny-kernel band (issue: one clock): N evaluations each of the own copies of
# tasks/level1/{1_ReLU,2_Softmax,3_Matmul}, tasks/level2/1_Linear_GELU_Scale (Model renamed ModelNew) and of
# tests/data/candidates/relu_correct.py, then per candidate min/median/max x eager and how many fell in 0.90-1.10,
# and how many carried an error or critical flag or integrity.busy_machine. Prints figures; asserts nothing.
# Usage: tests/bench/cpu_tiny_band.sh [N=10]; KWB_BAND_VIA=kwb: through the built `kwb eval` (build/app/cli/kwb, the
# engine's path: its sandbox and a worker started per evaluation) instead of the worker's own CLI. KWB_BAND_ROWS=FILE:
# each evaluation's row (name status x-eager flagged busy wall-s) also appended there, to compare two judges run in turn;
# tests/bench/cpu_tiny_band.sh --summary FILE prints such a file's figures.
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
py=${KWB_TEST_PYTHON:-/usr/bin/python3}
summarize() {
"$py" - "$1" <<'PY'
import collections, sys
rows = [l.split() for l in open(sys.argv[1]) if len(l.split()) == 6]
by = collections.defaultdict(list)
for name, st, x, bad, busy, wall in rows:
    by[name].append((float(x), int(bad), int(busy), st))
for name, v in by.items():
    xs = sorted(x for x, *_ in v)
    print("%-28s n=%2d ok %2d  x eager min %.3f med %.3f max %.3f  in 0.90-1.10: %2d  flagged %d  busy %d" % (
        name, len(v), sum(1 for *_, s in v if s == "ok"), xs[0], xs[len(xs) // 2], xs[-1],
        sum(1 for x in xs if 0.90 <= x <= 1.10), sum(b for _, b, _, _ in v), sum(b for _, _, b, _ in v)))
walls = sorted(float(r[5]) for r in rows)
print("wall per evaluation: median %.1f s" % walls[len(walls) // 2])
PY
}
if [ "${1:-}" = --summary ]; then
    summarize "$2"
    exit
fi
n=${1:-10}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
for t in level1/1_ReLU level1/2_Softmax level1/3_Matmul level2/1_Linear_GELU_Scale; do
    sed -E 's/\bclass Model\b/class ModelNew/; s/super\(\s*Model\s*,/super(ModelNew,/' "$root/tasks/$t.py" > "$tmp/own_$(basename $t).py"
done
pairs=("level1/1_ReLU.py $tmp/own_1_ReLU.py" "level1/1_ReLU.py $root/tests/data/candidates/relu_correct.py"
       "level1/2_Softmax.py $tmp/own_2_Softmax.py" "level1/3_Matmul.py $tmp/own_3_Matmul.py"
       "level2/1_Linear_GELU_Scale.py $tmp/own_1_Linear_GELU_Scale.py")
for i in $(seq 1 "$n"); do
    for pair in "${pairs[@]}"; do
        set -- $pair
        if [ "${KWB_BAND_VIA:-worker}" = kwb ]; then
            KWB_PYTHON="$py" "$root/build/app/cli/kwb" eval "$root/tasks/$1" "$2" --device cpu --json 2>/dev/null
        else
            "$py" "$root/core/eval/worker/kwb_worker.py" eval "$root/tasks/$1" "$2" --device cpu --json 2>/dev/null
        fi |
            "$py" -c '
import json, os, sys
r = json.load(sys.stdin)
bad = [v["detector"] for v in r["runtime_checks"] if v["outcome"] == "yes" and v["severity"] in ("error", "critical")]
busy = any(v["detector"] == "integrity.busy_machine" and v["outcome"] == "yes" for v in r["runtime_checks"])
x = r["eager"]["median_ms"] / r["candidate"]["median_ms"] if r["status"] == "ok" else float("nan")
print(os.path.basename(sys.argv[1]), r["status"], "%.3f" % x, int(bool(bad)), int(busy), "%.1f" % r["wall_seconds"])' "$2"
    done
done | tee "$tmp/rows" | tee -a "${KWB_BAND_ROWS:-/dev/null}" >/dev/null
summarize "$tmp/rows"
