#!/usr/bin/python3
"""Per-task consistency of own-code figures across sessions (sweep state files: one row per task; figure 'eager').
Run from /work/main/tests/gpu/results."""
import glob, json, math, statistics as st, sys
sys.path.insert(0, "tests/gpu/results/s20_residual")
from residual import pearson, spearman

SETS = {
    "s20": "h200x4_s20c_sweep1_s[0-9].jsonl",
    "s18a_main": "h200x4_s18a_main.jsonl", "s18a_omp": "h200x4_s18a_omp.jsonl", "s18a_spin": "h200x4_s18a_spin.jsonl",
    "s18a_lat": "h200x4_s18a_lat.jsonl", "s18a_off": "h200x4_s18a_off.jsonl",
    "s18e_main": "h200x2_s18e_main.jsonl", "s18e_omp": "h200x2_s18e_omp.jsonl",
    "s17a_main": "h200x2_s17a_main.jsonl", "s17a_cool": "h200x2_s17a_cool.jsonl", "s17a_cold": "h200x2_s17a_cold.jsonl",
    "s17b_main": "h200x2_s17b_main.jsonl", "s17c_main": "h100x2_s17c_main.jsonl", "s17d_main": "h100x2_s17d_main.jsonl",
    "s17d_omp": "h100x2_s17d_omp.jsonl",
    "sweep1": "h200x4_sweep1_s[0-9].jsonl", "335402b": "h200x4_335402b_sweep2_s[0-9].jsonl",
    "0796023": "h200x4_0796023_sweep1.jsonl",
}
data = {}
for k, g in SETS.items():
    for f in glob.glob(g):
        for l in open(f):
            try:
                r = json.loads(l)
            except ValueError:
                continue
            if r.get("status") == "ok" and r.get("eager"):
                data.setdefault(k, {}).setdefault(r["task"], []).append(r["eager"])
data = {k: {t: st.fmean(v) for t, v in d.items()} for k, d in data.items()}
TASKS = ["95_CrossEntropyLoss", "83_conv_depthwise_2D_square_input_asymmetric_kernel",
         "54_conv_standard_3D__square_input__square_kernel", "88_MinGPTNewGelu", "6_Matmul_with_large_K_dimension_",
         "81_conv_transposed_2D_asymmetric_input_square_kernel___dilated____padded____strided__",
         "99_TripletMarginLoss", "49_Max_reduction_over_a_dimension", "12_Matmul_with_diagonal_matrices_",
         "48_Mean_reduction_over_a_dimension", "27_SELU_", "21_Sigmoid", "47_Sum_reduction_over_a_dimension",
         "51_Argmax_over_a_dimension", "5_Matrix_scalar_multiplication", "31_ELU"]
keys = [k for k in SETS if k in data]
print("per task figure by session (- : not run):")
print("%-28s %s" % ("task", " ".join("%9s" % k[:9] for k in keys)))
for t in TASKS:
    full = [x for x in data["s20"] if x.startswith(t)] or [t]
    t = full[0]
    print("%-28s %s" % (t[:28], " ".join("%9s" % ("%.3f" % data[k][t] if t in data[k] else "-") for k in keys)))
print()
print("agreement with s20 on the tasks both ran: n, Pearson r of (fig-1), share of same sign among tasks off by >2% in both")
for k in keys:
    if k == "s20":
        continue
    common = [t for t in data[k] if t in data["s20"]]
    if len(common) < 5:
        continue
    a = [data["s20"][t] - 1 for t in common]
    b = [data[k][t] - 1 for t in common]
    off = [(x, y) for x, y in zip(a, b) if abs(x) > 0.02 and abs(y) > 0.02]
    same = sum(1 for x, y in off if x * y > 0)
    print("  %-10s n=%3d  r=%+.2f  rho=%+.2f  same sign %d of %d" % (k, len(common), pearson(a, b), spearman(a, b), same, len(off)))
