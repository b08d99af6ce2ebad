// Per-thread cache of short pieces for the incremental BPE core [P19]: ordinary text repeats a few thousand words,
// so the BPE of a piece of at most 16 bytes that gives at most 3 tokens is kept in a direct-mapped table small enough
// to stay in the core's L2 cache (16384 slots of 32 bytes, allocated zeroed on first use).  A hit copies the stored tokens; a miss runs
// Vocab::encode_piece and stores the result.  The cache belongs to one thread and names the vocabulary it was filled
// for by its serial number (never reused), so results are exactly encode_piece's.
#pragma once
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <new>
#include <vector>

#include "inc_bpe_core.hpp"

namespace incbpe {

class PieceCache {
 public:
  PieceCache() = default;
  PieceCache(const PieceCache&) = delete;
  PieceCache& operator=(const PieceCache&) = delete;
  ~PieceCache() { std::free(slots_); }
  uint64_t owner() const { return owner_; }

  void encode(const Vocab& v, const uint8_t* s, size_t m, std::vector<uint32_t>& out, std::vector<uint32_t>& scratch) {
    if (m == 0 || m > 16) {
      v.encode_piece(s, m, out, scratch);
      return;
    }
    if (owner_ != v.serial()) reset(v.serial());
    uint64_t k[2] = {0, 0};
    std::memcpy(k, s, m);
    const uint64_t h = (k[0] * 0x9E3779B97F4A7C15ull) ^ ((k[1] + m) * 0xC2B2AE3D27D4EB4Full);
    Slot& slot = slots_[(h ^ (h >> 31)) & (kSlots - 1)];
    if (slot.len == m && slot.k0 == k[0] && slot.k1 == k[1]) {
      out.insert(out.end(), slot.ids, slot.ids + slot.n);
      return;
    }
    const size_t start = out.size();
    v.encode_piece(s, m, out, scratch);
    const size_t n = out.size() - start;
    if (n <= 3) {
      slot.k0 = k[0];
      slot.k1 = k[1];
      slot.len = static_cast<uint8_t>(m);
      slot.n = static_cast<uint8_t>(n);
      std::memcpy(slot.ids, out.data() + start, n * sizeof(uint32_t));
    }
  }

 private:
  static constexpr size_t kSlots = size_t(1) << 14;
  struct Slot {
    uint64_t k0, k1;  // the piece's bytes, zero-padded
    uint32_t ids[3];
    uint8_t len, n;   // len 0: empty slot
  };
  void reset(uint64_t owner) {
    std::free(slots_);
    slots_ = static_cast<Slot*>(std::calloc(kSlots, sizeof(Slot)));  // fresh pages: zeroed lazily by the system
    if (slots_ == nullptr) throw std::bad_alloc();
    owner_ = owner;
  }
  Slot* slots_ = nullptr;
  uint64_t owner_ = 0;  // serial of the vocabulary the slots belong to (0: none)
};

}  // namespace incbpe
