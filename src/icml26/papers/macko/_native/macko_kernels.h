// Declarations of the MACKO-SpMV CPU kernels [P05] (see macko_kernels.cpp).
#pragma once
#include <cstdint>

namespace macko {

enum Isa : int { ISA_SCALAR = 0, ISA_AVX2 = 1, ISA_AVX512 = 2 };

// y[b, r] = sum_k values[k] * x[b, col_k] over the entries k of row r (fp32 accumulation).
// x rows are fp32 with X_FRONT zero floats before column 0 and X_BACK zero floats after the last column: the permute
// path reads a 64- to 256-float window that may start up to 256 columns before the row's first column or end up to
// 255 columns past the last.
constexpr int64_t X_FRONT = 256, X_BACK = 256;
struct SpmvArgs {
    const uint16_t* values;   // fp16 bits, length a multiple of 16
    const uint8_t* deltas;    // two 4-bit deltas per byte, entry 2j in the low nibble of byte j
    const int32_t* row_ptr;   // rows + 1
    int64_t rows;
    int64_t cols;             // columns of the matrix (x has cols floats between its paddings)
    int64_t n_entries;        // length of values (a multiple of 16; deltas has n_entries / 2 bytes)
    const float* x;           // column 0 of the first of nb vectors, x_stride floats apart
    int64_t x_stride;
    float* y;                 // nb outputs, y_stride floats apart
    int64_t y_stride;
    int64_t nb;               // batch size, 1..8
};

// y[b, r] = sum_c w[r, c] * x[b, c] for a dense row-major fp16 matrix w (fp32 accumulation).
struct DenseArgs {
    const uint16_t* w;
    int64_t rows, cols;
    const float* x;
    int64_t x_stride;
    float* y;
    int64_t y_stride;
    int64_t nb;
};

float half_to_float(uint16_t h);
int best_isa();
void spmv(const SpmvArgs& a, int isa, int threads);
void dense_gemv(const DenseArgs& a, int isa, int threads);

}  // namespace macko
