#!/bin/bash
# usage: run.sh TASK CANDIDATE TAG  -> results/<cand>__<tag>.json and a one-line summary
cd /work/main
T=$1; C=$2; TAG=$3
B=$(basename $C .py)
OUT=tests/data/redteam19/results/${B}__${TAG}.json
/usr/bin/python3 core/eval/worker/kwb_worker.py eval $T $C --json > $OUT 2>/dev/null
/usr/bin/python3 - "$OUT" "$T" "$C" <<'PY'
import json, sys
sys.path.insert(0, 'core/eval/worker')
from kwb_worker.detect import run_detectors
r = json.load(open(sys.argv[1]))
st = [(v['detector'], v['severity']) for v in run_detectors(open(sys.argv[2]).read(), open(sys.argv[3]).read())
      if v['outcome'] == 'yes' and v['severity'] in ('warning', 'error', 'critical')]
rt = [(v['detector'], v['severity']) for v in r.get('runtime_checks') or [] if v['outcome'] == 'yes' and v['severity'] != 'info']
c, e = (r.get('candidate') or {}).get('median_ms'), (r.get('eager') or {}).get('median_ms')
sp = e / c if c and e else None
print("%-28s %-14s %s speedup=%s runtime=%s static=%s" % (sys.argv[1].split('/')[-1], r['status'], r['reason'][:0],
      "%.2fx" % sp if sp else None, rt, st))
if r['status'] != 'ok': print("   reason:", r['reason'][:300])
PY
