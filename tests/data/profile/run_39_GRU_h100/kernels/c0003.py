# SPDX-License-Identifier: MIT
# Kernel Workbench showcase candidate for KernelBench level 3, task 39_GRU.
# Strict fp32. On sm_90+ (H100) the recurrence is CUDA C++ built with load_inline, thread-block
# clusters of 8 CTAs, each CTA keeping its hidden units' rows of W_hh in registers and exchanging
# h(t-1) every step through distributed shared memory (counted by mbarriers):
# - a unidirectional stack runs ALL layers in ONE wavefront launch: one cluster per (layer, 5 batch
#   rows), input gates computed in the kernel, layer l+1 a few steps behind layer l;
# - a bidirectional stack runs, per layer, one Triton GEMM for the input gates of all time steps
#   (input_precision="ieee") and one launch for the time loop (one cluster per direction and row).
# Elsewhere (or with _CFG["backend"] = "triton") Triton kernels do the same layer by layer with a
# global-memory barrier. See resources/showcase/NOTES.md for the measurements.
# The reference module (nn.GRU) is created in __init__ ONLY to own the parameters with the
# reference's shapes, names and RNG draw order; forward never calls it (no cuDNN).
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
// SPDX-License-Identifier: MIT
// Recurrent kernels of the showcase RNN candidates (sm_90+: thread-block clusters).
// A thread-block cluster runs the whole time loop of one layer for R batch rows. CTA `rank` of
// the cluster owns hidden units [rank*U, (rank+1)*U) and keeps their G*U rows of W_hh in
// registers for all T steps. Every step each CTA pushes its new h slice into the shared memory of
// every CTA of the cluster (DSMEM, double buffered); the hardware co-schedules a cluster's CTAs.
#include <torch/extension.h>
#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAGuard.h>
#include <cooperative_groups.h>
namespace cg = cooperative_groups;

// Fast but accurate enough for atol 1e-4 over 512 steps: __expf and __fdividef are within a few
// ulp (relative ~2e-7); tanh through the sigmoid keeps the absolute error near 1e-7 (the
// hardware tanh.approx, ~5e-4, would not). Both saturate cleanly at +-inf.
__device__ __forceinline__ float kwb_sigmoid(float x) { return __fdividef(1.0f, 1.0f + __expf(-x)); }
__device__ __forceinline__ float kwb_tanh(float x) { return 2.0f * kwb_sigmoid(2.0f * x) - 1.0f; }

// ---- pieces shared by the layer kernel and the wavefront kernel --------------------------------

// Spin until the mbarrier at shared address `bar` completes the phase of this parity
// (test_wait: MODE 4; try_wait: MODE 1). Acquire at cluster scope: the st.async data of the
// other CTAs is visible afterwards.
template <bool kTryWait>
__device__ __forceinline__ void kwb_wait_parity(unsigned bar, unsigned parity)
{
    unsigned done = 0;
    while (!done) {
        if (kTryWait)
            asm volatile("{ .reg .pred p; mbarrier.try_wait.parity.acquire.cluster.shared::cta.b64 p, [%1], %2; selp.u32 %0, 1, 0, p; }"
                         : "=r"(done) : "r"(bar), "r"(parity) : "memory");
        else
            asm volatile("{ .reg .pred p; mbarrier.test_wait.parity.acquire.cluster.shared::cta.b64 p, [%1], %2; selp.u32 %0, 1, 0, p; }"
                         : "=r"(done) : "r"(bar), "r"(parity) : "memory");
    }
}

__device__ __forceinline__ void kwb_expect_bytes(unsigned bar, unsigned bytes)
{
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" :: "r"(bar), "r"(bytes) : "memory");
}

// This thread's slice of its unit j's W_hh rows (gate g = rows g*H + j): k = (v*TPU + q)*4 + e,
// interleaved so the TPU lanes of a group read consecutive float4s of h (no bank conflicts).
template <int G, int H, int TPU, int KS>
__device__ __forceinline__ void kwb_load_w(float (&wreg)[G][KS], const float* w, int j, int q)
{
#pragma unroll
    for (int g = 0; g < G; ++g)
#pragma unroll
        for (int v = 0; v < KS / 4; ++v) {
            const float4 x = *reinterpret_cast<const float4*>(w + (long long)(g * H + j) * H + (v * TPU + q) * 4);
            wreg[g][v * 4 + 0] = x.x; wreg[g][v * 4 + 1] = x.y; wreg[g][v * 4 + 2] = x.z; wreg[g][v * 4 + 3] = x.w;
        }
}

// Index of h[r][k] in an h buffer of R rows: rows of H (HU = 0) or, HU > 0, slices [H / HU][R][HU]
// (one slice per CTA of the cluster, as the bulk-copy exchange delivers them).
template <int H, int R, int HU>
__device__ __forceinline__ int kwb_h_at(int r, int k)
{
    if constexpr (HU > 0)
        return ((k / HU) * R + r) * HU + k % HU;
    else
        return r * H + k;
}

// part[v % NA][r][g] += this thread's k slice of W[g] . h[r] (h from shared memory, interleaved
// float4 chunks v*TPU + q), no reduction across the lanes of the group; NA independent
// accumulator chains hide the 4-cycle FMA latency when R*G chains alone are too few. W comes from
// registers (wreg) or shared memory (ws, rows of H).
template <int G, int H, int R, int TPU, int KS, bool kSmemW, int NA, int HU = 0>
__device__ __forceinline__ void kwb_dot(float (&part)[NA][R][G], const float (&wreg)[G][KS], const float* ws,
                                        const float* h, int q)
{
#pragma unroll
    for (int v = 0; v < KS / 4; ++v) {
        float4 wv[G];
#pragma unroll
        for (int g = 0; g < G; ++g) {
            if (kSmemW)
                wv[g] = *reinterpret_cast<const float4*>(ws + g * H + (v * TPU + q) * 4);
            else
                wv[g] = make_float4(wreg[g][v * 4 + 0], wreg[g][v * 4 + 1], wreg[g][v * 4 + 2], wreg[g][v * 4 + 3]);
        }
#pragma unroll
        for (int r = 0; r < R; ++r) {
            const float4 hv = *reinterpret_cast<const float4*>(h + kwb_h_at<H, R, HU>(r, (v * TPU + q) * 4));
#pragma unroll
            for (int g = 0; g < G; ++g) {
                float& ac = part[v % NA][r][g];
                ac = fmaf(wv[g].x, hv.x, ac);
                ac = fmaf(wv[g].y, hv.y, ac);
                ac = fmaf(wv[g].z, hv.z, ac);
                ac = fmaf(wv[g].w, hv.w, ac);
            }
        }
    }
}

