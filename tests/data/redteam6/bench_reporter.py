import sys, time, json, torch
sys.path.insert(0, "/work/main/core/eval/worker")
from kwb_worker.handoff import Reporter
from kwb_worker.arena import Arena
from kwb_worker.evaluate import flatten
a = Arena(1<<20)
r = Reporter(torch.device("cpu"), a)
for n, shape in [(256, (16,16)), (60, (16,4096))]:
    outs = [[torch.empty(shape)] for _ in range(n)]
    ts=[]
    for _ in range(50):
        t=time.perf_counter(); rep, segs = r.report(outs, []); s = json.dumps({"ok":True,"ms":1.0,"outs":rep,"segs":segs}); ts.append(time.perf_counter()-t)
    ts.sort(); print(n, shape, "report+json min %.3f ms med %.3f ms" % (ts[0]*1e3, ts[25]*1e3))
    x = torch.randn(shape)
    ts=[]
    for _ in range(50):
        t=time.perf_counter(); made=[flatten(torch.relu(x)) for _ in range(n)]; ts.append(time.perf_counter()-t)
    ts.sort(); print("   relu calls min %.3f ms med %.3f" % (ts[0]*1e3, ts[25]*1e3))
