// SPDX-License-Identifier: MIT
// Cluster RNN layer: one thread-block cluster per (direction, group of R batch rows) runs the
// whole time loop of one layer. CTA `rank` of the cluster owns hidden units
// [rank*U, (rank+1)*U) and keeps their G*U rows of W_hh in registers for all T steps. Every step
// each CTA pushes its new h slice into the shared memory of every CTA of the cluster (DSMEM,
// double buffered), then the cluster barrier (arrive.release / wait.acquire) publishes it.
// No global-memory flag, no spin: the hardware co-schedules a cluster's CTAs.
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

// MODE 0: cluster barrier per step (barrier.cluster arrive.release / wait.acquire).
// MODE 1: point to point: st.async into the other CTAs' shared memory, each landing on the
//         receiver's mbarrier (complete_tx); a CTA waits only for the bytes of h(t-1).
// MODE 4: MODE 1 polling with mbarrier.test_wait instead of try_wait.
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
    constexpr int KV = KS / 4;          // float4 chunks per thread
    static_assert(H % CS == 0 && NT % U == 0 && TPU <= 32 && (TPU & (TPU - 1)) == 0, "layout");
    static_assert(KS % 4 == 0, "k slice must be float4 chunks");
    __shared__ __align__(16) float hs[2][R][H];

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

    // This thread's slice of W_hh: gate g, k = (v*TPU + q)*4 + e (interleaved so the TPU lanes of
    // a group read consecutive float4s of h: no shared-memory bank conflicts).
    float wreg[G][KS];
#pragma unroll
    for (int g = 0; g < G; ++g)
#pragma unroll
        for (int v = 0; v < KV; ++v) {
            const float4 x = *reinterpret_cast<const float4*>(w + (long long)(g * H + j) * H + (v * TPU + q) * 4);
            wreg[g][v * 4 + 0] = x.x; wreg[g][v * 4 + 1] = x.y; wreg[g][v * 4 + 2] = x.z; wreg[g][v * 4 + 3] = x.w;
        }
    const float bhn = (G == 3) ? (d ? bh1 : bh0)[2 * H + j] : 0.0f;

    float hown[R], cown[R];
#pragma unroll
    for (int r = 0; r < R; ++r) {
        hown[r] = h0[(long long)(d * B + b0 + r) * H + j];
        cown[r] = (G == 4) ? c0[(long long)(d * B + b0 + r) * H + j] : 0.0f;
    }
    for (int i = tid; i < R * H; i += NT)
        hs[0][i / H][i % H] = h0[(long long)(d * B + b0 + i / H) * H + (i % H)];

    float* rem[CS];
    unsigned rem_s[CS], rem_b[CS];  // shared::cluster addresses of every CTA's h buffer, mbarriers (MODE 1)
    __shared__ __align__(8) unsigned long long mbar[2];
    const unsigned hs_s = (unsigned)__cvta_generic_to_shared(&hs[0][0][0]);
    const unsigned mbar_s = (unsigned)__cvta_generic_to_shared(&mbar[0]);
#pragma unroll
    for (int c = 0; c < CS; ++c) {
        rem[c] = cluster.map_shared_rank(&hs[0][0][0], c);
        asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(rem_s[c]) : "r"(hs_s), "r"(c));
        asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(rem_b[c]) : "r"(mbar_s), "r"(c));
    }
    constexpr unsigned kBytes = R * H * 4;  // one step's h for this CTA's rows, from all CTAs
    if ((MODE == 1 || MODE == 4) && tid == 0) {
        asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" :: "r"(mbar_s));
        asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" :: "r"(mbar_s + 8));
        asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
        // slot 1 receives h(0) for step 1, slot 0 receives h(1) for step 2
        if (T > 1) asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" :: "r"(mbar_s + 8), "r"(kBytes) : "memory");
        if (T > 2) asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" :: "r"(mbar_s), "r"(kBytes) : "memory");
    }

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
        if ((MODE == 1 || MODE == 4) && step > 0) {
            const unsigned bar = mbar_s + slot * 8;
            const unsigned parity = ((step - 1) >> 1) & 1;
            unsigned done = 0;
            while (!done) {
                if (MODE == 1)
                    asm volatile("{ .reg .pred p; mbarrier.try_wait.parity.acquire.cluster.shared::cta.b64 p, [%1], %2; selp.u32 %0, 1, 0, p; }"
                                 : "=r"(done) : "r"(bar), "r"(parity) : "memory");
                else
                    asm volatile("{ .reg .pred p; mbarrier.test_wait.parity.acquire.cluster.shared::cta.b64 p, [%1], %2; selp.u32 %0, 1, 0, p; }"
                                 : "=r"(done) : "r"(bar), "r"(parity) : "memory");
            }
            if (tid == 0 && step + 2 <= T - 1)  // re-arm this slot for h(step+1)
                asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" :: "r"(bar), "r"(kBytes) : "memory");
        }
        load_gates(step + 2, xnext2);

        // NA independent accumulator chains per (row, gate): enough FMAs in flight to hide the
        // 4-cycle FMA latency when R*G chains alone are too few.
        constexpr int NA = (R * G >= 6 || KV < 2) ? 1 : 2;
        float acc[R][G], acc2[NA][R][G];
