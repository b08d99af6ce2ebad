// CPU kernels for MACKO-SpMV [P05]: y = W x with W in the MACKO format (fp16 values, 4-bit deltas aligned with
// them, int32 row pointers), fp32 accumulation; plus a dense fp16 GEMV used as the fair dense baseline.
//
// Runtime dispatch: AVX-512 (F/BW/VL + F16C), AVX2 (+FMA, F16C) or portable scalar code, chosen with
// __builtin_cpu_supports; each SIMD path is compiled with a target attribute so the module runs on any x86-64.
// The CPU adaptation of the paper's warp kernel (the MACKO SpMV kernel of [P05]): a 16-lane chunk of entries plays the role of a
// warp's slice; the column of each entry is rebuilt by an in-register prefix sum of (delta + 1) (the paper's warp
// scan); x is fetched by a 2-source permute of a 64-float window of x when the chunk spans <= 64 columns (always at
// density >= ~0.4), otherwise by a gather.
#include "macko_kernels.h"

#include <algorithm>
#include <cstring>
#include <thread>
#include <vector>

#if defined(__x86_64__) || defined(_M_X64)
#include <immintrin.h>
#define MACKO_X86 1
#else
#define MACKO_X86 0
#endif

namespace macko {

float half_to_float(uint16_t h) {
    const uint32_t sign = uint32_t(h & 0x8000u) << 16;
    uint32_t exp = (h >> 10) & 0x1Fu;
    uint32_t man = h & 0x3FFu;
    uint32_t bits;
    if (exp == 0) {
        if (man == 0) {
            bits = sign;
        } else {  // subnormal: renormalise
            int e = -1;
            do {
                ++e;
                man <<= 1;
            } while ((man & 0x400u) == 0);
            bits = sign | (uint32_t(127 - 15 - e) << 23) | ((man & 0x3FFu) << 13);
        }
    } else if (exp == 0x1F) {
        bits = sign | 0x7F800000u | (man << 13);  // inf / NaN (payload kept)
    } else {
        bits = sign | ((exp + 127 - 15) << 23) | (man << 13);
    }
    float f;
    std::memcpy(&f, &bits, 4);
    return f;
}

// ----------------------------------------------------------------------------------------------- scalar
static void spmv_rows_scalar(const SpmvArgs& a, int64_t r0, int64_t r1) {
    for (int64_t r = r0; r < r1; ++r) {
        const int64_t s = a.row_ptr[r], e = a.row_ptr[r + 1];
        for (int64_t b = 0; b < a.nb; ++b) {
            const float* x = a.x + b * a.x_stride;
            float acc = 0.0f;
            int64_t col = -1;
            for (int64_t k = s; k < e; ++k) {
                const unsigned d = (a.deltas[k >> 1] >> ((k & 1) * 4)) & 0xFu;
                col += int64_t(d) + 1;  // col_k = col_{k-1} + 1 + delta_k
                acc += half_to_float(a.values[k]) * x[col];
            }
            a.y[b * a.y_stride + r] = acc;
        }
    }
}

static void dense_rows_scalar(const DenseArgs& a, int64_t r0, int64_t r1) {
    for (int64_t r = r0; r < r1; ++r) {
        const uint16_t* w = a.w + r * a.cols;
        for (int64_t b = 0; b < a.nb; ++b) {
            const float* x = a.x + b * a.x_stride;
            float acc = 0.0f;
            for (int64_t c = 0; c < a.cols; ++c) acc += half_to_float(w[c]) * x[c];
            a.y[b * a.y_stride + r] = acc;
        }
    }
}

#if MACKO_X86
// ----------------------------------------------------------------------------------------------- AVX2
#define MACKO_AVX2 __attribute__((target("avx2,fma,f16c")))

MACKO_AVX2 static void spmv_rows_avx2(const SpmvArgs& a, int64_t r0, int64_t r1) {
    const __m256i lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    const __m128i low4 = _mm_set1_epi8(0x0F);
    for (int64_t r = r0; r < r1; ++r) {
        const int64_t s = a.row_ptr[r], e = a.row_ptr[r + 1];
        for (int64_t b = 0; b < a.nb; ++b) {
            const float* x = a.x + b * a.x_stride;
            __m256 acc = _mm256_setzero_ps();
            int64_t base = -1;  // column of the previous entry of the row
            for (int64_t c0 = s & ~int64_t(7); c0 < e; c0 += 8) {
                const int lo = int(std::max<int64_t>(s - c0, 0)), hi = int(std::min<int64_t>(e - c0, 8));
                uint32_t d4;
                std::memcpy(&d4, a.deltas + c0 / 2, 4);
                const __m128i db = _mm_cvtsi32_si128(int(d4));
                const __m128i nib = _mm_unpacklo_epi8(_mm_and_si128(db, low4), _mm_and_si128(_mm_srli_epi16(db, 4), low4));
                uint64_t u = uint64_t(_mm_cvtsi128_si64(nib)) + 0x0101010101010101ull;  // delta + 1 per byte
                const uint64_t himask = hi == 8 ? ~0ull : ((1ull << (8 * hi)) - 1);
                u &= himask & ~((1ull << (8 * lo)) - 1);  // lanes of other rows increment nothing
                const uint64_t p = u * 0x0101010101010101ull;  // inclusive prefix sums (<= 128: no carry)
                const __m256i cols = _mm256_add_epi32(_mm256_cvtepu8_epi32(_mm_cvtsi64_si128(int64_t(p))),
                                                      _mm256_set1_epi32(int(base)));
                const __m256i m = _mm256_and_si256(_mm256_cmpgt_epi32(lane, _mm256_set1_epi32(lo - 1)),
                                                   _mm256_cmpgt_epi32(_mm256_set1_epi32(hi), lane));
                const __m256 mps = _mm256_castsi256_ps(m);
                const __m256 v = _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(a.values + c0)));
                const __m256 xv = _mm256_mask_i32gather_ps(_mm256_setzero_ps(), x, cols, mps, 4);
                acc = _mm256_fmadd_ps(_mm256_and_ps(v, mps), xv, acc);
                base += int64_t(p >> 56);
            }
            __m128 t = _mm_add_ps(_mm256_castps256_ps128(acc), _mm256_extractf128_ps(acc, 1));
            t = _mm_add_ps(t, _mm_movehl_ps(t, t));
            t = _mm_add_ss(t, _mm_movehdup_ps(t));
            a.y[b * a.y_stride + r] = _mm_cvtss_f32(t);
        }
    }
}

