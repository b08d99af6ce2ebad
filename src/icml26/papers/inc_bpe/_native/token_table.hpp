// Token bytes -> id for the incremental BPE core [P19]: a flat open-addressing hash table (linear probing).
// Each slot packs the high 32 bits of the hash with id + 1 (0 = empty), so a miss rarely touches token bytes.
#pragma once
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

namespace incbpe {

inline uint64_t hash_bytes(const char* p, size_t n) {
  constexpr uint64_t k1 = 0x9E3779B97F4A7C15ull, k2 = 0xBF58476D1CE4E5B9ull;
  uint64_t h = k1 ^ (n * k2);
  while (n >= 8) {
    uint64_t w;
    std::memcpy(&w, p, 8);
    h = (h ^ w) * k2;
    h ^= h >> 29;
    p += 8;
    n -= 8;
  }
  if (n) {
    uint64_t w = 0;
    std::memcpy(&w, p, n);
    h = (h ^ w) * k2;
  }
  h ^= h >> 32;
  h *= k1;
  h ^= h >> 29;
  return h;
}

class TokenTable {
 public:
  void build(const std::vector<std::string>& tokens) {  // returns nothing; duplicates are found by insert()
    toks_ = &tokens;
    size_t cap = 16;
    while (cap < tokens.size() * 2) cap <<= 1;
    slots_.assign(cap, 0);
    mask_ = cap - 1;
  }
  // false when the bytes are already present
  bool insert(uint32_t id) {
    const std::string& s = (*toks_)[id];
    const uint64_t h = hash_bytes(s.data(), s.size());
    for (size_t i = h & mask_;; i = (i + 1) & mask_) {
      const uint64_t v = slots_[i];
      if (v == 0) {
        slots_[i] = ((h >> 32) << 32) | (uint64_t(id) + 1);
        return true;
      }
      if ((v >> 32) == (h >> 32) && (*toks_)[uint32_t(v) - 1] == s) return false;
    }
  }
  int64_t find(const char* p, size_t n) const {
    const uint64_t h = hash_bytes(p, n);
    for (size_t i = h & mask_;; i = (i + 1) & mask_) {
      const uint64_t v = slots_[i];
      if (v == 0) return -1;
      if ((v >> 32) == (h >> 32)) {
        const std::string& t = (*toks_)[uint32_t(v) - 1];
        if (t.size() == n && std::memcmp(t.data(), p, n) == 0) return int64_t(uint32_t(v) - 1);
      }
    }
  }
  int64_t find(std::string_view s) const { return find(s.data(), s.size()); }

 private:
  const std::vector<std::string>* toks_ = nullptr;
  std::vector<uint64_t> slots_;
  size_t mask_ = 0;
};

}  // namespace incbpe