// Butterfly over the TPU lanes of a group: every lane ends with the same (bit-identical) sums.
template <int N, int TPU>
__device__ __forceinline__ void kwb_group_sum(float* acc)
{
#pragma unroll
    for (int off = TPU / 2; off > 0; off >>= 1)
#pragma unroll
        for (int i = 0; i < N; ++i) acc[i] += __shfl_xor_sync(0xffffffffu, acc[i], off);
}

// acc[r][g] = sum over the group's lanes of W[g] . h[r].
template <int G, int H, int R, int TPU, int KS, bool kSmemW, int HU = 0>
__device__ __forceinline__ void kwb_matvec(float (&acc)[R][G], const float (&wreg)[G][KS], const float* ws,
                                           const float* h, int q)
{
    constexpr int NA = (R * G >= 6 || KS < 8) ? 1 : 2;
    float part[NA][R][G];
#pragma unroll
    for (int a = 0; a < NA; ++a)
#pragma unroll
        for (int r = 0; r < R; ++r)
#pragma unroll
            for (int g = 0; g < G; ++g) part[a][r][g] = 0.0f;
    kwb_dot<G, H, R, TPU, KS, kSmemW, NA, HU>(part, wreg, ws, h, q);
#pragma unroll
    for (int r = 0; r < R; ++r)
#pragma unroll
        for (int g = 0; g < G; ++g) {
            acc[r][g] = part[0][r][g];
#pragma unroll
            for (int a = 1; a < NA; ++a) acc[r][g] += part[a][r][g];
        }
    kwb_group_sum<R * G, TPU>(&acc[0][0]);
}

// One cell update from input gates x (x W_ih^T + biases) and recurrent sums a (W_hh h).
// GRU (G = 3, gates r, z, n; b_hn inside r * (...)) or LSTM (G = 4, gates i, f, g, o).
template <int G>
__device__ __forceinline__ float kwb_cell(const float (&x)[G], const float (&a)[G], float bhn, float hprev, float& c)
{
    if (G == 3) {
        const float rg = kwb_sigmoid(x[0] + a[0]);
        const float zg = kwb_sigmoid(x[1] + a[1]);
        const float ng = kwb_tanh(x[2] + rg * (a[2] + bhn));
        return ng + zg * (hprev - ng);
    }
    const float ig = kwb_sigmoid(x[0] + a[0]);
    const float fg = kwb_sigmoid(x[1] + a[1]);
    const float gg = kwb_tanh(x[2] + a[2]);
    const float og = kwb_sigmoid(x[G - 1] + a[G - 1]);
    c = fg * c + ig * gg;
    return og * kwb_tanh(c);
}

// Push this warp's new h (UPW = 32/TPU units, R rows) into the next h buffer of every CTA of the
// cluster: every lane gathers the warp's units with shuffles, then lane (r*CS + c) % 32 sends row
// r to CTA c as one vector st.async that lands on CTA c's mbarrier (complete_tx).
template <int H, int CS, int R, int TPU>
__device__ __forceinline__ void kwb_push_h(const float (&hnew)[R], const unsigned (&rem_s)[CS], const unsigned (&rem_b)[CS],
                                           int tid, int q, int rank, int nxt_off, unsigned nxt_bar_off)
{
    constexpr int UPW = 32 / TPU;
    constexpr int U = H / CS;
    const int lane = tid & 31;
    const int j0 = rank * U + (tid >> 5) * UPW;  // first unit of this warp
#pragma unroll
    for (int r = 0; r < R; ++r) {
        float hv[UPW];
#pragma unroll
        for (int u = 0; u < UPW; ++u) hv[u] = __shfl_sync(0xffffffffu, hnew[r], u * TPU + q);
#pragma unroll
        for (int c = 0; c < CS; ++c)
            if ((r * CS + c) % 32 == lane) {
                const unsigned dst = rem_s[c] + (unsigned)(nxt_off + r * H + j0) * 4u;
                const unsigned rbar = rem_b[c] + nxt_bar_off;
                if (UPW == 4)
                    asm volatile("st.async.shared::cluster.mbarrier::complete_tx::bytes.v4.b32 [%0], {%1, %2, %3, %4}, [%5];"
                                 :: "r"(dst), "r"(__float_as_uint(hv[0])), "r"(__float_as_uint(hv[UPW > 1 ? 1 : 0])),
                                    "r"(__float_as_uint(hv[UPW > 2 ? 2 : 0])), "r"(__float_as_uint(hv[UPW > 3 ? 3 : 0])),
                                    "r"(rbar) : "memory");
                else if (UPW == 2)
                    asm volatile("st.async.shared::cluster.mbarrier::complete_tx::bytes.v2.b32 [%0], {%1, %2}, [%3];"
                                 :: "r"(dst), "r"(__float_as_uint(hv[0])), "r"(__float_as_uint(hv[UPW > 1 ? 1 : 0])),
                                    "r"(rbar) : "memory");
                else
#pragma unroll
                    for (int u = 0; u < UPW; ++u)
                        asm volatile("st.async.shared::cluster.mbarrier::complete_tx::bytes.b32 [%0], %1, [%2];"
                                     :: "r"(dst + 4u * u), "r"(__float_as_uint(hv[u])), "r"(rbar) : "memory");
            }
    }
}