MACKO_AVX2 static void dense_rows_avx2(const DenseArgs& a, int64_t r0, int64_t r1) {
    const int64_t C = a.cols, C8 = C & ~int64_t(7);
    for (int64_t b = 0; b < a.nb; ++b) {
        const float* x = a.x + b * a.x_stride;
        for (int64_t r = r0; r < r1; ++r) {
            const uint16_t* w = a.w + r * C;
            __m256 acc0 = _mm256_setzero_ps(), acc1 = _mm256_setzero_ps();
            int64_t c = 0;
            for (; c + 16 <= C8; c += 16) {
                acc0 = _mm256_fmadd_ps(_mm256_cvtph_ps(_mm_loadu_si128((const __m128i*)(w + c))), _mm256_loadu_ps(x + c), acc0);
                acc1 = _mm256_fmadd_ps(_mm256_cvtph_ps(_mm_loadu_si128((const __m128i*)(w + c + 8))), _mm256_loadu_ps(x + c + 8), acc1);
            }
            for (; c < C8; c += 8)
                acc0 = _mm256_fmadd_ps(_mm256_cvtph_ps(_mm_loadu_si128((const __m128i*)(w + c))), _mm256_loadu_ps(x + c), acc0);
            acc0 = _mm256_add_ps(acc0, acc1);
            __m128 t = _mm_add_ps(_mm256_castps256_ps128(acc0), _mm256_extractf128_ps(acc0, 1));
            t = _mm_add_ps(t, _mm_movehl_ps(t, t));
            t = _mm_add_ss(t, _mm_movehdup_ps(t));
            float s = _mm_cvtss_f32(t);
            for (; c < C; ++c) s += half_to_float(w[c]) * x[c];
            a.y[b * a.y_stride + r] = s;
        }
    }
}

// ----------------------------------------------------------------------------------------------- AVX-512
#define MACKO_AVX512 __attribute__((target("avx512f,avx512bw,avx512vl,avx2,fma,f16c")))

