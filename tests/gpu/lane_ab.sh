#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Variants of the judge side by side on the same KernelBench tasks (own code), every GPU of the host, one device call
# (device machine; not run by CI). Task i goes to GPU i mod N; on it every variant runs back to back, the first one
# rotating from task to task. Every frame is dumped; at the end a summary per variant and task, and lane_phases.py's
# tables; everything under $OUT/ab.tar.gz (a device call's $OUT comes back whole only as few files).
#
# Usage: VARIANTS="main= chain=KWB_CHAIN=1 spread=KWB_X_SPREAD_GPU=1" LIST=tests/gpu/lists/big_k1.txt \
#        [KB=.device/kb] [T=450 (seconds after which no evaluation starts)] [PASSES=1] tests/gpu/lane_ab.sh
# LIST: "LEVEL TASK" a line. KB: a KernelBench checkout's parent (KB/KernelBench/level1, ...), e.g. made here with
#   git -C "$(fetch github:ScalingIntelligence/KernelBench)" archive HEAD KernelBench/level{1,2,3} | tar -x -C .device/kb
set -uo pipefail
: "${OUT:?set OUT}" "${VARIANTS:?set VARIANTS}" "${LIST:?set LIST}"
KB=${KB:-.device/kb}; PASSES=${PASSES:-1}
KC=${KC:-$(git log -1 --format=%h 2>/dev/null || echo unknown)}
R=$OUT/ab; mkdir -p "$R"
N=$(nvidia-smi -L | wc -l)
DEADLINE=$(( $(date +%s) + ${T:-450} ))
export R KB KC DEADLINE N VARIANTS LIST PASSES

one() {  # GPU LEVEL TASK VARIANT PASS
    [ "$(date +%s)" -lt "$DEADLINE" ] || return 0
    local g=$1 lv=$2 t=$3 v=$4 p=$5 spec env=()
    for spec in $VARIANTS; do [ "${spec%%=*}" = "$v" ] && IFS=, read -ra env <<< "${spec#*=}"; done
    env "${env[@]}" KWB_FRAMES_DUMP="$R/f_g${g}_$v.jsonl" python3 tests/gpu/kernelbench_sweep.py "$KB" \
        --commit "$KC-$v" --budget-s 150 --task-timeout 90 --levels "$lv" --only "^($t)\\.py\$" \
        --state "$R/s_g${g}_${v}_p$p.jsonl" > /dev/null 2>> "$R/err_g$g.log"
}
lane() {  # GPU
    local g=$1 i p lv t names k
    names=(); for spec in $VARIANTS; do names+=("${spec%%=*}"); done
    for p in $(seq 1 "$PASSES"); do
        i=0
        while read -r lv t; do
            [ -n "$t" ] || continue
            if [ $((i % N)) -eq "$g" ]; then
                for k in $(seq 0 $((${#names[@]} - 1))); do
                    one "$g" "$lv" "$t" "${names[$(((k + i / N + p) % ${#names[@]}))]}" "$p"
                done
            fi
            i=$((i + 1))
        done < "$LIST"
        echo "GPU $g pass $p done at $(date +%T)"
    done
}
export -f one lane
nvidia-smi -L
jobs=(); for g in $(seq 0 $((N - 1))); do jobs+=("lane $g"); done
tests/gpu/parallel.sh "$OUT/r" "${jobs[@]}"
echo "parallel exit $?"
python3 - <<'PY'
import glob, json, os, statistics as st
R = os.environ["R"]
got = {}
for f in glob.glob(R + "/s_g*_*_p*.jsonl"):
    v = f.rsplit("/", 1)[1].split("_", 2)[2].rsplit("_p", 1)[0]
    for line in open(f):
        got.setdefault(v, []).append(json.loads(line))
for v, rs in sorted(got.items()):
    xs = [r["eager"] for r in rs if r.get("eager")]
    print("%-8s %3d evaluations, ok %d, flagged %d, median %s, in 0.95-1.05: %d/%d" % (
        v, len(rs), sum(r["status"] == "ok" for r in rs), sum(bool(r.get("flags")) for r in rs),
        "%.3f" % st.median(xs) if xs else "-", sum(0.95 <= x <= 1.05 for x in xs), len(xs)))
by = {}
for v, rs in got.items():
    for r in rs:
        by.setdefault(r["task"], {}).setdefault(v, []).append(r.get("eager"))
for t in sorted(by):
    print("%-45s %s" % (t[:45], "  ".join("%s %s" % (v, " ".join("%.3f" % x if x else "-" for x in xs))
                                          for v, xs in sorted(by[t].items()))))
for v, rs in sorted(got.items()):
    for r in rs:
        if r["status"] != "ok" or r.get("flags"):
            print("NOT CLEAN", v, r["task"], r["status"], r.get("flags"), r.get("reason", "")[:200])
PY
for v in $VARIANTS; do v=${v%%=*}; cat "$R"/f_g*_"$v".jsonl > "$R/frames_$v.jsonl" 2>/dev/null; done
python3 tests/gpu/lane_phases.py $(for v in $VARIANTS; do v=${v%%=*}; echo "$v=$R/frames_$v.jsonl"; done) --by-task
rm -f "$R"/f_g*.jsonl; gzip "$R"/frames_*.jsonl
tar -czf "$OUT/ab.tar.gz" -C "$OUT" ab r && rm -rf "$R" "$OUT/r"
