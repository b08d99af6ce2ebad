// Native pre-tokenizer [P19]: see pretok.hpp.
#include "pretok.hpp"

#include <vector>

namespace incbpe {

namespace {
#include "unicode_tables.inc"

// Two-stage table over all code points: block[cp >> 8] indexes a 256-entry row of flags (rows deduplicated).
struct FlagTable {
  std::vector<uint16_t> block;
  std::vector<uint8_t> rows;
  FlagTable() {
    std::vector<uint8_t> flat(0x110000, 0);
    for (const auto& r : kUnicodeRanges)
      for (uint32_t c = r[0]; c < r[1]; ++c) flat[c] = static_cast<uint8_t>(r[2]);
    block.resize(0x1100);
    for (uint32_t b = 0; b < 0x1100; ++b) {
      const uint8_t* row = flat.data() + (b << 8);
      size_t found = rows.size() / 256;
      for (size_t k = 0; k < rows.size() / 256; ++k) {
        bool same = true;
        for (int j = 0; j < 256 && same; ++j) same = rows[k * 256 + j] == row[j];
        if (same) { found = k; break; }
      }
      if (found == rows.size() / 256) rows.insert(rows.end(), row, row + 256);
      block[b] = static_cast<uint16_t>(found);
    }
  }
};

const FlagTable& table() {
  static const FlagTable t;
  return t;
}

inline bool is_crlf(uint32_t cp) { return cp == '\r' || cp == '\n'; }
inline bool lower_eq(uint32_t cp, char c) { return cp == static_cast<uint32_t>(c) || cp == static_cast<uint32_t>(c - 32); }
// [^\r\n\p{L}\p{N}]: the optional lead character of a letter piece
inline bool lead(const Ch& c) { return c.len && !(c.fl & (kL | kN)) && !is_crlf(c.cp); }
// [^\s\p{L}\p{N}]: punctuation and everything unclassified
inline bool punct(const Ch& c) { return c.len && !(c.fl & (kL | kN | kS)); }
}  // namespace

uint8_t unicode_flags(uint32_t cp) {
  if (cp >= 0x110000) return 0;
  const FlagTable& t = table();
  return t.rows[(static_cast<size_t>(t.block[cp >> 8]) << 8) | (cp & 0xFF)];
}

const uint8_t Scanner::kAscii[128] = {
    0, 0, 0, 0, 0, 0, 0, 0, 0, kS, kS, kS, kS, kS, 0, 0,  // \t \n \v \f \r
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    kS, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,  // space
    kN, kN, kN, kN, kN, kN, kN, kN, kN, kN, 0, 0, 0, 0, 0, 0,
    0, kL | kU, kL | kU, kL | kU, kL | kU, kL | kU, kL | kU, kL | kU, kL | kU, kL | kU, kL | kU, kL | kU, kL | kU,
    kL | kU, kL | kU, kL | kU, kL | kU, kL | kU, kL | kU, kL | kU, kL | kU, kL | kU, kL | kU, kL | kU, kL | kU,
    kL | kU, kL | kU, 0, 0, 0, 0, 0,
    0, kL | kW, kL | kW, kL | kW, kL | kW, kL | kW, kL | kW, kL | kW, kL | kW, kL | kW, kL | kW, kL | kW, kL | kW,
    kL | kW, kL | kW, kL | kW, kL | kW, kL | kW, kL | kW, kL | kW, kL | kW, kL | kW, kL | kW, kL | kW, kL | kW,
    kL | kW, kL | kW, 0, 0, 0, 0, 0,
};

// Strict UTF-8 as Python decodes it (no overlongs, no surrogates, <= U+10FFFF); anything else is one invalid byte.
Ch Scanner::decode(size_t i) const {
  const uint8_t b = s_[i];
  const Ch bad{0xDC00u | b, 1, 0};
  auto cont = [&](size_t k) { return i + k < n_ && (s_[i + k] & 0xC0) == 0x80; };
  uint32_t cp, len;
  if (b >= 0xC2 && b <= 0xDF) {
    if (!cont(1)) return bad;
    cp = ((b & 0x1Fu) << 6) | (s_[i + 1] & 0x3Fu);
    len = 2;
  } else if (b >= 0xE0 && b <= 0xEF) {
    if (!cont(1) || !cont(2)) return bad;
    const uint8_t b1 = s_[i + 1];
    if ((b == 0xE0 && b1 < 0xA0) || (b == 0xED && b1 >= 0xA0)) return bad;
    cp = ((b & 0x0Fu) << 12) | ((b1 & 0x3Fu) << 6) | (s_[i + 2] & 0x3Fu);
    len = 3;
  } else if (b >= 0xF0 && b <= 0xF4) {
    if (!cont(1) || !cont(2) || !cont(3)) return bad;
    const uint8_t b1 = s_[i + 1];
    if ((b == 0xF0 && b1 < 0x90) || (b == 0xF4 && b1 >= 0x90)) return bad;
    cp = ((b & 0x07u) << 18) | ((b1 & 0x3Fu) << 12) | ((s_[i + 2] & 0x3Fu) << 6) | (s_[i + 3] & 0x3Fu);
    len = 4;
  } else {
    return bad;
  }
  return {cp, len, unicode_flags(cp)};
}

size_t Scanner::contraction(size_t w) const {
  if (w >= n_ || s_[w] != '\'') return 0;
  const Ch a = at(w + 1);
  if (lower_eq(a.cp, 's') || a.cp == 0x17F || lower_eq(a.cp, 't') || lower_eq(a.cp, 'm') || lower_eq(a.cp, 'd'))
    return 1 + a.len;
  const Ch b = at(w + 2);
  if ((lower_eq(a.cp, 'r') && lower_eq(b.cp, 'e')) || (lower_eq(a.cp, 'v') && lower_eq(b.cp, 'e')) ||
      (lower_eq(a.cp, 'l') && lower_eq(b.cp, 'l')))
    return 3;
  return 0;
}

// ---------------------------------------------------------------- general scanner

// '(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}++|\p{N}{1,3}+| ?[^\s\p{L}\p{N}]++[\r\n]*+|\s++$|\s*[\r\n]|\s+(?!\S)|\s
size_t Scanner::cl100k_general(size_t i) const {
  const Ch c = at(i);
  if (c.cp == '\'') {
    if (const size_t k = contraction(i)) return i + k;
  }
  if (c.fl & kL) return run(i, kL, 0);
  if (lead(c) && (at(i + c.len).fl & kL)) return run(i + c.len, kL, 0);
  if (c.fl & kN) {
    size_t j = i + c.len;
    for (int k = 1; k < 3; ++k) {
      const Ch d = at(j);
      if (!(d.fl & kN)) break;
      j += d.len;
    }
    return j;
  }
  const size_t j = (c.cp == ' ' && punct(at(i + 1))) ? i + 1 : i;
  if (punct(at(j))) {
    size_t e = j;
    for (Ch d = at(e); punct(d); d = at(e)) e += d.len;
    while (e < n_ && is_crlf(s_[e])) ++e;
    return e;
  }
  if (!(c.fl & kS)) return i;
  size_t e = i, last_start = i, after_crlf = 0;
  for (Ch d = at(e); d.fl & kS; d = at(e)) {
    last_start = e;
    e += d.len;
    if (is_crlf(d.cp)) after_crlf = e;
  }
  if (e == n_) return e;                 // \s++$
  if (after_crlf) return after_crlf;    // \s*[\r\n]
  if (last_start > i) return last_start;  // \s+(?!\S)
  return i + c.len;                      // \s
}

// [^\r\n\p{L}\p{N}]?[U]*[W]+(contraction)? from j, U = [Lu Lt Lm Lo M], W = [Ll Lm Lo M]; 0 when it fails
size_t Scanner::o200k_alt1(size_t j) const {
  size_t u = j, last_w = 0;
  bool has_w = false;
  for (Ch d = at(u); d.fl & kU; d = at(u)) {
    if (d.fl & kW) { last_w = u; has_w = true; }
    u += d.len;
  }
  size_t w;
  if (at(u).fl & kW) {
    w = run(u, kW, 0);
  } else if (has_w) {
    w = last_w + at(last_w).len;  // [U]* gives back characters until [W]+ can take one
  } else {
    return 0;
  }
  return w + contraction(w);
}

// [^\r\n\p{L}\p{N}]?[U]+[W]*(contraction)? from j; 0 when it fails
size_t Scanner::o200k_alt2(size_t j) const {
  const size_t u = run(j, kU, 0);
  if (u == j) return 0;
  const size_t w = run(u, kW, 0);
  return w + contraction(w);
}

size_t Scanner::o200k_general(size_t i) const {
  const Ch c = at(i);
  const bool has_lead = lead(c);
  if (has_lead) {
    if (const size_t e = o200k_alt1(i + c.len)) return e;
  }
  if (const size_t e = o200k_alt1(i)) return e;
  if (has_lead) {
    if (const size_t e = o200k_alt2(i + c.len)) return e;
  }
  if (const size_t e = o200k_alt2(i)) return e;
  if (c.fl & kN) {  // \p{N}{1,3}
    size_t j = i + c.len;
    for (int k = 1; k < 3; ++k) {
      const Ch d = at(j);
      if (!(d.fl & kN)) break;
      j += d.len;
    }
    return j;
  }
  const size_t j = (c.cp == ' ' && punct(at(i + 1))) ? i + 1 : i;  //  ?[^\s\p{L}\p{N}]+[\r\n/]*
  if (punct(at(j))) {
    size_t e = j;
    for (Ch d = at(e); punct(d); d = at(e)) e += d.len;
    while (e < n_ && (is_crlf(s_[e]) || s_[e] == '/')) ++e;
    return e;
  }
  if (!(c.fl & kS)) return i;
  size_t e = i, last_start = i, after_crlf = 0;
  for (Ch d = at(e); d.fl & kS; d = at(e)) {
    last_start = e;
    e += d.len;
    if (is_crlf(d.cp)) after_crlf = e;
  }
  if (after_crlf) return after_crlf;     // \s*[\r\n]+
  if (e == n_) return e;                 // \s+(?!\S) at the end
  if (last_start > i) return last_start;  // \s+(?!\S)
  return e;                              // \s+
}

}  // namespace incbpe