#pragma unroll
        for (int a = 0; a < NA; ++a)
#pragma unroll
            for (int r = 0; r < R; ++r)
#pragma unroll
                for (int g = 0; g < G; ++g) acc2[a][r][g] = 0.0f;
#pragma unroll
        for (int v = 0; v < KV; ++v)
#pragma unroll
            for (int r = 0; r < R; ++r) {
                const float4 hv = *reinterpret_cast<const float4*>(&hs[slot][r][(v * TPU + q) * 4]);
#pragma unroll
                for (int g = 0; g < G; ++g) {
                    float& ac = acc2[v % NA][r][g];
                    ac = fmaf(wreg[g][v * 4 + 0], hv.x, ac);
                    ac = fmaf(wreg[g][v * 4 + 1], hv.y, ac);
                    ac = fmaf(wreg[g][v * 4 + 2], hv.z, ac);
                    ac = fmaf(wreg[g][v * 4 + 3], hv.w, ac);
                }
            }
#pragma unroll
        for (int r = 0; r < R; ++r)
#pragma unroll
            for (int g = 0; g < G; ++g) {
                acc[r][g] = acc2[0][r][g];
#pragma unroll
                for (int a = 1; a < NA; ++a) acc[r][g] += acc2[a][r][g];
            }
        // Butterfly: every lane of the group ends with the same (bit-identical) sums.
#pragma unroll
        for (int off = TPU / 2; off > 0; off >>= 1)
#pragma unroll
            for (int r = 0; r < R; ++r)
#pragma unroll
                for (int g = 0; g < G; ++g) acc[r][g] += __shfl_xor_sync(0xffffffffu, acc[r][g], off);

        float hnew[R];
