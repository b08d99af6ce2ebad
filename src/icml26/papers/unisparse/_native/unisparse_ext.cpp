// nanobind bindings of the block-sparse attention CPU kernel [P30]. The kernel runs with the GIL released.
#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>

#include <cstdint>
#include <stdexcept>
#include <string>

#include "attention_kernels.h"

namespace nb = nanobind;

using F32_3 = nb::ndarray<const float, nb::ndim<3>, nb::c_contig, nb::device::cpu>;
using OutF32_3 = nb::ndarray<float, nb::ndim<3>, nb::c_contig, nb::device::cpu>;
using I32 = nb::ndarray<const int32_t, nb::ndim<1>, nb::c_contig, nb::device::cpu>;

static void bad(const std::string& what) { throw std::invalid_argument(what); }

// Every index the kernel will follow is checked here, so no argument can make it read or write out of bounds.
static void check(F32_3 q, F32_3 k, F32_3 v, I32 row_ptr, I32 cols, OutF32_3 out, int64_t block, int isa) {
    const int64_t hq = q.shape(0), n = q.shape(1), d = q.shape(2), hkv = k.shape(0);
    if (isa < unisparse::ISA_SCALAR || isa > unisparse::best_isa()) bad("isa is not supported by this CPU");
    if (block < 16 || block > 256 || block % 16) bad("block must be a multiple of 16 in [16, 256]");
    if (d < 16 || d > 256 || d % 16) bad("d must be a multiple of 16 in [16, 256]");
    if (n % block) bad("the sequence length must be a multiple of block");
    if (hkv < 1 || hq % hkv) bad("the query heads must be a multiple of the key heads");
    if (int64_t(k.shape(1)) != n || int64_t(k.shape(2)) != d || int64_t(v.shape(0)) != hkv ||
        int64_t(v.shape(1)) != n || int64_t(v.shape(2)) != d)
        bad("k and v must have shape (hkv, n, d)");
    if (int64_t(out.shape(0)) != hq || int64_t(out.shape(1)) != n || int64_t(out.shape(2)) != d)
        bad("out must have the shape of q");
    const int64_t nb_ = n / block, rows = hq * nb_;
    if (int64_t(row_ptr.shape(0)) != rows + 1) bad("row_ptr must have hq * (n / block) + 1 entries");
    const int32_t* rp = row_ptr.data();
    if (rp[0] != 0 || int64_t(rp[rows]) != int64_t(cols.shape(0))) bad("row_ptr must run from 0 to len(cols)");
    for (int64_t r = 0; r < rows; ++r) {
        if (rp[r + 1] < rp[r]) bad("row_ptr must be non-decreasing");
        const int64_t i = r % nb_;
        for (int32_t e = rp[r]; e < rp[r + 1]; ++e) {
            const int32_t j = cols.data()[e];
            if (j < 0 || j > i) bad("cols must hold key blocks 0..i for query block i (causal)");
        }
    }
}

static void attention(F32_3 q, F32_3 k, F32_3 v, I32 row_ptr, I32 cols, OutF32_3 out, int64_t block, float scale,
                      int isa, int threads) {
    check(q, k, v, row_ptr, cols, out, block, isa);
    unisparse::Args a{q.data(), k.data(), v.data(), row_ptr.data(), cols.data(), out.data(),
                      int64_t(q.shape(0)), int64_t(k.shape(0)), int64_t(q.shape(1)), int64_t(q.shape(2)), block, scale};
    nb::gil_scoped_release release;
    unisparse::block_sparse_attention(a, isa, threads < 1 ? 1 : threads);
}

NB_MODULE(_unisparse_native, m) {
    m.doc() = "Block-sparse causal attention CPU kernel (AVX-512 / AVX2 / scalar)";
    m.def("best_isa", &unisparse::best_isa, "Best instruction set on this CPU: 2 = AVX-512, 1 = AVX2, 0 = scalar.");
    m.def("attention", &attention, nb::arg("q"), nb::arg("k"), nb::arg("v"), nb::arg("row_ptr"), nb::arg("cols"),
          nb::arg("out"), nb::arg("block"), nb::arg("scale"), nb::arg("isa"), nb::arg("threads"),
          "out = causal softmax attention of q over the selected key blocks (CSR row_ptr/cols per (head, query block)).");
}
