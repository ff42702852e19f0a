#!/bin/bash
# usage: run_eval.sh TASK CANDIDATE LABEL  -> appends one summary line to results.tsv, full JSON to logs/
cd /work/main
mkdir -p tests/data/redteam14/logs
t=$1; c=$2; label=$3
out=tests/data/redteam14/logs/$label.$(date +%s%N).json
/usr/bin/python3 core/eval/worker/kwb_worker.py eval $t $c --device cpu --json 2>${out%.json}.err >$out
/usr/bin/python3 - "$out" "$label" "$t" <<'PY'
import json,sys
p,label,t=sys.argv[1:4]
try:
    r=json.load(open(p))
except Exception as e:
    print("%s\tPARSE_FAIL %s"%(label,e)); sys.exit()
r=r.get("result",r)
e=(r.get("eager") or {}).get("median_ms"); c=(r.get("candidate") or {}).get("median_ms")
sp=e/c if e and c else None
flags=[ "%s:%s"%(v["detector"],v["severity"]) for v in r.get("runtime_checks") or [] if v.get("outcome")=="yes" and v.get("severity") in ("error","critical")]
warn=[ v["detector"] for v in r.get("runtime_checks") or [] if v.get("outcome")!="no" and v.get("severity") in ("warning",)]
line="%s\t%s\t%s\t%s\teager=%s cand=%s\tflags=%s\twarn=%s"%(label,t.split('/')[-1],r.get("status"),"%.3f"%sp if sp else None,e,c,flags,warn)
print(line)
open("/work/main/tests/data/redteam14/results.tsv","a").write(line+"\t"+p+"\n")
if r.get("status")!="ok": print("  reason:",str(r.get("reason"))[:400])
PY
