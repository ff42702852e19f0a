# SPDX-License-Identifier: MIT
# Shared body of the showcase candidates; make_showcase.py pastes it into each task file.
import hashlib

import torch
import torch.nn as nn
import triton
import triton.language as tl

# Tuning knobs, read at launch time (the benchmark may override them to sweep variants).
# backend "cuda": the recurrence runs in the CUDA C++ cluster kernel below (sm_90+, hidden 256);
#   cuda_<family> = (CS CTAs per cluster, NT threads per CTA, R batch rows per cluster, MODE:
#   0 = cluster barrier per step, 1 = st.async + mbarrier hand-off, 4 = 1 polling with test_wait,
#   5 = 4 with one bulk copy per CTA pair; see the kernel).
# backend "triton" (and any shape the CUDA kernel is not built for): the Triton row kernel;
#   <family> = (S hidden slices per batch row, W warps per program); its grid must fit on the
#   SMs at once.
_CFG = {"backend": "cuda",
        "cuda_gru_uni": (8, 256, 1, 4), "cuda_gru_bi": (4, 512, 1, 4),
        "cuda_lstm_uni": (8, 256, 1, 4), "cuda_lstm_bi": (8, 256, 2, 5),
        "gru_uni": (8, 8), "gru_bi": (4, 16), "lstm_uni": (8, 16), "lstm_bi": (4, 16),
        # wave: unidirectional stacks run all layers in one launch (kwb_rnn_wave), input gates
        # included, layer l+1 trailing layer l by a few steps; wave_<cell> = (CS, NT, R rows per
        # cluster, XB: 0 = h exchanged with per-warp st.async, 1 = one bulk copy per CTA pair).
        "wave": ("gru", "lstm"), "wave_gru": (8, 256, 5, 1), "wave_lstm": (8, 256, 5, 1), "wave_max_spin": 1 << 22,
        "gemm": (128, 128, 32, 8, 2), "bi_fused_gemm": ("gru", "lstm"),  # input-gate GEMM tiles: BM, BN, BK, warps, stages
        "cooperative": True, "max_spin": 1 << 22}
_LAST = {}  # the benchmark reads the last launch's barrier counters from here (sanity check)
_CUDA_EXTRA = []  # extra (G, CS, NT, R, MODE) instances to compile (the benchmark's variants)
_WAVE_EXTRA = []  # extra (G, CS, NT, R) wavefront instances
_EXT = {}  # instance set -> built extension
_EXT_BY_KNOBS = {}  # the knobs that choose the instance set -> the same extension (a forward's lookup)

# The CUDA C++ source (resources/showcase/cluster_rnn.cu, pasted here by make_showcase.py).
_CUDA_SRC = r'''
@CLUSTER_RNN_CU@
'''

_CPP_DECL = r'''
#include <torch/extension.h>
void rnn_layer(int64_t cell, int64_t cs, int64_t nt, int64_t rows, int64_t mode, int64_t dirs,
               torch::Tensor gi0, torch::Tensor gi1, int64_t gi_st, int64_t gi_sb,
               torch::Tensor w0, torch::Tensor w1, torch::Tensor bh0, torch::Tensor bh1,
               torch::Tensor h0, c10::optional<torch::Tensor> c0,
               c10::optional<torch::Tensor> out, int64_t out_st, int64_t out_sb,
               c10::optional<torch::Tensor> hn, c10::optional<torch::Tensor> cn, int64_t T, int64_t B, int64_t H);
int64_t max_active_clusters(int64_t cell, int64_t cs, int64_t nt, int64_t rows, int64_t mode);
int64_t rnn_wave(int64_t cell, int64_t cs, int64_t nt, int64_t rows, int64_t xb,
                 torch::Tensor x, int64_t x_st, int64_t x_sb, torch::Tensor wih0, torch::Tensor whh, torch::Tensor wih,
                 torch::Tensor bih, torch::Tensor bhh, torch::Tensor h0, c10::optional<torch::Tensor> c0,
                 torch::Tensor hseq, c10::optional<torch::Tensor> out, int64_t out_st, int64_t out_sb,
                 c10::optional<torch::Tensor> hn, c10::optional<torch::Tensor> cn, torch::Tensor err,
                 int64_t T, int64_t B, int64_t L, int64_t H, int64_t max_spin);
'''


