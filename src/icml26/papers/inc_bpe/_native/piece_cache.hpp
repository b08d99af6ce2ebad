// Per-thread cache of pieces for the incremental BPE core [P19]: ordinary text repeats a few thousand words, so the
// BPE of a piece is computed once and then copied.
//   - short pieces (at most 16 bytes, at most 3 tokens): a 2-way set-associative table of 32768 sets of two 32-byte
//     slots (one cache line a set; allocated zeroed on first use, so only the lines text touches are brought in:
//     a few thousand words stay in the core's L2 cache); the key is the piece's bytes themselves, read with two
//     8-byte loads where the text allows;
//   - the others up to 255 bytes and 64 tokens (runs of spaces, long words): 4096 direct-mapped entries naming a
//     record (bytes, then tokens) in an arena that is emptied when it outgrows 1 MiB.
// A miss runs Vocab::encode_piece and stores the result.  The cache belongs to one thread and names the vocabulary
// it was filled for by its serial number (never reused), so results are exactly encode_piece's.
#pragma once
#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <new>
#include <utility>
#include <vector>

#include "inc_bpe_core.hpp"
#include "pretok.hpp"

namespace incbpe {

// A vector of token ids whose resize leaves new elements uninitialised: room for output is made before it is
// written, so zero-filling it would be wasted work.
template <class T>
struct NoInitAllocator : std::allocator<T> {
  template <class U>
  struct rebind {
    using other = NoInitAllocator<U>;
  };
  NoInitAllocator() = default;
  template <class U>
  NoInitAllocator(const NoInitAllocator<U>&) noexcept {}
  template <class U>
  void construct(U* p) noexcept {
    ::new (static_cast<void*>(p)) U;
  }
  template <class U, class... A>
  void construct(U* p, A&&... a) {
    ::new (static_cast<void*>(p)) U(std::forward<A>(a)...);
  }
};
using IdVec = std::vector<uint32_t, NoInitAllocator<uint32_t>>;

class PieceCache {
 public:
  PieceCache() = default;
  PieceCache(const PieceCache&) = delete;
  PieceCache& operator=(const PieceCache&) = delete;
  ~PieceCache() { std::free(raw_); }
  uint64_t owner() const { return owner_; }

  // BPE of s[0, m) appended to out.
  void encode(const Vocab& v, const uint8_t* s, size_t m, std::vector<uint32_t>& out, std::vector<uint32_t>& scratch) {
    if (owner_ != v.serial()) reset(v.serial());
    const size_t w = out.size();
    out.resize(w + m + 3);
    out.resize(w + lookup(v, key(s, m, false), out.data() + w, scratch));
  }

  // Pre-tokenize s[0, n) with pattern p and append BPE of every piece to out: the hot loop of encode_text.  The
  // output is written through a raw pointer into room made in advance (a piece of m bytes gives at most m tokens,
  // and a hit copies its 3 id slots at once).  A piece's set is prefetched when the scanner finds it and read
  // when the scanner has found the next one, so that the memory access overlaps the scan.
  void encode_text(const Vocab& v, Pattern p, const uint8_t* s, size_t n, IdVec& out,
                   std::vector<uint32_t>& scratch) {
    if (owner_ != v.serial()) reset(v.serial());
    size_t w = out.size();
    out.resize(w + n / 2 + 64);
    Key pending{nullptr, 0, 0, 0, nullptr};
    auto flush = [&]() {
      if (out.size() - w < pending.m + 3) out.resize(std::max(2 * out.size(), w + pending.m + 3));
      w += lookup(v, pending, out.data() + w, scratch);
    };
    split(p, s, n, [&](size_t a, size_t b) {
      const Key k = key(s + a, b - a, n - a >= 16);
      if (pending.m != 0) flush();
      pending = k;
    });
    if (pending.m != 0) flush();
    out.resize(w);
  }

 private:
  struct Slot;
  struct Key {
    const uint8_t* s;
    size_t m;
    uint64_t k0, k1;  // the bytes of a short piece, zero-padded
    Slot* set;        // its set (nullptr: not a short piece)
  };
  // The key of s[0, m) (`wide`: 16 bytes may be read from s); the set of a short piece is prefetched.
  Key key(const uint8_t* s, size_t m, bool wide) {
    Key k{s, m, 0, 0, nullptr};
    if (m <= 16 && m > 0) {
      load_key(s, m, wide, k.k0, k.k1);
      k.set = set_of(k.k0, k.k1, m);
#if defined(__GNUC__)
      __builtin_prefetch(k.set);
#endif
    }
    return k;
  }

