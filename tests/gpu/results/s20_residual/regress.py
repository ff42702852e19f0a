#!/usr/bin/python3
"""Least squares of the judge's implied excess (ms a frame: (E - p)(1/fig - 1)) on per-task regressors, big tasks
(from tests/gpu/results/s20_residual/s20_tasks.csv written by residual.py)."""
import csv, math
import numpy as np
rows = [r for r in csv.DictReader(open("tests/gpu/results/s20_residual/s20_tasks.csv"))]
f = lambda r, k: float(r[k])
big = [r for r in rows if r["big"] == "True"]
y = np.array([f(r, "implied_left") for r in big])
cols = {
    "offset not applied (raw - applied)": [f(r, "off_raw") - f(r, "off_applied") for r in big],
    "log10 input bytes": [math.log10(f(r, "in_bytes")) for r in big],
    "eager delivery ms (todeliv+deliv+back2)": [f(r, "e_deliv3") for r in big],
}
def fit(names):
    X = np.column_stack([np.ones(len(big))] + [np.array(cols[n]) for n in names])
    b, *_ = np.linalg.lstsq(X, y, rcond=None)
    res = y - X @ b
    r2 = 1 - (res ** 2).sum() / ((y - y.mean()) ** 2).sum()
    return b, r2, res
print("implied excess over %d big tasks: mean %+.3f ms, sd %.3f" % (len(big), y.mean(), y.std()))
for names in (["offset not applied (raw - applied)"], ["log10 input bytes"], ["eager delivery ms (todeliv+deliv+back2)"],
              list(cols)):
    b, r2, res = fit(names)
    print("  R2 %.2f  intercept %+.3f  %s  (residual sd %.3f ms)" % (r2, b[0], ", ".join("%s %+.3f" % (n, c) for n, c in zip(names, b[1:])), res.std()))
b, r2, res = fit(list(cols))
print("largest residuals of the full fit (ms): " + ", ".join("%s %+.3f" % (big[i]["task"][:24], res[i]) for i in np.argsort(-np.abs(res))[:8]))
