// Incremental BPE core [P19] (Jiang & Gong, "Incremental BPE Tokenization", ICML 2026).
//
// The state of the encoder is one record per input position n: last[n] = the last token of BPE(prefix of length n).
// Reading last[n], last[n - len(last[n])], ... backwards gives BPE(prefix) (prefix property of BPE).  Per fed byte:
//   1. advance an Aho-Corasick automaton over all token byte strings; its state names every token that is a suffix of
//      the prefix (the candidate set, longest first through `next_suffix`);
//   2. take the longest candidate T that is *valid*: T = pre.suc (its canonical merge rule) can appear as the last
//      token iff pre is still alive when T's rule fires, i.e. the final last token of the prefix that ends where suc
//      starts lies in pre's "valid range" [lo, hi) of the successor forest's preorder (an O(1) test).
// Valid candidates form a root path of the tree of candidates (parent = suc), so the deepest valid one is the answer.
// It is found by the paper's centroid search: every candidate tree S(T) (the tokens that are suffixes of T) has a
// precomputed centroid decomposition; an invalid centroid sends the search to the root side, a valid one to the only
// child whose valid range holds the token before it (binary search).  O(log^2 t) tests per byte, t = max token length.
#pragma once
#include <cstdint>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "token_table.hpp"

namespace incbpe {

struct TokInfo {
  uint32_t lo = 0, hi = 0;   // valid range of preorder ids for the last token before suc (merged tokens only)
  uint32_t pid = 0;          // preorder id in the successor forest (parent = suc)
  int32_t next_suffix = -1;  // next shorter token that is a suffix of this one (-1: none)
  uint32_t cent = 0;         // index of the root centroid of S(this token) in Vocab::cnodes_
  uint32_t n_suffixes = 0;   // |S(this token)|: the tokens that are suffixes of it, itself included
  uint16_t len = 0;          // length in bytes
  uint16_t suc_len = 0;      // length of suc (0 for the 256 atomic byte tokens)
  uint32_t pre = 0, suc = 0; // canonical rule T = pre . suc (atomic: both = own id)
};

class Vocab {
 public:
  // tokens[id] = bytes of token id (ranks 0..V-1). Throws std::invalid_argument on a malformed vocabulary.
  // `pre` (3 V ids: pre[V], suc[V], byte-sorted token order[V]) is a preprocessing cache written by preprocessed();
  // when given it replaces the rule derivation and the sort, after a consistency check (std::runtime_error if bad).
  explicit Vocab(std::vector<std::string> tokens, const uint32_t* pre = nullptr, size_t n_pre = 0);
  std::vector<uint32_t> preprocessed() const;  // the cacheable part of the preprocessing (3 V ids)
  Vocab(const Vocab&) = delete;  // lookup_ points into bytes_
  Vocab& operator=(const Vocab&) = delete;

  uint32_t size() const { return static_cast<uint32_t>(bytes_.size()); }
  uint64_t serial() const { return serial_; }  // unique per Vocab object of the process (>= 1, never reused)
  uint32_t max_len() const { return max_len_; }
  size_t n_states() const { return states_.size(); }
  const TokInfo& info(uint32_t id) const { return info_[id]; }
  const std::string& token_bytes(uint32_t id) const { return bytes_[id]; }
  int64_t lookup(std::string_view s) const {
    return lookup_.find(s);
  }

  // Automaton transition: the full DFA (goto and failure links folded) stored as two-level nibble tiles, the paper's
  // shared transition tiles: base_[state][b >> 4] names a 16-entry tile, the tile's entry b & 15 is the next state.
  // A state shares every tile with its failure-link target except the tiles its own trie edges touch.
  uint32_t step(uint32_t state, uint8_t b) const {
    return tiles_[(static_cast<size_t>(base_[(static_cast<size_t>(state) << 4) | (b >> 4)]) << 4) | (b & 15)];
  }
  size_t n_tiles() const { return tiles_.size() / 16; }
  uint16_t depth(uint32_t state) const { return states_[state].depth; }
  int32_t longest(uint32_t state) const { return static_cast<int32_t>(states_[state].tok); }

  // Hot-path record of an automaton state: its edges and failure link, and the validity data of its longest token
  // (so that the common case, "the longest candidate is valid", touches one record per byte).
  struct State {
    uint32_t edge_begin, fail;
    uint32_t tok, lo, hi, pid;  // longest token that is a suffix of the state's string, its valid range, its pid
    uint16_t n_edges, depth, len, suc_len;
  };
  const State& state(uint32_t s) const { return states_[s]; }

