// CPU kernels for MACKO-SpMV [P05]: y = W x with W in the MACKO format (fp16 values, 4-bit deltas aligned with
// them, int32 row pointers), fp32 accumulation; plus a dense fp16 GEMV used as the fair dense baseline.
//
// Runtime dispatch: AVX-512 (F/BW/VL + F16C), AVX2 (+FMA, F16C) or portable scalar code, chosen with
// __builtin_cpu_supports; each SIMD path is compiled with a target attribute so the module runs on any x86-64.
// The CPU adaptation of the paper's warp kernel (the MACKO SpMV kernel of [P05]): a 16-lane chunk of entries plays the
// role of a warp's slice. AVX-512: the columns of four chunks are rebuilt at once by an in-register byte prefix sum
// of the deltas (the paper's warp scan; one 128-bit lane per chunk), x is fetched by 2-source permutes of a 64-, 128-
// or 256-float window chosen per row from its density (a chunk spanning more columns is gathered); 1..8 input
// vectors share one pass over the entries. The steady-state loop decodes one block ahead and prefetches the format
// streams in software (latency, not port throughput, bounded the kernel). AVX2: 8-entry chunks, a SWAR prefix sum in
// a 64-bit word and gathers.
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

// One pass over the rows' entries for NB (1..8) vectors: each 8-entry chunk is decoded once (a SWAR prefix sum of
// delta + 1 in one 64-bit word) and its columns are gathered from every x.
template <int NB>
MACKO_AVX2 static void spmv_rows_avx2_nb(const SpmvArgs& a, int64_t r0, int64_t r1) {
    const __m256i lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    const __m128i low4 = _mm_set1_epi8(0x0F);
    for (int64_t r = r0; r < r1; ++r) {
        const int64_t s = a.row_ptr[r], e = a.row_ptr[r + 1];
        __m256 acc[NB];
        for (int b = 0; b < NB; ++b) acc[b] = _mm256_setzero_ps();
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
            const __m256 v = _mm256_and_ps(_mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(a.values + c0))), mps);
            for (int b = 0; b < NB; ++b) {
                const __m256 xv = _mm256_mask_i32gather_ps(_mm256_setzero_ps(), a.x + b * a.x_stride, cols, mps, 4);
                acc[b] = _mm256_fmadd_ps(v, xv, acc[b]);
            }
            base += int64_t(p >> 56);
        }
        for (int b = 0; b < NB; ++b) {
            __m128 t = _mm_add_ps(_mm256_castps256_ps128(acc[b]), _mm256_extractf128_ps(acc[b], 1));
            t = _mm_add_ps(t, _mm_movehl_ps(t, t));
            t = _mm_add_ss(t, _mm_movehdup_ps(t));
            a.y[b * a.y_stride + r] = _mm_cvtss_f32(t);
        }
    }
}

MACKO_AVX2 static void spmv_rows_avx2(const SpmvArgs& a, int64_t r0, int64_t r1) {
    switch (a.nb) {
        case 1: return spmv_rows_avx2_nb<1>(a, r0, r1);
        case 2: return spmv_rows_avx2_nb<2>(a, r0, r1);
        case 3: return spmv_rows_avx2_nb<3>(a, r0, r1);
        case 4: return spmv_rows_avx2_nb<4>(a, r0, r1);
        case 5: return spmv_rows_avx2_nb<5>(a, r0, r1);
        case 6: return spmv_rows_avx2_nb<6>(a, r0, r1);
        case 7: return spmv_rows_avx2_nb<7>(a, r0, r1);
        default: return spmv_rows_avx2_nb<8>(a, r0, r1);
    }
}

