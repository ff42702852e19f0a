#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Runs several GPU jobs at once on one host, job I on GPU I alone (CUDA_VISIBLE_DEVICES=I), and waits for all
# (device machine; not run by CI). Each job's output goes to LOGDIR/gpuI.log; the exit status is the worst.
#
# Usage: tests/gpu/parallel.sh LOGDIR 'JOB0' ['JOB1' ...]      e.g. one KernelBench sweep shard a GPU:
#   tests/gpu/parallel.sh $OUT "python3 tests/gpu/kernelbench_sweep.py KB --state s0 --every 2 --start 0" \
#                              "python3 tests/gpu/kernelbench_sweep.py KB --state s1 --every 2 --start 1"
set -uo pipefail
logdir=$1; shift
mkdir -p "$logdir"
n=$(nvidia-smi -L 2>/dev/null | wc -l)
if [ "$#" -gt "$n" ]; then echo "parallel.sh: $# jobs but $n GPUs" >&2; exit 2; fi
pids=(); i=0
for job in "$@"; do
    CUDA_VISIBLE_DEVICES=$i PYTHONUNBUFFERED=1 bash -c "$job" >"$logdir/gpu$i.log" 2>&1 &
    pids+=($!); i=$((i + 1))
done
rc=0; i=0
for pid in "${pids[@]}"; do
    wait "$pid"; r=$?
    echo "parallel.sh: GPU $i job exit $r"
    [ $r -le $rc ] || rc=$r
    i=$((i + 1))
done
exit $rc
