// Native pre-tokenizer for the cl100k_base and o200k_base patterns [P19] (tiktoken's regex split, hand-compiled).
//
// The scanner walks UTF-8 code points and, at every piece start, tries the pattern's alternatives in order with the
// backtracking semantics of the regex engines (first alternative that matches wins; greedy quantifiers give back one
// character at a time), which for these patterns reduces to a few runs and "last character of class X in a run"
// look-ups.  Invalid UTF-8 bytes are one character each with no class (what Python's surrogateescape decoding and
// the regex module see).  Character classes come from unicode_tables.inc, generated from tiktoken's own engine.
// At an ASCII piece start a fast path decides the match on byte classes alone (letter runs 16 bytes at a time) and
// hands over to the code-point scanner wherever a byte >= 0x80 could change it.
#pragma once
#include <cstddef>
#include <cstdint>
// INCBPE_NO_SIMD forces the plain loop (the path on targets without SSE2) for testing it on x86-64
#if defined(__SSE2__) && !defined(INCBPE_NO_SIMD)
#define INCBPE_SSE2 1
#include <emmintrin.h>
#endif

namespace incbpe {

enum : uint8_t { kL = 1, kN = 2, kS = 4, kU = 8, kW = 16 };
// extra bits of the byte classes of the ASCII fast paths: a byte >= 0x80, \r or \n, past the input
enum : uint8_t { kX = 32, kC = 64, kEnd = 128 };

// class of every byte for the fast paths: the ASCII code points' bits (as unicode_tables.inc and Scanner::kAscii),
// kC on \r and \n, kX on the bytes >= 0x80 (their class depends on the code point they start)
struct ByteClasses {
  uint8_t t[256] = {};
  constexpr ByteClasses() {
    for (int b = 0; b < 256; ++b) {
      uint8_t f = 0;
      if (b >= 0x80) f = kX;
      else if ((b >= 9 && b <= 13) || b == ' ') f = kS;
      else if (b >= '0' && b <= '9') f = kN;
      else if (b >= 'A' && b <= 'Z') f = kL | kU;
      else if (b >= 'a' && b <= 'z') f = kL | kW;
      if (b == '\r' || b == '\n') f |= kC;
      t[b] = f;
    }
  }
};
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
  // ASCII fast paths: the same matches computed on byte classes (kByte) alone; 0 when a byte the match depends on
  // is not ASCII (the general scanner then decides), so they never change a result
  size_t cl100k_ascii(size_t i) const;
  size_t o200k_ascii(size_t i) const;
  size_t cl100k_general(size_t i) const;
  size_t o200k_general(size_t i) const;
  uint8_t cls(size_t i) const { return i < n_ ? kByte.t[s_[i]] : kEnd; }  // byte class, kEnd past the input
  // end of the run of ASCII letters (C = kL), upper case (kU) or lower case (kW) letters from j
  template <uint8_t C>
  size_t ascii_run(size_t j) const {
#if defined(INCBPE_SSE2)
    // 16 bytes at a time: one predictable branch a word instead of a loop exit per word
    const __m128i lo = _mm_set1_epi8(C == kU ? 'A' : 'a'), last = _mm_set1_epi8(25);
    for (; j + 16 <= n_; j += 16) {
      __m128i b = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s_ + j));
      if (C == kL) b = _mm_or_si128(b, _mm_set1_epi8(0x20));  // fold case: only letters land in a..z
      const __m128i x = _mm_sub_epi8(b, lo);
      const unsigned in = static_cast<unsigned>(_mm_movemask_epi8(_mm_cmpeq_epi8(_mm_min_epu8(x, last), x)));
      if (in != 0xFFFFu) return j + static_cast<size_t>(__builtin_ctz(~in));
    }
#endif
    while (j < n_ && (kByte.t[s_[j]] & C)) ++j;
    return j;
  }
  bool non_ascii(size_t j) const { return j < n_ && s_[j] >= 0x80; }
  size_t ascii_digits(size_t i) const;
  size_t ascii_rest(size_t i, uint8_t t1, bool o200k) const;  // the punctuation and whitespace alternatives
  static constexpr ByteClasses kByte{};
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

// ---------------------------------------------------------------- ASCII fast paths
// Each computes the general scanner's match from byte classes, and gives up (0) where a byte >= 0x80 could change
// it: a run that stops at one, or a look-ahead that lands on one.

inline size_t Scanner::ascii_digits(size_t i) const {  // \p{N}{1,3} from the ASCII digit at i
  size_t j = i + 1;
  for (int k = 1; k < 3; ++k) {
    const uint8_t d = cls(j);
    if (!(d & kN)) return (d & kX) ? 0 : j;
    ++j;
  }
  return j;
}

