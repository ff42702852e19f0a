#!/usr/bin/env bash
# Red team 16: every pair of pairs.txt, N times (default 3), round-robin so that honest controls and cheats
# of a task interleave; raw JSON in results/<file>__r<k>.json, the table in results/summary.md.
# Usage: tests/data/redteam16/run_all.sh [N]
set -u
N=${1:-3}
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../../.." && pwd)
mkdir -p "$HERE/results"
cd "$ROOT" || exit 2
for r in $(seq 1 "$N"); do
  while read -r task file kind; do
    [ -z "${task:-}" ] && continue
    case "$task" in \#*) continue ;; esac
    out="$HERE/results/${file%.py}__r$r.json"
    /usr/bin/python3 core/eval/worker/kwb_worker.py eval "$task" "$HERE/$file" --device cpu --json > "$out" 2>/dev/null
    echo "run $r  $file ($kind): $(/usr/bin/python3 "$HERE/summarize.py" --one "$out")"
  done < "$HERE/pairs.txt"
done
/usr/bin/python3 "$HERE/summarize.py" > "$HERE/results/summary.md"
cat "$HERE/results/summary.md"
