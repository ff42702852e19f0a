#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The judge's GPU check (device machine; not run by CI), in named jobs, one job a GPU, so that it fits the GPUs and the
# ten minutes a device call has: e.g. on four GPUs JOBS="cheats_a cheats_b cheats_c redteams", then
# JOBS="honest blind kernels latest".
#
#   redteams  a smoke evaluation first (the call stops if it fails), tiny own copies once, blind red teams 9, 10, 11
#   honest    red teams 7, 3, 8; red team 4's honest kernels on the bundled tasks and on big KernelBench tasks
#   blind     blind red teams 12, 13, 15 and 16 (in the honest job they made it longer than a device call: session 20)
#   cheats_a  the catalogue (tests/data/cheats), files a-f
#   cheats_b  the catalogue, files g-p
#   cheats_c  the catalogue, files r-z (three jobs since session 22: two had filled their 480 s)
#   latest    blind red teams 17-20 (their cheats and honest files: CPU-found; 17 and 18 first ran on a GPU in session
#             22; 20's cheat_gpu_slot_stride_softmax.py is written for a GPU and has never run)
#   styles    blind red team 22 (three cheats, three honest; CPU-run only so far), then the false-positive hunt's 32
#             honest files of many styles (tests/data/fp22; their Triton/CUDA files have never run)
#   newest    blind red team 23 (output pools and the module call path; CPU-run only so far), red team 22 again
#   rt24      blind red team 24 (19 honest files of many styles, 3 cheats on output memory; CPU-run only so far)
#   kernels   six big own copies, the hand-written kernels, 39_GRU's showcase kernel, five launch-bound own copies
#
# Usage: JOBS="..." [KB=.device/kb] [KC=commit] [T=520] tests/gpu/gpu_check.sh     (results: $OUT/check.tar.gz)
# Compare a catalogue with an earlier one: tests/gpu/catalogue_diff.py OLD.jsonl... -- NEW.jsonl...
set -uo pipefail
: "${OUT:?set OUT}" "${JOBS:?set JOBS}"
KB=${KB:-.device/kb}
KC=${KC:-$(git log -1 --format=%h 2>/dev/null || echo unknown)}
R=$OUT/check; mkdir -p "$R"
L=tests/gpu/lists
J="python3 tests/gpu/judge_check.py --commit $KC --task-timeout 60"
GRU=$(python3 -c "import sys; sys.path.insert(0, 'resources/showcase'); from make_showcase import candidate; print(candidate('39_GRU'))")
echo "tasks/level3/39_GRU.py $GRU honest" > "$R/gru_pairs.txt"
job() {
    case $1 in
    redteams) echo "timeout 120 python3 core/eval/worker/kwb_worker.py eval tasks/level1/1_ReLU.py tests/data/candidates/relu_correct.py --device cuda --json > $R/smoke.json 2> $R/smoke.log && python3 -c \"import json; d = json.load(open('$R/smoke.json')); print('SMOKE', d['status'], d['reason'][:200]); assert d['status'] == 'ok'\" || { tail -30 $R/smoke.log; exit 3; }
        KWB_FRAMES_DUMP=$R/tiny_frames.jsonl python3 tests/gpu/clock_check.py --commit $KC --out $R/tiny.jsonl --sections tiny --runs 1 --budget-s 130
        $J --out $R/redteam10.jsonl --sections pairs --pairs tests/data/redteam10/pairs.txt --budget-s 90
        $J --out $R/redteam9.jsonl --sections pairs --pairs tests/data/redteam9/pairs.txt --budget-s 100
        $J --out $R/redteam11.jsonl --sections pairs --pairs tests/data/redteam11/pairs.txt --budget-s 120" ;;
    honest) echo "$J --out $R/redteam7.jsonl --sections pairs --pairs tests/data/redteam7/pairs.txt --budget-s 100
        $J --out $R/redteam3.jsonl --sections pairs --pairs tests/data/redteam3/pairs.txt --budget-s 80
        $J --out $R/redteam8.jsonl --sections pairs --pairs tests/data/redteam8/pairs.txt --budget-s 80
        $J --out $R/honest.jsonl --sections pairs --pairs $L/honest_small.txt --budget-s 90
        $J --out $R/honest_big.jsonl --sections pairs --pairs $L/honest_big.txt --budget-s 60" ;;
    blind) echo "$J --out $R/redteam12.jsonl --sections pairs --pairs tests/data/redteam12/pairs.txt --budget-s 100
        $J --out $R/redteam13.jsonl --sections pairs --pairs tests/data/redteam13/pairs.txt --budget-s 100
        $J --out $R/redteam15.jsonl --sections pairs --pairs tests/data/redteam15/pairs.txt --budget-s 100
        $J --out $R/redteam16.jsonl --sections pairs --pairs tests/data/redteam16/pairs.txt --budget-s 150" ;;
    latest) echo "$J --out $R/redteam17.jsonl --sections pairs --pairs tests/data/redteam17/pairs.txt --budget-s 200
        $J --out $R/redteam18.jsonl --sections pairs --pairs tests/data/redteam18/pairs.txt --budget-s 100
        $J --out $R/redteam20.jsonl --sections pairs --pairs tests/data/redteam20/pairs.txt --budget-s 100
        $J --out $R/redteam19.jsonl --sections pairs --pairs tests/data/redteam19/pairs.txt --budget-s 70" ;;
    styles) echo "$J --out $R/redteam22.jsonl --sections pairs --pairs tests/data/redteam22/pairs.txt --budget-s 100
        $J --out $R/fp22.jsonl --sections pairs --pairs tests/data/fp22/pairs.txt --budget-s 370" ;;
    newest) echo "$J --out $R/redteam23.jsonl --sections pairs --pairs tests/data/redteam23/pairs.txt --budget-s 260
        $J --out $R/redteam22n.jsonl --sections pairs --pairs tests/data/redteam22/pairs.txt --budget-s 100" ;;
    rt24) echo "$J --out $R/redteam24.jsonl --sections pairs --pairs tests/data/redteam24/pairs.txt --budget-s 420" ;;
    cheats_a) echo "$J --out $R/cheats_af.jsonl --sections cheats --cheats '^[a-f]' --budget-s 480" ;;
    cheats_b) echo "$J --out $R/cheats_gp.jsonl --sections cheats --cheats '^[g-p]' --budget-s 480" ;;
    cheats_c) echo "$J --out $R/cheats_rz.jsonl --sections cheats --cheats '^[r-z]' --budget-s 480" ;;
    kernels) echo "python3 tests/gpu/kernelbench_sweep.py $KB --commit $KC --budget-s 150 --only '^($(paste -sd'|' $L/big_sample.txt))\\.py\$' --state $R/big_sample.jsonl
        python3 tests/gpu/judge_check.py --commit $KC --task-timeout 120 --out $R/handwritten.jsonl --kernelbench $KB --sections handwritten --budget-s 150
        KWB_FRAMES_DUMP=$R/gru_frames.jsonl python3 tests/gpu/judge_check.py --commit $KC --task-timeout 150 --sections pairs --pairs $R/gru_pairs.txt --budget-s 100 --out $R/gru.jsonl
        KWB_FRAMES_DUMP=$R/lb_frames.jsonl python3 tests/gpu/kernelbench_sweep.py $KB --commit $KC --budget-s 90 --levels 3 --only '^(35_LSTM|40_GRUHidden|3_DeepNarrowMLP|44_MiniGPTBlock|22_EfficientNetB0)\\.py\$' --state $R/lb.jsonl" ;;
    *) echo "echo 'gpu_check: no job $1' >&2; exit 2" ;;
    esac
}
cmds=(); for j in $JOBS; do cmds+=("$(job "$j")"); done
t0=$(date +%s)
nvidia-smi -L
# Within the device call whatever the jobs' budgets add up to (session 20's first call ran past it and came back
# without its tar): after T seconds (default 520) the jobs are stopped and what they wrote is packed all the same.
timeout -k 5 "${T:-520}" tests/gpu/parallel.sh "$OUT/r" "${cmds[@]}"
echo "parallel exit $? after $(( $(date +%s) - t0 )) s"
pkill -f "tests/gpu/judge_check.py|tests/gpu/kernelbench_sweep.py|tests/gpu/clock_check.py" 2>/dev/null
i=0; for j in $JOBS; do echo "== GPU $i: $j"; grep -h "^SMOKE\|^== summary" -A12 "$OUT/r/gpu$i.log" | head -60; i=$((i + 1)); done
gzip -f "$R"/*frames.jsonl 2>/dev/null
tar -czf "$OUT/check.tar.gz" -C "$OUT" check r && rm -rf "$R" "$OUT/r"
