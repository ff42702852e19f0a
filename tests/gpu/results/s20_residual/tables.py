#!/usr/bin/python3
"""Markdown tables from tests/gpu/results/s20_residual/s20_tasks.csv (residual.py) and the dumps' order (order.py): writes
tests/gpu/results/s20_residual/table_s20.md. Run from /work/main."""
import csv, sys
sys.path.insert(0, "tests/gpu/results/s20_residual")
from order import frames_by_pred, med, ev  # noqa: E402
rows = list(csv.DictReader(open("tests/gpu/results/s20_residual/s20_tasks.csv")))
f = lambda r, k: float(r[k])
warm = {}
for d in ev:
    name = d["task"].rsplit("/", 1)[-1][:-3]
    T, C = frames_by_pred(d["timed"]), frames_by_pred(d["clean"])
    s, o = med([x[0] for x in T["eager"].get("S", [])]), med([x[0] for x in T["eager"].get("O", [])])
    warm[name] = o - s
out = []
P = ["thaw", "pre", "span", "post", "report", "back", "deliv3", "total"]
out.append("## Table A. Per task: the judge's figure and the lanes' difference (ms a frame)\n")
out.append("b: B big task (K=1, bare-frame offset), s small. call: eager's per-call ms (judge). E: eager's median frame. "
           "D: candidate - eager median frame (timed). offA: offset the judge applied (0: refused); raw: the offset pairs' "
           "median. left = D - offA. L_x: per phase, (candidate - eager, timed) - (candidate lane - reference lane, the "
           "offset's frames); deliv3 = todeliv + deliv + back2; total = thaw..clob. warm: eager after the candidate's frame "
           "minus eager after its own lane's frame (ms).\n")
out.append("| task | b | K | call | E | fig | D | offA | raw | left | " + " | ".join("L_" + p for p in P) + " | warm | in MB | out MB |")
out.append("|" + "---|" * (14 + len(P) - 1))
for r in sorted(rows, key=lambda r: f(r, "fig")):
    out.append("| %s | %s | %s | %.3f | %.2f | %.3f | %+.3f | %+.3f | %+.3f | %+.3f | %s | %+.3f | %.0f | %.1f |" % (
        r["task"][:40], "B" if r["big"] == "True" else "s", r["K"], f(r, "eager_ms"), f(r, "E"), f(r, "fig"), f(r, "D"),
        f(r, "off_applied"), f(r, "off_raw"), f(r, "left"), " | ".join("%+.3f" % f(r, "l_" + p) for p in P),
        warm.get(r["task"], float("nan")), f(r, "in_bytes") / 2 ** 20, f(r, "out_bytes") / 2 ** 20))
out.append("\n## Table B. Per task: candidate - reference per phase (ms a frame), timed rounds (t_) and the offset's frames (o_: "
           "bare_cand - bare for a big task, dry_cand - dry for a small one; clean rounds)\n")
out.append("| task | fig | " + " | ".join("t_" + p for p in P) + " | " + " | ".join("o_" + p for p in P) + " |")
out.append("|" + "---|" * (2 + 2 * len(P)))
for r in sorted(rows, key=lambda r: f(r, "fig")):
    out.append("| %s | %.3f | %s | %s |" % (r["task"][:40], f(r, "fig"), " | ".join("%+.3f" % f(r, "t_" + p) for p in P),
                                           " | ".join("%+.3f" % f(r, "o_" + p) for p in P)))
out.append("\n## Table C. Big tasks: the plain dry frames' difference (dry_cand - dry, clean rounds; the reference's dry "
           "frame follows a rewrite of its inputs and delivers the reference's outputs over them)\n")
out.append("| task | fig | " + " | ".join("dry_" + p for p in P) + " |")
out.append("|" + "---|" * (2 + len(P)))
for r in sorted([r for r in rows if r["big"] == "True"], key=lambda r: f(r, "fig")):
    out.append("| %s | %.3f | %s |" % (r["task"][:40], f(r, "fig"), " | ".join("%+.3f" % f(r, "dry_" + p) for p in P)))
open("tests/gpu/results/s20_residual/table_s20.md", "w").write("\n".join(out) + "\n")
print("\n".join(out[:5]))
for r in sorted(rows, key=lambda r: f(r, "fig")):
    if r["task"].split("_")[0] in ("95", "83", "54", "88", "6", "81", "99", "49", "12", "48", "27", "21") and (
            f(r, "fig") < 0.94 or f(r, "fig") > 1.07):
        print(out[[i for i, l in enumerate(out) if l.startswith("| " + r["task"][:40] + " | ")][0]])
