// nanobind bindings of the MACKO-SpMV CPU kernels [P05]. The kernels run with the GIL released.
#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "macko_kernels.h"

namespace nb = nanobind;

using U16 = nb::ndarray<const uint16_t, nb::ndim<1>, nb::c_contig, nb::device::cpu>;
using U16_2 = nb::ndarray<const uint16_t, nb::ndim<2>, nb::c_contig, nb::device::cpu>;
using U8 = nb::ndarray<const uint8_t, nb::ndim<1>, nb::c_contig, nb::device::cpu>;
using I32 = nb::ndarray<const int32_t, nb::ndim<1>, nb::c_contig, nb::device::cpu>;
using F32_2 = nb::ndarray<const float, nb::ndim<2>, nb::c_contig, nb::device::cpu>;
using OutF32_2 = nb::ndarray<float, nb::ndim<2>, nb::c_contig, nb::device::cpu>;

static void check_isa(int isa) {
    if (isa < macko::ISA_SCALAR || isa > macko::ISA_AVX512) throw std::invalid_argument("isa must be 0, 1 or 2");
    if (isa > macko::best_isa()) throw std::invalid_argument("isa " + std::to_string(isa) + " is not supported by this CPU");
}

// X: (nb, cols) fp32; Y: (nb, rows) fp32 output. row_ptr is bounds-checked here; that every row's columns stay below
// cols (a property of the deltas) is checked once when a MackoMatrix is built (MackoMatrix._validate).
static void spmv(U16 values, U8 deltas, I32 row_ptr, int64_t cols, F32_2 X, OutF32_2 Y, int isa, int threads) {
    check_isa(isa);
    const int64_t rows = int64_t(row_ptr.shape(0)) - 1, nbatch = int64_t(X.shape(0));
    if (rows < 0) throw std::invalid_argument("row_ptr must have rows + 1 entries");
    if (values.shape(0) % 16 != 0 || deltas.shape(0) * 2 != values.shape(0))
        throw std::invalid_argument("values must be a multiple of 16 long and deltas half as long");
    if (int64_t(X.shape(1)) != cols || int64_t(Y.shape(0)) != nbatch || int64_t(Y.shape(1)) != rows)
        throw std::invalid_argument("X must be (nb, cols) and Y (nb, rows)");
    if (nbatch < 1 || nbatch > 8) throw std::invalid_argument("batch must be 1..8");
    // O(R) bounds check so that no row range can leave values/deltas, whatever the caller passes: row_ptr must start
    // at >= 0, be non-decreasing and end within values (raises ValueError naming row_ptr)
    const int32_t* rp = row_ptr.data();
    if (rows > 0 && (rp[0] < 0 || int64_t(rp[rows]) > int64_t(values.shape(0))))
        throw std::invalid_argument("row_ptr must lie within values");
    for (int64_t r = 0; r < rows; ++r)
        if (rp[r + 1] < rp[r]) throw std::invalid_argument("row_ptr must be non-decreasing (row " + std::to_string(r) + ")");
    // zero-padded, 64-byte aligned copies of x: the permute path reads 64- to 256-float windows that start up to X_FRONT
    // floats before column 0 and end up to X_BACK floats after the last column
    const int64_t stride = (macko::X_FRONT + cols + macko::X_BACK + 15) & ~int64_t(15);
    std::vector<float> xbuf(size_t(stride * nbatch + 16), 0.0f);
    float* xpad = reinterpret_cast<float*>((reinterpret_cast<uintptr_t>(xbuf.data()) + 63) & ~uintptr_t(63));
    for (int64_t b = 0; b < nbatch; ++b)
        std::copy(X.data() + b * cols, X.data() + (b + 1) * cols, xpad + b * stride + macko::X_FRONT);
    macko::SpmvArgs a{values.data(), deltas.data(), row_ptr.data(), rows, cols, int64_t(values.shape(0)),
                      xpad + macko::X_FRONT, stride, Y.data(), rows, nbatch};
    nb::gil_scoped_release release;
    macko::spmv(a, isa, threads);
}

static void dense_gemv(U16_2 W, F32_2 X, OutF32_2 Y, int isa, int threads) {
    check_isa(isa);
    const int64_t rows = int64_t(W.shape(0)), cols = int64_t(W.shape(1)), nbatch = int64_t(X.shape(0));
    if (int64_t(X.shape(1)) != cols || int64_t(Y.shape(0)) != nbatch || int64_t(Y.shape(1)) != rows)
        throw std::invalid_argument("X must be (nb, cols) and Y (nb, rows)");
    macko::DenseArgs a{W.data(), rows, cols, X.data(), cols, Y.data(), rows, nbatch};
    nb::gil_scoped_release release;
    macko::dense_gemv(a, isa, threads);
}

NB_MODULE(_macko_native, m) {
    m.doc() = "MACKO-SpMV CPU kernels (AVX-512 / AVX2 / scalar) and a dense fp16 GEMV baseline";
    m.def("best_isa", &macko::best_isa, "Best instruction set on this CPU: 2 = AVX-512, 1 = AVX2, 0 = scalar.");
    m.def("spmv", &spmv, nb::arg("values"), nb::arg("deltas"), nb::arg("row_ptr"), nb::arg("cols"), nb::arg("X"),
          nb::arg("Y"), nb::arg("isa"), nb::arg("threads"), "Y[b] = W X[b] for W in the MACKO format (fp32 accumulation).");
    m.def("dense_gemv", &dense_gemv, nb::arg("W"), nb::arg("X"), nb::arg("Y"), nb::arg("isa"), nb::arg("threads"),
          "Y[b] = W X[b] for a dense fp16 matrix W (fp32 accumulation).");
}