// Initial state of R rows starting at state row `row0` ([rows][H] in h0, c0): this thread's unit
// j into hown/cown, every unit of h into slot 0 of the h buffer (layout HU as in kwb_h_at).
template <int G, int H, int R, int NT, int HU>
__device__ __forceinline__ void kwb_load_state(float (&hown)[R], float (&cown)[R], float* hs, const float* h0,
                                               const float* c0, long long row0, int j, int tid)
{
#pragma unroll
    for (int r = 0; r < R; ++r) {
        hown[r] = h0[(row0 + r) * H + j];
        cown[r] = (G == 4) ? c0[(row0 + r) * H + j] : 0.0f;
    }
    for (int i = tid; i < R * H; i += NT) hs[kwb_h_at<H, R, HU>(i / H, i % H)] = h0[(row0 + i / H) * H + i % H];
}

// Final h (and c for the LSTM) of unit j for R rows starting at state row `row0`, where wanted.
template <int G, int H, int R>
__device__ __forceinline__ void kwb_store_state(const float (&hown)[R], const float (&cown)[R], float* hn, float* cn,
                                                long long row0, int j)
{
#pragma unroll
    for (int r = 0; r < R; ++r) {
        if (hn != nullptr) hn[(row0 + r) * H + j] = hown[r];
        if (G == 4 && cn != nullptr) cn[(row0 + r) * H + j] = cown[r];
    }
}

// Shared-memory and DSMEM addresses of the h double buffer and its two mbarriers, in this CTA
// and in every CTA of the cluster; thread 0 initialises the mbarriers and arms them for h(0) and
// h(1). The caller's cluster.sync() publishes the initialisation before any st.async arrives.
template <int CS>
struct KwbExchange {
    unsigned rem_s[CS], rem_b[CS];
    unsigned mbar_s;
    __device__ __forceinline__ void init(float* hs, unsigned long long* mbar, int tid, int T, unsigned bytes)
    {
        const unsigned hs_s = (unsigned)__cvta_generic_to_shared(hs);
        mbar_s = (unsigned)__cvta_generic_to_shared(mbar);
#pragma unroll
        for (int c = 0; c < CS; ++c) {
            asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(rem_s[c]) : "r"(hs_s), "r"(c));
            asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(rem_b[c]) : "r"(mbar_s), "r"(c));
        }
        if (tid == 0) {
            asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" :: "r"(mbar_s));
            asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" :: "r"(mbar_s + 8));
            asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
            // slot 1 receives h(0) for step 1, slot 0 receives h(1) for step 2
            if (T > 1) kwb_expect_bytes(mbar_s + 8, bytes);
            if (T > 2) kwb_expect_bytes(mbar_s, bytes);
        }
    }
    // Bulk-copy exchange, step 1 (the q == 0 lane of every unit): this unit's h(t) of R rows into
    // the CTA's outgoing slice [R][U], made visible to the async proxy.
    template <int R, int U>
    __device__ __forceinline__ static void stage_slice(float (&slice)[R][U], const float (&hnew)[R], int unit)
    {
#pragma unroll
        for (int r = 0; r < R; ++r) slice[r][unit] = hnew[r];
        asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
    }
    // Step 2 (one thread, after a CTA barrier): one bulk copy per CTA of the cluster puts the slice
    // at its place `rank` in slot `nxt` of that CTA's h buffer ([2][CS][R][U]), counted by that
    // CTA's mbarrier of the slot.
    template <int R, int U>
    __device__ __forceinline__ void send_slice(const float (&slice)[R][U], int rank, int nxt) const
    {
        const unsigned s = (unsigned)__cvta_generic_to_shared(&slice[0][0]);
        const unsigned off = (unsigned)((nxt * CS + rank) * R * U) * 4u;
#pragma unroll
        for (int c = 0; c < CS; ++c)
            asm volatile("cp.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];"
                         :: "r"(rem_s[c] + off), "r"(s), "r"((unsigned)(R * U * 4)), "r"(rem_b[c] + nxt * 8) : "memory");
    }
    // Before step `step` (> 0): wait for h(step-1) in slot step&1, then re-arm the slot.
    template <bool kTryWait>
    __device__ __forceinline__ void wait(int step, int tid, int T, unsigned bytes)
    {
        const unsigned bar = mbar_s + (step & 1) * 8;
        kwb_wait_parity<kTryWait>(bar, ((step - 1) >> 1) & 1);
        if (tid == 0 && step + 2 <= T - 1) kwb_expect_bytes(bar, bytes);  // for h(step+1)
    }
};

