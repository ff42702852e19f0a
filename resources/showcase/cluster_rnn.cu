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