// ` ?[^\s\p{L}\p{N}]+[\r\n]*` (o200k: `[\r\n/]*`) and the whitespace alternatives at i (ASCII, no letter or digit)
inline size_t Scanner::ascii_rest(size_t i, uint8_t t1, bool o200k) const {
  constexpr uint8_t kNotPunct = kL | kN | kS | kX | kEnd;
  const size_t j = (s_[i] == ' ' && !(t1 & kNotPunct)) ? i + 1 : i;
  if (!(kByte.t[s_[j]] & kNotPunct)) {
    size_t e = j + 1;
    while (e < n_ && !(kByte.t[s_[e]] & kNotPunct)) ++e;
    if (non_ascii(e)) return 0;
    while (e < n_ && ((kByte.t[s_[e]] & kC) || (o200k && s_[e] == '/'))) ++e;
    return e;
  }
  size_t e = i, last_start = i, after_crlf = 0;
  while (e < n_ && (kByte.t[s_[e]] & kS)) {
    last_start = e++;
    if (kByte.t[s_[last_start]] & kC) after_crlf = e;
  }
  if (non_ascii(e)) return 0;
  if (o200k) {
    if (after_crlf) return after_crlf;    // \s*[\r\n]+
    if (e == n_) return e;                // \s+(?!\S) at the end
    if (last_start > i) return last_start;  // \s+(?!\S)
    return e;                             // \s+
  }
  if (e == n_) return e;                  // \s++$
  if (after_crlf) return after_crlf;      // \s*[\r\n]
  if (last_start > i) return last_start;  // \s+(?!\S)
  return i + 1;                           // \s
}

inline size_t Scanner::cl100k_ascii(size_t i) const {
  const uint8_t t = kByte.t[s_[i]];
  if (t & kL) {
    const size_t e = ascii_run<kL>(i + 1);
    return non_ascii(e) ? 0 : e;
  }
  if (t & kN) return ascii_digits(i);
  const uint8_t t1 = cls(i + 1);
  if (t1 & kX) return 0;
  if (s_[i] == '\'') {
    if (const size_t k = contraction(i)) return i + k;  // decided by ASCII bytes: t1 is not kX
  }
  if (!(t & kC) && (t1 & kL)) {  // [^\r\n\p{L}\p{N}]\p{L}+
    const size_t e = ascii_run<kL>(i + 2);
    return non_ascii(e) ? 0 : e;
  }
  return ascii_rest(i, t1, false);
}

inline size_t Scanner::o200k_ascii(size_t i) const {
  const uint8_t t = kByte.t[s_[i]];
  size_t j = i;
  if (t & kN) return ascii_digits(i);
  if (!(t & kL)) {
    const uint8_t t1 = cls(i + 1);
    if (t1 & kX) return 0;
    if ((t & kC) || !(t1 & kL)) return ascii_rest(i, t1, true);
    j = i + 1;  // the optional lead character
  }
  // ASCII letters are upper (U) or lower (W), never both: [U]*[W]+ and [U]+[W]* both end after the W run that
  // follows the U run, and one of them matches since a letter is at j
  const size_t w = ascii_run<kW>(ascii_run<kU>(j));
  if (non_ascii(w)) return 0;
  if (w >= n_ || s_[w] != '\'') return w;
  if (non_ascii(w + 1)) return 0;  // U+017F (long s) matches 's' case-insensitively
  return w + contraction(w);
}

inline size_t Scanner::cl100k(size_t i) const {
  if (s_[i] < 0x80) {
    if (const size_t e = cl100k_ascii(i)) return e;
  }
  return cl100k_general(i);
}

inline size_t Scanner::o200k(size_t i) const {
  if (s_[i] < 0x80) {
    if (const size_t e = o200k_ascii(i)) return e;
  }
  return o200k_general(i);
}

// Calls emit(start, end) for every piece of s[0, n) in order; skipped characters belong to no piece.
template <Pattern P, class F>
void split_as(const uint8_t* s, size_t n, F&& emit) {
  Scanner sc(s, n);
  size_t i = 0;
  while (i < n) {
    const size_t e = P == Pattern::kCl100k ? sc.cl100k(i) : sc.o200k(i);
    if (e == i) {
      i += sc.at(i).len;
      continue;
    }
    emit(i, e);
    i = e;
  }
}

template <class F>
void split(Pattern p, const uint8_t* s, size_t n, F&& emit) {
  if (p == Pattern::kCl100k) {
    split_as<Pattern::kCl100k>(s, n, emit);
  } else {
    split_as<Pattern::kO200k>(s, n, emit);
  }
}

}  // namespace incbpe