// Cluster RNN layer: one thread-block cluster per (direction, group of R batch rows) runs the
// whole time loop of one layer.
// MODE 0: cluster barrier per step (barrier.cluster arrive.release / wait.acquire).
// MODE 1: point to point: st.async into the other CTAs' shared memory, each landing on the
//         receiver's mbarrier (complete_tx); a CTA waits only for the bytes of h(t-1).
// MODE 4: MODE 1 polling with mbarrier.test_wait instead of try_wait.
// MODE 5: MODE 4, but the CTA's h(t) slice goes out as one bulk copy per CTA (cp.async.bulk after
//         a CTA barrier, as in the wavefront); h then sits in slices [CS][R][U].
// MODE 2, 3: timing probes only (wrong results): 2 = barrier without the h exchange, 3 = no
//         synchronisation at all.
template <int G, int H, int CS, int NT, int R, int MODE>
__global__ void __launch_bounds__(NT, 1)
kwb_rnn_layer(const float* __restrict__ gi0, const float* __restrict__ gi1, long long gi_st, long long gi_sb,
              const float* __restrict__ w0, const float* __restrict__ w1,
              const float* __restrict__ bh0, const float* __restrict__ bh1,
              const float* __restrict__ h0, const float* __restrict__ c0,
              float* __restrict__ out, long long out_st, long long out_sb,
              float* __restrict__ hn, float* __restrict__ cn, int T, int B)
{
    constexpr int U = H / CS;           // hidden units per CTA
    constexpr int TPU = NT / U;         // threads per unit (a power of two inside one warp)
    constexpr int KS = H / TPU;         // k elements per thread
    static_assert(H % CS == 0 && NT % U == 0 && TPU <= 32 && (TPU & (TPU - 1)) == 0, "layout");
    static_assert(KS % 4 == 0, "k slice must be float4 chunks");
    constexpr bool kP2P = MODE == 1 || MODE == 4 || MODE == 5;  // mbarrier-counted hand-off
    constexpr int HU = MODE == 5 ? U : 0;                        // h layout: rows (0) or slices
    __shared__ __align__(16) float hs[2][R][H];
    __shared__ __align__(16) float hout[MODE == 5 ? 2 : 1][R][U];
    __shared__ __align__(8) unsigned long long mbar[2];

    cg::cluster_group cluster = cg::this_cluster();
    const int rank = (int)cluster.block_rank();
    const int cid = blockIdx.x / CS;
    const int groups = B / R;
    const int d = cid / groups;
    const int b0 = (cid % groups) * R;
    const int tid = threadIdx.x;
    const int q = tid % TPU;             // lane within the unit's thread group
    const int j = rank * U + tid / TPU;  // the hidden unit this thread group owns
    const float* gi = d ? gi1 : gi0;
    const float* w = d ? w1 : w0;

    float wreg[G][KS];
    kwb_load_w<G, H, TPU, KS>(wreg, w, j, q);
    const float bhn = (G == 3) ? (d ? bh1 : bh0)[2 * H + j] : 0.0f;

    float hown[R], cown[R];
    kwb_load_state<G, H, R, NT, HU>(hown, cown, &hs[0][0][0], h0, c0, (long long)d * B + b0, j, tid);

    constexpr unsigned kBytes = R * H * 4;  // one step's h for this CTA's rows, from all CTAs
    KwbExchange<CS> ex;
    ex.init(&hs[0][0][0], &mbar[0], kP2P ? tid : -1, T, kBytes);
    float* rem[CS];
#pragma unroll
    for (int c = 0; c < CS; ++c) rem[c] = cluster.map_shared_rank(&hs[0][0][0], c);

    // Input gates (x W_ih^T + biases, from the GEMM) prefetched two steps ahead into a ring of
    // three register sets; the step loop is unrolled by three so the ring never moves (a move
    // would wait for the load and put its latency back on the serial chain).
    float xa[R][G], xb[R][G], xc[R][G];
    auto tstep = [&](int s) { return d ? (T - 1 - s) : s; };
    auto load_gates = [&](int s, float (&xs)[R][G]) {
        const int t = tstep(s < T ? s : T - 1);
#pragma unroll
        for (int r = 0; r < R; ++r)
#pragma unroll
            for (int g = 0; g < G; ++g) xs[r][g] = __ldg(gi + t * gi_st + (long long)(b0 + r) * gi_sb + g * H + j);
    };
    load_gates(0, xa);
    load_gates(1, xb);
    cluster.sync();  // every CTA of the cluster is running, its h0 and mbarriers are in place

    auto body = [&](int step, float (&xcur)[R][G], float (&xnext2)[R][G]) {
        const int slot = step & 1;
        if (kP2P && step > 0) ex.template wait<MODE == 1>(step, tid, T, kBytes);
        load_gates(step + 2, xnext2);
        float acc[R][G];
        kwb_matvec<G, H, R, TPU, KS, false, HU>(acc, wreg, nullptr, &hs[slot][0][0], q);
        float hnew[R];
#pragma unroll
        for (int r = 0; r < R; ++r) {
            hnew[r] = kwb_cell<G>(xcur[r], acc[r], bhn, hown[r], cown[r]);
            hown[r] = hnew[r];
        }
        // Push h(t) into every CTA's next buffer.
        const int nxt = (slot ^ 1) * R * H;
        if (MODE == 0) {
#pragma unroll
            for (int r = 0; r < R; ++r)
#pragma unroll
                for (int c = 0; c < CS; ++c)
                    if ((r * CS + c) % TPU == q) rem[c][nxt + r * H + j] = hnew[r];
            asm volatile("barrier.cluster.arrive.release.aligned;" ::: "memory");
        } else if (MODE == 1 || MODE == 4) {
            if (step + 1 < T)  // nobody waits for h(T-1) through shared memory
                kwb_push_h<H, CS, R, TPU>(hnew, ex.rem_s, ex.rem_b, tid, q, rank, nxt, (slot ^ 1) * 8);
        } else if constexpr (MODE == 5) {
            // hout[slot] is free again: every CTA waited for the copies out of it (step - 2)
            // before it sent the h(step - 1) this CTA has just waited for.
            if (q == 0) KwbExchange<CS>::stage_slice(hout[slot], hnew, tid / TPU);
            __syncthreads();
            if (tid == 0 && step + 1 < T) ex.send_slice(hout[slot], rank, slot ^ 1);
        } else if (MODE == 2) {
            asm volatile("barrier.cluster.arrive.release.aligned;" ::: "memory");
        }
        if (out != nullptr && q == 0) {
#pragma unroll
            for (int r = 0; r < R; ++r) out[tstep(step) * out_st + (long long)(b0 + r) * out_sb + d * H + j] = hnew[r];
        }
        if (MODE == 0 || MODE == 2) asm volatile("barrier.cluster.wait.acquire.aligned;" ::: "memory");
    };

    for (int step = 0; step < T; step += 3) {
        body(step, xa, xc);
        if (step + 1 < T) body(step + 1, xb, xa);
        if (step + 2 < T) body(step + 2, xc, xb);
    }
    cluster.sync();  // no CTA leaves while another may still write into its shared memory
    if (q == 0) kwb_store_state<G, H, R>(hown, cown, hn, cn, (long long)d * B + b0, j);
}

