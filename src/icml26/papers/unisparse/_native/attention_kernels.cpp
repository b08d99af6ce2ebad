// Block-sparse causal attention on the CPU [P30] (see attention_kernels.h).
//
// Per query block: the query rows pre-scaled by scale * log2(e), then for each selected key block S = Q K^T from a
// register-tiled product against K^T (K is transposed once per call, block by block), the causal mask on the
// diagonal block, an online softmax (running row max and sum, FlashAttention-style) and O += P V from a second
// register-tiled product. AVX-512 and AVX2 paths are compiled with `#pragma GCC target` and chosen at run time with
// __builtin_cpu_supports, so the module runs on any x86-64; other CPUs take the scalar path. Query blocks are
// handed to threads from an atomic counter, the most expensive (most key blocks) first.
#include "attention_kernels.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstring>
#include <numeric>
#include <thread>
#include <vector>

#if defined(__x86_64__) || defined(_M_X64)
#define UNISPARSE_X86 1
#include <immintrin.h>
#else
#define UNISPARSE_X86 0
#endif

namespace unisparse {

namespace {

struct Scratch {
    std::vector<float> qs, s, acc, m, l;
    Scratch(int64_t B, int64_t d) : qs(B * d), s(B * B), acc(B * d), m(B), l(B) {}
};

// ------------------------------------------------------------------------------------------------ scalar path
void run_item_scalar(const Args& a, const float* kt, int64_t item, Scratch& w) {
    const int64_t B = a.block, d = a.d, nb = a.n / B;
    const int64_t h = item / nb, i = item % nb, g = h / (a.hq / a.hkv);
    const float* q = a.q + (h * a.n + i * B) * d;
    std::fill(w.acc.begin(), w.acc.end(), 0.0f);
    std::fill(w.m.begin(), w.m.end(), -INFINITY);
    std::fill(w.l.begin(), w.l.end(), 0.0f);
    for (int32_t e = a.row_ptr[item]; e < a.row_ptr[item + 1]; ++e) {
        const int64_t j = a.cols[e];
        const float* ktj = kt + (g * nb + j) * d * B;
        const float* vj = a.v + (g * a.n + j * B) * d;
        for (int64_t r = 0; r < B; ++r) {
            float* row = w.s.data() + r * B;
            const int64_t last = (j == i) ? r + 1 : B;
            float mx = -INFINITY;
            for (int64_t c = 0; c < last; ++c) {
                float dot = 0.0f;
                for (int64_t t = 0; t < d; ++t) dot += q[r * d + t] * ktj[t * B + c];
                row[c] = dot * a.scale;
                mx = std::max(mx, row[c]);
            }
            const float mnew = std::max(w.m[r], mx);
            const float alpha = std::exp(w.m[r] - mnew);
            float sum = 0.0f;
            float* o = w.acc.data() + r * d;
            for (int64_t t = 0; t < d; ++t) o[t] *= alpha;
            for (int64_t c = 0; c < last; ++c) {
                const float p = std::exp(row[c] - mnew);
                sum += p;
                for (int64_t t = 0; t < d; ++t) o[t] += p * vj[c * d + t];
            }
            w.l[r] = w.l[r] * alpha + sum;
            w.m[r] = mnew;
        }
    }
    float* out = a.out + (h * a.n + i * B) * d;
    for (int64_t r = 0; r < B; ++r) {
        const float inv = w.l[r] > 0.0f ? 1.0f / w.l[r] : 0.0f;
        for (int64_t t = 0; t < d; ++t) out[r * d + t] = w.acc[r * d + t] * inv;
    }
}

}  // namespace

#if UNISPARSE_X86
#pragma GCC push_options
#pragma GCC target("avx2,fma")
namespace avx2 {
using V = __m256;
constexpr int W = 8, RQ = 4, NCQ = 2, RP = 4, NCP = 2;
static inline V vload(const float* p) { return _mm256_loadu_ps(p); }
static inline void vstore(float* p, V x) { _mm256_storeu_ps(p, x); }
static inline V vset1(float x) { return _mm256_set1_ps(x); }
static inline V vzero() { return _mm256_setzero_ps(); }
static inline V vfma(V a, V b, V c) { return _mm256_fmadd_ps(a, b, c); }
static inline V vmax(V a, V b) { return _mm256_max_ps(a, b); }
static inline V vsub(V a, V b) { return _mm256_sub_ps(a, b); }
static inline V vmul(V a, V b) { return _mm256_mul_ps(a, b); }
static inline V vadd(V a, V b) { return _mm256_add_ps(a, b); }
static inline V vfloor(V x) { return _mm256_floor_ps(x); }
static inline V vexp_bits(V i) {
    const __m256i e = _mm256_add_epi32(_mm256_cvtps_epi32(i), _mm256_set1_epi32(127));
    return _mm256_castsi256_ps(_mm256_slli_epi32(e, 23));
}
static inline float hmax(V x) {
    __m128 m = _mm_max_ps(_mm256_castps256_ps128(x), _mm256_extractf128_ps(x, 1));
    m = _mm_max_ps(m, _mm_movehl_ps(m, m));
    m = _mm_max_ss(m, _mm_shuffle_ps(m, m, 1));
    return _mm_cvtss_f32(m);
}
static inline float hsum(V x) {
    __m128 m = _mm_add_ps(_mm256_castps256_ps128(x), _mm256_extractf128_ps(x, 1));
    m = _mm_add_ps(m, _mm_movehl_ps(m, m));
    m = _mm_add_ss(m, _mm_shuffle_ps(m, m, 1));
    return _mm_cvtss_f32(m);
}
#include "attention_simd.inc"
}  // namespace avx2
#pragma GCC pop_options

#pragma GCC push_options
#pragma GCC target("avx512f,avx512dq,avx2,fma")
namespace avx512 {
using V = __m512;
constexpr int W = 16, RQ = 4, NCQ = 4, RP = 4, NCP = 4;
static inline V vload(const float* p) { return _mm512_loadu_ps(p); }
static inline void vstore(float* p, V x) { _mm512_storeu_ps(p, x); }
static inline V vset1(float x) { return _mm512_set1_ps(x); }
static inline V vzero() { return _mm512_setzero_ps(); }
static inline V vfma(V a, V b, V c) { return _mm512_fmadd_ps(a, b, c); }
static inline V vmax(V a, V b) { return _mm512_max_ps(a, b); }
static inline V vsub(V a, V b) { return _mm512_sub_ps(a, b); }
static inline V vmul(V a, V b) { return _mm512_mul_ps(a, b); }
static inline V vadd(V a, V b) { return _mm512_add_ps(a, b); }
static inline V vfloor(V x) { return _mm512_roundscale_ps(x, _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC); }
static inline V vexp_bits(V i) {
    const __m512i e = _mm512_add_epi32(_mm512_cvtps_epi32(i), _mm512_set1_epi32(127));
    return _mm512_castsi512_ps(_mm512_slli_epi32(e, 23));
}
static inline float hmax(V x) { return _mm512_reduce_max_ps(x); }
static inline float hsum(V x) { return _mm512_reduce_add_ps(x); }
#include "attention_simd.inc"
}  // namespace avx512
#pragma GCC pop_options
#endif  // UNISPARSE_X86

int best_isa() {
#if UNISPARSE_X86
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("fma"))
        return ISA_AVX512;
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) return ISA_AVX2;
#endif
    return ISA_SCALAR;
}

