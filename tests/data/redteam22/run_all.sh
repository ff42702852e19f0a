#!/bin/bash
cd /work/main
rm -f tests/data/redteam22/results/*.json
for r in 1 2; do
while read t c k; do
  /usr/bin/python3 core/eval/worker/kwb_worker.py eval $t tests/data/redteam22/$c --json > tests/data/redteam22/results/${c%.py}.run$r.json 2> tests/data/redteam22/results/${c%.py}.run$r.log
done < tests/data/redteam22/pairs.txt
done
echo done
