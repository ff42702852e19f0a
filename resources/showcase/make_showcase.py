# SPDX-License-Identifier: MIT
"""Writes the self-contained showcase candidates (one ModelNew file per task) from _body.py and
cluster_rnn.cu. Each file must stand alone: the evaluator imports a single candidate file.

The candidates are build outputs, never committed: CMake runs this script into
<build>/resources/showcase (installed as <datadir>/kernel-workbench/resources/showcase), and scripts
that need one call candidate(task), which writes them from the current sources on first use.
Standard library only, deterministic (the same sources give the same bytes).

Usage: make_showcase.py [--out DIR]   write every candidate into DIR (default: build/resources/showcase)
       make_showcase.py --check DIR   exit 1 unless DIR holds exactly what the sources give
       make_showcase.py --list        the task names, one a line
"""
import argparse
import hashlib
import os
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
SOURCES = ("_body.py", "cluster_rnn.cu", "make_showcase.py")

HEADER = '''# SPDX-License-Identifier: MIT
# Kernel Workbench showcase candidate for KernelBench level 3, task {task}.
# Strict fp32. On sm_90+ (H100) the recurrence is CUDA C++ built with load_inline, thread-block
# clusters of 8 CTAs, each CTA keeping its hidden units' rows of W_hh in registers and exchanging
# h(t-1) every step through distributed shared memory (counted by mbarriers):
# - a unidirectional stack runs ALL layers in ONE wavefront launch: one cluster per (layer, 5 batch
#   rows), input gates computed in the kernel, layer l+1 a few steps behind layer l;
# - a bidirectional stack runs, per layer, one Triton GEMM for the input gates of all time steps
#   (input_precision="ieee") and one launch for the time loop (one cluster per direction and row).
# Elsewhere (or with _CFG["backend"] = "triton") Triton kernels do the same layer by layer with a
# global-memory barrier. See resources/showcase/NOTES.md for the measurements.
# The reference module ({mod}) is created in __init__ ONLY to own the parameters with the
# reference's shapes, names and RNG draw order; forward never calls it (no cuDNN).
'''

GRU_INIT = '''
class ModelNew(nn.Module):
    def __init__(self, input_size, hidden_size, num_layers=3, bias=True, batch_first=False):
        super(ModelNew, self).__init__()
        # Parameter owner only (same names/shapes/init order as the reference); never called.
        self.gru = nn.GRU(input_size, hidden_size, num_layers, bias, batch_first,
                          dropout=0, bidirectional={bi})
        self.hidden_size = hidden_size
        self.num_layers = num_layers
        self.batch_first = batch_first
        self.dirs = {dirs}

    def forward(self, x, h0):
        params = _params(self.gru, self.num_layers, self.dirs)
        seq, hn, _ = _rnn_stack("gru", params, x, h0, None, self.num_layers, self.dirs, self.hidden_size,
                                self.batch_first, want_seq={seq}, want_hn={hn}, want_cn=False)
        return {ret}
'''

LSTM_INIT = '''
class ModelNew(nn.Module):
    def __init__(self, input_size, hidden_size, num_layers, output_size, dropout=0.0):
        super(ModelNew, self).__init__()
        self.hidden_size = hidden_size
        self.num_layers = num_layers
        # Parameter owners only (same names/shapes/init order as the reference); never called.
        self.lstm = nn.LSTM(input_size, hidden_size, num_layers,
                            batch_first=True, dropout=dropout, bidirectional={bi})
        self.fc = nn.Linear(hidden_size * {dirs}, output_size)
        self.dirs = {dirs}

    def forward(self, x, {hargs}):
{draw}        params = _params(self.lstm, self.num_layers, self.dirs)
        seq, hn, cn = _rnn_stack("lstm", params, x, h0, c0, self.num_layers, self.dirs, self.hidden_size,
                                 True, want_seq={seq}, want_hn={hn}, want_cn={cn})
        return {ret}
'''

DRAW = '''        # Same draws, same order, same generator as the reference's forward.
        batch_size = x.size(0)
        if h0 is None:
            h0 = torch.randn(self.num_layers * self.dirs, batch_size, self.hidden_size, device=x.device, dtype=x.dtype)
        if c0 is None:
            c0 = torch.randn(self.num_layers * self.dirs, batch_size, self.hidden_size, device=x.device, dtype=x.dtype)
'''
FC = "_small_linear(seq[:, -1, :], self.fc.weight, self.fc.bias)"