template <int NB>
MACKO_AVX512 static void spmv_rows_avx512_nb(const SpmvArgs& a, int64_t r0, int64_t r1) {
    const __m512i one = _mm512_set1_epi32(1), zero = _mm512_setzero_si512(), bit32 = _mm512_set1_epi32(32);
    const __m128i low4 = _mm_set1_epi8(0x0F);
    const float* xs[NB];
    for (int b = 0; b < NB; ++b) xs[b] = a.x + b * a.x_stride;
    for (int64_t r = r0; r < r1; ++r) {
        const int64_t s = a.row_ptr[r], e = a.row_ptr[r + 1];
        __m512 acc[NB];
        for (int b = 0; b < NB; ++b) acc[b] = _mm512_setzero_ps();
        int32_t base = -1;  // column of the previous entry of the row (col_{-1} = -1)
        for (int64_t c0 = s & ~int64_t(15); c0 < e; c0 += 16) {
            const unsigned lo = unsigned(std::max<int64_t>(s - c0, 0)), hi = unsigned(std::min<int64_t>(e - c0, 16));
            const __mmask16 m = __mmask16(((1u << hi) - 1u) & ~((1u << lo) - 1u));
            const __m512 v = _mm512_cvtph_ps(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(a.values + c0)));
            const __m128i db = _mm_loadl_epi64(reinterpret_cast<const __m128i*>(a.deltas + c0 / 2));
            const __m128i nib = _mm_unpacklo_epi8(_mm_and_si128(db, low4), _mm_and_si128(_mm_srli_epi16(db, 4), low4));
            __m512i p = _mm512_maskz_add_epi32(m, _mm512_cvtepu8_epi32(nib), one);  // delta + 1, 0 off the row
            // inclusive prefix sum over the 16 lanes (the paper's warp scan)
            p = _mm512_add_epi32(p, _mm512_alignr_epi32(p, zero, 15));
            p = _mm512_add_epi32(p, _mm512_alignr_epi32(p, zero, 14));
            p = _mm512_add_epi32(p, _mm512_alignr_epi32(p, zero, 12));
            p = _mm512_add_epi32(p, _mm512_alignr_epi32(p, zero, 8));
            const int32_t span = _mm_extract_epi32(_mm512_extracti32x4_epi32(p, 3), 3);
            if (span <= 64) {
                // relative column in the window x[base+1 .. base+64]; lanes off the row hold -1 and are masked
                const __m512i rel = _mm512_sub_epi32(p, one);
                const __mmask16 upper = _mm512_test_epi32_mask(rel, bit32);
                for (int b = 0; b < NB; ++b) {
                    const float* w = xs[b] + (base + 1);
                    const __m512 xa = _mm512_permutex2var_ps(_mm512_loadu_ps(w), rel, _mm512_loadu_ps(w + 16));
                    const __m512 xb = _mm512_permutex2var_ps(_mm512_loadu_ps(w + 32), rel, _mm512_loadu_ps(w + 48));
                    acc[b] = _mm512_mask3_fmadd_ps(v, _mm512_mask_blend_ps(upper, xa, xb), acc[b], m);
                }
            } else {
                const __m512i cols = _mm512_add_epi32(p, _mm512_set1_epi32(base));
                for (int b = 0; b < NB; ++b) {
                    const __m512 xv = _mm512_mask_i32gather_ps(_mm512_setzero_ps(), m, cols, xs[b], 4);
                    acc[b] = _mm512_mask3_fmadd_ps(v, xv, acc[b], m);
                }
            }
            base += span;
        }
        for (int b = 0; b < NB; ++b) a.y[b * a.y_stride + r] = _mm512_reduce_add_ps(acc[b]);
    }
}

MACKO_AVX512 static void spmv_rows_avx512(const SpmvArgs& a, int64_t r0, int64_t r1) {
    switch (a.nb) {
        case 1: return spmv_rows_avx512_nb<1>(a, r0, r1);
        case 2: return spmv_rows_avx512_nb<2>(a, r0, r1);
        case 3: return spmv_rows_avx512_nb<3>(a, r0, r1);
        case 4: return spmv_rows_avx512_nb<4>(a, r0, r1);
        default: {  // 5..8: two passes over the rows' entries (4 + rest)
            SpmvArgs lo = a, hi = a;
            lo.nb = 4;
            hi.nb = a.nb - 4;
            hi.x = a.x + 4 * a.x_stride;
            hi.y = a.y + 4 * a.y_stride;
            spmv_rows_avx512_nb<4>(lo, r0, r1);
            spmv_rows_avx512(hi, r0, r1);
        }
    }
}

