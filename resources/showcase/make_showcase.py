# SPDX-License-Identifier: MIT
"""Writes the self-contained showcase candidates (one ModelNew file per task) from _body.py.
Each file must stand alone: the evaluator imports a single candidate file."""
import os

HERE = os.path.dirname(os.path.abspath(__file__))

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


def main():
    lines = open(os.path.join(HERE, "_body.py")).read().split("\n")
    body = "\n".join(lines[2:])  # drop its own SPDX + comment lines
    cu = open(os.path.join(HERE, "cluster_rnn.cu")).read()
    assert "@CLUSTER_RNN_CU@" in body and "\'\'\'" not in cu
    body = body.replace("@CLUSTER_RNN_CU@\n", cu)
    for task, tail in TASKS.items():
        mod = "nn.GRU" if "GRU" in task else "nn.LSTM + nn.Linear"
        text = HEADER.format(task=task, mod=mod) + body + "\n" + tail
        with open(os.path.join(HERE, task + ".py"), "w") as f:
            f.write(text)


if __name__ == "__main__":
    main()