TASKS = {
    "39_GRU": GRU_INIT.format(bi=False, dirs=1, seq=True, hn=False, ret="seq"),
    "40_GRUHidden": GRU_INIT.format(bi=False, dirs=1, seq=False, hn=True, ret="hn"),
    "41_GRUBidirectional": GRU_INIT.format(bi=True, dirs=2, seq=True, hn=False, ret="seq"),
    "42_GRUBidirectionalHidden": GRU_INIT.format(bi=True, dirs=2, seq=False, hn=True, ret="hn"),
    "35_LSTM": LSTM_INIT.format(bi=False, dirs=1, hargs="h0=None, c0=None", draw=DRAW, seq=True, hn=False,
                                cn=False, ret=FC),
    "36_LSTMHn": LSTM_INIT.format(bi=False, dirs=1, hargs="h0, c0", draw="", seq=False, hn=True, cn=False,
                                  ret="hn"),
    "37_LSTMCn": LSTM_INIT.format(bi=False, dirs=1, hargs="h0, c0", draw="", seq=False, hn=False, cn=True,
                                  ret="cn"),
    "38_LSTMBidirectional": LSTM_INIT.format(bi=True, dirs=2, hargs="h0, c0", draw="", seq=True, hn=False,
                                             cn=False, ret=FC),
}


def _read(name):
    with open(os.path.join(HERE, name), encoding="utf-8") as f:
        return f.read()


def render_all():
    """{task: text of its candidate file} from the current sources."""
    lines = _read("_body.py").split("\n")
    body = "\n".join(lines[2:])  # drop its own SPDX + comment lines
    cu = _read("cluster_rnn.cu")
    assert "@CLUSTER_RNN_CU@" in body and "\'\'\'" not in cu
    body = body.replace("@CLUSTER_RNN_CU@\n", cu)
    out = {}
    for task, tail in TASKS.items():
        mod = "nn.GRU" if "GRU" in task else "nn.LSTM + nn.Linear"
        out[task] = HEADER.format(task=task, mod=mod) + body + "\n" + tail
    return out


def write(out_dir):
    """Writes every candidate into out_dir (created if needed); returns their paths."""
    os.makedirs(out_dir, exist_ok=True)
    paths = []
    for task, text in render_all().items():
        path = os.path.join(out_dir, task + ".py")
        with open(path, "w", encoding="utf-8", newline="\n") as f:
            f.write(text)
        paths.append(path)
    return paths


def check(out_dir):
    """The differences between out_dir and what the sources give (missing, stale or extra candidate
    files), one line each; empty when out_dir is up to date."""
    problems = []
    expected = render_all()
    for task, text in expected.items():
        path = os.path.join(out_dir, task + ".py")
        if not os.path.exists(path):
            problems.append("missing: %s" % path)
            continue
        with open(path, encoding="utf-8", newline="") as f:
            if f.read() != text:
                problems.append("stale: %s differs from what %s gives" % (path, ", ".join(SOURCES)))
    extra = sorted(n for n in os.listdir(out_dir) if n.endswith(".py") and n[:-3] not in expected) \
        if os.path.isdir(out_dir) else []
    problems += ["extra: %s is no showcase task" % os.path.join(out_dir, n) for n in extra]
    return problems


def candidate(task):
    """Path of the generated candidate of task for the current sources: a folder under the system's
    temporary directory named after the sources' digest, written on first use (atomically, so parallel
    callers are safe). Scripts use this instead of a build tree they may not have."""
    if task not in TASKS:
        raise KeyError("%s is no showcase task (%s)" % (task, ", ".join(TASKS)))
    digest = hashlib.sha256("".join(_read(n) for n in SOURCES).encode("utf-8")).hexdigest()[:16]
    uid = os.getuid() if hasattr(os, "getuid") else 0
    folder = os.path.join(tempfile.gettempdir(), "kwb-showcase-%d-%s" % (uid, digest))
    if not os.path.isdir(folder):
        tmp = tempfile.mkdtemp(prefix=os.path.basename(folder) + ".", dir=os.path.dirname(folder))
        write(tmp)
        os.chmod(tmp, 0o755)
        try:
            os.rename(tmp, folder)
        except OSError:  # another process was first: its folder holds the same bytes
            for name in os.listdir(tmp):
                os.unlink(os.path.join(tmp, name))
            os.rmdir(tmp)
    return os.path.join(folder, task + ".py")


def main(argv=None):
    ap = argparse.ArgumentParser(description="Writes the showcase candidates from _body.py and cluster_rnn.cu.")
    ap.add_argument("--out", default=os.path.join(ROOT, "build", "resources", "showcase"),
                    help="folder to write the candidates into (default: %(default)s)")
    ap.add_argument("--check", metavar="DIR", help="compare DIR with the sources instead of writing")
    ap.add_argument("--list", action="store_true", help="print the task names")
    a = ap.parse_args(argv)
    if a.list:
        print("\n".join(TASKS))
        return 0
    if a.check:
        problems = check(a.check)
        for p in problems:
            print("make_showcase: " + p, file=sys.stderr)
        if problems:
            print("make_showcase: regenerate with: %s %s --out %s" % (
                os.path.basename(sys.executable), os.path.abspath(__file__), a.check), file=sys.stderr)
            return 1
        print("make_showcase: %s matches the sources (%d candidates)" % (a.check, len(TASKS)))
        return 0
    write(a.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