// Wavefront across layers (unidirectional stacks): ONE launch runs all L layers. Cluster
// (layer l, group of R batch rows) runs layer l's time loop like kwb_rnn_layer (W_hh in
// registers, h exchanged through DSMEM with st.async + mbarrier). Every layer computes its own
// input gates, W_ih slice in shared memory (zero-padded to K = H), from its input x(t): the
// model's input for layer 0, the layer below's h(t) for the others. That product runs for step
// t+1 while the exchange of h(t) is in flight, and its per-lane partial sums go straight into the
// next step's W_hh sums (one butterfly for both; the GRU's n gate keeps its own, b_hn sits inside
// r * (...)). Layer l stores h(t) into hseq with relaxed gpu-scope stores; hseq is filled with a
// sentinel (0xffffffff, a NaN no arithmetic produces) before the launch, and layer l+1 reads each
// of its x values with relaxed gpu-scope loads until the value is no longer the sentinel: no
// counter, no fence, no thread waits for another thread's hand-off. Layer l+1 so trails layer l
// by a few steps and the serial chain is about T + 3L steps instead of L*T. No layer ever waits
// for a layer above it, and all clusters must be resident at once (the spin is bounded: a lost
// hand-off sets *err and poisons the outputs with NaN instead of hanging the GPU).
__device__ __forceinline__ float kwb_ld_relaxed(const float* p)
{
    float v;
    asm volatile("ld.relaxed.gpu.global.f32 %0, [%1];" : "=f"(v) : "l"(p) : "memory");
    return v;
}
__device__ __forceinline__ void kwb_st_relaxed(float* p, float v)
{
    asm volatile("st.relaxed.gpu.global.f32 [%0], %1;" :: "l"(p), "f"(v) : "memory");
}
constexpr unsigned kKwbSentinel = 0xffffffffu;

