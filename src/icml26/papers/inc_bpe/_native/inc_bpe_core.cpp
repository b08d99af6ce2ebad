// Incremental BPE core [P19]: see inc_bpe_core.hpp for the algorithm.
#include "inc_bpe_core.hpp"

#include <algorithm>
#include <atomic>
#include <limits>
#include <stdexcept>

namespace incbpe {

namespace {
constexpr uint32_t kInf = std::numeric_limits<uint32_t>::max();
std::atomic<uint64_t> g_serial{0};
}

Vocab::Vocab(std::vector<std::string> tokens, const uint32_t* pre, size_t n_pre) : bytes_(std::move(tokens)) {
  serial_ = ++g_serial;
  const size_t V = bytes_.size();
  if (V < 256) throw std::invalid_argument("ranks: a byte-level vocabulary needs all 256 single bytes as tokens");
  if (V >= (size_t(1) << 31)) throw std::invalid_argument("ranks: too many tokens");
  lookup_.build(bytes_);
  for (uint32_t id = 0; id < V; ++id) {
    const std::string& s = bytes_[id];
    if (s.empty()) throw std::invalid_argument("ranks: token " + std::to_string(id) + " is empty");
    if (s.size() > 65535) throw std::invalid_argument("ranks: token " + std::to_string(id) + " is too long");
    if (!lookup_.insert(id))
      throw std::invalid_argument("ranks: token " + std::to_string(id) + " duplicates an earlier token");
    max_len_ = std::max<uint32_t>(max_len_, static_cast<uint32_t>(s.size()));
  }
  for (int b = 0; b < 256; ++b) {
    const char c = static_cast<char>(b);
    const int64_t id = lookup_.find(&c, 1);
    if (id < 0) throw std::invalid_argument("ranks: single byte " + std::to_string(b) + " is not a token");
    byte_tok_[b] = static_cast<uint32_t>(id);
  }
  info_.resize(V);
  if (pre != nullptr) {
    load_rules(pre, n_pre);
  } else {
    build_rules();
    order_.resize(V);
    for (uint32_t i = 0; i < V; ++i) order_[i] = i;
    std::sort(order_.begin(), order_.end(), [&](uint32_t a, uint32_t b) { return bytes_[a] < bytes_[b]; });
  }
  build_forest();
  build_automaton();
  build_centroids();
}

// Rules and byte order from a preprocessing cache.  Checked for consistency with the tokens (pre . suc == T with
// both ranked below T; the order is a sorted permutation); canonicality itself is what the cache stores.
void Vocab::load_rules(const uint32_t* pre, size_t n_pre) {
  const uint32_t V = size();
  auto bad = [](const char* what) { throw std::runtime_error(std::string("cache: ") + what); };
  if (n_pre != size_t(3) * V) bad("wrong size");
  const uint32_t* suc = pre + V;
  const uint32_t* order = pre + 2 * size_t(V);
  for (uint32_t id = 0; id < V; ++id) {
    TokInfo& ti = info_[id];
    const std::string& s = bytes_[id];
    ti.len = static_cast<uint16_t>(s.size());
    if (s.size() == 1) {
      if (pre[id] != id || suc[id] != id) bad("rule of a byte token");
      ti.pre = ti.suc = id;
      ti.suc_len = 0;
      continue;
    }
    if (pre[id] >= id || suc[id] >= id) bad("rule not ranked below its token");
    const std::string& a = bytes_[pre[id]];
    const std::string& b = bytes_[suc[id]];
    if (a.size() + b.size() != s.size() || s.compare(0, a.size(), a) != 0 || s.compare(a.size(), b.size(), b) != 0)
      bad("rule does not concatenate to its token");
    ti.pre = pre[id];
    ti.suc = suc[id];
    ti.suc_len = static_cast<uint16_t>(b.size());
  }
  std::vector<uint8_t> seen(V, 0);
  for (uint32_t i = 0; i < V; ++i) {
    if (order[i] >= V || seen[order[i]]++) bad("order is not a permutation");
    if (i > 0 && !(bytes_[order[i - 1]] < bytes_[order[i]])) bad("order is not sorted");
  }
  order_.assign(order, order + V);
}

std::vector<uint32_t> Vocab::preprocessed() const {
  const uint32_t V = size();
  std::vector<uint32_t> out(size_t(3) * V);
  for (uint32_t id = 0; id < V; ++id) {
    out[id] = info_[id].pre;
    out[V + id] = info_[id].suc;
  }
  std::copy(order_.begin(), order_.end(), out.begin() + 2 * size_t(V));
  return out;
}

// Canonical rule of every merged token: run BPE on the token's own bytes with the merges ranked below it; a
// proper vocabulary leaves exactly two parts (pre, suc), whose merge is the token's own rule.
void Vocab::build_rules() {
  const uint32_t V = size();
  std::vector<uint32_t> bounds, pair_rank;
  for (uint32_t id = 0; id < V; ++id) {
    TokInfo& ti = info_[id];
    const std::string& s = bytes_[id];
    ti.len = static_cast<uint16_t>(s.size());
    if (s.size() == 1) { ti.pre = ti.suc = id; ti.suc_len = 0; continue; }
    const size_t m = s.size();
    bounds.resize(m + 1);
    for (size_t i = 0; i <= m; ++i) bounds[i] = static_cast<uint32_t>(i);
    auto rank_at = [&](size_t i) -> uint32_t {  // rank of merging part i with part i+1 (kInf if not below id)
      const uint32_t a = bounds[i], b = bounds[i + 2];
      const int64_t r = lookup_.find(s.data() + a, b - a);
      return (r >= 0 && static_cast<uint32_t>(r) < id) ? static_cast<uint32_t>(r) : kInf;
    };
    pair_rank.resize(m - 1);
    for (size_t i = 0; i + 1 < m; ++i) pair_rank[i] = rank_at(i);
    while (bounds.size() > 3) {
      size_t best = 0;
      for (size_t i = 1; i < pair_rank.size(); ++i)
        if (pair_rank[i] < pair_rank[best]) best = i;
      if (pair_rank[best] == kInf) break;
      bounds.erase(bounds.begin() + best + 1);
      pair_rank.erase(pair_rank.begin() + best);
      if (best < pair_rank.size()) pair_rank[best] = rank_at(best);
      if (best > 0) pair_rank[best - 1] = rank_at(best - 1);
    }
    if (bounds.size() != 3)
      throw std::invalid_argument("ranks: token " + std::to_string(id) +
                                  " is not produced by merging two lower-ranked tokens (not a BPE vocabulary)");
    ti.pre = static_cast<uint32_t>(lookup_.find(s.data(), bounds[1]));
    ti.suc = static_cast<uint32_t>(lookup_.find(s.data() + bounds[1], m - bounds[1]));
    ti.suc_len = static_cast<uint16_t>(m - bounds[1]);
  }
}

// Successor forest: parent(T) = suc(T); atomic tokens hang under a virtual root.  Children are ordered by rank,
// descending, so that {pre} and the subtrees of pre's children merged *after* T form one preorder interval [lo, hi).
void Vocab::build_forest() {
  const uint32_t V = size();
  const uint32_t root = V;
  std::vector<uint32_t> cstart(V + 2, 0), child(V);
  auto parent = [&](uint32_t t) { return info_[t].suc_len == 0 ? root : info_[t].suc; };
  for (uint32_t t = 0; t < V; ++t) ++cstart[parent(t) + 1];
  for (uint32_t i = 0; i <= V; ++i) cstart[i + 1] += cstart[i];
  std::vector<uint32_t> fill(cstart.begin(), cstart.end() - 1);
  for (uint32_t t = V; t-- > 0;) child[fill[parent(t)]++] = t;  // descending ids within each parent
  std::vector<uint32_t> pid(V + 1), subtree_end(V + 1);
  // iterative preorder
  std::vector<std::pair<uint32_t, uint32_t>> stack;  // (node, next child index)
  uint32_t counter = 0;
  pid[root] = counter++;
  stack.emplace_back(root, cstart[root]);
  while (!stack.empty()) {
    auto& [node, k] = stack.back();
    if (k < cstart[node + 1]) {
      const uint32_t c = child[k++];
      pid[c] = counter++;
      stack.emplace_back(c, cstart[c]);
    } else {
      subtree_end[node] = counter;
      stack.pop_back();
    }
  }
  for (uint32_t t = 0; t < V; ++t) info_[t].pid = pid[t];
  for (uint32_t t = 0; t < V; ++t) {
    TokInfo& ti = info_[t];
    if (ti.suc_len == 0) { ti.lo = 0; ti.hi = kInf; continue; }
    const uint32_t pre = ti.pre;
    ti.lo = pid[pre];
    // first child of pre (descending ids) whose rule fires no later than T's (id <= t)
    const uint32_t* b = child.data() + cstart[pre];
    const uint32_t* e = child.data() + cstart[pre + 1];
    const uint32_t* it = std::partition_point(b, e, [&](uint32_t c) { return c > t; });
    ti.hi = (it == e) ? subtree_end[pre] : pid[*it];
  }
}

uint32_t Vocab::step_sparse(uint32_t state, uint8_t b) const {
  for (;;) {
    if (state == 0) return root_next_[b];
    const State& st = states_[state];
    const uint32_t s = st.edge_begin, e = s + st.n_edges;
    if (e - s <= 8) {
      for (uint32_t k = s; k < e; ++k)
        if (edge_byte_[k] == b) return edge_to_[k];
    } else {
      const uint8_t* first = edge_byte_.data() + s;
      const uint8_t* it = std::lower_bound(first, edge_byte_.data() + e, b);
      if (it != edge_byte_.data() + e && *it == b) return edge_to_[s + (it - first)];
    }
    state = st.fail;
  }
}

// Aho-Corasick automaton over every token's bytes: a trie built from the sorted tokens, failure links by BFS, and
// longest_[state] = the longest token that is a suffix of the state's string.
void Vocab::build_automaton() {
  const uint32_t V = size();
  const std::vector<uint32_t>& order = order_;
  std::vector<uint32_t> par{0};
  std::vector<uint8_t> pbyte{0};
  std::vector<int32_t> tok{-1};
  depth_.assign(1, 0);
  std::vector<uint32_t> path{0};
  const std::string* prev = nullptr;
  for (uint32_t id : order) {
    const std::string& s = bytes_[id];
    size_t l = 0;
    if (prev) {
      const size_t lim = std::min(prev->size(), s.size());
      while (l < lim && (*prev)[l] == s[l]) ++l;
    }
    path.resize(l + 1);
    for (size_t k = l; k < s.size(); ++k) {
      const uint32_t node = static_cast<uint32_t>(par.size());
      par.push_back(path.back());
      pbyte.push_back(static_cast<uint8_t>(s[k]));
      tok.push_back(-1);
      depth_.push_back(static_cast<uint16_t>(k + 1));
      path.push_back(node);
    }
    tok[path.back()] = static_cast<int32_t>(id);
    prev = &s;
  }
  const uint32_t N = static_cast<uint32_t>(par.size());
  edge_start_.assign(N + 1, 0);
  for (uint32_t u = 1; u < N; ++u) ++edge_start_[par[u] + 1];
  for (uint32_t u = 0; u < N; ++u) edge_start_[u + 1] += edge_start_[u];
  edge_byte_.resize(N - 1);
  edge_to_.resize(N - 1);
  std::vector<uint32_t> fill(edge_start_.begin(), edge_start_.end() - 1);
  for (uint32_t u = 1; u < N; ++u) {  // creation order = increasing byte within each parent
    const uint32_t k = fill[par[u]]++;
    edge_byte_[k] = pbyte[u];
    edge_to_[k] = u;
  }
  for (uint32_t k = edge_start_[0]; k < edge_start_[1]; ++k) root_next_[edge_byte_[k]] = edge_to_[k];
  states_.assign(N, State{});
  for (uint32_t u = 0; u < N; ++u) {
    states_[u].edge_begin = edge_start_[u];
    states_[u].n_edges = static_cast<uint16_t>(edge_start_[u + 1] - edge_start_[u]);
    states_[u].depth = depth_[u];
  }
  fail_.assign(N, 0);
  longest_.assign(N, -1);
  std::vector<uint32_t> queue;
  queue.reserve(N);
  for (uint32_t k = edge_start_[0]; k < edge_start_[1]; ++k) queue.push_back(edge_to_[k]);
  for (size_t qi = 0; qi < queue.size(); ++qi) {
    const uint32_t u = queue[qi];
    longest_[u] = tok[u] >= 0 ? tok[u] : longest_[fail_[u]];
    for (uint32_t k = edge_start_[u]; k < edge_start_[u + 1]; ++k) {
      const uint32_t c = edge_to_[k];
      fail_[c] = step_sparse(fail_[u], edge_byte_[k]);
      states_[c].fail = fail_[c];
      queue.push_back(c);
    }
  }
  // token -> trie node, for next_suffix
  for (uint32_t u = 1; u < N; ++u)
    if (tok[u] >= 0) info_[tok[u]].next_suffix = longest_[fail_[u]];
  // the longest token's validity data, copied into the state (after build_forest has set pid / lo / hi)
  for (uint32_t u = 1; u < N; ++u) {
    const TokInfo& ti = info_[longest_[u]];
    State& st = states_[u];
    st.tok = static_cast<uint32_t>(longest_[u]);
    st.lo = ti.lo;
    st.hi = ti.hi;
    st.pid = ti.pid;
    st.len = ti.len;
    st.suc_len = ti.suc_len;
  }
  build_tiles(queue);
  fail_.clear();
  fail_.shrink_to_fit();
  edge_start_.clear();
  edge_start_.shrink_to_fit();
}

void Vocab::encode_piece(const uint8_t* s, size_t m, std::vector<uint32_t>& out, std::vector<uint32_t>& scratch,
                         bool linear, bool runs) const {
  if (m == 0) return;
  const int64_t hit = lookup_.find(reinterpret_cast<const char*>(s), m);
  if (hit >= 0) { out.push_back(static_cast<uint32_t>(hit)); return; }
  if (runs && m >= kRunMin && encode_runs(s, m, out)) return;
  if (scratch.size() < 2 * (m + 1)) scratch.resize(2 * (m + 1));  // only grown: resizing down and up refills
  uint32_t* last = scratch.data();     // last[n]: the last token of BPE(s[0, n))
  uint32_t* pids = last + (m + 1);     // pids[n] = pid(last[n])
  last[0] = pids[0] = 0;
  uint32_t st = 0;
  for (size_t i = 0; i < m; ++i) {
    st = step(st, s[i]);
    const uint64_t n = i + 1;
    const uint32_t t = linear ? linear_search(states_[st].tok, n, pids, 0) : resolve(st, n, pids, 0);
    last[n] = t;
    pids[n] = t == states_[st].tok ? states_[st].pid : info_[t].pid;
  }
  const size_t start = out.size();
  for (size_t n = m; n > 0; n -= info_[last[n]].len) out.push_back(last[n]);
  std::reverse(out.begin() + start, out.end());
}

// ---------------------------------------------------------------- streaming

Stream::Stream(const Vocab* v) : v_(v) {
  last_.push_back(0);
  pid_.push_back(0);
  nchild_.push_back(0);
  alive_.push_back(1);
}

void Stream::kill(uint64_t j) {
  for (;;) {
    alive_[j - base_] = 0;
    const uint64_t p = j - v_->info(last_[j - base_]).len;
    if (--nchild_[p - base_] != 0 || p == c_) return;
    j = p;  // p < j < lo_: out of the window and childless, so it dies too
  }
}

void Stream::push_byte(uint8_t b, std::vector<uint32_t>& out) {
  state_ = v_->step(state_, b);
  const uint64_t n = ++n_;
  const uint32_t t = v_->resolve(state_, n, pid_.data(), base_);
  const Vocab::State& st = v_->state(state_);
  last_.push_back(t);
  pid_.push_back(t == st.tok ? st.pid : v_->info(t).pid);
  nchild_.push_back(0);
  alive_.push_back(0);
  const uint64_t p = n - v_->info(t).len;
  const bool a = (p == c_) || (p > c_ && alive_[p - base_]);
  if (a) {
    alive_[n - base_] = 1;
    ++nchild_[p - base_];
  }
  // slide the window: positions before n - depth can no longer start a token that crosses the end
  const uint64_t new_lo = n - v_->depth(state_);
  for (uint64_t j = std::max(lo_, c_ + 1); j < new_lo; ++j)
    if (alive_[j - base_] && nchild_[j - base_] == 0) kill(j);
  lo_ = std::max(lo_, new_lo);
  // eager output: while the committed point is out of the window (no continuation can start a token there) and has
  // exactly one live child, every continuation's tokenization goes through that child: the token is final
  while (c_ < lo_ && nchild_[c_ - base_] == 1) {
    scan_ = std::max(scan_, c_ + 1);
    while (!alive_[scan_ - base_]) ++scan_;
    out.push_back(last_[scan_ - base_]);
    c_ = scan_;
  }
}

void Stream::compact() {
  const uint64_t keep_from = c_ > v_->max_len() ? c_ - v_->max_len() : 0;
  if (keep_from <= base_ + (1u << 16) || keep_from - base_ < (n_ - keep_from)) return;
  const size_t drop = static_cast<size_t>(keep_from - base_);
  last_.erase(last_.begin(), last_.begin() + drop);
  pid_.erase(pid_.begin(), pid_.begin() + drop);
  nchild_.erase(nchild_.begin(), nchild_.begin() + drop);
  alive_.erase(alive_.begin(), alive_.begin() + drop);
  base_ = keep_from;
}

void Stream::feed(const uint8_t* s, size_t m, std::vector<uint32_t>& out) {
  if (finished_) throw std::logic_error("feed: the stream is finished");
  last_.reserve(last_.size() + m);
  pid_.reserve(pid_.size() + m);
  nchild_.reserve(nchild_.size() + m);
  alive_.reserve(alive_.size() + m);
  for (size_t i = 0; i < m; ++i) push_byte(s[i], out);
  compact();
}

void Stream::chain_to_committed(std::vector<uint32_t>& out) const {
  const size_t start = out.size();
  uint64_t j = n_;
  while (j > c_) {
    const uint32_t t = last_[j - base_];
    out.push_back(t);
    j -= v_->info(t).len;
  }
  if (j != c_) throw std::logic_error("internal error: the final chain skips the emitted prefix");
  std::reverse(out.begin() + start, out.end());
}

void Stream::finish(std::vector<uint32_t>& out) {
  if (finished_) throw std::logic_error("finish: the stream is already finished");
  chain_to_committed(out);
  finished_ = true;
}

void Stream::tokens(std::vector<uint32_t>& out) const { chain_to_committed(out); }

}  // namespace incbpe
