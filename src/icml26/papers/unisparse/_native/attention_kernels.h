// Block-sparse causal attention on the CPU [P30]: exact softmax attention restricted to selected key blocks.
#pragma once
#include <cstdint>

namespace unisparse {

enum Isa : int { ISA_SCALAR = 0, ISA_AVX2 = 1, ISA_AVX512 = 2 };

// O[h, r] = softmax_c(q[h, r] . k[g, c] * scale) v[g, c] over the keys c <= r of the key blocks selected for
// (h, r's block), g = h / (hq / hkv). The selected key blocks of query block i of head h are
// cols[row_ptr[h * nb + i] .. row_ptr[h * nb + i + 1]), ascending, each <= i.
struct Args {
    const float* q;          // (hq, n, d), n a multiple of block
    const float* k;          // (hkv, n, d)
    const float* v;          // (hkv, n, d)
    const int32_t* row_ptr;  // hq * nb + 1
    const int32_t* cols;     // row_ptr[hq * nb] entries
    float* out;              // (hq, n, d)
    int64_t hq, hkv, n, d, block;
    float scale;
};

int best_isa();
// block and d: multiples of 16, block <= 256, d <= 256 (checked by the binding)
void block_sparse_attention(const Args& a, int isa, int threads);

}  // namespace unisparse
