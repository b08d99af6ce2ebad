// Native pre-tokenizer for the cl100k_base and o200k_base patterns [P19] (tiktoken's regex split, hand-compiled).
//
// The scanner walks UTF-8 code points and, at every piece start, tries the pattern's alternatives in order with the
// backtracking semantics of the regex engines (first alternative that matches wins; greedy quantifiers give back one
// character at a time), which for these patterns reduces to a few runs and "last character of class X in a run"
// look-ups.  Invalid UTF-8 bytes are one character each with no class (what Python's surrogateescape decoding and
// the regex module see).  Character classes come from unicode_tables.inc, generated from tiktoken's own engine.
#pragma once
#include <cstddef>
#include <cstdint>

namespace incbpe {

enum : uint8_t { kL = 1, kN = 2, kS = 4, kU = 8, kW = 16 };
enum class Pattern : int { kNone = 0, kCl100k = 1, kO200k = 2 };

// flags of a non-ASCII code point (bits kL..kW; 0 for unassigned, surrogates, out of range)
uint8_t unicode_flags(uint32_t cp);

struct Ch {
  uint32_t cp;   // code point (0xDC00 | byte for an invalid byte)
  uint32_t len;  // bytes (0 at the end of the input)
  uint8_t fl;    // class bits
};

class Scanner {
 public:
  Scanner(const uint8_t* s, size_t n) : s_(s), n_(n) {}

  // Character at byte offset i (len 0 at the end).
  Ch at(size_t i) const {
    if (i >= n_) return {0, 0, 0};
    const uint8_t b = s_[i];
    if (b < 0x80) return {b, 1, kAscii[b]};
    return decode(i);
  }
  size_t size() const { return n_; }

  // End (byte offset) of the piece starting at i, or i when no alternative matches there (the regex then skips the
  // character, as findall does).
  size_t cl100k(size_t i) const;
  size_t o200k(size_t i) const;

 private:
  Ch decode(size_t i) const;
  size_t contraction(size_t w) const;  // bytes of (?i:'s|'t|'re|'ve|'m|'ll|'d) at w, 0 if none
  size_t run(size_t j, uint8_t any, uint8_t none) const {  // chars with a bit in `any` and none in `none`
    for (;;) {
      const Ch c = at(j);
      if (!c.len || !(c.fl & any) || (c.fl & none)) return j;
      j += c.len;
    }
  }
  size_t o200k_alt1(size_t j) const;
  size_t o200k_alt2(size_t j) const;
  static const uint8_t kAscii[128];
  const uint8_t* s_;
  size_t n_;
};

// Calls emit(start, end) for every piece of s[0, n) in order; skipped characters belong to no piece.
template <class F>
void split(Pattern p, const uint8_t* s, size_t n, F&& emit) {
  Scanner sc(s, n);
  size_t i = 0;
  while (i < n) {
    const size_t e = p == Pattern::kCl100k ? sc.cl100k(i) : sc.o200k(i);
    if (e == i) {
      i += sc.at(i).len;
      continue;
    }
    emit(i, e);
    i = e;
  }
}

}  // namespace incbpe