template <int G, int H, int CS, int NT, int R, int XB>
__global__ void __launch_bounds__(NT, 1)
kwb_rnn_wave(const float* __restrict__ x, long long x_st, long long x_sb, int K0,
             const float* __restrict__ wih0, const float* __restrict__ whh, const float* __restrict__ wih,
             const float* __restrict__ bih, const float* __restrict__ bhh,
             const float* __restrict__ h0, const float* __restrict__ c0, float* hseq,
             float* __restrict__ out, long long out_st, long long out_sb,
             float* __restrict__ hn, float* __restrict__ cn, int* __restrict__ err,
             int T, int B, int L, int max_spin)
{
    // x: the model's input, x(t)[b][k] at x[t*x_st + b*x_sb + k], k < K0 <= H; wih0 [G*H][K0];
    // whh [L][G*H][H]; wih [L-1][G*H][H] (layers 1..L-1); bih, bhh [L][G*H]; h0, c0, hn, cn
    // [L][B][H]; hseq [L-1][T][B][H] (h of layers 0..L-2, sentinel-filled).
    constexpr int U = H / CS;
    constexpr int TPU = NT / U;
    constexpr int KS = H / TPU;
    constexpr int NX = 4;                       // ring of layer-input buffers x(t)
    constexpr int XPT = R * H / NT;             // x elements each thread stages per step
    constexpr int NN = G == 3 ? 1 : 0;          // GRU: the n gate's input sum stays apart
    static_assert(H % CS == 0 && NT % U == 0 && TPU <= 32 && (TPU & (TPU - 1)) == 0, "layout");
    static_assert(KS % 4 == 0 && (R * H) % NT == 0, "k slice / staging");
    extern __shared__ __align__(16) float smem[];
    float* hs = smem;                           // [2][R][H] (XB: [2][CS][R][U])  h(t-1) of this layer
    float* xs = hs + 2 * R * H;                 // [NX][R][H]  x(t) ring
    float* wis = xs + NX * R * H;               // [U][G][H]   this CTA's W_ih rows
    __shared__ __align__(8) unsigned long long mbar[2];
    __shared__ __align__(16) float hout[XB ? 2 : 1][R][U];  // XB: this CTA's h(t) slice, sent as one block
    __shared__ int s_failed;

    cg::cluster_group cluster = cg::this_cluster();
    const int rank = (int)cluster.block_rank();
    const int cid = blockIdx.x / CS;
    const int groups = B / R;
    const int l = cid / groups;
    const int b0 = (cid % groups) * R;
    const int tid = threadIdx.x;
    const int q = tid % TPU;
    const int ul = tid / TPU;
    const int j = rank * U + ul;
    const long long GH = (long long)G * H;

    float wreg[G][KS];
    kwb_load_w<G, H, TPU, KS>(wreg, whh + l * GH * H, j, q);
    const float bhn = (G == 3) ? bhh[l * GH + 2 * H + j] : 0.0f;
    float bin[G];  // input-gate biases: b_ih + b_hh (the GRU's b_hn stays inside r * (...))
#pragma unroll
    for (int g = 0; g < G; ++g)
        bin[g] = bih[l * GH + g * H + j] + ((G == 4 || g < 2) ? bhh[l * GH + g * H + j] : 0.0f);

    constexpr int HU = XB ? U : 0;  // h layout: rows (0) or slices
    float hown[R], cown[R];
    kwb_load_state<G, H, R, NT, HU>(hown, cown, hs, h0, c0, (long long)l * B + b0, j, tid);
    const int kin = l == 0 ? K0 : H;
    for (int i = tid; i < U * G * H; i += NT) {
        const int u = i / (G * H), g = (i / H) % G, k = i % H;
        const long long row = g * H + rank * U + u;
        wis[i] = k >= kin ? 0.0f : (l == 0 ? wih0[row * K0 + k] : wih[((long long)(l - 1) * GH + row) * H + k]);
    }
    if (tid == 0) s_failed = 0;

    constexpr unsigned kBytes = R * H * 4;
    KwbExchange<CS> ex;
    ex.init(hs, &mbar[0], tid, T, kBytes);

    // x(tau) on its way from global memory to the ring: loaded one step before it is staged.
    float xl[XPT];
    const float* xin = l > 0 ? hseq + (long long)(l - 1) * T * B * H : nullptr;
    auto load_input = [&](int tau) {
        if (tau >= T) return;
#pragma unroll
        for (int e = 0; e < XPT; ++e) {
            const int i = tid + e * NT, r = i / H, k = i % H;
            if (l == 0)
                xl[e] = k < K0 ? __ldg(x + tau * x_st + (long long)(b0 + r) * x_sb + k) : 0.0f;
            else
                xl[e] = kwb_ld_relaxed(xin + ((long long)tau * B + b0 + r) * H + k);
        }
    };
    auto store_input = [&](int tau) {
        if (tau >= T) return;
#pragma unroll
        for (int e = 0; e < XPT; ++e) {
            if (l > 0 && __float_as_uint(xl[e]) == kKwbSentinel) {  // not there yet: wait for it
                const int i = tid + e * NT;
                const float* p = xin + ((long long)tau * B + b0 + i / H) * H + (i % H);
                for (int it = 0; __float_as_uint(xl[e]) == kKwbSentinel; ++it) {
                    if (it >= max_spin || *(volatile int*)&s_failed) {
                        s_failed = 1;
                        atomicExch(err, 1);
                        xl[e] = 0.0f;
                        break;
                    }
                    xl[e] = kwb_ld_relaxed(p);
                }
            }
            xs[(tau % NX) * R * H + tid + e * NT] = xl[e];
        }
    };
    // Input-gate partial sums of step tau (this lane's k slice, not yet summed over the group):
    // pin for the gates that add to W_hh h, xn (summed) for the GRU's n gate.
    float pin[1][R][G], xn[R];
    auto input_partials = [&](int tau) {
#pragma unroll
        for (int r = 0; r < R; ++r)
#pragma unroll
            for (int g = 0; g < G; ++g) pin[0][r][g] = 0.0f;
        kwb_dot<G, H, R, TPU, KS, true, 1>(pin, wreg, wis + ul * G * H, xs + (tau % NX) * R * H, q);
        if (NN) {
#pragma unroll
            for (int r = 0; r < R; ++r) { xn[r] = pin[0][r][G - 1]; pin[0][r][G - 1] = 0.0f; }
            kwb_group_sum<R, TPU>(xn);
        }
    };

    __syncthreads();
    load_input(0); store_input(0);
    load_input(1); store_input(1);
    load_input(2);
    __syncthreads();
    input_partials(0);
    cluster.sync();  // every CTA runs, its h0, W_ih slice and mbarriers are in place

    // XB = 0: every warp pushes its units' h(t) with st.async (16 bytes per row and CTA).
    // XB = 1: the q == 0 lanes put h(t) into hout, and after the CTA barrier thread 0 sends the
    // whole slice (R x U floats) to every CTA with one bulk copy each (cp.async.bulk, counted by
    // the receiver's mbarrier); h then sits in slices [CS][R][U]. hout is double buffered: the
    // copies out of hout[slot] have landed before anyone writes it again two steps later (every
    // CTA has waited for them before it sent the h that step needs).
    bool failed = false;
    for (int step = 0; step < T; ++step) {
        const int slot = step & 1;
        if (step > 0) ex.template wait<false>(step, tid, T, kBytes);
        if (!XB) {
            __syncthreads();  // orders the staging of x(step+1)
            failed = s_failed != 0;
        }
        float acc[1][R][G];
#pragma unroll
        for (int r = 0; r < R; ++r)
#pragma unroll
            for (int g = 0; g < G; ++g) acc[0][r][g] = pin[0][r][g];
        kwb_dot<G, H, R, TPU, KS, false, 1, HU>(acc, wreg, nullptr, hs + slot * R * H, q);
        kwb_group_sum<R * G, TPU>(&acc[0][0][0]);
        float hnew[R];
#pragma unroll
        for (int r = 0; r < R; ++r) {
            float xg[G];
#pragma unroll
            for (int g = 0; g < G; ++g) xg[g] = bin[g] + ((NN && g == G - 1) ? xn[r] : 0.0f);
            hnew[r] = kwb_cell<G>(xg, acc[0][r], bhn, hown[r], cown[r]);
            if (failed) hnew[r] = __int_as_float(0x7fc00000);
            hown[r] = hnew[r];
        }
        if (!XB && step + 1 < T)
            kwb_push_h<H, CS, R, TPU>(hnew, ex.rem_s, ex.rem_b, tid, q, rank, (slot ^ 1) * R * H, (slot ^ 1) * 8);
        if (q == 0) {
            if constexpr (XB) KwbExchange<CS>::stage_slice(hout[slot], hnew, ul);
            if (l < L - 1) {  // h(step) for the layer above
#pragma unroll
                for (int r = 0; r < R; ++r) kwb_st_relaxed(hseq + (((long long)l * T + step) * B + b0 + r) * H + j, hnew[r]);
            } else if (out != nullptr) {
#pragma unroll
                for (int r = 0; r < R; ++r) out[step * out_st + (long long)(b0 + r) * out_sb + j] = hnew[r];
            }
        }
        store_input(step + 2);
        if constexpr (XB) {
            __syncthreads();  // hout complete; orders the staging of x(step+2)
            failed = s_failed != 0;
            if (tid == 0 && step + 1 < T) ex.send_slice(hout[slot], rank, slot ^ 1);
        }
        load_input(step + 3);
        if (step + 1 < T) input_partials(step + 1);
    }
    cluster.sync();
    if (q == 0) kwb_store_state<G, H, R>(hown, cown, hn, cn, (long long)l * B + b0, j);
}