  // The new last token of the prefix of length n whose longest suffix token is `t`: the deepest valid node of S(t).
  // `pids` holds pid(last token) per position (indexed by absolute position minus `base`).
  uint32_t resolve(uint32_t state, uint64_t n, const uint32_t* pids, uint64_t base) const {
    const State& st = states_[state];
    if (st.suc_len == 0) return st.tok;
    const uint32_t p = pids[n - st.suc_len - base];
    if (p >= st.lo && p < st.hi) return st.tok;  // fast path: the longest candidate is valid
    return centroid_search(st.tok, n, pids, base);
  }
  uint32_t centroid_search(uint32_t t, uint64_t n, const uint32_t* pids, uint64_t base) const;
  // The longest-first scan that the centroid search replaces (kept for tests): O(t) per byte.
  uint32_t linear_search(uint32_t t, uint64_t n, const uint32_t* pids, uint64_t base) const {
    int32_t k = static_cast<int32_t>(t);
    while (!valid(static_cast<uint32_t>(k), n, pids, base)) k = info_[k].next_suffix;
    return static_cast<uint32_t>(k);
  }
  size_t n_centroid_nodes() const { return cnodes_.size(); }

  // Alg. (per-byte loop) on one piece; appends BPE(piece) to out. `last` is scratch space.
  // `linear` selects the longest-first scan instead of the centroid search (for tests and benchmarks); `runs` lets a
  // long piece of few byte runs go through encode_runs first.
  void encode_piece(const uint8_t* s, size_t m, std::vector<uint32_t>& out, std::vector<uint32_t>& last,
                    bool linear = false, bool runs = true) const;
  // Standard BPE simulated on the run-length form of s[0, m) (inc_bpe_runs.cpp): appends BPE(s) to out and returns
  // true, or returns false (out untouched) when the piece has too many runs or the work budget runs out.
  // `refused` (if given) counts the runs of >= 4 tokens whose all-at-once merge was refused (one merge done instead);
  // all_at_once=false does every merge singly (tests of that path).
  bool encode_runs(const uint8_t* s, size_t m, std::vector<uint32_t>& out, uint64_t* refused = nullptr,
                   bool all_at_once = true) const;
  static constexpr size_t kRunMin = 64;  // shortest piece worth the run-length check
  // rank (= id) of the token whose bytes are token a's followed by token b's; UINT32_MAX if there is none
  uint32_t pair_rank(uint32_t a, uint32_t b) const;

  // The O(1) validity test: can token T be the last token of the prefix of length n, given the pids of the last tokens
  // of shorter prefixes (indexed by absolute position minus `base`).
  bool valid(uint32_t t, uint64_t n, const uint32_t* pids, uint64_t base) const {
    const TokInfo& ti = info_[t];
    if (ti.suc_len == 0) return true;
    const uint32_t p = pids[n - ti.suc_len - base];
    return p >= ti.lo && p < ti.hi;
  }

 private:
  void build_rules();
  void load_rules(const uint32_t* pre, size_t n_pre);
  void build_forest();
  void build_automaton();
  void build_centroids();
  void build_tiles(const std::vector<uint32_t>& bfs_order);
  uint32_t step_sparse(uint32_t state, uint8_t b) const;  // goto + failure links (used while building)

  std::vector<std::string> bytes_;
  TokenTable lookup_;
  std::vector<TokInfo> info_;
  uint32_t max_len_ = 0;
  uint32_t byte_tok_[256];  // id of every single-byte token
  uint64_t serial_;
  // automaton
  std::vector<uint32_t> order_;  // token ids in byte order (trie construction)
  std::vector<State> states_;
  std::vector<uint32_t> base_, tiles_;
  std::vector<uint32_t> fail_;
  std::vector<uint16_t> depth_;
  std::vector<int32_t> longest_;
  std::vector<uint32_t> edge_start_;
  std::vector<uint8_t> edge_byte_;
  std::vector<uint32_t> edge_to_;
  uint32_t root_next_[256];
  // candidate trees this small are scanned longest-first (at most this many O(1) tests, cheaper than the centroid
  // search's pool accesses); larger ones use the centroid search, so the worst case stays O(log^2 t) per byte
  static constexpr uint32_t kLinearMax = 8;
  // centroid decompositions of every candidate tree S(T), in one pool
  struct CNode {
    uint32_t tok;          // the centroid
    uint32_t root_side;    // centroid of the component left on the root side when tok is invalid (kNoNode: none)
    uint32_t edge_begin;   // children of tok inside the component: cedges_[edge_begin, edge_end), sorted by lo
    uint32_t edge_end;
    uint32_t lo, hi;       // tok's valid range and lengths, copied from info_ (the search touches only the pool)
    uint16_t len, suc_len;
    uint32_t pid;
  };
  struct CEdge {
    uint32_t lo, hi;  // valid range of the child X = pre . tok
    uint32_t node;    // centroid of X's part of the component
  };
  std::vector<CNode> cnodes_;
  std::vector<CEdge> cedges_;
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
  std::vector<uint32_t> last_, pid_, nchild_;
  std::vector<uint8_t> alive_;
};

}  // namespace incbpe
