#!/usr/bin/python3
"""Per named task: the judge's figure, the 'cold' counterfactuals (order2.py's output), the candidate's report and
delivery excess (residual.py's CSV) and the offset's refusal, in ms and % of the call. Run after residual.py and
order2.py (reads tests/gpu/results/s20_residual/s20_tasks.csv and tests/gpu/results/s20_residual/order2_s20.txt)."""
import csv, re
rows = {r["task"]: r for r in csv.DictReader(open("tests/gpu/results/s20_residual/s20_tasks.csv"))}
cold = {}
for l in open("tests/gpu/results/s20_residual/order2_s20.txt"):
    m = re.match(r"^(\S+)\s+([Bs])\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)\s+\|", l)
    if m:
        cold[m.group(1)] = (float(m.group(4)), float(m.group(5)))
f = lambda r, k: float(r[k])
want = "95_ 83_ 54_ 88_ 6_Matmul 81_ 99_ 15_ConvTranspose3d 49_ 12_Matmul_with_diag 48_ 27_SELU 21_ 23_Softmax 45_ 19_ReLU".split()
print("%-30s %6s %6s %6s | %7s %7s %7s %7s | %s" % ("task", "fig", "coldE", "allCold", "rep+dlv", "refused", "%rep+dl", "%refus", "in MB"))
for w in want:
    r = [r for t, r in rows.items() if t.startswith(w)][0]
    call = f(r, "eager_ms") * int(r["K"])
    rd = f(r, "l_report") + f(r, "l_deliv3")
    rf = f(r, "off_raw") - f(r, "off_applied")
    c = cold.get(r["task"][:34], (float("nan"),) * 2)
    print("%-30s %6.3f %6.3f %6.3f | %+7.3f %+7.3f %+6.1f%% %+6.1f%% | %6.0f" % (r["task"][:30], f(r, "fig"), c[0], c[1], rd, rf,
          100 * rd / call, 100 * rf / call, f(r, "in_bytes") / 2 ** 20))
