#!/bin/bash
# Runs every pair in pairs.txt twice, one evaluation at a time; raw JSON in results/.
cd /work/main
mkdir -p tests/data/redteam15/results
while read task file kind; do
  for r in 1 2; do
    /usr/bin/python3 core/eval/worker/kwb_worker.py eval "$task" "tests/data/redteam15/$file" --device cpu --json \
      2>/dev/null > "tests/data/redteam15/results/${file%.py}.$r.json"
  done
done < tests/data/redteam15/pairs.txt
