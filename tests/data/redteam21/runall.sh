#!/bin/bash
# Runs every pair 3 times: static verdicts and the runtime judge. Usage: cd /work/main && bash tests/data/redteam21/runall.sh [filter]
D=tests/data/redteam21
while read task cand kind; do
  b=${cand%.py}
  [ -n "$1" ] && [[ "$b" != *$1* ]] && continue
  /usr/bin/python3 $D/static.py $task $D/$cand $D/results/$b.static.json > /dev/null
  for i in 1 2 3; do
    timeout 300 /usr/bin/python3 core/eval/worker/kwb_worker.py eval $task $D/$cand --json > $D/results/$b.run$i.json 2> $D/results/$b.run$i.err
  done
  echo "done $b"
done < $D/pairs.txt
