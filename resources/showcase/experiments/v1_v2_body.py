# SPDX-License-Identifier: MIT
# HISTORICAL, NOT A CANDIDATE: the body measured in GPU runs 1-2 (v1 group/wavefront barrier kernels
# and the v2 tagged-polling kernels, which were WRONG in 2 of 6 configurations). Kept for the notes.
# Shared body of the showcase candidates; make_showcase.py pastes it into each task file.
import torch
import torch.nn as nn
import triton
import triton.language as tl

# Tuning knobs, read at launch time (the benchmark may override them to sweep variants).
#   G: batch groups (programs that share no state), S: hidden slices per group (the programs
#   that exchange h every step), W: warps per recurrent program.
#   wavefront: unidirectional stacks run all layers in one launch, layer l at step t - l.
_CFG = {"gru_uni": (10, 8, 8), "gru_bi": (5, 8, 8), "lstm_uni": (10, 8, 16), "lstm_bi": (5, 8, 16),
        "gru_wave": (1, 16, 8), "lstm_wave": (1, 16, 16), "wavefront": True,
        # version 2 (tagged h exchange, no barrier): mode picks the path per direction count.
        "mode_uni": "wave2", "mode_bi": "layer2",
        "gru_wave2": (16, 8), "lstm_wave2": (16, 16), "gru_uni2": (8, 8), "lstm_uni2": (8, 16),
        "gru_bi2": (4, 16), "lstm_bi2": (4, 16),
        "cooperative": True, "max_spin": 1 << 22}
