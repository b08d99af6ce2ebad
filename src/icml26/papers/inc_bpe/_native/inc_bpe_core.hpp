// Incremental BPE core [P19] (Jiang & Gong, "Incremental BPE Tokenization", ICML 2026).
//
// The state of the encoder is one record per input position n: last[n] = the last token of BPE(prefix of length n).
// Reading last[n], last[n - len(last[n])], ... backwards gives BPE(prefix) (prefix property of BPE).  Per fed byte:
//   1. advance an Aho-Corasick automaton over all token byte strings; its state names every token that is a suffix of
//      the prefix (the candidate set, longest first through `next_suffix`);
//   2. take the longest candidate T that is *valid*: T = pre.suc (its canonical merge rule) can appear as the last
//      token iff pre is still alive when T's rule fires, i.e. the final last token of the prefix that ends where suc
//      starts lies in pre's "valid range" [lo, hi) of the successor forest's preorder (an O(1) test).
// Valid candidates form a root path of the suffix tree of candidates, so the longest valid one is the answer.
// Deviation from the paper: candidates are scanned longest-first (worst case O(t) per byte, t = max token length)
// instead of the paper's centroid search (O(log^2 t)); both are bounded independently of the input length n.
#pragma once
#include <cstdint>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace incbpe {

struct TokInfo {
  uint32_t lo = 0, hi = 0;   // valid range of preorder ids for the last token before suc (merged tokens only)
  uint32_t pid = 0;          // preorder id in the successor forest (parent = suc)
  int32_t next_suffix = -1;  // next shorter token that is a suffix of this one (-1: none)
  uint16_t len = 0;          // length in bytes
  uint16_t suc_len = 0;      // length of suc (0 for the 256 atomic byte tokens)
  uint32_t pre = 0, suc = 0; // canonical rule T = pre . suc (atomic: both = own id)
};

class Vocab {
 public:
  // tokens[id] = bytes of token id (ranks 0..V-1). Throws std::invalid_argument on a malformed vocabulary.
  explicit Vocab(std::vector<std::string> tokens);

  uint32_t size() const { return static_cast<uint32_t>(bytes_.size()); }
  uint32_t max_len() const { return max_len_; }
  size_t n_states() const { return fail_.size(); }
  const TokInfo& info(uint32_t id) const { return info_[id]; }
  const std::string& token_bytes(uint32_t id) const { return bytes_[id]; }
  int64_t lookup(std::string_view s) const {
    auto it = lookup_.find(s);
    return it == lookup_.end() ? -1 : static_cast<int64_t>(it->second);
  }

  // Automaton transition (goto with failure links; the root has all 256 children).
  uint32_t step(uint32_t state, uint8_t b) const;
  uint16_t depth(uint32_t state) const { return depth_[state]; }
  int32_t longest(uint32_t state) const { return longest_[state]; }

  // Alg. (per-byte loop) on one piece; appends BPE(piece) to out. `last` is scratch space.
  void encode_piece(const uint8_t* s, size_t m, std::vector<uint32_t>& out, std::vector<uint32_t>& last) const;

  // The O(1) validity test: can token T be the last token of the prefix of length n, given last[] of shorter prefixes
  // (last is indexed by absolute position minus `base`).
  bool valid(uint32_t t, uint64_t n, const uint32_t* last, uint64_t base) const {
    const TokInfo& ti = info_[t];
    if (ti.suc_len == 0) return true;
    const uint32_t p = info_[last[n - ti.suc_len - base]].pid;
    return p >= ti.lo && p < ti.hi;
  }

 private:
  void build_rules();
  void build_forest();
  void build_automaton();

  std::vector<std::string> bytes_;
  std::unordered_map<std::string_view, uint32_t> lookup_;
  std::vector<TokInfo> info_;
  uint32_t max_len_ = 0;
  // automaton
  std::vector<uint32_t> fail_;
  std::vector<uint16_t> depth_;
  std::vector<int32_t> longest_;
  std::vector<uint32_t> edge_start_;
  std::vector<uint8_t> edge_byte_;
  std::vector<uint32_t> edge_to_;
  uint32_t root_next_[256];
};

// Eager streaming encoder over raw bytes (no pre-tokenization).  A prefix token is emitted as soon as every
// continuation of the input must keep it: all candidate end points of the last complete token of any continuation
// lie in the window [n - depth(state), n]; their backward chains are kept in a tree with child counts, dead branches
// are pruned, and whenever the committed point has a single live child that edge is emitted.
class Stream {
 public:
  explicit Stream(const Vocab* v);
  void feed(const uint8_t* s, size_t m, std::vector<uint32_t>& out);
  void finish(std::vector<uint32_t>& out);            // the rest of the tokens; the stream is closed afterwards
  void tokens(std::vector<uint32_t>& out) const;      // BPE of everything fed so far
  uint64_t n_bytes() const { return n_; }
  uint64_t pending() const { return n_ - c_; }        // bytes fed but not yet covered by emitted tokens
  bool finished() const { return finished_; }
  std::mutex mu;

 private:
  void push_byte(uint8_t b, std::vector<uint32_t>& out);
  void kill(uint64_t j);
  void chain_to_committed(std::vector<uint32_t>& out) const;
  void compact();
  const Vocab* v_;
  uint64_t base_ = 0, n_ = 0, c_ = 0, lo_ = 0, scan_ = 0;
  uint32_t state_ = 0;
  bool finished_ = false;
  std::vector<uint32_t> last_, nchild_;
  std::vector<uint8_t> alive_;
};

}  // namespace incbpe
