// Test harness for the MACKO CPU kernels [P05]: runs macko::spmv on x rows that sit between inaccessible memory pages,
// so a read of x outside [column -X_FRONT, column cols + X_BACK) crashes instead of silently feeding a masked lane.
//
// usage: guard_pages DIR ISA THREADS
//   DIR holds raw little-endian arrays written by the test: meta.i64 (rows, cols, n_entries, nb), values.u16,
//   deltas.u8, row_ptr.i32, x.f32 (nb * cols); the harness writes y.f32 (nb * rows).
// Every pass runs twice: with the x buffer starting right after a guard page (catches reads before the front padding)
// and ending right before one (reads past the back padding). One vector at a time, each in its own mapping, then the
// batch path (nb > 1) with the rows back to back in one mapping. y.f32 holds the four results in that order.
#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "macko_kernels.h"

template <class T>
static std::vector<T> read_all(const std::string& path) {
    FILE* f = std::fopen(path.c_str(), "rb");
    if (!f) { std::perror(path.c_str()); std::exit(2); }
    std::fseek(f, 0, SEEK_END);
    const long n = std::ftell(f);
    std::fseek(f, 0, SEEK_SET);
    std::vector<T> v(size_t(n) / sizeof(T));
    if (!v.empty() && std::fread(v.data(), sizeof(T), v.size(), f) != v.size()) { std::perror("fread"); std::exit(2); }
    std::fclose(f);
    return v;
}

// `floats` floats flush against a PROT_NONE page: the first float right after one (front) or the last right before
// one (back); returns a pointer to the first float.
static float* guarded(size_t floats, bool front) {
    const size_t page = size_t(sysconf(_SC_PAGESIZE));
    const size_t body = (floats * sizeof(float) + page - 1) / page * page;
    char* base = static_cast<char*>(mmap(nullptr, body + 2 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
                                         -1, 0));
    if (base == MAP_FAILED) { std::perror("mmap"); std::exit(2); }
    if (mprotect(base, page, PROT_NONE) || mprotect(base + page + body, page, PROT_NONE)) { std::perror("mprotect"); std::exit(2); }
    return front ? reinterpret_cast<float*>(base + page) : reinterpret_cast<float*>(base + page + body) - floats;
}

int main(int argc, char** argv) {
    if (argc != 4) { std::fprintf(stderr, "usage: guard_pages DIR ISA THREADS\n"); return 2; }
    const std::string dir = argv[1];
    const int isa = std::atoi(argv[2]), threads = std::atoi(argv[3]);
    const auto meta = read_all<int64_t>(dir + "/meta.i64");
    const int64_t rows = meta[0], cols = meta[1], n_entries = meta[2], nb = meta[3];
    const auto values = read_all<uint16_t>(dir + "/values.u16");
    const auto deltas = read_all<uint8_t>(dir + "/deltas.u8");
    const auto row_ptr = read_all<int32_t>(dir + "/row_ptr.i32");
    const auto x = read_all<float>(dir + "/x.f32");
    const int64_t stride = macko::X_FRONT + cols + macko::X_BACK;
    std::vector<float> y;
    macko::SpmvArgs a{values.data(), deltas.data(), row_ptr.data(), rows, cols, n_entries, nullptr, stride, nullptr, rows, 1};
    for (const bool front : {true, false}) {
        std::vector<float> ys(size_t(nb * rows), 0.0f), yb(size_t(nb * rows), 0.0f);
        a.nb = 1;
        for (int64_t b = 0; b < nb; ++b) {  // one vector at a time, each in its own mapping
            float* buf = guarded(size_t(stride), front);
            std::memset(buf, 0, sizeof(float) * size_t(stride));
            std::memcpy(buf + macko::X_FRONT, x.data() + b * cols, sizeof(float) * size_t(cols));
            a.x = buf + macko::X_FRONT;
            a.y = ys.data() + b * rows;
            macko::spmv(a, isa, threads);
        }
        float* buf = guarded(size_t(stride * nb), front);  // the batch path: the nb rows back to back
        std::memset(buf, 0, sizeof(float) * size_t(stride * nb));
        for (int64_t b = 0; b < nb; ++b)
            std::memcpy(buf + b * stride + macko::X_FRONT, x.data() + b * cols, sizeof(float) * size_t(cols));
        a.x = buf + macko::X_FRONT;
        a.y = yb.data();
        a.nb = nb;
        macko::spmv(a, isa, threads);
        y.insert(y.end(), ys.begin(), ys.end());
        y.insert(y.end(), yb.begin(), yb.end());
    }
    FILE* f = std::fopen((dir + "/y.f32").c_str(), "wb");
    if (!f || std::fwrite(y.data(), sizeof(float), y.size(), f) != y.size()) { std::perror("y.f32"); return 2; }
    std::fclose(f);
    return 0;
}