_LAST = {}  # the benchmark reads the last launch's barrier counters from here (sanity check)


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
def _gru_layer_kernel(gi0, gi1, gi_st, gi_sb, w0, w1, bn0, bn1, h0_ptr, hbuf, out_ptr, out_st, out_sb,
                      hn_ptr, cnt_ptr, err_ptr, T, B,
                      H: tl.constexpr, U: tl.constexpr, S: tl.constexpr, G: tl.constexpr,
                      BPG: tl.constexpr, WRITE_OUT: tl.constexpr, WRITE_HN: tl.constexpr,
                      MAX_SPIN: tl.constexpr):
    """One GRU layer (both directions when launched with 2*G*S programs), the whole time loop in
    one persistent launch. Program (d, g, s) owns hidden units [s*U, (s+1)*U) of batch rows
    [g*BPG, (g+1)*BPG) and keeps its 3*U rows of W_hh in registers for all T steps. The S
    programs of a group swap h through a double buffer in global memory with one barrier per step;
    groups never talk to each other (batch rows are independent)."""
    pid = tl.program_id(0)
    d = pid // (G * S)
    g = (pid // S) % G
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
    cnt = cnt_ptr + (d * G + g) * 32  # one 128-byte line per group counter
    failed = tl.program_id(0) * 0
    for step in range(T):
        t = step + d * (T - 1 - 2 * step)  # reverse direction walks time backwards
        if step == 0:
            rd = h0_ptr + d * B * H
        else:
            rd = hbuf + (d * 2 + step % 2) * B * H
        wb = hbuf + (d * 2 + (step + 1) % 2) * B * H
        for bi in tl.static_range(BPG):
            b = g * BPG + bi
            ok = b < B
            hk = tl.load(rd + b * H + offs_k, mask=(offs_k < H) & ok, other=0.0, cache_modifier=".cg")
            hb = hk[None, :]
            ar = tl.sum(wr * hb, axis=1)
            az = tl.sum(wz * hb, axis=1)
            an = tl.sum(wn * hb, axis=1)
            mu = (offs_u < U) & ok
            grow = gi + t * gi_st + b * gi_sb
            xr = tl.load(grow + j, mask=mu, other=0.0)
            xz = tl.load(grow + H + j, mask=mu, other=0.0)
            xn = tl.load(grow + 2 * H + j, mask=mu, other=0.0)
            hp = tl.load(rd + b * H + j, mask=mu, other=0.0, cache_modifier=".cg")
            r = _sigmoid(xr + ar)
            z = _sigmoid(xz + az)
            n = _tanh(xn + r * (an + bn))
            hnew = n + z * (hp - n)
            hnew = tl.where(failed != 0, float("nan"), hnew)
            tl.store(wb + b * H + j, hnew, mask=mu)
            if WRITE_OUT:
                tl.store(out_ptr + t * out_st + b * out_sb + d * H + j, hnew, mask=mu)
            if WRITE_HN:
                tl.store(hn_ptr + d * B * H + b * H + j, hnew, mask=mu & (step == T - 1))
        failed = _group_barrier(cnt, S * (step + 1), failed, MAX_SPIN)
    tl.atomic_add(err_ptr, failed)


@triton.jit
def _lstm_layer_kernel(gi0, gi1, gi_st, gi_sb, w0, w1, h0_ptr, c0_ptr, hbuf, cbuf, out_ptr, out_st, out_sb,
                       hn_ptr, cn_ptr, cnt_ptr, err_ptr, T, B,
                       H: tl.constexpr, U: tl.constexpr, S: tl.constexpr, G: tl.constexpr,
                       BPG: tl.constexpr, WRITE_OUT: tl.constexpr, WRITE_HN: tl.constexpr,
                       WRITE_CN: tl.constexpr, MAX_SPIN: tl.constexpr):
    """One LSTM layer, same decomposition as the GRU kernel (gates i, f, g, o; all biases are in
    gi). The cell state c of a (row, unit) is private to its program: it never crosses programs."""
    pid = tl.program_id(0)
    d = pid // (G * S)
    g = (pid // S) % G
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
    cnt = cnt_ptr + (d * G + g) * 32
    failed = tl.program_id(0) * 0
    for step in range(T):
        t = step + d * (T - 1 - 2 * step)
        if step == 0:
            rd = h0_ptr + d * B * H
            crd = c0_ptr + d * B * H
        else:
            rd = hbuf + (d * 2 + step % 2) * B * H
            crd = cbuf + d * B * H
        wb = hbuf + (d * 2 + (step + 1) % 2) * B * H
        for bi in tl.static_range(BPG):
            b = g * BPG + bi
            ok = b < B
            hk = tl.load(rd + b * H + offs_k, mask=(offs_k < H) & ok, other=0.0, cache_modifier=".cg")
            hb = hk[None, :]
            ai = tl.sum(wi * hb, axis=1)
            af = tl.sum(wf * hb, axis=1)
            ag = tl.sum(wg * hb, axis=1)
            ao = tl.sum(wo * hb, axis=1)
            mu = (offs_u < U) & ok
            grow = gi + t * gi_st + b * gi_sb
            xi = tl.load(grow + j, mask=mu, other=0.0)
            xf = tl.load(grow + H + j, mask=mu, other=0.0)
            xg = tl.load(grow + 2 * H + j, mask=mu, other=0.0)
            xo = tl.load(grow + 3 * H + j, mask=mu, other=0.0)
            cp = tl.load(crd + b * H + j, mask=mu, other=0.0, cache_modifier=".cg")
            ig = _sigmoid(xi + ai)
            fg = _sigmoid(xf + af)
            gg = _tanh(xg + ag)
            og = _sigmoid(xo + ao)
            c = fg * cp + ig * gg
            hnew = og * _tanh(c)
            hnew = tl.where(failed != 0, float("nan"), hnew)
            c = tl.where(failed != 0, float("nan"), c)
            tl.store(cbuf + d * B * H + b * H + j, c, mask=mu)
            tl.store(wb + b * H + j, hnew, mask=mu)
            if WRITE_OUT:
                tl.store(out_ptr + t * out_st + b * out_sb + d * H + j, hnew, mask=mu)
            if WRITE_HN:
                tl.store(hn_ptr + d * B * H + b * H + j, hnew, mask=mu & (step == T - 1))
            if WRITE_CN:
                tl.store(cn_ptr + d * B * H + b * H + j, c, mask=mu & (step == T - 1))
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


@triton.jit
def _gru_wave_kernel(x_ptr, x_st, x_sb, I, wih0, wih_rest, whh, bih, bhh, h0_ptr, hbuf, out_ptr, out_st, out_sb,
                     hn_ptr, cnt_ptr, err_ptr, T, B, L,
                     H: tl.constexpr, U: tl.constexpr, S: tl.constexpr, G: tl.constexpr, BPG: tl.constexpr,
                     WRITE_SEQ: tl.constexpr, WRITE_HN: tl.constexpr, MAX_SPIN: tl.constexpr):
    """Whole unidirectional GRU stack in one persistent launch, as a wavefront: at global step k,
    layer l computes time t = k - l, so the serial chain is T + L - 1 steps instead of T * L.
    Program (l, g, s) keeps its 3U rows of W_hh and of W_ih (layer l) in registers and computes
    both the input-side and the recurrent gates. One barrier per step over all L*S programs of a
    batch group: layer l at step k reads h[l](t-1) and h[l-1](t), both written at step k-1.
    h[l](t) lives in slot t % 2 of layer l's double buffer; nothing overwrites a slot while a
    reader may still need it (readers of slot(l, t) run at step k+1, the next writer at k+2)."""
    pid = tl.program_id(0)
    l = pid // (G * S)
    g = (pid // S) % G
    s = pid % S
    offs_u = tl.arange(0, U)
    offs_k = tl.arange(0, H)
    j = s * U + offs_u
    wh = whh + l * 3 * H * H
    whr = tl.load(wh + (0 * H + j)[:, None] * H + offs_k[None, :])
    whz = tl.load(wh + (1 * H + j)[:, None] * H + offs_k[None, :])
    whn = tl.load(wh + (2 * H + j)[:, None] * H + offs_k[None, :])
    if l == 0:
        wi = wih0
        kin = I * 1
    else:
        wi = wih_rest + (l - 1) * 3 * H * H
        kin = I * 0 + H
    km = offs_k[None, :] < kin
    wir = tl.load(wi + (0 * H + j)[:, None] * kin + offs_k[None, :], mask=km, other=0.0)
    wiz = tl.load(wi + (1 * H + j)[:, None] * kin + offs_k[None, :], mask=km, other=0.0)
    win = tl.load(wi + (2 * H + j)[:, None] * kin + offs_k[None, :], mask=km, other=0.0)
    br = tl.load(bih + l * 3 * H + j) + tl.load(bhh + l * 3 * H + j)
    bz = tl.load(bih + l * 3 * H + H + j) + tl.load(bhh + l * 3 * H + H + j)
    bin_ = tl.load(bih + l * 3 * H + 2 * H + j)
    bhn = tl.load(bhh + l * 3 * H + 2 * H + j)
    hl = hbuf + l * 2 * B * H
    cnt = cnt_ptr + g * 32
    failed = tl.program_id(0) * 0
    for k in range(T + L - 1):
        t = k - l
        if (t >= 0) & (t < T):
            if t == 0:
                hprev = h0_ptr + l * B * H
            else:
                hprev = hl + ((t - 1) % 2) * B * H
            if l == 0:
                xin = x_ptr + t * x_st
                in_sb = x_sb * 1
            else:
                xin = hbuf + (l - 1) * 2 * B * H + (t % 2) * B * H
                in_sb = x_sb * 0 + H
            hw = hl + (t % 2) * B * H
            for bi in tl.static_range(BPG):
                b = g * BPG + bi
                ok = b < B
                mu = (offs_u < U) & ok
                hk = tl.load(hprev + b * H + offs_k, mask=(offs_k < H) & ok, other=0.0, cache_modifier=".cg")
                xk = tl.load(xin + b * in_sb + offs_k, mask=(offs_k < kin) & ok, other=0.0, cache_modifier=".cg")
                hb = hk[None, :]
                xb = xk[None, :]
                xr = tl.sum(wir * xb, axis=1) + br
                xz = tl.sum(wiz * xb, axis=1) + bz
                xn = tl.sum(win * xb, axis=1) + bin_
                ar = tl.sum(whr * hb, axis=1)
                az = tl.sum(whz * hb, axis=1)
                an = tl.sum(whn * hb, axis=1) + bhn
                hp = tl.load(hprev + b * H + j, mask=mu, other=0.0, cache_modifier=".cg")
                r = _sigmoid(xr + ar)
                z = _sigmoid(xz + az)
                n = _tanh(xn + r * an)
                hnew = n + z * (hp - n)
                hnew = tl.where(failed != 0, float("nan"), hnew)
                tl.store(hw + b * H + j, hnew, mask=mu)
                if WRITE_SEQ:
                    tl.store(out_ptr + t * out_st + b * out_sb + j, hnew, mask=mu & (l == L - 1))
                if WRITE_HN:
                    tl.store(hn_ptr + l * B * H + b * H + j, hnew, mask=mu & (t == T - 1))
        failed = _group_barrier(cnt, L * S * (k + 1), failed, MAX_SPIN)
    tl.atomic_add(err_ptr, failed)


@triton.jit
def _lstm_wave_kernel(x_ptr, x_st, x_sb, I, wih0, wih_rest, whh, bih, bhh, h0_ptr, c0_ptr, hbuf, cbuf,
                      out_ptr, out_st, out_sb, hn_ptr, cn_ptr, cnt_ptr, err_ptr, T, B, L,
                      H: tl.constexpr, U: tl.constexpr, S: tl.constexpr, G: tl.constexpr, BPG: tl.constexpr,
                      WRITE_SEQ: tl.constexpr, WRITE_HN: tl.constexpr, WRITE_CN: tl.constexpr,
                      MAX_SPIN: tl.constexpr):
    """Unidirectional LSTM stack as one wavefront launch (see _gru_wave_kernel); c stays private
    to the program that owns its (row, unit)."""
    pid = tl.program_id(0)
    l = pid // (G * S)
    g = (pid // S) % G
    s = pid % S
    offs_u = tl.arange(0, U)
    offs_k = tl.arange(0, H)
    j = s * U + offs_u
    wh = whh + l * 4 * H * H
    whi = tl.load(wh + (0 * H + j)[:, None] * H + offs_k[None, :])
    whf = tl.load(wh + (1 * H + j)[:, None] * H + offs_k[None, :])
    whg = tl.load(wh + (2 * H + j)[:, None] * H + offs_k[None, :])
    who = tl.load(wh + (3 * H + j)[:, None] * H + offs_k[None, :])
    if l == 0:
        wi = wih0
        kin = I * 1
    else:
        wi = wih_rest + (l - 1) * 4 * H * H
        kin = I * 0 + H
    km = offs_k[None, :] < kin
    wii = tl.load(wi + (0 * H + j)[:, None] * kin + offs_k[None, :], mask=km, other=0.0)
    wif = tl.load(wi + (1 * H + j)[:, None] * kin + offs_k[None, :], mask=km, other=0.0)
    wig = tl.load(wi + (2 * H + j)[:, None] * kin + offs_k[None, :], mask=km, other=0.0)
    wio = tl.load(wi + (3 * H + j)[:, None] * kin + offs_k[None, :], mask=km, other=0.0)
    bi_ = tl.load(bih + l * 4 * H + j) + tl.load(bhh + l * 4 * H + j)
    bf_ = tl.load(bih + l * 4 * H + H + j) + tl.load(bhh + l * 4 * H + H + j)
    bg_ = tl.load(bih + l * 4 * H + 2 * H + j) + tl.load(bhh + l * 4 * H + 2 * H + j)
    bo_ = tl.load(bih + l * 4 * H + 3 * H + j) + tl.load(bhh + l * 4 * H + 3 * H + j)
    hl = hbuf + l * 2 * B * H
    cl = cbuf + l * B * H
    cnt = cnt_ptr + g * 32
    failed = tl.program_id(0) * 0
    for k in range(T + L - 1):
        t = k - l
        if (t >= 0) & (t < T):
            if t == 0:
                hprev = h0_ptr + l * B * H
                cprev = c0_ptr + l * B * H
            else:
                hprev = hl + ((t - 1) % 2) * B * H
                cprev = cl
            if l == 0:
                xin = x_ptr + t * x_st
                in_sb = x_sb * 1
            else:
                xin = hbuf + (l - 1) * 2 * B * H + (t % 2) * B * H
                in_sb = x_sb * 0 + H
            hw = hl + (t % 2) * B * H
            for bi in tl.static_range(BPG):
                b = g * BPG + bi
                ok = b < B
                mu = (offs_u < U) & ok
                hk = tl.load(hprev + b * H + offs_k, mask=(offs_k < H) & ok, other=0.0, cache_modifier=".cg")
                xk = tl.load(xin + b * in_sb + offs_k, mask=(offs_k < kin) & ok, other=0.0, cache_modifier=".cg")
                hb = hk[None, :]
                xb = xk[None, :]
                gi_ = tl.sum(wii * xb, axis=1) + tl.sum(whi * hb, axis=1) + bi_
                gf_ = tl.sum(wif * xb, axis=1) + tl.sum(whf * hb, axis=1) + bf_
                gg_ = tl.sum(wig * xb, axis=1) + tl.sum(whg * hb, axis=1) + bg_
                go_ = tl.sum(wio * xb, axis=1) + tl.sum(who * hb, axis=1) + bo_
                cp = tl.load(cprev + b * H + j, mask=mu, other=0.0, cache_modifier=".cg")
                c = _sigmoid(gf_) * cp + _sigmoid(gi_) * _tanh(gg_)
                hnew = _sigmoid(go_) * _tanh(c)
                hnew = tl.where(failed != 0, float("nan"), hnew)
                c = tl.where(failed != 0, float("nan"), c)
                tl.store(cl + b * H + j, c, mask=mu)
                tl.store(hw + b * H + j, hnew, mask=mu)
                if WRITE_SEQ:
                    tl.store(out_ptr + t * out_st + b * out_sb + j, hnew, mask=mu & (l == L - 1))
                if WRITE_HN:
                    tl.store(hn_ptr + l * B * H + b * H + j, hnew, mask=mu & (t == T - 1))
                if WRITE_CN:
                    tl.store(cn_ptr + l * B * H + b * H + j, c, mask=mu & (t == T - 1))
        failed = _group_barrier(cnt, L * S * (k + 1), failed, MAX_SPIN)
    tl.atomic_add(err_ptr, failed)


def _rnn_wave(cell, params, x, h0, c0, L, H, batch_first, want_seq, want_hn, want_cn):
    """Unidirectional stack through one wavefront launch. Weights of all layers are stacked per
    call (a few copies, ~2 MB) so one launch can index any layer's weights."""
    x = x.contiguous()
    if batch_first:
        B, T, I = x.shape
        x_st, x_sb = I, T * I
        out_st, out_sb = H, T * H
        seq_shape = (B, T, H)
    else:
        T, B, I = x.shape
        x_st, x_sb = B * I, I
        out_st, out_sb = B * H, H
        seq_shape = (T, B, H)
    dev = x.device
    G, S, nw = _CFG[cell + "_wave"]
    U = H // S
    BPG = triton.cdiv(B, G)
    wih0 = params[0][0][0]
    ng = 3 if cell == "gru" else 4
    wih_rest = torch.stack([params[l][0][0] for l in range(1, L)]) if L > 1 else wih0
    whh = torch.stack([params[l][0][1] for l in range(L)])
    bih = torch.stack([params[l][0][2] for l in range(L)])
    bhh = torch.stack([params[l][0][3] for l in range(L)])
    h0 = h0.contiguous()
    hbuf = torch.empty((L, 2, B, H), device=dev, dtype=torch.float32)
    cnt = torch.zeros((G * 32,), device=dev, dtype=torch.int32)
    err = torch.zeros((1,), device=dev, dtype=torch.int32)
    out = torch.empty(seq_shape, device=dev, dtype=torch.float32) if want_seq else hbuf
    hn = torch.empty((L, B, H), device=dev, dtype=torch.float32) if want_hn else hbuf
    common = dict(H=H, U=U, S=S, G=G, BPG=BPG, WRITE_SEQ=want_seq, WRITE_HN=want_hn,
                  MAX_SPIN=_CFG["max_spin"], num_warps=nw)
    if _CFG["cooperative"]:
        common["launch_cooperative_grid"] = True
    grid = (L * G * S,)
    if cell == "gru":
        cn = None
        ck = _gru_wave_kernel[grid](x, x_st, x_sb, I, wih0, wih_rest, whh, bih, bhh, h0, hbuf, out, out_st, out_sb,
                               hn, cnt, err, T, B, L, **common)
    else:
        cbuf = torch.empty((L, B, H), device=dev, dtype=torch.float32)
        cn = torch.empty((L, B, H), device=dev, dtype=torch.float32) if want_cn else hbuf
        ck = _lstm_wave_kernel[grid](x, x_st, x_sb, I, wih0, wih_rest, whh, bih, bhh, h0, c0.contiguous(), hbuf, cbuf,
                                out, out_st, out_sb, hn, cn, cnt, err, T, B, L, WRITE_CN=want_cn, **common)
    _LAST["cnt"], _LAST["expect"] = cnt, L * S * (T + L - 1)
    _LAST["regs"] = (getattr(ck, "n_regs", None), getattr(ck, "n_spills", None))
    _finish(err)
    return (out if want_seq else None), (hn if want_hn else None), (cn if want_cn else None)


def _finish(err):
    if _Checked.first:
        _Checked.first = False
        if int(err.item()) != 0:
            raise RuntimeError("persistent RNN kernel: inter-program barrier timed out "
                               "(programs not co-resident?)")


# ---------------------------------------------------------------------------------------------
# Version 2: no barrier. h(t) is published as tagged 64-bit words (fp32 bits | tag << 32) in a
# sequence buffer with one slot per time step, so a consumer polls the data itself (volatile
# loads, no atomics, no WAR hazard: every slot is written once per launch). The tag is unique per
# launch (16k + 3: never 1 and never a multiple of 16, so Triton never re-specializes on it).
# ---------------------------------------------------------------------------------------------

@triton.jit
def _enc(h, tag):
    return (tag.to(tl.int64) << 32) | h.to(tl.uint32, bitcast=True).to(tl.int64)


@triton.jit
def _dec_val(v):
    return v.to(tl.int32).to(tl.float32, bitcast=True)


@triton.jit
def _dec_tag(v):
    return (v >> 32).to(tl.int32)


@triton.jit
def _poll_row(ptrs, mask, tag, failed, MAX_SPIN: tl.constexpr):
    """Volatile-loads a row of tagged words until every masked word carries `tag` (bounded)."""
    v = tl.load(ptrs, mask=mask, other=0, volatile=True)
    nbad = tl.sum(((_dec_tag(v) != tag) & mask).to(tl.int32), axis=0)
    it = failed * 0
    while (nbad > 0) & (it < MAX_SPIN) & (failed == 0):
        v = tl.load(ptrs, mask=mask, other=0, volatile=True)
        nbad = tl.sum(((_dec_tag(v) != tag) & mask).to(tl.int32), axis=0)
        it += 1
    return v, failed | (nbad > 0).to(tl.int32)


@triton.jit
def _poll_tile(ptrs, mask, tag, failed, MAX_SPIN: tl.constexpr):
    """_poll_row for a 2-D tile (all batch rows at once: one memory latency per step)."""
    v = tl.load(ptrs, mask=mask, other=0, volatile=True)
    nbad = tl.sum(tl.sum(((_dec_tag(v) != tag) & mask).to(tl.int32), axis=1), axis=0)
    it = failed * 0
    while (nbad > 0) & (it < MAX_SPIN) & (failed == 0):
        v = tl.load(ptrs, mask=mask, other=0, volatile=True)
        nbad = tl.sum(tl.sum(((_dec_tag(v) != tag) & mask).to(tl.int32), axis=1), axis=0)
        it += 1
    return v, failed | (nbad > 0).to(tl.int32)


@triton.jit
def _gru_layer2_kernel(gi0, gi1, gi_st, gi_sb, w0, w1, bn0, bn1, h0_ptr, seq_ptr, out_ptr, out_st, out_sb,
                       hn_ptr, err_ptr, tag, T, B,
                       H: tl.constexpr, U: tl.constexpr, S: tl.constexpr,
                       WRITE_OUT: tl.constexpr, WRITE_HN: tl.constexpr, MAX_SPIN: tl.constexpr):
    """One GRU layer (both directions), one persistent launch. Program (d, b, s) owns units
    [s*U, (s+1)*U) of batch row b; W_hh rows in registers; its own h slice and the next step's
    input gates stay in registers (prefetched before the recurrent reduction); h(t-1) of the
    other slices is polled from the tagged sequence buffer seq[d, t, b, :]."""
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
    kall = offs_k < H
    j = s * U + offs_u
    wr = tl.load(w + (0 * H + j)[:, None] * H + offs_k[None, :])
    wz = tl.load(w + (1 * H + j)[:, None] * H + offs_k[None, :])
    wn = tl.load(w + (2 * H + j)[:, None] * H + offs_k[None, :])
    bn = tl.load(bnp + 2 * H + j)
    hbase = h0_ptr + d * B * H + b * H
    hown = tl.load(hbase + j)
    seqd = seq_ptr + d * T * B * H + b * H
    g0 = gi + (d * (T - 1)) * gi_st + b * gi_sb
    xr = tl.load(g0 + j)
    xz = tl.load(g0 + H + j)
    xn = tl.load(g0 + 2 * H + j)
    failed = pid * 0
    for step in range(T):
        t = step + d * (T - 1 - 2 * step)
        if step == 0:
            hk = tl.load(hbase + offs_k)
        else:
            v, failed = _poll_row(seqd + (t - 1 + 2 * d) * B * H + offs_k, kall, tag, failed, MAX_SPIN)
            hk = _dec_val(v)
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
        tl.store(seqd + t * B * H + j, _enc(hnew, tag))
        if WRITE_OUT:
            tl.store(out_ptr + t * out_st + b * out_sb + d * H + j, hnew)
        if WRITE_HN:
            tl.store(hn_ptr + d * B * H + b * H + j, hnew, mask=(offs_u < U) & (step == T - 1))
        hown = hnew
        xr = nxr
        xz = nxz
        xn = nxn
    tl.atomic_add(err_ptr, failed)


@triton.jit
def _lstm_layer2_kernel(gi0, gi1, gi_st, gi_sb, w0, w1, h0_ptr, c0_ptr, seq_ptr, out_ptr, out_st, out_sb,
                        hn_ptr, cn_ptr, err_ptr, tag, T, B,
                        H: tl.constexpr, U: tl.constexpr, S: tl.constexpr,
                        WRITE_OUT: tl.constexpr, WRITE_HN: tl.constexpr, WRITE_CN: tl.constexpr,
                        MAX_SPIN: tl.constexpr):
    """LSTM twin of _gru_layer2_kernel; c of the owned (row, units) lives in registers."""
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
    kall = offs_k < H
    j = s * U + offs_u
    wi = tl.load(w + (0 * H + j)[:, None] * H + offs_k[None, :])
    wf = tl.load(w + (1 * H + j)[:, None] * H + offs_k[None, :])
    wg = tl.load(w + (2 * H + j)[:, None] * H + offs_k[None, :])
    wo = tl.load(w + (3 * H + j)[:, None] * H + offs_k[None, :])
    hbase = h0_ptr + d * B * H + b * H
    cown = tl.load(c0_ptr + d * B * H + b * H + j)
    seqd = seq_ptr + d * T * B * H + b * H
    g0 = gi + (d * (T - 1)) * gi_st + b * gi_sb
    xi = tl.load(g0 + j)
    xf = tl.load(g0 + H + j)
    xg = tl.load(g0 + 2 * H + j)
    xo = tl.load(g0 + 3 * H + j)
    failed = pid * 0
    for step in range(T):
        t = step + d * (T - 1 - 2 * step)
        if step == 0:
            hk = tl.load(hbase + offs_k)
        else:
            v, failed = _poll_row(seqd + (t - 1 + 2 * d) * B * H + offs_k, kall, tag, failed, MAX_SPIN)
            hk = _dec_val(v)
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
        tl.store(seqd + t * B * H + j, _enc(hnew, tag))
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
    tl.atomic_add(err_ptr, failed)


@triton.jit
def _gru_wave2_kernel(x_ptr, x_st, x_sb, I, wih0, wih_rest, whh, bih, bhh, h0_ptr, seq_ptr, out_ptr, out_st,
                      out_sb, hn_ptr, err_ptr, tag, T, B, L,
                      H: tl.constexpr, U: tl.constexpr, S: tl.constexpr, BP: tl.constexpr,
                      WRITE_SEQ: tl.constexpr, WRITE_HN: tl.constexpr, MAX_SPIN: tl.constexpr):
    """Whole unidirectional GRU stack in one launch without barriers: program (l, s) owns units
    [s*U, (s+1)*U) of layer l for ALL batch rows (a [BP, U] tile), keeps W_ih and W_hh rows in
    registers, and at each t polls h[l](t-1) and h[l-1](t) from the tagged sequence buffer.
    Layers pipeline by themselves (a wavefront: the chain is T + L - 1 steps)."""
    pid = tl.program_id(0)
    l = pid // S
    s = pid % S
    offs_u = tl.arange(0, U)
    offs_k = tl.arange(0, H)
    rows = tl.arange(0, BP)
    rm = rows < B
    j = s * U + offs_u
    wh = whh + l * 3 * H * H
    whr = tl.load(wh + (0 * H + j)[:, None] * H + offs_k[None, :])
    whz = tl.load(wh + (1 * H + j)[:, None] * H + offs_k[None, :])
    whn = tl.load(wh + (2 * H + j)[:, None] * H + offs_k[None, :])
    if l == 0:
        wi = wih0
        kin = I * 1
    else:
        wi = wih_rest + (l - 1) * 3 * H * H
        kin = I * 0 + H
    km = offs_k[None, :] < kin
    wir = tl.load(wi + (0 * H + j)[:, None] * kin + offs_k[None, :], mask=km, other=0.0)
    wiz = tl.load(wi + (1 * H + j)[:, None] * kin + offs_k[None, :], mask=km, other=0.0)
    win = tl.load(wi + (2 * H + j)[:, None] * kin + offs_k[None, :], mask=km, other=0.0)
    br = tl.load(bih + l * 3 * H + j) + tl.load(bhh + l * 3 * H + j)
    bz = tl.load(bih + l * 3 * H + H + j) + tl.load(bhh + l * 3 * H + H + j)
    bin_ = tl.load(bih + l * 3 * H + 2 * H + j)
    bhn = tl.load(bhh + l * 3 * H + 2 * H + j)
    tile_m = rm[:, None] & (offs_k[None, :] < H)
    own_m = rm[:, None] & (offs_u[None, :] < U)
    hrows = h0_ptr + l * B * H + rows[:, None] * H
    hown = tl.load(hrows + j[None, :], mask=own_m, other=0.0)
    seql = seq_ptr + l * T * B * H + rows[:, None] * H
    seqm = seq_ptr + (l - 1) * T * B * H + rows[:, None] * H
    failed = pid * 0
    for t in range(T):
        if t == 0:
            hk = tl.load(hrows + offs_k[None, :], mask=tile_m, other=0.0)
        else:
            v, failed = _poll_tile(seql + (t - 1) * B * H + offs_k[None, :], tile_m, tag, failed, MAX_SPIN)
            hk = _dec_val(v)
        if l == 0:
            xk = tl.load(x_ptr + t * x_st + rows[:, None] * x_sb + offs_k[None, :],
                         mask=rm[:, None] & (offs_k[None, :] < kin), other=0.0)
        else:
            v2, failed = _poll_tile(seqm + t * B * H + offs_k[None, :], tile_m, tag, failed, MAX_SPIN)
            xk = _dec_val(v2)
        h3 = hk[:, None, :]
        x3 = xk[:, None, :]
        xr = tl.sum(x3 * wir[None, :, :], axis=2) + br[None, :]
        xz = tl.sum(x3 * wiz[None, :, :], axis=2) + bz[None, :]
        xn = tl.sum(x3 * win[None, :, :], axis=2) + bin_[None, :]
        ar = tl.sum(h3 * whr[None, :, :], axis=2)
        az = tl.sum(h3 * whz[None, :, :], axis=2)
        an = tl.sum(h3 * whn[None, :, :], axis=2) + bhn[None, :]
        r = _sigmoid(xr + ar)
        z = _sigmoid(xz + az)
        n = _tanh(xn + r * an)
        hnew = n + z * (hown - n)
        hnew = tl.where(failed != 0, float("nan"), hnew)
        tl.store(seql + t * B * H + j[None, :], _enc(hnew, tag), mask=own_m)
        if WRITE_SEQ:
            tl.store(out_ptr + t * out_st + rows[:, None] * out_sb + j[None, :], hnew, mask=own_m & (l == L - 1))
        if WRITE_HN:
            tl.store(hn_ptr + l * B * H + rows[:, None] * H + j[None, :], hnew, mask=own_m & (t == T - 1))
        hown = hnew
    tl.atomic_add(err_ptr, failed)


@triton.jit
def _lstm_wave2_kernel(x_ptr, x_st, x_sb, I, wih0, wih_rest, whh, bih, bhh, h0_ptr, c0_ptr, seq_ptr, out_ptr,
                       out_st, out_sb, hn_ptr, cn_ptr, err_ptr, tag, T, B, L,
                       H: tl.constexpr, U: tl.constexpr, S: tl.constexpr, BP: tl.constexpr,
                       WRITE_SEQ: tl.constexpr, WRITE_HN: tl.constexpr, WRITE_CN: tl.constexpr,
                       MAX_SPIN: tl.constexpr):
    """LSTM twin of _gru_wave2_kernel."""
    pid = tl.program_id(0)
    l = pid // S
    s = pid % S
    offs_u = tl.arange(0, U)
    offs_k = tl.arange(0, H)
    rows = tl.arange(0, BP)
    rm = rows < B
    j = s * U + offs_u
    wh = whh + l * 4 * H * H
    whi = tl.load(wh + (0 * H + j)[:, None] * H + offs_k[None, :])
    whf = tl.load(wh + (1 * H + j)[:, None] * H + offs_k[None, :])
    whg = tl.load(wh + (2 * H + j)[:, None] * H + offs_k[None, :])
    who = tl.load(wh + (3 * H + j)[:, None] * H + offs_k[None, :])
    if l == 0:
        wi = wih0
        kin = I * 1
    else:
        wi = wih_rest + (l - 1) * 4 * H * H
        kin = I * 0 + H
    km = offs_k[None, :] < kin
    wii = tl.load(wi + (0 * H + j)[:, None] * kin + offs_k[None, :], mask=km, other=0.0)
    wif = tl.load(wi + (1 * H + j)[:, None] * kin + offs_k[None, :], mask=km, other=0.0)
    wig = tl.load(wi + (2 * H + j)[:, None] * kin + offs_k[None, :], mask=km, other=0.0)
    wio = tl.load(wi + (3 * H + j)[:, None] * kin + offs_k[None, :], mask=km, other=0.0)
    bi_ = tl.load(bih + l * 4 * H + j) + tl.load(bhh + l * 4 * H + j)
    bf_ = tl.load(bih + l * 4 * H + H + j) + tl.load(bhh + l * 4 * H + H + j)
    bg_ = tl.load(bih + l * 4 * H + 2 * H + j) + tl.load(bhh + l * 4 * H + 2 * H + j)
    bo_ = tl.load(bih + l * 4 * H + 3 * H + j) + tl.load(bhh + l * 4 * H + 3 * H + j)
    tile_m = rm[:, None] & (offs_k[None, :] < H)
    own_m = rm[:, None] & (offs_u[None, :] < U)
    hrows = h0_ptr + l * B * H + rows[:, None] * H
    cown = tl.load(c0_ptr + l * B * H + rows[:, None] * H + j[None, :], mask=own_m, other=0.0)
    seql = seq_ptr + l * T * B * H + rows[:, None] * H
    seqm = seq_ptr + (l - 1) * T * B * H + rows[:, None] * H
    failed = pid * 0
    for t in range(T):
        if t == 0:
            hk = tl.load(hrows + offs_k[None, :], mask=tile_m, other=0.0)
        else:
            v, failed = _poll_tile(seql + (t - 1) * B * H + offs_k[None, :], tile_m, tag, failed, MAX_SPIN)
            hk = _dec_val(v)
        if l == 0:
            xk = tl.load(x_ptr + t * x_st + rows[:, None] * x_sb + offs_k[None, :],
                         mask=rm[:, None] & (offs_k[None, :] < kin), other=0.0)
        else:
            v2, failed = _poll_tile(seqm + t * B * H + offs_k[None, :], tile_m, tag, failed, MAX_SPIN)
            xk = _dec_val(v2)
        h3 = hk[:, None, :]
        x3 = xk[:, None, :]
        gi_ = tl.sum(x3 * wii[None, :, :], axis=2) + tl.sum(h3 * whi[None, :, :], axis=2) + bi_[None, :]
        gf_ = tl.sum(x3 * wif[None, :, :], axis=2) + tl.sum(h3 * whf[None, :, :], axis=2) + bf_[None, :]
        gg_ = tl.sum(x3 * wig[None, :, :], axis=2) + tl.sum(h3 * whg[None, :, :], axis=2) + bg_[None, :]
        go_ = tl.sum(x3 * wio[None, :, :], axis=2) + tl.sum(h3 * who[None, :, :], axis=2) + bo_[None, :]
        c = _sigmoid(gf_) * cown + _sigmoid(gi_) * _tanh(gg_)
        hnew = _sigmoid(go_) * _tanh(c)
        hnew = tl.where(failed != 0, float("nan"), hnew)
        tl.store(seql + t * B * H + j[None, :], _enc(hnew, tag), mask=own_m)
        if WRITE_SEQ:
            tl.store(out_ptr + t * out_st + rows[:, None] * out_sb + j[None, :], hnew, mask=own_m & (l == L - 1))
        if WRITE_HN:
            tl.store(hn_ptr + l * B * H + rows[:, None] * H + j[None, :], hnew, mask=own_m & (t == T - 1))
        if WRITE_CN:
            tl.store(cn_ptr + l * B * H + rows[:, None] * H + j[None, :], c, mask=own_m & (t == T - 1))
        cown = c
    tl.atomic_add(err_ptr, failed)


_WS = {}
_TAG = [0]


def _next_tag():
    _TAG[0] += 1
    return 16 * _TAG[0] + 3


def _workspace(name, shape, device):
    """Persistent tagged sequence buffer, zeroed once (tag 0 never matches a launch's tag)."""
    key = (name, tuple(shape), str(device))
    ws = _WS.get(key)
    if ws is None:
        ws = torch.zeros(shape, device=device, dtype=torch.int64)
        _WS[key] = ws
    return ws


def _rnn_wave2(cell, params, x, h0, c0, L, H, batch_first, want_seq, want_hn, want_cn):
    x = x.contiguous()
    if batch_first:
        B, T, I = x.shape
        x_st, x_sb = I, T * I
        out_st, out_sb = H, T * H
        seq_shape = (B, T, H)
    else:
        T, B, I = x.shape
        x_st, x_sb = B * I, I
        out_st, out_sb = B * H, H
        seq_shape = (T, B, H)
    dev = x.device
    S, nw = _CFG[cell + "_wave2"]
    U = H // S
    BP = triton.next_power_of_2(B)
    wih0 = params[0][0][0]
    wih_rest = torch.stack([params[l][0][0] for l in range(1, L)]) if L > 1 else wih0
    whh = torch.stack([params[l][0][1] for l in range(L)])
    bih = torch.stack([params[l][0][2] for l in range(L)])
    bhh = torch.stack([params[l][0][3] for l in range(L)])
    h0 = h0.contiguous()
    seq = _workspace("wave", (L, T, B, H), dev)
    err = torch.zeros((1,), device=dev, dtype=torch.int32)
    out = torch.empty(seq_shape, device=dev, dtype=torch.float32) if want_seq else err
    hn = torch.empty((L, B, H), device=dev, dtype=torch.float32) if want_hn else err
    cn = torch.empty((L, B, H), device=dev, dtype=torch.float32) if want_cn else err
    common = dict(H=H, U=U, S=S, BP=BP, WRITE_SEQ=want_seq, WRITE_HN=want_hn,
                  MAX_SPIN=_CFG["max_spin"], num_warps=nw)
    if _CFG["cooperative"]:
        common["launch_cooperative_grid"] = True
    tag = _next_tag()
    grid = (L * S,)
    if cell == "gru":
        ck = _gru_wave2_kernel[grid](x, x_st, x_sb, I, wih0, wih_rest, whh, bih, bhh, h0, seq, out, out_st, out_sb,
                                     hn, err, tag, T, B, L, **common)
    else:
        ck = _lstm_wave2_kernel[grid](x, x_st, x_sb, I, wih0, wih_rest, whh, bih, bhh, h0, c0.contiguous(), seq,
                                      out, out_st, out_sb, hn, cn, err, tag, T, B, L, WRITE_CN=want_cn, **common)
    _LAST.clear()
    _LAST["regs"] = (getattr(ck, "n_regs", None), getattr(ck, "n_spills", None))
    _finish(err)
    return (out if want_seq else None), (hn if want_hn else None), (cn if want_cn else None)


def _rnn_layer2(cell, params, x, h0, c0, num_layers, dirs, H, batch_first, want_seq, want_hn, want_cn):
    x = x.contiguous()
    if batch_first:
        B, T, _ = x.shape
    else:
        T, B, _ = x.shape
    ng = 3 if cell == "gru" else 4
    S, nw = _CFG[cell + ("_bi2" if dirs == 2 else "_uni2")]
    U = H // S
    dev = x.device
    h0 = h0.contiguous()
    if c0 is not None:
        c0 = c0.contiguous()
    seq = _workspace("layer", (dirs, T, B, H), dev)
    err = torch.zeros((1,), device=dev, dtype=torch.int32)
    hn = torch.empty((num_layers * dirs, B, H), device=dev, dtype=torch.float32) if want_hn else None
    cn = torch.empty((num_layers * dirs, B, H), device=dev, dtype=torch.float32) if want_cn else None
    if batch_first:
        gi_st, gi_sb = ng * H, T * ng * H
        out_st, out_sb = dirs * H, T * dirs * H
        seq_shape = (B, T, dirs * H)
    else:
        gi_st, gi_sb = B * ng * H, ng * H
        out_st, out_sb = B * dirs * H, dirs * H
        seq_shape = (T, B, dirs * H)
    inp = x
    out = None
    for l in range(num_layers):
        K = inp.shape[-1]
        a2d = inp.view(-1, K)
        gis = [_gate_gemm(a2d, params[l][d][0], params[l][d][2], params[l][d][3], 2 * H if cell == "gru" else 4 * H)
               for d in range(dirs)]
        last = l == num_layers - 1
        write_out = (not last) or want_seq
        out = torch.empty(seq_shape, device=dev, dtype=torch.float32) if write_out else err
        wh = [params[l][d][1] for d in range(dirs)]
        h0l = h0[l * dirs:(l + 1) * dirs]
        hnl = hn[l * dirs:(l + 1) * dirs] if want_hn else err
        common = dict(H=H, U=U, S=S, WRITE_OUT=write_out, WRITE_HN=want_hn, MAX_SPIN=_CFG["max_spin"],
                      num_warps=nw)
        if _CFG["cooperative"]:
            common["launch_cooperative_grid"] = True
        grid = (dirs * B * S,)
        tag = _next_tag()
        if cell == "gru":
            bh = [params[l][d][3] for d in range(dirs)]
            ck = _gru_layer2_kernel[grid](gis[0], gis[-1], gi_st, gi_sb, wh[0], wh[-1], bh[0], bh[-1], h0l, seq,
                                          out, out_st, out_sb, hnl, err, tag, T, B, **common)
        else:
            c0l = c0[l * dirs:(l + 1) * dirs]
            cnl = cn[l * dirs:(l + 1) * dirs] if want_cn else err
            ck = _lstm_layer2_kernel[grid](gis[0], gis[-1], gi_st, gi_sb, wh[0], wh[-1], h0l, c0l, seq,
                                           out, out_st, out_sb, hnl, cnl, err, tag, T, B,
                                           WRITE_CN=want_cn, **common)
        inp = out
    _LAST.clear()
    _LAST["regs"] = (getattr(ck, "n_regs", None), getattr(ck, "n_spills", None))
    _finish(err)
    return (out if want_seq else None), hn, cn


def _gate_gemm(a2d, w, b1, b2, nb2):
    M, K = a2d.shape
    N = w.shape[0]
    c = torch.empty((M, N), device=a2d.device, dtype=torch.float32)
    BM, BN, BK = 64, 64, 32
    _gate_gemm_kernel[(triton.cdiv(M, BM), triton.cdiv(N, BN))](
        a2d, w, b1, b2, c, M, N, K, nb2, BM=BM, BN=BN, BK=BK, num_warps=4)
    return c


class _Checked:
    """Raises on the first call if a persistent launch tripped its spin bound (later calls
    poison their outputs with NaN instead, so no host sync sits in the timed path)."""
    first = True


def _rnn_stack(cell, params, x, h0, c0, num_layers, dirs, hidden, batch_first, want_seq, want_hn, want_cn):
    """Runs a stacked GRU (cell 'gru') or LSTM (cell 'lstm') with Triton only.
    params[l][d] = (w_ih, w_hh, b_ih, b_hh). Returns (last layer's output sequence or None,
    h_n or None, c_n or None), shapes as in PyTorch."""
    mode = _CFG["mode_bi" if dirs == 2 else "mode_uni"]
    if mode == "wave2" and dirs == 1:
        return _rnn_wave2(cell, params, x, h0, c0, num_layers, hidden, batch_first, want_seq, want_hn, want_cn)
    if mode == "layer2":
        return _rnn_layer2(cell, params, x, h0, c0, num_layers, dirs, hidden, batch_first, want_seq, want_hn,
                           want_cn)
    if dirs == 1 and _CFG["wavefront"]:
        return _rnn_wave(cell, params, x, h0, c0, num_layers, hidden, batch_first, want_seq, want_hn, want_cn)
    x = x.contiguous()
    if batch_first:
        B, T, _ = x.shape
    else:
        T, B, _ = x.shape
    H = hidden
    ng = 3 if cell == "gru" else 4
    key = cell + ("_bi" if dirs == 2 else "_uni")
    G, S, nw = _CFG[key]
    U = H // S
    BPG = triton.cdiv(B, G)
    dev = x.device
    h0 = h0.contiguous()
    hbuf = torch.empty((dirs, 2, B, H), device=dev, dtype=torch.float32)
    cbuf = torch.empty((dirs, B, H), device=dev, dtype=torch.float32) if cell == "lstm" else hbuf
    cnt = torch.zeros((num_layers, dirs * G * 32), device=dev, dtype=torch.int32)
    err = torch.zeros((1,), device=dev, dtype=torch.int32)
    hn = torch.empty((num_layers * dirs, B, H), device=dev, dtype=torch.float32) if want_hn else None
    cn = torch.empty((num_layers * dirs, B, H), device=dev, dtype=torch.float32) if want_cn else None
    if c0 is not None:
        c0 = c0.contiguous()
    # (T, B) or (B, T) row order of the GEMM follows the input's layout; strides in elements.
    if batch_first:
        gi_st, gi_sb = ng * H, T * ng * H
        out_st, out_sb = dirs * H, T * dirs * H
        seq_shape = (B, T, dirs * H)
    else:
        gi_st, gi_sb = B * ng * H, ng * H
        out_st, out_sb = B * dirs * H, dirs * H
        seq_shape = (T, B, dirs * H)
    inp = x
    out = None
    for l in range(num_layers):
        K = inp.shape[-1]
        a2d = inp.view(-1, K)
        gis = []
        for d in range(dirs):
            w_ih, w_hh, b_ih, b_hh = params[l][d]
            nb2 = 2 * H if cell == "gru" else 4 * H  # GRU keeps b_hn inside r * (...)
            gis.append(_gate_gemm(a2d, w_ih, b_ih, b_hh, nb2))
        last = l == num_layers - 1
        write_out = (not last) or want_seq
        out = torch.empty(seq_shape, device=dev, dtype=torch.float32) if write_out else hbuf
        wh = [params[l][d][1] for d in range(dirs)]
        h0l = h0[l * dirs:(l + 1) * dirs]
        hnl = hn[l * dirs:(l + 1) * dirs] if want_hn else hbuf
        grid = (dirs * G * S,)
        common = dict(H=H, U=U, S=S, G=G, BPG=BPG, WRITE_OUT=write_out, WRITE_HN=want_hn,
                      MAX_SPIN=_CFG["max_spin"], num_warps=nw)
        if _CFG["cooperative"]:
            common["launch_cooperative_grid"] = True
        if cell == "gru":
            bh = [params[l][d][3] for d in range(dirs)]
            ck = _gru_layer_kernel[grid](gis[0], gis[-1], gi_st, gi_sb, wh[0], wh[-1], bh[0], bh[-1], h0l, hbuf,
                                    out, out_st, out_sb, hnl, cnt[l], err, T, B, **common)
        else:
            c0l = c0[l * dirs:(l + 1) * dirs]
            cnl = cn[l * dirs:(l + 1) * dirs] if want_cn else hbuf
            ck = _lstm_layer_kernel[grid](gis[0], gis[-1], gi_st, gi_sb, wh[0], wh[-1], h0l, c0l, hbuf, cbuf,
                                     out, out_st, out_sb, hnl, cnl, cnt[l], err, T, B,
                                     WRITE_CN=want_cn, **common)
        inp = out
    _LAST["cnt"], _LAST["expect"] = cnt, S * T
    _LAST["regs"] = (getattr(ck, "n_regs", None), getattr(ck, "n_spills", None))
    _finish(err)
    return (out if want_seq else None), hn, cn


def _params(rnn, num_layers, dirs):
    out = []
    for l in range(num_layers):
        row = []
        for d in range(dirs):
            sfx = "_l%d%s" % (l, "_reverse" if d == 1 else "")
            row.append(tuple(getattr(rnn, n + sfx) for n in ("weight_ih", "weight_hh", "bias_ih", "bias_hh")))
        out.append(row)
    return out
