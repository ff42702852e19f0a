import sys, json
sys.path.insert(0, 'core/eval/worker')
from kwb_worker.detect import run_detectors
task, cand = sys.argv[1], sys.argv[2]
vs = run_detectors(open(task).read(), open(cand).read())
json.dump(vs, open(sys.argv[3], 'w'), indent=1)
for v in vs:
    if v['outcome'] != 'no':
        print("  %-32s %-5s %-8s %s" % (v['detector'], v['outcome'], v.get('severity'), v['summary'][:110]))
