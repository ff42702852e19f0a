# SPDX-License-Identifier: MIT
# Scratch script that produced cprof.txt: cProfile of 50 forwards of a showcase candidate.
import os, sys, cProfile, pstats, importlib.util, torch
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
def load(path, name):
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec); spec.loader.exec_module(mod); return mod
task = sys.argv[1] if len(sys.argv) > 1 else "39_GRU"
tm = load(os.path.join(ROOT, "tasks/level3/%s.py" % task), "t")
cm = load(os.path.join(ROOT, "resources/showcase/%s.py" % task), "c")
torch.manual_seed(42)
model = cm.ModelNew(*tm.get_init_inputs()).cuda().eval()
xs = [t.cuda() for t in tm.get_inputs()]
with torch.no_grad():
    for _ in range(3): model(*xs)
    torch.cuda.synchronize()
    pr = cProfile.Profile()
    pr.enable()
    for _ in range(50):
        model(*xs); torch.cuda.synchronize()
    pr.disable()
pstats.Stats(pr).sort_stats("tottime").print_stats(18)