// Launch configuration of a grid of `blocks` CTAs in clusters of `cs` (attr must outlive cfg);
// also sets the kernel attributes it needs (dynamic shared memory, non-portable cluster size).
template <typename Kernel>
static cudaLaunchConfig_t kwb_cluster_config(Kernel kern, int blocks, int threads, size_t smem, int cs,
                                             cudaStream_t stream, cudaLaunchAttribute* attr)
{
    if (smem > 0) C10_CUDA_CHECK(cudaFuncSetAttribute(kern, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem));
    if (cs > 8) C10_CUDA_CHECK(cudaFuncSetAttribute(kern, cudaFuncAttributeNonPortableClusterSizeAllowed, 1));
    cudaLaunchConfig_t cfg = {};
    cfg.gridDim = dim3(blocks, 1, 1);
    cfg.blockDim = dim3(threads, 1, 1);
    cfg.dynamicSmemBytes = smem;
    cfg.stream = stream;
    attr[0].id = cudaLaunchAttributeClusterDimension;
    attr[0].val.clusterDim.x = cs;
    attr[0].val.clusterDim.y = 1;
    attr[0].val.clusterDim.z = 1;
    cfg.attrs = attr;
    cfg.numAttrs = 1;
    return cfg;
}

template <int G, int H, int CS, int NT, int R, int MODE>
static void kwb_launch(int dirs, const float* gi0, const float* gi1, long long gi_st, long long gi_sb,
                       const float* w0, const float* w1, const float* bh0, const float* bh1,
                       const float* h0, const float* c0, float* out, long long out_st, long long out_sb,
                       float* hn, float* cn, int T, int B, cudaStream_t stream)
{
    auto kern = kwb_rnn_layer<G, H, CS, NT, R, MODE>;
    cudaLaunchAttribute attr[1];
    const cudaLaunchConfig_t cfg = kwb_cluster_config(kern, dirs * (B / R) * CS, NT, 0, CS, stream, attr);
    C10_CUDA_CHECK(cudaLaunchKernelEx(&cfg, kern, gi0, gi1, gi_st, gi_sb, w0, w1, bh0, bh1, h0, c0, out, out_st,
                                      out_sb, hn, cn, T, B));
}

// An optional tensor's data, or null when it is absent or empty.
static float* kwb_ptr(const c10::optional<torch::Tensor>& t) {
    return (t.has_value() && t->defined() && t->numel() > 0) ? t->data_ptr<float>() : nullptr;
}

template <int G, int H, int CS, int NT, int R, int XB>
static size_t kwb_wave_smem() { return (size_t)((2 + 4) * R * H + (H / CS) * G * H) * sizeof(float); }

// Whether the GPU holds `needed` clusters of this wavefront instance at once, asked once per
// instance and device (the statics are per template instance).
template <int G, int H, int CS, int NT, int R, int XB>
static bool kwb_wave_fits(const cudaLaunchConfig_t& cfg, int needed)
{
    static int fits[64];
    static bool known[64] = {};
    int dev = 0;
    C10_CUDA_CHECK(cudaGetDevice(&dev));
    int n = 0;
    if (dev < 64 && known[dev]) {
        n = fits[dev];
    } else {
        C10_CUDA_CHECK(cudaOccupancyMaxActiveClusters(&n, kwb_rnn_wave<G, H, CS, NT, R, XB>, &cfg));
        if (dev < 64) { fits[dev] = n; known[dev] = true; }
    }
    return n >= needed;
}

// The whole unidirectional stack in one launch (see kwb_rnn_wave). hseq must hold the sentinel
// (every word 0xffffffff) and err 0. Returns the number of clusters the launch needs; it refuses
// (returns -needed) when the GPU cannot hold them all.
int64_t rnn_wave(int64_t cell, int64_t cs, int64_t nt, int64_t rows, int64_t xb,
                 torch::Tensor x, int64_t x_st, int64_t x_sb, torch::Tensor wih0, torch::Tensor whh, torch::Tensor wih,
                 torch::Tensor bih, torch::Tensor bhh, torch::Tensor h0, c10::optional<torch::Tensor> c0,
                 torch::Tensor hseq, c10::optional<torch::Tensor> out, int64_t out_st, int64_t out_sb,
                 c10::optional<torch::Tensor> hn, c10::optional<torch::Tensor> cn, torch::Tensor err,
                 int64_t T, int64_t B, int64_t L, int64_t H, int64_t max_spin)
{
    TORCH_CHECK(H == 256, "cluster RNN kernel is built for hidden size 256, got ", H);
    TORCH_CHECK(B % rows == 0, "batch ", B, " is not a multiple of rows per cluster ", rows);
    TORCH_CHECK(L >= 2, "the wavefront needs at least two layers");
    const int64_t K0 = wih0.size(1);
    TORCH_CHECK(K0 <= H && x.size(-1) == K0 && x.stride(-1) == 1, "layer-0 input size ", K0, " must be <= ", H);
    for (const auto* t : {&wih0, &whh, &wih, &bih, &bhh, &h0, &hseq})
        TORCH_CHECK(t->is_cuda() && t->scalar_type() == torch::kFloat32 && t->is_contiguous(), "fp32 contiguous CUDA tensors");
    TORCH_CHECK(x.is_cuda() && x.scalar_type() == torch::kFloat32, "fp32 CUDA input");
    TORCH_CHECK(err.scalar_type() == torch::kInt32, "int32 error flag");
    const c10::cuda::CUDAGuard guard(x.device());
    cudaStream_t st = at::cuda::getCurrentCUDAStream();
    const int needed = (int)(L * (B / rows));
#define KWB_WCASE(G_, CS_, NT_, R_, XB_) \
    if (cell == G_ && cs == CS_ && nt == NT_ && rows == R_ && xb == XB_) { \
        auto kern = kwb_rnn_wave<G_, 256, CS_, NT_, R_, XB_>; \
        cudaLaunchAttribute attr[1]; \
        const cudaLaunchConfig_t cfg = kwb_cluster_config(kern, needed * CS_, NT_, kwb_wave_smem<G_, 256, CS_, NT_, R_, XB_>(), \
                                                          CS_, st, attr); \
        if (!kwb_wave_fits<G_, 256, CS_, NT_, R_, XB_>(cfg, needed)) return -needed; \
        C10_CUDA_CHECK(cudaLaunchKernelEx(&cfg, kern, (const float*)x.data_ptr<float>(), (long long)x_st, \
            (long long)x_sb, (int)K0, (const float*)wih0.data_ptr<float>(), (const float*)whh.data_ptr<float>(), \
            (const float*)wih.data_ptr<float>(), (const float*)bih.data_ptr<float>(), (const float*)bhh.data_ptr<float>(), \
            (const float*)h0.data_ptr<float>(), (const float*)kwb_ptr(c0), hseq.data_ptr<float>(), kwb_ptr(out), \
            (long long)out_st, (long long)out_sb, kwb_ptr(hn), kwb_ptr(cn), err.data_ptr<int>(), (int)T, (int)B, (int)L, \
            (int)max_spin)); \
        return needed; }
    KWB_WAVE_INSTANCES
#undef KWB_WCASE
    TORCH_CHECK(false, "no wavefront instance for cell ", cell, " cluster ", cs, " threads ", nt, " rows ", rows,
                " exchange ", xb);
}