namespace {

template <class Fn>
void parallel_for(int64_t count, int threads, Fn fn) {
    threads = int(std::max<int64_t>(1, std::min<int64_t>(threads, count)));
    if (threads == 1) {
        fn(0, count, 1);
        return;
    }
    std::vector<std::thread> pool;
    for (int t = 0; t < threads; ++t) pool.emplace_back([=] { fn(t, count, threads); });
    for (auto& th : pool) th.join();
}

// kt[g][j] = K[g, jB:(j+1)B, :]^T (d x B), so that a row of Q K^T is a run of contiguous loads
std::vector<float> transpose_keys(const Args& a, int threads) {
    const int64_t B = a.block, d = a.d, nb = a.n / B;
    std::vector<float> kt(size_t(a.hkv * a.n * d));
    parallel_for(a.hkv * nb, threads, [&](int t, int64_t count, int step) {
        for (int64_t gj = t; gj < count; gj += step) {
            const float* src = a.k + gj * B * d;
            float* dst = kt.data() + gj * d * B;
            for (int64_t c = 0; c < B; ++c)
                for (int64_t x = 0; x < d; ++x) dst[x * B + c] = src[c * d + x];
        }
    });
    return kt;
}

}  // namespace

void block_sparse_attention(const Args& a, int isa, int threads) {
    using Fn = void (*)(const Args&, const float*, int64_t, Scratch&);
    Fn fn = run_item_scalar;
#if UNISPARSE_X86
    if (isa == ISA_AVX512) fn = avx512::run_item;
    else if (isa == ISA_AVX2) fn = avx2::run_item;
#endif
    const int64_t items = a.hq * (a.n / a.block);
    if (items == 0) return;
    const std::vector<float> kt = transpose_keys(a, threads);
    std::vector<int64_t> order(size_t(items), 0);
    std::iota(order.begin(), order.end(), int64_t(0));
    std::stable_sort(order.begin(), order.end(), [&](int64_t x, int64_t y) {
        return a.row_ptr[x + 1] - a.row_ptr[x] > a.row_ptr[y + 1] - a.row_ptr[y];
    });
    std::atomic<int64_t> next{0};
    parallel_for(items, threads, [&](int, int64_t count, int) {
        Scratch w(a.block, a.d);
        for (int64_t x = next.fetch_add(1); x < count; x = next.fetch_add(1)) fn(a, kt.data(), order[size_t(x)], w);
    });
}

}  // namespace unisparse
