// Incremental BPE core [P19], the shortcut for long runs of repeated bytes (' ' x n, '-' x n, '\n' x n, ...).
//
// Standard BPE (repeatedly merge the adjacent pair whose concatenation has the lowest rank, leftmost first on ties)
// is simulated on the run-length form of the sequence: runs (token T, count k).  The candidate pairs are the first
// pair inside every run with k >= 2 (T.T) and the pair across every run boundary; the leftmost lowest-ranked one is
// the next merge, exactly as in the merge-by-merge definition.  When it is T.T of run (T, k) with rank r, the merge
// of all floor(k / 2) pairs of the run at once is what the definition does iff no pair created on the way ranks
// below r: (P, TT) with the token P before the run, (TT, T), and (TT, TT) while rank-r pairs of the run remain.
// Otherwise one single merge is done.  Each step costs O(runs); a step or run budget proportional to the input
// bounds the work, and beyond it the caller falls back to the per-byte algorithm, so any vocabulary stays exact.
#include <algorithm>
#include <limits>

#include "inc_bpe_core.hpp"

namespace incbpe {

namespace {
constexpr uint32_t kNone = std::numeric_limits<uint32_t>::max();

struct Run {
  uint32_t tok;
  uint64_t cnt;
};

// Run-length form of s[0, m) over the single-byte tokens; false if it has more than max_runs runs.
bool run_length(const uint8_t* s, size_t m, const uint32_t* byte_tok, size_t max_runs, std::vector<Run>& runs) {
  runs.clear();
  for (size_t i = 0; i < m;) {
    size_t j = i + 1;
    while (j < m && s[j] == s[i]) ++j;
    if (runs.size() == max_runs) return false;
    runs.push_back({byte_tok[s[i]], j - i});
    i = j;
  }
  return true;
}

// Joins equal neighbours and drops empty runs (the sequence of tokens is unchanged).
void normalise(std::vector<Run>& runs) {
  size_t w = 0;
  for (const Run& r : runs) {
    if (r.cnt == 0) continue;
    if (w > 0 && runs[w - 1].tok == r.tok) {
      runs[w - 1].cnt += r.cnt;
    } else {
      runs[w++] = r;
    }
  }
  runs.resize(w);
}
}  // namespace

uint32_t Vocab::pair_rank(uint32_t a, uint32_t b) const {
  const std::string& x = bytes_[a];
  const std::string& y = bytes_[b];
  const size_t n = x.size() + y.size();
  if (n > max_len_) return kNone;
  char buf[512];
  std::string big;
  char* p = buf;
  if (n > sizeof(buf)) {
    big.resize(n);
    p = big.data();
  }
  std::copy(x.begin(), x.end(), p);
  std::copy(y.begin(), y.end(), p + x.size());
  const int64_t r = lookup_.find(p, n);
  return r < 0 ? kNone : static_cast<uint32_t>(r);
}

bool Vocab::encode_runs(const uint8_t* s, size_t m, std::vector<uint32_t>& out, uint64_t* refused,
                        bool all_at_once) const {
  constexpr size_t kMaxRuns = 64;
  std::vector<Run> runs;
  if (!run_length(s, m, byte_tok_, std::min<size_t>(kMaxRuns, m / 16 + 1), runs)) return false;
  const uint64_t budget = 4 * static_cast<uint64_t>(m) + 256;  // pair look-ups before giving up
  uint64_t spent = 0;
  for (;;) {
    uint32_t best = kNone;
    size_t at = 0;
    bool inner = false;
    for (size_t i = 0; i < runs.size(); ++i) {  // candidates in left-to-right order: strict < keeps the leftmost
      if (runs[i].cnt >= 2) {
        const uint32_t r = pair_rank(runs[i].tok, runs[i].tok);
        if (r < best) { best = r; at = i; inner = true; }
      }
      if (i + 1 < runs.size()) {
        const uint32_t r = pair_rank(runs[i].tok, runs[i + 1].tok);
        if (r < best) { best = r; at = i; inner = false; }
      }
    }
    spent += 2 * runs.size() + 3;
    if (best == kNone) break;
    if (spent > budget) return false;
    const Run cur = runs[at];
    if (!inner) {  // the last token of run `at` merges with the first of run `at + 1`
      runs[at].cnt -= 1;
      runs[at + 1].cnt -= 1;
      runs.insert(runs.begin() + static_cast<std::ptrdiff_t>(at) + 1, Run{best, 1});
    } else {
      const uint64_t k = cur.cnt;
      bool batch = all_at_once && k >= 4 && pair_rank(best, cur.tok) > best;
      if (batch && at > 0) batch = pair_rank(runs[at - 1].tok, best) > best;
      if (batch && k >= 6) batch = pair_rank(best, best) > best;
      if (all_at_once && k >= 4 && !batch && refused != nullptr) ++*refused;
      if (batch) {
        runs[at] = Run{best, k / 2};
        if (k % 2) runs.insert(runs.begin() + static_cast<std::ptrdiff_t>(at) + 1, Run{cur.tok, 1});
      } else {
        runs[at] = Run{best, 1};
        runs.insert(runs.begin() + static_cast<std::ptrdiff_t>(at) + 1, Run{cur.tok, k - 2});
      }
    }
    normalise(runs);
    if (runs.size() > kMaxRuns) return false;
  }
  for (const Run& r : runs) out.insert(out.end(), r.cnt, r.tok);
  return true;
}

}  // namespace incbpe