// cell: 3 = GRU, 4 = LSTM. Tensors are fp32 and contiguous; W_hh is [G*H, H].
void rnn_layer(int64_t cell, int64_t cs, int64_t nt, int64_t rows, int64_t mode, int64_t dirs,
               torch::Tensor gi0, torch::Tensor gi1, int64_t gi_st, int64_t gi_sb,
               torch::Tensor w0, torch::Tensor w1, torch::Tensor bh0, torch::Tensor bh1,
               torch::Tensor h0, c10::optional<torch::Tensor> c0,
               c10::optional<torch::Tensor> out, int64_t out_st, int64_t out_sb,
               c10::optional<torch::Tensor> hn, c10::optional<torch::Tensor> cn, int64_t T, int64_t B, int64_t H)
{
    TORCH_CHECK(H == 256, "cluster RNN kernel is built for hidden size 256, got ", H);
    TORCH_CHECK(B % rows == 0, "batch ", B, " is not a multiple of rows per cluster ", rows);
    for (const auto* t : {&w0, &w1, &bh0, &bh1, &h0})
        TORCH_CHECK(t->is_cuda() && t->scalar_type() == torch::kFloat32 && t->is_contiguous(), "fp32 contiguous CUDA tensors");
    for (const auto* t : {&gi0, &gi1})  // read through gi_st / gi_sb: a column slice of one GEMM output is fine
        TORCH_CHECK(t->is_cuda() && t->scalar_type() == torch::kFloat32 && t->stride(-1) == 1, "fp32 CUDA gates, unit stride");
    const c10::cuda::CUDAGuard guard(gi0.device());
    cudaStream_t st = at::cuda::getCurrentCUDAStream();
#define KWB_ARGS (int)dirs, gi0.data_ptr<float>(), gi1.data_ptr<float>(), gi_st, gi_sb, w0.data_ptr<float>(), \
    w1.data_ptr<float>(), bh0.data_ptr<float>(), bh1.data_ptr<float>(), h0.data_ptr<float>(), kwb_ptr(c0), \
    kwb_ptr(out), out_st, out_sb, kwb_ptr(hn), kwb_ptr(cn), (int)T, (int)B, st
#define KWB_CASE(G_, CS_, NT_, R_, M_) \
    if (cell == G_ && cs == CS_ && nt == NT_ && rows == R_ && mode == M_) { kwb_launch<G_, 256, CS_, NT_, R_, M_>(KWB_ARGS); return; }
    KWB_INSTANCES
#undef KWB_CASE
#undef KWB_ARGS
    TORCH_CHECK(false, "no cluster RNN instance for cell ", cell, " cluster ", cs, " threads ", nt, " rows ", rows, " mode ", mode);
}

// How many clusters of this configuration the GPU can hold at once (0: it cannot launch).
int64_t max_active_clusters(int64_t cell, int64_t cs, int64_t nt, int64_t rows, int64_t mode)
{
    int n = -1;
#define KWB_CASE(G_, CS_, NT_, R_, M_) \
    if (cell == G_ && cs == CS_ && nt == NT_ && rows == R_ && mode == M_) { \
        auto kern = kwb_rnn_layer<G_, 256, CS_, NT_, R_, M_>; \
        cudaLaunchAttribute attr[1]; \
        const cudaLaunchConfig_t cfg = kwb_cluster_config(kern, CS_ * 64, NT_, 0, CS_, nullptr, attr); \
        C10_CUDA_CHECK(cudaOccupancyMaxActiveClusters(&n, kern, &cfg)); }
    KWB_INSTANCES
#undef KWB_CASE
    return n;
}
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


class ModelNew(nn.Module):
    def __init__(self, input_size, hidden_size, num_layers=3, bias=True, batch_first=False):
        super(ModelNew, self).__init__()
        # Parameter owner only (same names/shapes/init order as the reference); never called.
        self.gru = nn.GRU(input_size, hidden_size, num_layers, bias, batch_first,
                          dropout=0, bidirectional=False)
        self.hidden_size = hidden_size
        self.num_layers = num_layers
        self.batch_first = batch_first
        self.dirs = 1

    def forward(self, x, h0):
        params = _params(self.gru, self.num_layers, self.dirs)
        seq, hn, _ = _rnn_stack("gru", params, x, h0, None, self.num_layers, self.dirs, self.hidden_size,
                                self.batch_first, want_seq=True, want_hn=False, want_cn=False)
        return seq