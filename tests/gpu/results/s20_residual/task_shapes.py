#!/usr/bin/python3
"""Per KernelBench task: input bytes, output bytes, number of output tensors, from get_inputs() and forward on the
meta device (no data).  Usage: task_shapes.py KB_ROOT TASK_NAME... > shapes.jsonl"""
import importlib.util, json, sys, os, signal, traceback
import torch

def metaize(fn):
    def f(*a, **k):
        k["device"] = "meta"
        return fn(*a, **k)
    return f

for name in ("rand", "randn", "randint", "ones", "zeros", "empty", "full", "arange", "randperm", "eye", "linspace"):
    setattr(torch, name, metaize(getattr(torch, name)))
_rand_like = torch.rand_like

def nbytes(x):
    return x.numel() * x.element_size()

def flat(o):
    if isinstance(o, torch.Tensor):
        return [o]
    if isinstance(o, (list, tuple)):
        return [t for v in o for t in flat(v)]
    return []

root = sys.argv[1]
for task in sys.argv[2:]:
    path = None
    for lv in (1, 2, 3):
        p = os.path.join(root, "level%d" % lv, task + ".py")
        if os.path.exists(p):
            path, level = p, lv
    row = {"task": task}
    try:
        spec = importlib.util.spec_from_file_location("t", path)
        m = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(m)
        ins = m.get_inputs()
        row["in_bytes"] = sum(nbytes(t) for t in flat(ins))
        row["n_in"] = len(flat(ins))
        row["in_shapes"] = [list(t.shape) for t in flat(ins)][:4]
        model = m.Model(*m.get_init_inputs())
        if isinstance(model, torch.nn.Module):
            row["param_bytes"] = sum(nbytes(p) for p in model.parameters()) + sum(nbytes(b) for b in model.buffers())
            model = model.to("meta")
        with torch.no_grad():
            out = model(*ins)
        outs = flat(out)
        row["out_bytes"] = sum(nbytes(t) for t in outs)
        row["n_out"] = len(outs)
        row["out_shapes"] = [list(t.shape) for t in outs][:4]
    except Exception as e:
        row["error"] = "%s: %s" % (type(e).__name__, str(e)[:200])
    print(json.dumps(row), flush=True)