// A batch shares one pass over W: the rows outside, the vectors inside (row r stays in L1 for every x_b).
MACKO_AVX2 static void dense_rows_avx2(const DenseArgs& a, int64_t r0, int64_t r1) {
    const int64_t C = a.cols, C8 = C & ~int64_t(7);
    for (int64_t r = r0; r < r1; ++r) {
        const uint16_t* w = a.w + r * C;
        for (int64_t b = 0; b < a.nb; ++b) {
            const float* x = a.x + b * a.x_stride;
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
// Decoding (the paper's warp scan, done on bytes): for entry l of a 16-entry chunk, idx[l] = l + (the sum of the raw
// deltas of entries 0..l) <= 15 + 16 * 15 = 255, so one byte holds it; the entry sits at column O + idx[l], where O is
// the column after the previous chunk's last entry (O advances by idx[15] + 1 per chunk).
#define MACKO_AVX512 __attribute__((target("avx512f,avx512bw,avx512vl,avx2,fma,f16c")))
#define MACKO_INLINE inline __attribute__((always_inline))

// idx bytes of four chunks (64 entries, 32 delta bytes) at once; each chunk's scan stays in its own 128-bit lane.
MACKO_AVX512 MACKO_INLINE static __m512i decode4_avx512(const uint8_t* d) {
    const __m512i w = _mm512_cvtepu8_epi16(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(d)));
    __m512i p = _mm512_or_si512(_mm512_and_si512(w, _mm512_set1_epi16(0x000F)),
                                _mm512_and_si512(_mm512_slli_epi16(w, 4), _mm512_set1_epi16(0x0F00)));
    p = _mm512_add_epi8(p, _mm512_bslli_epi128(p, 1));
    p = _mm512_add_epi8(p, _mm512_bslli_epi128(p, 2));
    p = _mm512_add_epi8(p, _mm512_bslli_epi128(p, 4));
    p = _mm512_add_epi8(p, _mm512_bslli_epi128(p, 8));
    return _mm512_add_epi8(p, _mm512_broadcast_i32x4(_mm_setr_epi8(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15)));
}

// idx bytes of one chunk (8 delta bytes): the last chunks of the arrays, where a 32-byte load would run past the end.
MACKO_AVX512 MACKO_INLINE static __m128i decode1_avx512(const uint8_t* d) {
    const __m128i db = _mm_loadl_epi64(reinterpret_cast<const __m128i*>(d)), low4 = _mm_set1_epi8(0x0F);
    __m128i p = _mm_unpacklo_epi8(_mm_and_si128(db, low4), _mm_and_si128(_mm_srli_epi16(db, 4), low4));
    p = _mm_add_epi8(p, _mm_slli_si128(p, 1));
    p = _mm_add_epi8(p, _mm_slli_si128(p, 2));
    p = _mm_add_epi8(p, _mm_slli_si128(p, 4));
    p = _mm_add_epi8(p, _mm_slli_si128(p, 8));
    return _mm_add_epi8(p, _mm_setr_epi8(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15));
}

// idx[15] + 1 = 16 + the sum of the chunk's 16 nibbles (scalar SWAR, off the vector ports).
static MACKO_INLINE int32_t chunk_advance(const uint8_t* d) {
    uint64_t w;
    std::memcpy(&w, d, 8);
    w = (w & 0x0F0F0F0F0F0F0F0Full) + ((w >> 4) & 0x0F0F0F0F0F0F0F0Full);  // 8 byte sums <= 30
    return int32_t((w * 0x0101010101010101ull) >> 56) + 16;
}

// acc[b] += v * x_b[O + rel] over the lanes in m; `last` = rel[15]. x is read as a W-float window (W = 64, 128 or 256)
// and permuted: one 2-table permute per 32 floats, then a blend tree on bits 5.. of rel. The window starts at O
// rounded down to 16 floats (aligned loads) when the chunk still fits, otherwise at O; the choice is a select, not a
// branch (with a 64 window the aligned / unaligned / gather split was 65 / 20 / 15 % of the chunks at density
// 0.3, simulated). A chunk spanning W columns or more is gathered; the caller picks W so that this is rare.
template <int NB, int W>
MACKO_AVX512 MACKO_INLINE static void chunk_avx512(const uint16_t* vals, __m512i rel, int32_t last, int32_t O,
                                                   __mmask16 m, const float* const* xs, __m512* acc) {
    static_assert(W == 64 || W == 128 || W == 256, "window of 2, 4 or 8 tables of 32 floats");
    const __m512 v = _mm512_cvtph_ps(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(vals)));
    if (last >= W) {
        const __m512i cols = _mm512_add_epi32(rel, _mm512_set1_epi32(O));
        for (int b = 0; b < NB; ++b)
            acc[b] = _mm512_mask3_fmadd_ps(v, _mm512_mask_i32gather_ps(_mm512_setzero_ps(), m, cols, xs[b], 4), acc[b], m);
        return;
    }
    const int32_t sh = last + (O & 15) < W ? (O & 15) : 0;
    rel = _mm512_add_epi32(rel, _mm512_set1_epi32(sh));
    const __mmask16 b5 = _mm512_test_epi32_mask(rel, _mm512_set1_epi32(32));
    const __mmask16 b6 = _mm512_test_epi32_mask(rel, _mm512_set1_epi32(64));
    const __mmask16 b7 = _mm512_test_epi32_mask(rel, _mm512_set1_epi32(128));
    for (int b = 0; b < NB; ++b) {
        const float* w = xs[b] + (O - sh);
        __m512 t[W / 32];
        for (int k = 0; k < W / 32; ++k)
            t[k] = _mm512_permutex2var_ps(_mm512_loadu_ps(w + 32 * k), rel, _mm512_loadu_ps(w + 32 * k + 16));
        for (int k = 0; k < W / 32; k += 2) t[k] = _mm512_mask_blend_ps(b5, t[k], t[k + 1]);
        if (W >= 128)
            for (int k = 0; k < W / 32; k += 4) t[k] = _mm512_mask_blend_ps(b6, t[k], t[k + 2]);
        if (W >= 256) t[0] = _mm512_mask_blend_ps(b7, t[0], t[4]);
        acc[b] = _mm512_mask3_fmadd_ps(v, t[0], acc[b], m);
    }
}

// One block of up to four chunks at c with masking: the row's first block (lanes before s belong to the previous row;
// O is set from the deltas) and its last (lanes from e on are masked).
template <int NB, int W>
MACKO_AVX512 MACKO_INLINE static void block_avx512(const SpmvArgs& a, int64_t c, int64_t s, int64_t e, int32_t& O,
                                                   const float* const* xs, __m512* acc, uint8_t* idx) {
    const int64_t left = e - c;
    const uint8_t* d = a.deltas + c / 2;
    const int nch = int(std::min<int64_t>(4, (left + 15) / 16));
    if (c + 64 <= a.n_entries) {
        _mm512_store_si512(reinterpret_cast<__m512i*>(idx), decode4_avx512(d));
    } else {
        for (int j = 0; j < nch; ++j) _mm_store_si128(reinterpret_cast<__m128i*>(idx + 16 * j), decode1_avx512(d + 8 * j));
    }
    const unsigned lo = c < s ? unsigned(s - c) : 0u;
    if (c <= s) O = lo ? -(int32_t(idx[lo - 1]) + 1) : 0;  // row start: col of entry lo = idx[lo] - idx[lo-1] - 1
    for (int j = 0; j < nch; ++j) {
        const unsigned l = j ? 0u : lo, h = unsigned(std::min<int64_t>(left - 16 * j, 16));
        const __mmask16 m = __mmask16(((1u << h) - 1u) & ~((1u << l) - 1u));
        const __m512i rel = _mm512_cvtepu8_epi32(_mm_load_si128(reinterpret_cast<const __m128i*>(idx + 16 * j)));
        chunk_avx512<NB, W>(a.values + c + 16 * j, rel, idx[16 * j + 15], O, m, xs, acc);
        O += int32_t(idx[16 * j + 15]) + 1;
    }
}

// Four whole chunks (no masks) whose idx bytes are in p, advances in t; O moves past them.
template <int NB, int W, int NA>
MACKO_AVX512 MACKO_INLINE static void steady4_avx512(const uint16_t* vals, __m512i p, const int32_t* t, int32_t& O,
                                                     const float* const* xs, __m512 (*acc)[NB]) {
    chunk_avx512<NB, W>(vals, _mm512_cvtepu8_epi32(_mm512_castsi512_si128(p)), t[0] - 1, O, 0xFFFF, xs, acc[0]);
    O += t[0];
    chunk_avx512<NB, W>(vals + 16, _mm512_cvtepu8_epi32(_mm512_extracti32x4_epi32(p, 1)), t[1] - 1, O, 0xFFFF, xs,
                        acc[1 % NA]);
    O += t[1];
    chunk_avx512<NB, W>(vals + 32, _mm512_cvtepu8_epi32(_mm512_extracti32x4_epi32(p, 2)), t[2] - 1, O, 0xFFFF, xs,
                        acc[2 % NA]);
    O += t[2];
    chunk_avx512<NB, W>(vals + 48, _mm512_cvtepu8_epi32(_mm512_extracti32x4_epi32(p, 3)), t[3] - 1, O, 0xFFFF, xs,
                        acc[3 % NA]);
    O += t[3];
}

// Row r (entries s..e-1) for NB (1..8) vectors with a W-float x window. The
// row starts inside its first chunk (lanes before `lo` belong to the previous row) and ends inside its last one (lanes
// from `hi` on are masked). It is walked in blocks of four chunks; whole blocks past the first take the unmasked
// steady-state path. Always inlined into the row loop: as a called function GCC kept the accumulators of a batch
// (NB >= 2) on the stack, 64 spills and reloads in the loop and 11-13 % slower at NB = 4.
template <int NB, int W>
MACKO_AVX512 MACKO_INLINE static void row_avx512(const SpmvArgs& a, int64_t r, int64_t s, int64_t e, const float* const* xs) {
    constexpr int NA = NB <= 2 ? 4 : 2;  // accumulators per vector: independent FMA chains
    alignas(64) uint8_t idx[64];
    __m512 acc[NA][NB];
    for (int j = 0; j < NA; ++j)
        for (int b = 0; b < NB; ++b) acc[j][b] = _mm512_setzero_ps();
    int32_t O = 0;
    int64_t c = s & ~int64_t(15);
    if (c < e) {  // the row's first block: it starts at lane lo and may also be its last
        block_avx512<NB, W>(a, c, s, e, O, xs, acc[0], idx);
        c += 64;
    }
    if (c + 64 <= e) {
        // steady state: four whole chunks per block, decoded one block ahead. The decode (a load and ~20 dependent
        // vector ops) then overlaps the previous block's permutes and FMAs instead of stalling behind them: the
        // kernel is bound by how many chunks the out-of-order window holds in flight, not by port throughput.
        __m512i p = decode4_avx512(a.deltas + c / 2);
        int32_t t[4];
        for (int j = 0; j < 4; ++j) t[j] = chunk_advance(a.deltas + c / 2 + 8 * j);
        for (;;) {
            const int64_t cn = c + 64;
            const bool more = cn + 64 <= e;
            __m512i pn = p;
            int32_t tn[4] = {0, 0, 0, 0};
            // software prefetch 1024 entries (2 KiB of values, 512 B of deltas) ahead: with it the DRAM streams keep
            // up (8192^2, 50 %: ~8 ms -> ~7 ms in a standalone timing with the decode-ahead; without the decode-ahead
            // it also helps, 10.8 -> 8.0 ms); 256-512 entries ahead are too close, 2048-4096 no better
            _mm_prefetch(reinterpret_cast<const char*>(a.values + c + 1024), _MM_HINT_T0);
            _mm_prefetch(reinterpret_cast<const char*>(a.values + c + 1024 + 32), _MM_HINT_T0);
            _mm_prefetch(reinterpret_cast<const char*>(a.deltas + (c + 1024) / 2), _MM_HINT_T0);
            if (more) {
                pn = decode4_avx512(a.deltas + cn / 2);
                for (int j = 0; j < 4; ++j) tn[j] = chunk_advance(a.deltas + cn / 2 + 8 * j);
            }
            steady4_avx512<NB, W, NA>(a.values + c, p, t, O, xs, acc);
            c = cn;
            if (!more) break;
            p = pn;
            for (int j = 0; j < 4; ++j) t[j] = tn[j];
        }
    }
    if (c < e) block_avx512<NB, W>(a, c, s, e, O, xs, acc[0], idx);  // the row's last 1..3 chunks
    for (int b = 0; b < NB; ++b) {
        __m512 t = acc[0][b];
        for (int j = 1; j < NA; ++j) t = _mm512_add_ps(t, acc[j][b]);
        a.y[b * a.y_stride + r] = _mm512_reduce_add_ps(t);
    }
}

// The x window per row, from the mean column span of its chunks, 16 * cols / (entries of the row) (a per-row choice is
// predicted; per chunk, 64 vs 128 was a coin flip at density ~0.3). Crossovers measured at 8192^2 (ms, windows 64 /
// 128 / 256): sparsity 0.6 (mean span ~40) 6.3 / 7.0 / 10.6, 0.65 (~46) 6.3 / 6.2 / 9.3, 0.7 7.7 / 5.6 / 7.8, 0.85
// (~107) 5.5 / 3.8 / 4.6, 0.9 4.4 / 4.8 / 3.6.
constexpr int64_t WIN64_MAX_SPAN = 44, WIN128_MAX_SPAN = 118;

template <int NB>
MACKO_AVX512 static void spmv_rows_avx512_nb(const SpmvArgs& a, int64_t r0, int64_t r1) {
    const float* xs[NB];
    for (int b = 0; b < NB; ++b) xs[b] = a.x + b * a.x_stride;
    const int64_t span16 = 16 * a.cols;  // mean chunk span * (entries of the row)
    for (int64_t r = r0; r < r1; ++r) {
        const int64_t s = a.row_ptr[r], e = a.row_ptr[r + 1];
        if (span16 < WIN64_MAX_SPAN * (e - s)) row_avx512<NB, 64>(a, r, s, e, xs);
        else if (span16 < WIN128_MAX_SPAN * (e - s)) row_avx512<NB, 128>(a, r, s, e, xs);
        else row_avx512<NB, 256>(a, r, s, e, xs);
    }
}

MACKO_AVX512 static void spmv_rows_avx512(const SpmvArgs& a, int64_t r0, int64_t r1) {
    switch (a.nb) {
        case 1: return spmv_rows_avx512_nb<1>(a, r0, r1);
        case 2: return spmv_rows_avx512_nb<2>(a, r0, r1);
        case 3: return spmv_rows_avx512_nb<3>(a, r0, r1);
        case 4: return spmv_rows_avx512_nb<4>(a, r0, r1);
        case 5: return spmv_rows_avx512_nb<5>(a, r0, r1);
        case 6: return spmv_rows_avx512_nb<6>(a, r0, r1);
        case 7: return spmv_rows_avx512_nb<7>(a, r0, r1);
        default: return spmv_rows_avx512_nb<8>(a, r0, r1);
    }
}

// A batch shares one pass over W: each block of 4 rows (<= 4 * 2C bytes, in L1/L2) serves every x_b in turn.
MACKO_AVX512 MACKO_INLINE static void dense_block4_avx512(const DenseArgs& a, int64_t r, const float* x, float* y) {
    const int64_t C = a.cols, C16 = C & ~int64_t(15);
    const __mmask16 tail = __mmask16((1u << (C - C16)) - 1u);
    const uint16_t* w0 = a.w + r * C;
    const uint16_t *w1 = w0 + C, *w2 = w1 + C, *w3 = w2 + C;
    __m512 s0 = _mm512_setzero_ps(), s1 = s0, s2 = s0, s3 = s0;
    int64_t c = 0;
    for (; c < C16; c += 16) {  // 4 rows share each load of x
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
    y[0] = _mm512_reduce_add_ps(s0);
    y[1] = _mm512_reduce_add_ps(s1);
    y[2] = _mm512_reduce_add_ps(s2);
    y[3] = _mm512_reduce_add_ps(s3);
}

MACKO_AVX512 static void dense_rows_avx512(const DenseArgs& a, int64_t r0, int64_t r1) {
    const int64_t C = a.cols, C16 = C & ~int64_t(15);
    const __mmask16 tail = __mmask16((1u << (C - C16)) - 1u);
    int64_t r = r0;
    for (; r + 4 <= r1; r += 4)
        for (int64_t b = 0; b < a.nb; ++b) dense_block4_avx512(a, r, a.x + b * a.x_stride, a.y + b * a.y_stride + r);
    for (; r < r1; ++r) {
        const uint16_t* w = a.w + r * C;
        for (int64_t b = 0; b < a.nb; ++b) {
            const float* x = a.x + b * a.x_stride;
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

// below this many columns the AVX-512 dispatch takes the AVX2 dense loop (see dense_gemv)
constexpr int64_t DENSE_BLOCK_MIN_COLS = 8192;

void dense_gemv(const DenseArgs& a, int isa, int threads) {
    using Fn = void (*)(const DenseArgs&, int64_t, int64_t);
    Fn fn = dense_rows_scalar;
#if MACKO_X86
    // AVX-512's 4-row blocks load each x chunk once for four rows, which pays once x outgrows L1 (8192 columns:
    // 6.7 ms vs 10.8 ms for the row-at-a-time AVX2 loop); with shorter rows their four interleaved streams are
    // prefetched poorly and the AVX2 loop, one sequential stream, is 2.4x faster (3072x1024: 0.26 vs 0.63 ms)
    if (isa == ISA_AVX512) fn = a.cols >= DENSE_BLOCK_MIN_COLS ? dense_rows_avx512 : dense_rows_avx2;
    else if (isa == ISA_AVX2) fn = dense_rows_avx2;
#endif
    run_rows(a, a.rows, threads, fn);
}

}  // namespace macko