MACKO_AVX512 static void dense_rows_avx512(const DenseArgs& a, int64_t r0, int64_t r1) {
    const int64_t C = a.cols, C16 = C & ~int64_t(15);
    const __mmask16 tail = __mmask16((1u << (C - C16)) - 1u);
    for (int64_t b = 0; b < a.nb; ++b) {
        const float* x = a.x + b * a.x_stride;
        int64_t r = r0;
        for (; r + 4 <= r1; r += 4) {  // 4 rows share each load of x
            const uint16_t* w0 = a.w + r * C;
            const uint16_t *w1 = w0 + C, *w2 = w1 + C, *w3 = w2 + C;
            __m512 s0 = _mm512_setzero_ps(), s1 = s0, s2 = s0, s3 = s0;
            int64_t c = 0;
            for (; c < C16; c += 16) {
                const __m512 xv = _mm512_loadu_ps(x + c);
                s0 = _mm512_fmadd_ps(_mm512_cvtph_ps(_mm256_loadu_si256((const __m256i*)(w0 + c))), xv, s0);
                s1 = _mm512_fmadd_ps(_mm512_cvtph_ps(_mm256_loadu_si256((const __m256i*)(w1 + c))), xv, s1);
                s2 = _mm512_fmadd_ps(_mm512_cvtph_ps(_mm256_loadu_si256((const __m256i*)(w2 + c))), xv, s2);
                s3 = _mm512_fmadd_ps(_mm512_cvtph_ps(_mm256_loadu_si256((const __m256i*)(w3 + c))), xv, s3);
            }
            if (tail) {
                const __m512 xv = _mm512_maskz_loadu_ps(tail, x + c);
                s0 = _mm512_fmadd_ps(_mm512_cvtph_ps(_mm256_maskz_loadu_epi16(tail, w0 + c)), xv, s0);
                s1 = _mm512_fmadd_ps(_mm512_cvtph_ps(_mm256_maskz_loadu_epi16(tail, w1 + c)), xv, s1);
                s2 = _mm512_fmadd_ps(_mm512_cvtph_ps(_mm256_maskz_loadu_epi16(tail, w2 + c)), xv, s2);
                s3 = _mm512_fmadd_ps(_mm512_cvtph_ps(_mm256_maskz_loadu_epi16(tail, w3 + c)), xv, s3);
            }
            float* y = a.y + b * a.y_stride + r;
            y[0] = _mm512_reduce_add_ps(s0);
            y[1] = _mm512_reduce_add_ps(s1);
            y[2] = _mm512_reduce_add_ps(s2);
            y[3] = _mm512_reduce_add_ps(s3);
        }
        for (; r < r1; ++r) {
            const uint16_t* w = a.w + r * C;
            __m512 s0 = _mm512_setzero_ps();
            int64_t c = 0;
            for (; c < C16; c += 16)
                s0 = _mm512_fmadd_ps(_mm512_cvtph_ps(_mm256_loadu_si256((const __m256i*)(w + c))), _mm512_loadu_ps(x + c), s0);
            if (tail)
                s0 = _mm512_fmadd_ps(_mm512_cvtph_ps(_mm256_maskz_loadu_epi16(tail, w + c)), _mm512_maskz_loadu_ps(tail, x + c), s0);
            a.y[b * a.y_stride + r] = _mm512_reduce_add_ps(s0);
        }
    }
}
#endif  // MACKO_X86

// ----------------------------------------------------------------------------------------------- dispatch
int best_isa() {
#if MACKO_X86
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512vl") &&
        __builtin_cpu_supports("f16c") && __builtin_cpu_supports("fma"))
        return ISA_AVX512;
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") && __builtin_cpu_supports("f16c")) return ISA_AVX2;
#endif
    return ISA_SCALAR;
}

template <class Args, class Fn>
static void run_rows(const Args& a, int64_t rows, int threads, Fn fn) {
    threads = int(std::max<int64_t>(1, std::min<int64_t>(threads, rows / 64)));
    if (threads <= 1) {
        fn(a, 0, rows);
        return;
    }
    std::vector<std::thread> pool;
    const int64_t step = (rows + threads - 1) / threads;
    for (int t = 0; t < threads; ++t) {
        const int64_t r0 = t * step, r1 = std::min(rows, r0 + step);
        if (r0 < r1) pool.emplace_back([&a, fn, r0, r1] { fn(a, r0, r1); });
    }
    for (auto& th : pool) th.join();
}

void spmv(const SpmvArgs& a, int isa, int threads) {
    using Fn = void (*)(const SpmvArgs&, int64_t, int64_t);
    Fn fn = spmv_rows_scalar;
#if MACKO_X86
    if (isa == ISA_AVX512) fn = spmv_rows_avx512;
    else if (isa == ISA_AVX2) fn = spmv_rows_avx2;
#endif
    run_rows(a, a.rows, threads, fn);
}

void dense_gemv(const DenseArgs& a, int isa, int threads) {
    using Fn = void (*)(const DenseArgs&, int64_t, int64_t);
    Fn fn = dense_rows_scalar;
#if MACKO_X86
    if (isa == ISA_AVX512) fn = dense_rows_avx512;
    else if (isa == ISA_AVX2) fn = dense_rows_avx2;
#endif
    run_rows(a, a.rows, threads, fn);
}

}  // namespace macko
