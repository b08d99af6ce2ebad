// Incremental BPE core [P19], the per-byte search structures: the automaton's shared transition tiles and the
// centroid decompositions of the candidate trees (see inc_bpe_core.hpp).
#include <algorithm>
#include <limits>
#include <stdexcept>

#include "inc_bpe_core.hpp"

namespace incbpe {

namespace {
constexpr uint32_t kNoNode = std::numeric_limits<uint32_t>::max();
}

void Vocab::build_tiles(const std::vector<uint32_t>& bfs_order) {
  const size_t N = states_.size();
  base_.assign(N * 16, 0);
  tiles_.clear();
  tiles_.reserve(N * 16 + 256);
  for (uint32_t h = 0; h < 16; ++h) {  // the root: every byte is a token, so its row is its own goto
    base_[h] = static_cast<uint32_t>(tiles_.size() / 16);
    for (uint32_t l = 0; l < 16; ++l) tiles_.push_back(root_next_[(h << 4) | l]);
  }
  for (const uint32_t u : bfs_order) {  // the failure-link target comes earlier in BFS order
    const State& st = states_[u];
    std::copy_n(base_.begin() + static_cast<size_t>(st.fail) * 16, 16, base_.begin() + static_cast<size_t>(u) * 16);
    int last_h = -1;
    for (uint32_t k = st.edge_begin; k < st.edge_begin + st.n_edges; ++k) {  // edges sorted by byte
      const uint8_t b = edge_byte_[k];
      uint32_t& slot = base_[static_cast<size_t>(u) * 16 + (b >> 4)];
      if ((b >> 4) != last_h) {  // copy-on-write of the shared tile
        const size_t from = static_cast<size_t>(slot) * 16;
        slot = static_cast<uint32_t>(tiles_.size() / 16);
        for (uint32_t l = 0; l < 16; ++l) tiles_.push_back(tiles_[from + l]);
        last_h = b >> 4;
      }
      tiles_[static_cast<size_t>(slot) * 16 + (b & 15)] = edge_to_[k];
    }
  }
  tiles_.shrink_to_fit();
}

// Centroid decomposition of every candidate tree S(T) = {tokens that are suffixes of T} (parent = suc, root = T's last
// byte).  A node of the pool is a centroid c of a component; `root_side` continues in the component that keeps the
// component's root when c is invalid, the edges continue in the part below one child of c when c is valid.
void Vocab::build_centroids() {
  const uint32_t V = size();
  std::vector<int32_t> loc(V, -1);
  std::vector<uint32_t> nodes, parent, size_of, child_start, child_list;
  std::vector<uint8_t> removed;
  cnodes_.clear();
  cedges_.clear();
  cnodes_.reserve(V * 5);
  cedges_.reserve(V * 4);
  // recursive decomposition of the component whose root is local node r (depth O(log t))
  std::vector<uint32_t> order;
  auto decompose = [&](auto&& self, uint32_t r) -> uint32_t {
    order.clear();  // preorder of the component, then sizes bottom-up
    order.push_back(r);
    for (size_t q = 0; q < order.size(); ++q)
      for (uint32_t k = child_start[order[q]]; k < child_start[order[q] + 1]; ++k)
        if (!removed[child_list[k]]) order.push_back(child_list[k]);
    for (size_t q = order.size(); q-- > 0;) {
      const uint32_t u = order[q];
      size_of[u] = 1;
      for (uint32_t k = child_start[u]; k < child_start[u + 1]; ++k)
        if (!removed[child_list[k]]) size_of[u] += size_of[child_list[k]];
    }
    const uint32_t total = size_of[r];
    uint32_t c = r;
    for (bool moved = true; moved;) {
      moved = false;
      for (uint32_t k = child_start[c]; k < child_start[c + 1]; ++k) {
        const uint32_t x = child_list[k];
        if (!removed[x] && 2 * size_of[x] > total) { c = x; moved = true; break; }
      }
    }
    const uint32_t idx = static_cast<uint32_t>(cnodes_.size());
    const TokInfo& ci = info_[nodes[c]];
    cnodes_.push_back({nodes[c], kNoNode, 0, 0, ci.lo, ci.hi, ci.len, ci.suc_len, ci.pid});
    removed[c] = 1;
    const uint32_t root_side = (c == r) ? kNoNode : self(self, r);
    std::vector<CEdge> edges;
    for (uint32_t k = child_start[c]; k < child_start[c + 1]; ++k) {
      const uint32_t x = child_list[k];
      if (removed[x]) continue;
      const TokInfo& xi = info_[nodes[x]];
      edges.push_back({xi.lo, xi.hi, self(self, x)});
    }
    std::sort(edges.begin(), edges.end(), [](const CEdge& a, const CEdge& b) { return a.lo < b.lo; });
    for (size_t k = 1; k < edges.size(); ++k)
      if (edges[k - 1].hi > edges[k].lo)
        throw std::logic_error("internal error: overlapping valid ranges of siblings in a candidate tree");
    CNode& node = cnodes_[idx];
    node.root_side = root_side;
    node.edge_begin = static_cast<uint32_t>(cedges_.size());
    cedges_.insert(cedges_.end(), edges.begin(), edges.end());
    node.edge_end = static_cast<uint32_t>(cedges_.size());
    return idx;
  };
  for (uint32_t t = 0; t < V; ++t) {
    nodes.clear();
    for (int32_t x = static_cast<int32_t>(t); x >= 0; x = info_[x].next_suffix) {
      loc[x] = static_cast<int32_t>(nodes.size());
      nodes.push_back(static_cast<uint32_t>(x));
    }
    const uint32_t m = static_cast<uint32_t>(nodes.size());
    info_[t].n_suffixes = m;
    const uint32_t root = m - 1;  // the last byte of T (the shortest suffix)
    parent.assign(m, kNoNode);
    child_start.assign(m + 1, 0);
    for (uint32_t i = 0; i < m; ++i) {
      const TokInfo& ti = info_[nodes[i]];
      if (ti.suc_len == 0) continue;
      if (loc[ti.suc] < 0) throw std::logic_error("internal error: suc of a suffix token is not a suffix token");
      parent[i] = static_cast<uint32_t>(loc[ti.suc]);
      ++child_start[parent[i] + 1];
    }
    if (info_[nodes[root]].suc_len != 0) throw std::logic_error("internal error: suffix chain does not end at a byte");
    for (uint32_t i = 0; i < m; ++i) child_start[i + 1] += child_start[i];
    child_list.assign(m, 0);
    std::vector<uint32_t> fill(child_start.begin(), child_start.end() - 1);
    for (uint32_t i = 0; i < m; ++i)
      if (parent[i] != kNoNode) child_list[fill[parent[i]]++] = i;
    removed.assign(m, 0);
    size_of.assign(m, 0);
    info_[t].cent = decompose(decompose, root);
    for (uint32_t x : nodes) loc[x] = -1;
  }
}

uint32_t Vocab::centroid_search(uint32_t t, uint64_t n, const uint32_t* pids, uint64_t base) const {
  const TokInfo& ti = info_[t];
  if (ti.n_suffixes <= kLinearMax) return linear_search(static_cast<uint32_t>(ti.next_suffix), n, pids, base);
  uint32_t k = ti.cent;
  for (;;) {
    const CNode& c = cnodes_[k];
    if (c.suc_len != 0 && !(pids[n - c.suc_len - base] >= c.lo && pids[n - c.suc_len - base] < c.hi)) {
      k = c.root_side;  // the root (a single byte) is always valid, so a component with an invalid centroid has one
      continue;
    }
    if (c.edge_begin == c.edge_end) return c.tok;
    const uint32_t v = pids[n - c.len - base];  // the token before c: decides c's valid child
    const CEdge* first = cedges_.data() + c.edge_begin;
    const CEdge* end = cedges_.data() + c.edge_end;
    const CEdge* it = std::upper_bound(first, end, v, [](uint32_t val, const CEdge& e) { return val < e.lo; });
    if (it == first || v >= (it - 1)->hi) return c.tok;
    k = (it - 1)->node;
  }
}

}  // namespace incbpe