  // BPE of the piece written at dst (room for m + 3 ids).  Returns the count.
  size_t lookup(const Vocab& v, const Key& k, uint32_t* dst, std::vector<uint32_t>& scratch) {
    const uint8_t* s = k.s;
    const size_t m = k.m;
    Slot* set = k.set;
    if (set != nullptr) {
      for (int way = 0; way < 2; ++way) {
        const Slot& e = set[way];
        if (e.len == m && e.k0 == k.k0 && e.k1 == k.k1) {
          std::memcpy(dst, e.ids, sizeof(e.ids));
          const size_t n = e.n;
          if (way == 1) std::swap(set[0], set[1]);  // most recently used first
          return n;
        }
      }
    }
    uint64_t h = 0;
    if (m <= kLongMax && m > 0) {
      h = hash_bytes(reinterpret_cast<const char*>(s), m);
      const LongSlot& ls = long_[(h >> 40) & (kLongSlots - 1)];
      if (ls.h == h && ls.len == m && std::memcmp(arena_.data() + ls.off, s, m) == 0) {
        std::memcpy(dst, arena_.data() + ls.off + words(m), ls.n * sizeof(uint32_t));
        return ls.n;
      }
    }
    tmp_.clear();
    v.encode_piece(s, m, tmp_, scratch);
    const size_t n = tmp_.size();
    std::copy(tmp_.begin(), tmp_.end(), dst);
    if (set != nullptr && n <= 3) {
      set[1] = set[0];
      Slot& e = set[0];
      e.k0 = k.k0;
      e.k1 = k.k1;
      e.len = static_cast<uint8_t>(m);
      e.n = static_cast<uint8_t>(n);
      std::memset(e.ids, 0, sizeof(e.ids));
      std::memcpy(e.ids, tmp_.data(), n * sizeof(uint32_t));
    } else if (m <= kLongMax && m > 0 && n <= kLongTokens) {
      store_long(h, s, m);
    }
    return n;
  }

  static constexpr unsigned kSetBits = 15;
  static constexpr size_t kSets = size_t(1) << kSetBits;
  struct Slot {
    uint64_t k0, k1;  // the piece's bytes, zero-padded
    uint32_t ids[3];
    uint8_t len, n;   // len 0: empty slot
  };
  static_assert(sizeof(Slot) == 32, "a set of two slots is one 64-byte cache line");
  static uint64_t low_bytes(size_t m) { return m >= 8 ? ~uint64_t(0) : (uint64_t(1) << (8 * m)) - 1; }
  static void load_key(const uint8_t* s, size_t m, bool wide, uint64_t& k0, uint64_t& k1) {
    if (wide) {
      std::memcpy(&k0, s, 8);
      std::memcpy(&k1, s + 8, 8);
      if (m <= 8) {
        k0 &= low_bytes(m);
        k1 = 0;
      } else {
        k1 &= low_bytes(m - 8);
      }
    } else {
      uint64_t k[2] = {0, 0};
      std::memcpy(k, s, m);
      k0 = k[0];
      k1 = k[1];
    }
  }
  Slot* set_of(uint64_t k0, uint64_t k1, size_t m) {
    // the high bits of a product depend on every bit of the multiplicand (the low ones only on its low bits)
    const uint64_t h = (k0 ^ ((k1 + m) * 0xC2B2AE3D27D4EB4Full)) * 0x9E3779B97F4A7C15ull;
    return slots_ + 2 * (h >> (64 - kSetBits));
  }

  static constexpr size_t kLongMax = 255, kLongTokens = 64, kLongSlots = 4096, kArenaWords = size_t(1) << 18;
  struct LongSlot {
    uint64_t h = 0;    // hash_bytes of the piece
    uint32_t off = 0;  // record in arena_: the bytes (words(len) words), then n ids
    uint16_t len = 0, n = 0;  // len 0: empty
  };
  static size_t words(size_t m) { return (m + 3) / 4; }
  void store_long(uint64_t h, const uint8_t* s, size_t m) {
    const size_t need = words(m) + tmp_.size();
    if (arena_.size() + need > kArenaWords) {
      arena_.clear();
      std::fill(long_.begin(), long_.end(), LongSlot{});
    }
    LongSlot& ls = long_[(h >> 40) & (kLongSlots - 1)];
    ls = LongSlot{h, static_cast<uint32_t>(arena_.size()), static_cast<uint16_t>(m),
                  static_cast<uint16_t>(tmp_.size())};
    arena_.resize(arena_.size() + words(m), 0);
    std::memcpy(arena_.data() + ls.off, s, m);
    arena_.insert(arena_.end(), tmp_.begin(), tmp_.end());
  }

  void reset(uint64_t owner) {
    std::free(raw_);
    raw_ = std::calloc(2 * kSets * sizeof(Slot) + 64, 1);  // fresh pages: zeroed lazily, touched ones only
    if (raw_ == nullptr) throw std::bad_alloc();
    const uintptr_t a = reinterpret_cast<uintptr_t>(raw_);
    slots_ = reinterpret_cast<Slot*>((a + 63) & ~uintptr_t(63));  // a set is one cache line
    long_.assign(kLongSlots, LongSlot{});
    arena_.clear();
    owner_ = owner;
  }
  void* raw_ = nullptr;
  Slot* slots_ = nullptr;
  std::vector<LongSlot> long_;
  std::vector<uint32_t> arena_, tmp_;
  uint64_t owner_ = 0;  // serial of the vocabulary the slots belong to (0: none)
};

}  // namespace incbpe