#pragma unroll
        for (int r = 0; r < R; ++r) {
            if (G == 3) {
                const float rg = kwb_sigmoid(xcur[r][0] + acc[r][0]);
                const float zg = kwb_sigmoid(xcur[r][1] + acc[r][1]);
                const float ng = kwb_tanh(xcur[r][2] + rg * (acc[r][2] + bhn));
                hnew[r] = ng + zg * (hown[r] - ng);
            } else {
                const float ig = kwb_sigmoid(xcur[r][0] + acc[r][0]);
                const float fg = kwb_sigmoid(xcur[r][1] + acc[r][1]);
                const float gg = kwb_tanh(xcur[r][2] + acc[r][2]);
                const float og = kwb_sigmoid(xcur[r][G - 1] + acc[r][G - 1]);
                cown[r] = fg * cown[r] + ig * gg;
                hnew[r] = og * kwb_tanh(cown[r]);
            }
            hown[r] = hnew[r];
        }
        // Push h(t) into every CTA's next buffer; the lanes of a group share the R*CS stores.
        const int nxt = (slot ^ 1) * R * H;
        if (MODE == 0) {
#pragma unroll
            for (int r = 0; r < R; ++r)
#pragma unroll
                for (int c = 0; c < CS; ++c)
                    if ((r * CS + c) % TPU == q) rem[c][nxt + r * H + j] = hnew[r];
            asm volatile("barrier.cluster.arrive.release.aligned;" ::: "memory");
        } else if (MODE == 1 || MODE == 4) {
            if (step + 1 < T) {  // nobody waits for h(T-1) through shared memory
                // The UPW units of a warp travel together: every lane gathers their h with
                // shuffles, then lane (r*CS + c) % 32 sends row r to CTA c in one vector store.
                constexpr int UPW = 32 / TPU;
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
                            const unsigned dst = rem_s[c] + (unsigned)(nxt + r * H + j0) * 4u;
                            const unsigned rbar = rem_b[c] + (slot ^ 1) * 8;
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
    if (q == 0) {
#pragma unroll
        for (int r = 0; r < R; ++r) {
            if (hn != nullptr) hn[(long long)(d * B + b0 + r) * H + j] = hown[r];
            if (G == 4 && cn != nullptr) cn[(long long)(d * B + b0 + r) * H + j] = cown[r];
        }
    }
}

template <int G, int H, int CS, int NT, int R, int MODE>
static void kwb_launch(int dirs, const float* gi0, const float* gi1, long long gi_st, long long gi_sb,
                       const float* w0, const float* w1, const float* bh0, const float* bh1,
                       const float* h0, const float* c0, float* out, long long out_st, long long out_sb,
                       float* hn, float* cn, int T, int B, cudaStream_t stream)
{
    auto kern = kwb_rnn_layer<G, H, CS, NT, R, MODE>;
    if (CS > 8) C10_CUDA_CHECK(cudaFuncSetAttribute(kern, cudaFuncAttributeNonPortableClusterSizeAllowed, 1));
    cudaLaunchConfig_t cfg = {};
    cfg.gridDim = dim3(dirs * (B / R) * CS, 1, 1);
    cfg.blockDim = dim3(NT, 1, 1);
    cfg.dynamicSmemBytes = 0;
    cfg.stream = stream;
    cudaLaunchAttribute attr[1];
    attr[0].id = cudaLaunchAttributeClusterDimension;
    attr[0].val.clusterDim.x = CS;
    attr[0].val.clusterDim.y = 1;
    attr[0].val.clusterDim.z = 1;
    cfg.attrs = attr;
    cfg.numAttrs = 1;
    C10_CUDA_CHECK(cudaLaunchKernelEx(&cfg, kern, gi0, gi1, gi_st, gi_sb, w0, w1, bh0, bh1, h0, c0, out, out_st,
                                      out_sb, hn, cn, T, B));
}

static const float* kwb_cptr(const c10::optional<torch::Tensor>& t) {
    return (t.has_value() && t->defined() && t->numel() > 0) ? t->data_ptr<float>() : nullptr;
}
static float* kwb_ptr(const c10::optional<torch::Tensor>& t) {
    return (t.has_value() && t->defined() && t->numel() > 0) ? t->data_ptr<float>() : nullptr;
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
    for (const auto* t : {&gi0, &gi1, &w0, &w1, &bh0, &bh1, &h0})
        TORCH_CHECK(t->is_cuda() && t->scalar_type() == torch::kFloat32 && t->is_contiguous(), "fp32 contiguous CUDA tensors");
    const c10::cuda::CUDAGuard guard(gi0.device());
    cudaStream_t st = at::cuda::getCurrentCUDAStream();
#define KWB_ARGS (int)dirs, gi0.data_ptr<float>(), gi1.data_ptr<float>(), gi_st, gi_sb, w0.data_ptr<float>(), \
    w1.data_ptr<float>(), bh0.data_ptr<float>(), bh1.data_ptr<float>(), h0.data_ptr<float>(), kwb_cptr(c0), \
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
        if (CS_ > 8) C10_CUDA_CHECK(cudaFuncSetAttribute(kern, cudaFuncAttributeNonPortableClusterSizeAllowed, 1)); \
        cudaLaunchConfig_t cfg = {}; cfg.gridDim = dim3(CS_ * 64, 1, 1); cfg.blockDim = dim3(NT_, 1, 1); \
        cudaLaunchAttribute attr[1]; attr[0].id = cudaLaunchAttributeClusterDimension; \
        attr[0].val.clusterDim.x = CS_; attr[0].val.clusterDim.y = 1; attr[0].val.clusterDim.z = 1; \
        cfg.attrs = attr; cfg.numAttrs = 1; \
        C10_CUDA_CHECK(cudaOccupancyMaxActiveClusters(&n, kern, &cfg)); }
    KWB_INSTANCES
#undef KWB_CASE
    return n;
}