def _cuda_instances(prefix="cuda_", extra=None):
    """(G, ...) template instances to compile: the _CFG entries named prefix* plus the extras."""
    inst = set()
    for key, val in _CFG.items():
        if key.startswith(prefix) and isinstance(val, tuple):
            inst.add((3 if "gru" in key else 4,) + tuple(val))
    inst.update(tuple(i) for i in (_CUDA_EXTRA if extra is None else extra))
    return sorted(inst)


def _build_dir(name):
    """torch builds under $TORCH_EXTENSIONS_DIR or ~/.cache/torch_extensions; where that cannot be
    written (a sandbox with a read-only home), build in the temporary directory instead."""
    import os
    import tempfile
    base = os.environ.get("TORCH_EXTENSIONS_DIR") or os.path.join(os.path.expanduser("~"), ".cache",
                                                                  "torch_extensions")
    try:
        os.makedirs(base, exist_ok=True)
        if os.access(base, os.W_OK):
            return {}
    except OSError:
        pass
    d = os.path.join(tempfile.gettempdir(), "kwb_torch_extensions", name)
    os.makedirs(d, exist_ok=True)
    return {"build_directory": d}


def _cuda_ext():
    """Builds (once per instance set; torch caches the build on disk) the cluster RNN extension.
    Memoised on the knobs that choose the instances, so a forward pays a dict lookup."""
    knobs = (tuple(_CFG.items()), tuple(_CUDA_EXTRA), tuple(_WAVE_EXTRA))
    hit = _EXT_BY_KNOBS.get(knobs)
    if hit is not None:
        return hit
    inst = _cuda_instances()
    wave = _cuda_instances("wave_", _WAVE_EXTRA)
    key = (tuple(inst), tuple(wave))
    if key not in _EXT:
        from torch.utils.cpp_extension import load_inline
        src = "#define KWB_INSTANCES %s\n#define KWB_WAVE_INSTANCES %s\n%s" % (
            " ".join("KWB_CASE(%d, %d, %d, %d, %d)" % i for i in inst),
            " ".join("KWB_WCASE(%d, %d, %d, %d, %d)" % i for i in wave), _CUDA_SRC)
        name = "kwb_cluster_rnn_" + hashlib.sha1(src.encode()).hexdigest()[:12]
        _EXT[key] = load_inline(name=name, cpp_sources=_CPP_DECL, cuda_sources=src,
                                functions=["rnn_layer", "max_active_clusters", "rnn_wave"],
                                extra_cuda_cflags=["-O3"], verbose=False, **_build_dir(name))
    _EXT_BY_KNOBS[knobs] = _EXT[key]
    return _EXT[key]


_CAPABILITY = {}


def _use_cuda(x, hidden):
    if not (_CFG.get("backend") == "cuda" and x.is_cuda and hidden == 256):
        return False
    cap = _CAPABILITY.get(x.device.index)
    if cap is None:
        cap = _CAPABILITY[x.device.index] = torch.cuda.get_device_capability(x.device)
    return cap[0] >= 9


@triton.jit
def _gate_gemm_kernel(a_ptr, w_ptr, b1_ptr, b2_ptr, c_ptr, M, N, K, NB2,
                      BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    """C[M, N] = A[M, K] @ W[N, K]^T + b1 + b2[:NB2]: the input-side gates of every time step at
    once. Strict fp32 (input_precision="ieee"): tl.dot's TF32 default fails atol 1e-4."""
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    offs_m = pid_m * BM + tl.arange(0, BM)
    offs_n = pid_n * BN + tl.arange(0, BN)
    offs_k = tl.arange(0, BK)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k0 in range(0, K, BK):
        kk = k0 + offs_k
        a = tl.load(a_ptr + offs_m[:, None] * K + kk[None, :],
                    mask=(offs_m[:, None] < M) & (kk[None, :] < K), other=0.0)
        w = tl.load(w_ptr + offs_n[None, :] * K + kk[:, None],
                    mask=(offs_n[None, :] < N) & (kk[:, None] < K), other=0.0)
        acc = tl.dot(a, w, acc, input_precision="ieee")
    bias = tl.load(b1_ptr + offs_n, mask=offs_n < N, other=0.0)
    bias += tl.load(b2_ptr + offs_n, mask=offs_n < NB2, other=0.0)
    acc += bias[None, :]
    tl.store(c_ptr + offs_m[:, None] * N + offs_n[None, :], acc,
             mask=(offs_m[:, None] < M) & (offs_n[None, :] < N))


@triton.jit
def _group_barrier(cnt_ptr, target, failed, MAX_SPIN: tl.constexpr):
    """Arrive on a monotonic counter and wait until it reaches `target` (= members x steps).
    The CTA barrier first orders every thread's h stores before thread 0's release atomic
    (release is cumulative); the acquire atomic plus the CTA barrier after it order the next
    step's loads after the other programs' stores. The spin is bounded: a non co-resident grid
    or a lost arrival sets `failed` instead of hanging the GPU."""
    tl.debug_barrier()
    cur = tl.atomic_add(cnt_ptr, 1, sem="release", scope="gpu") + 1
    it = failed * 0
    while (cur < target) & (it < MAX_SPIN) & (failed == 0):
        cur = tl.atomic_add(cnt_ptr, 0, sem="acquire", scope="gpu")
        it += 1
    tl.debug_barrier()
    return failed | (cur < target).to(tl.int32)


@triton.jit
def _sigmoid(x):
    return 1.0 / (1.0 + tl.exp(-x))


@triton.jit
def _tanh(x):
    # Triton 3.x has no tl.tanh; 2*sigmoid(2x)-1 is exact to ~1e-7 absolute and saturates cleanly.
    return 2.0 / (1.0 + tl.exp(-2.0 * x)) - 1.0


@triton.jit
def _gru_row_kernel(gi0, gi1, gi_st, gi_sb, w0, w1, bn0, bn1, h0_ptr, hbuf, out_ptr, out_st, out_sb,
                    hn_ptr, cnt_ptr, err_ptr, T, B,
                    H: tl.constexpr, U: tl.constexpr, S: tl.constexpr,
                    WRITE_OUT: tl.constexpr, WRITE_HN: tl.constexpr, MAX_SPIN: tl.constexpr):
    """One GRU layer (both directions when launched with 2*B*S programs), the whole time loop in
    one persistent launch. Program (d, b, s) owns hidden units [s*U, (s+1)*U) of batch row b and
    keeps its 3*U rows of W_hh in registers for all T steps; its own h slice and the next step's
    input gates also stay in registers (the gates are prefetched before the recurrent reduction,
    so their memory latency is off the serial chain). Batch rows are independent, so only the S
    programs of one row exchange h: through a double buffer in global memory, one barrier per
    step (counter per row)."""
    pid = tl.program_id(0)
    d = pid // (B * S)
    b = (pid // S) % B
    s = pid % S
    if d == 0:
        gi = gi0
        w = w0
        bnp = bn0
    else:
        gi = gi1
        w = w1
        bnp = bn1
    offs_u = tl.arange(0, U)
    offs_k = tl.arange(0, H)
    j = s * U + offs_u
    wr = tl.load(w + (0 * H + j)[:, None] * H + offs_k[None, :])
    wz = tl.load(w + (1 * H + j)[:, None] * H + offs_k[None, :])
    wn = tl.load(w + (2 * H + j)[:, None] * H + offs_k[None, :])
    bn = tl.load(bnp + 2 * H + j)
    hbase = h0_ptr + d * B * H + b * H
    hown = tl.load(hbase + j)
    g0 = gi + (d * (T - 1)) * gi_st + b * gi_sb
    xr = tl.load(g0 + j)
    xz = tl.load(g0 + H + j)
    xn = tl.load(g0 + 2 * H + j)
    cnt = cnt_ptr + (d * B + b) * 32  # one 128-byte line per row counter
    failed = pid * 0
    for step in range(T):
        t = step + d * (T - 1 - 2 * step)  # the reverse direction walks time backwards
        if step == 0:
            hk = tl.load(hbase + offs_k)
        else:
            hk = tl.load(hbuf + ((d * 2 + step % 2) * B + b) * H + offs_k, cache_modifier=".cg")
        tn = tl.minimum(tl.maximum(t + 1 - 2 * d, 0), T - 1)
        gn = gi + tn * gi_st + b * gi_sb
        nxr = tl.load(gn + j)
        nxz = tl.load(gn + H + j)
        nxn = tl.load(gn + 2 * H + j)
        hb = hk[None, :]
        ar = tl.sum(wr * hb, axis=1)
        az = tl.sum(wz * hb, axis=1)
        an = tl.sum(wn * hb, axis=1)
        r = _sigmoid(xr + ar)
        z = _sigmoid(xz + az)
        n = _tanh(xn + r * (an + bn))
        hnew = n + z * (hown - n)
        hnew = tl.where(failed != 0, float("nan"), hnew)
        tl.store(hbuf + ((d * 2 + (step + 1) % 2) * B + b) * H + j, hnew)
        if WRITE_OUT:
            tl.store(out_ptr + t * out_st + b * out_sb + d * H + j, hnew)
        if WRITE_HN:
            tl.store(hn_ptr + d * B * H + b * H + j, hnew, mask=(offs_u < U) & (step == T - 1))
        hown = hnew
        xr = nxr
        xz = nxz
        xn = nxn
        failed = _group_barrier(cnt, S * (step + 1), failed, MAX_SPIN)
    tl.atomic_add(err_ptr, failed)


@triton.jit
def _lstm_row_kernel(gi0, gi1, gi_st, gi_sb, w0, w1, h0_ptr, c0_ptr, hbuf, out_ptr, out_st, out_sb,
                     hn_ptr, cn_ptr, cnt_ptr, err_ptr, T, B,
                     H: tl.constexpr, U: tl.constexpr, S: tl.constexpr,
                     WRITE_OUT: tl.constexpr, WRITE_HN: tl.constexpr, WRITE_CN: tl.constexpr,
                     MAX_SPIN: tl.constexpr):
    """LSTM twin of _gru_row_kernel (gates i, f, g, o; all biases are in gi). The cell state of
    the owned (row, units) never leaves the program's registers."""
    pid = tl.program_id(0)
    d = pid // (B * S)
    b = (pid // S) % B
    s = pid % S
    if d == 0:
        gi = gi0
        w = w0
    else:
        gi = gi1
        w = w1
    offs_u = tl.arange(0, U)
    offs_k = tl.arange(0, H)
    j = s * U + offs_u
    wi = tl.load(w + (0 * H + j)[:, None] * H + offs_k[None, :])
    wf = tl.load(w + (1 * H + j)[:, None] * H + offs_k[None, :])
    wg = tl.load(w + (2 * H + j)[:, None] * H + offs_k[None, :])
    wo = tl.load(w + (3 * H + j)[:, None] * H + offs_k[None, :])
    hbase = h0_ptr + d * B * H + b * H
    cown = tl.load(c0_ptr + d * B * H + b * H + j)
    g0 = gi + (d * (T - 1)) * gi_st + b * gi_sb
    xi = tl.load(g0 + j)
    xf = tl.load(g0 + H + j)
    xg = tl.load(g0 + 2 * H + j)
    xo = tl.load(g0 + 3 * H + j)
    cnt = cnt_ptr + (d * B + b) * 32
    failed = pid * 0
    for step in range(T):
        t = step + d * (T - 1 - 2 * step)
        if step == 0:
            hk = tl.load(hbase + offs_k)
        else:
            hk = tl.load(hbuf + ((d * 2 + step % 2) * B + b) * H + offs_k, cache_modifier=".cg")
        tn = tl.minimum(tl.maximum(t + 1 - 2 * d, 0), T - 1)
        gn = gi + tn * gi_st + b * gi_sb
        nxi = tl.load(gn + j)
        nxf = tl.load(gn + H + j)
        nxg = tl.load(gn + 2 * H + j)
        nxo = tl.load(gn + 3 * H + j)
        hb = hk[None, :]
        c = _sigmoid(xf + tl.sum(wf * hb, axis=1)) * cown + \
            _sigmoid(xi + tl.sum(wi * hb, axis=1)) * _tanh(xg + tl.sum(wg * hb, axis=1))
        hnew = _sigmoid(xo + tl.sum(wo * hb, axis=1)) * _tanh(c)
        hnew = tl.where(failed != 0, float("nan"), hnew)
        c = tl.where(failed != 0, float("nan"), c)
        tl.store(hbuf + ((d * 2 + (step + 1) % 2) * B + b) * H + j, hnew)
        if WRITE_OUT:
            tl.store(out_ptr + t * out_st + b * out_sb + d * H + j, hnew)
        if WRITE_HN:
            tl.store(hn_ptr + d * B * H + b * H + j, hnew, mask=(offs_u < U) & (step == T - 1))
        if WRITE_CN:
            tl.store(cn_ptr + d * B * H + b * H + j, c, mask=(offs_u < U) & (step == T - 1))
        cown = c
        xi = nxi
        xf = nxf
        xg = nxg
        xo = nxo
        failed = _group_barrier(cnt, S * (step + 1), failed, MAX_SPIN)
    tl.atomic_add(err_ptr, failed)


@triton.jit
def _small_linear_kernel(x_ptr, x_stride, w_ptr, b_ptr, y_ptr, O, K: tl.constexpr, OP: tl.constexpr):
    """y[b, :] = x[b, :] @ W^T + bias for a tiny head (10 x 10); one program per batch row."""
    b = tl.program_id(0)
    offs_o = tl.arange(0, OP)
    offs_k = tl.arange(0, K)
    xv = tl.load(x_ptr + b * x_stride + offs_k)
    wv = tl.load(w_ptr + offs_o[:, None] * K + offs_k[None, :], mask=offs_o[:, None] < O, other=0.0)
    y = tl.sum(wv * xv[None, :], axis=1) + tl.load(b_ptr + offs_o, mask=offs_o < O, other=0.0)
    tl.store(y_ptr + b * O + offs_o, y, mask=offs_o < O)


def _small_linear(x2d, w, b):
    Bn, K = x2d.shape
    O = w.shape[0]
    y = torch.empty((Bn, O), device=x2d.device, dtype=torch.float32)
    _small_linear_kernel[(Bn,)](x2d, x2d.stride(0), w, b, y, O, K=K, OP=triton.next_power_of_2(O), num_warps=4)
    return y


def _gate_gemm(a2d, w, b1, b2, nb2):
    M, K = a2d.shape
    N = w.shape[0]
    c = torch.empty((M, N), device=a2d.device, dtype=torch.float32)
    BM, BN, BK, nw, ns = _CFG["gemm"]
    _gate_gemm_kernel[(triton.cdiv(M, BM), triton.cdiv(N, BN))](
        a2d, w, b1, b2, c, M, N, K, nb2, BM=BM, BN=BN, BK=BK, num_warps=nw, num_stages=ns)
    return c


_CHECKED = set()


def _check_first(kind, err, message, ok=0):
    """On the first call of each kind, raises if the launch flagged a timed-out spin in `err`
    (any value but `ok`). Later calls poison their outputs with NaN instead, so no host sync sits
    in the timed path."""
    if kind not in _CHECKED:
        _CHECKED.add(kind)
        if int(err.item()) != ok:
            raise RuntimeError(message)


def _rnn_stack(cell, params, x, h0, c0, num_layers, dirs, hidden, batch_first, want_seq, want_hn, want_cn):
    """Runs a stacked GRU (cell 'gru') or LSTM (cell 'lstm'): on the CUDA backend a unidirectional
    stack is one wavefront launch (_wave_stack); otherwise, per layer, one gate GEMM (per
    direction, or one for both) then one persistent recurrent launch for both directions.
    params[l][d] = (w_ih, w_hh, b_ih, b_hh). Returns (last layer's output sequence or None,
    h_n or None, c_n or None), shapes as in PyTorch."""
    x = x.contiguous()
    if batch_first:
        B, T, _ = x.shape
    else:
        T, B, _ = x.shape
    H = hidden
    ng = 3 if cell == "gru" else 4
    fam = cell + ("_bi" if dirs == 2 else "_uni")
    S, nw = _CFG[fam]
    U = H // S
    cuda = _use_cuda(x, H)
    if cuda:
        cs, nt, rows, mode = _CFG["cuda_" + fam]
        if B % rows:
            rows = 1
            if (ng, cs, nt, 1, mode) not in _cuda_instances():
                _CUDA_EXTRA.append((ng, cs, nt, 1, mode))
        ext = _cuda_ext()
        _LAST.clear()
    elif x.is_cuda and dirs * B * S > torch.cuda.get_device_properties(x.device).multi_processor_count:
        raise RuntimeError("grid of %d programs cannot be co-resident" % (dirs * B * S))
    dev = x.device
    h0 = h0.contiguous()
    if c0 is not None:
        c0 = c0.contiguous()
    if not cuda:  # the Triton path's exchange buffer and barrier counters
        hbuf = torch.empty((dirs, 2, B, H), device=dev, dtype=torch.float32)
        cnt = torch.zeros((num_layers, dirs * B * 32), device=dev, dtype=torch.int32)
        err = torch.zeros((1,), device=dev, dtype=torch.int32)
    else:
        hbuf = None
    hn = torch.empty((num_layers * dirs, B, H), device=dev, dtype=torch.float32) if want_hn else None
    cn = torch.empty((num_layers * dirs, B, H), device=dev, dtype=torch.float32) if want_cn else None
    # The GEMM's row order follows the input's layout (T, B) or (B, T); strides in elements.
    # One GEMM for both directions: measured faster for the LSTM (N = 2048: 7.21 vs 7.52 ms, task
    # 38) and, with the final layer kernel, for the GRU (N = 1536: 5.78 vs 6.07 ms, task 41).
    fused_bi = cuda and dirs == 2 and cell in (_CFG.get("bi_fused_gemm") or ())
    gw = ng * H * (2 if fused_bi else 1)  # row width of the gate GEMM's output
    if batch_first:
        gi_st, gi_sb = gw, T * gw
        out_st, out_sb = dirs * H, T * dirs * H
        seq_shape = (B, T, dirs * H)
    else:
        gi_st, gi_sb = B * gw, gw
        out_st, out_sb = B * dirs * H, dirs * H
        seq_shape = (T, B, dirs * H)
    if cuda and dirs == 1 and num_layers >= 2 and cell in (_CFG.get("wave") or ()):
        x_st, x_sb = (x.shape[-1], T * x.shape[-1]) if batch_first else (B * x.shape[-1], x.shape[-1])
        res = _wave_stack(ext, ng, params, x, h0, c0, num_layers, B, T, H, x_st, x_sb,
                          out_st, out_sb, seq_shape, want_seq, hn, cn)
        if res is not None:
            return res
    inp = x
    out = None
    for l in range(num_layers):
        K = inp.shape[-1]
        a2d = inp.view(-1, K)
        nb2 = 2 * H if cell == "gru" else 4 * H  # the GRU keeps b_hn inside r * (...)
        if fused_bi:
            # Both directions' input gates in ONE GEMM (N = 2*G*H): better tile use than two.
            wcat, bcat = _bi_gate_operands(params[l], ng, H)
            gcat = _gate_gemm(a2d, wcat, bcat, bcat, 0)
            gis = [gcat[:, :ng * H], gcat[:, ng * H:]]
        else:
            gis = [_gate_gemm(a2d, params[l][d][0], params[l][d][2], params[l][d][3], nb2) for d in range(dirs)]
        last = l == num_layers - 1
        write_out = (not last) or want_seq  # hidden-only tasks never write the last sequence
        out = torch.empty(seq_shape, device=dev, dtype=torch.float32) if write_out else hbuf
        wh = [params[l][d][1] for d in range(dirs)]
        h0l = h0[l * dirs:(l + 1) * dirs]
        hnl = hn[l * dirs:(l + 1) * dirs] if want_hn else hbuf
        if cuda:
            bh = [params[l][d][3] for d in range(dirs)]
            ext.rnn_layer(ng, cs, nt, rows, mode, dirs, gis[0], gis[-1], gi_st, gi_sb, wh[0], wh[-1], bh[0], bh[-1],
                          h0l, c0[l * dirs:(l + 1) * dirs] if c0 is not None else None,
                          out, out_st, out_sb,
                          hn[l * dirs:(l + 1) * dirs] if want_hn else None,
                          cn[l * dirs:(l + 1) * dirs] if want_cn else None, T, B, H)
            inp = out
            continue
        grid = (dirs * B * S,)
        common = dict(H=H, U=U, S=S, WRITE_OUT=write_out, WRITE_HN=want_hn, MAX_SPIN=_CFG["max_spin"],
                      num_warps=nw)
        if _CFG["cooperative"]:
            common["launch_cooperative_grid"] = True
        if cell == "gru":
            bh = [params[l][d][3] for d in range(dirs)]
            ck = _gru_row_kernel[grid](gis[0], gis[-1], gi_st, gi_sb, wh[0], wh[-1], bh[0], bh[-1], h0l, hbuf,
                                       out, out_st, out_sb, hnl, cnt[l], err, T, B, **common)
        else:
            c0l = c0[l * dirs:(l + 1) * dirs]
            cnl = cn[l * dirs:(l + 1) * dirs] if want_cn else hbuf
            ck = _lstm_row_kernel[grid](gis[0], gis[-1], gi_st, gi_sb, wh[0], wh[-1], h0l, c0l, hbuf,
                                        out, out_st, out_sb, hnl, cnl, cnt[l], err, T, B,
                                        WRITE_CN=want_cn, **common)
        inp = out
    if cuda:
        return (out if want_seq else None), hn, cn
    _LAST["cnt"], _LAST["expect"] = cnt, S * T
    _LAST["regs"] = (getattr(ck, "n_regs", None), getattr(ck, "n_spills", None))
    _check_first("row", err, "persistent RNN kernel: inter-program barrier timed out (programs not co-resident?)")
    return (out if want_seq else None), hn, cn


_DERIVED = {}


def _derived(name, params, build):
    """build(), cached under (name, first parameter) until a parameter changes (its storage or its
    in-place version): the stacked or concatenated weights are rebuilt only when needed."""
    key = tuple((p.data_ptr(), p._version) for p in params)
    slot = (name, id(params[0]))
    hit = _DERIVED.get(slot)
    if hit is None or hit[0] != key:
        with torch.no_grad():
            hit = (key, build())
        _DERIVED[slot] = hit
    return hit[1]


def _stacked(params, num_layers):
    """W_hh, W_ih (layers 1..), b_ih, b_hh of a unidirectional stack as contiguous [L, ...] tensors."""
    def build():
        return (torch.stack([params[l][0][1] for l in range(num_layers)]).contiguous(),
                torch.stack([params[l][0][0] for l in range(1, num_layers)]).contiguous(),
                torch.stack([params[l][0][2] for l in range(num_layers)]).contiguous(),
                torch.stack([params[l][0][3] for l in range(num_layers)]).contiguous())
    return _derived("stack", [p for l in range(num_layers) for p in params[l][0]], build)


def _bi_gate_operands(layer_params, ng, H):
    """[W_ih forward; W_ih reverse] and the matching biases (b_ih + b_hh, the GRU's b_hn left out)
    for one bidirectional layer."""
    nb = 2 * H if ng == 3 else ng * H

    def build():
        bias = []
        for w_ih, w_hh, b_ih, b_hh in layer_params:
            bd = b_ih.clone()
            bd[:nb] += b_hh[:nb]
            bias.append(bd)
        return (torch.cat([layer_params[0][0], layer_params[1][0]]).contiguous(), torch.cat(bias).contiguous())
    return _derived("bi", [p for d in range(2) for p in layer_params[d]], build)


def _wave_stack(ext, ng, params, x, h0, c0, L, B, T, H, x_st, x_sb, out_st, out_sb, seq_shape,
                want_seq, hn, cn):
    """All layers of a unidirectional stack in one launch (kwb_rnn_wave), the input gates of every
    layer included. None when the GPU cannot hold all its clusters at once or the input is wider
    than the hidden size (then the caller runs layer by layer)."""
    cs, nt, rows, xb = _CFG["wave_gru" if ng == 3 else "wave_lstm"]
    if B % rows or x.shape[-1] > H:
        return None
    dev = x.device
    whh, wih, bih, bhh = _stacked(params, L)
    # h of layers 0..L-2 plus the error flag, one buffer: every word starts as the sentinel
    # 0xffffffff (-1), which the kernel waits to see replaced; the flag stays -1 unless a spin
    # timed out.
    n = (L - 1) * T * B * H
    buf = torch.empty((n + 1,), device=dev, dtype=torch.int32).fill_(-1)
    hseq, err = buf[:n].view(torch.float32), buf[n:]
    out = torch.empty(seq_shape, device=dev, dtype=torch.float32) if want_seq else None
    got = ext.rnn_wave(ng, cs, nt, rows, xb, x, x_st, x_sb, params[0][0][0], whh, wih, bih, bhh, h0, c0, hseq, out,
                       out_st, out_sb, hn, cn, err, T, B, L, H, _CFG["wave_max_spin"])
    if got < 0:
        import warnings  # shown once per call site by Python's default filter
        warnings.warn("wavefront needs %d resident clusters; running layer by layer" % -got)
        return None
    _LAST["wave_err"] = err
    _check_first("wave", err, "wavefront RNN kernel: a layer-to-layer hand-off timed out", ok=-1)
    return (out if want_seq else None), hn, cn


_PARAM_NAMES = {}


def _params(rnn, num_layers, dirs):
    """params[l][d] = (w_ih, w_hh, b_ih, b_hh) of the nn.GRU / nn.LSTM, read on every call (the
    module may have been given new parameters); the names are built once per shape."""
    names = _PARAM_NAMES.get((num_layers, dirs))
    if names is None:
        names = _PARAM_NAMES[(num_layers, dirs)] = [
            [tuple(n + "_l%d%s" % (l, "_reverse" if d == 1 else "") for n in ("weight_ih", "weight_hh", "bias_ih", "bias_hh"))
             for d in range(dirs)] for l in range(num_layers)]
    p = rnn._parameters
    return [[tuple(p[n] for n in row) for row in layer] for layer in names]
