// nanobind bindings of the incremental BPE core [P19]. Every heavy call releases the GIL.
#include <nanobind/nanobind.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/optional.h>

#include <atomic>
#include <memory>
#include <mutex>
#include <cstring>
#include <exception>
#include <thread>
#include <optional>
#include <algorithm>
#include <stdexcept>

#include "inc_bpe_core.hpp"
#include "piece_cache.hpp"
#include "pretok.hpp"

namespace nb = nanobind;
using incbpe::Stream;
using incbpe::Vocab;

namespace {

// Python ints for token ids, created once: a list of n tokens then costs n reference increments and no allocation
// (fewer page faults on large outputs, and faster on every output).  Only touched with the GIL held.
nb::list to_list(const uint32_t* ids, size_t n) {
  static std::vector<PyObject*> ints;
  uint32_t mx = 0;
  for (size_t i = 0; i < n; ++i) mx = std::max(mx, ids[i]);
  if (n > 0 && mx >= ints.size()) {
    const size_t old = ints.size();
    ints.resize(size_t(mx) + 1, nullptr);
    for (size_t i = old; i <= mx; ++i) {
      ints[i] = PyLong_FromSize_t(i);
      if (!ints[i]) { ints.resize(i); throw nb::python_error(); }
    }
  }
  PyObject* list = PyList_New(static_cast<Py_ssize_t>(n));
  if (!list) throw nb::python_error();
  PyObject** items = reinterpret_cast<PyListObject*>(list)->ob_item;
  PyObject* const* table = ints.data();
  for (size_t i = 0; i < n; ++i) {
    PyObject* o = table[ids[i]];
    Py_INCREF(o);
    items[i] = o;
  }
  return nb::steal<nb::list>(list);
}
nb::list to_list(const std::vector<uint32_t>& ids) { return to_list(ids.data(), ids.size()); }

// Per-thread work buffers, reused across calls (large ones are released after use).
struct Buffers {
  std::vector<uint32_t> out, scratch;
  incbpe::IdVec text_out;
  incbpe::PieceCache caches[4];  // short-piece caches of the last vocabularies this thread encoded with
  unsigned next_cache = 0;
  incbpe::PieceCache& cache(const Vocab& v) {
    for (auto& c : caches)
      if (c.owner() == v.serial()) return c;
    return caches[next_cache++ % 4];  // filled for v on its first use
  }
  void begin() {
    out.clear();
    text_out.clear();
  }
  void end() {
    if (out.capacity() > (size_t(1) << 22)) std::vector<uint32_t>().swap(out);
    if (text_out.capacity() > (size_t(1) << 22)) incbpe::IdVec().swap(text_out);
    if (scratch.capacity() > (size_t(1) << 22)) std::vector<uint32_t>().swap(scratch);
  }
};
thread_local Buffers tls;

std::vector<std::string> copy_tokens(const nb::list& tokens) {
  std::vector<std::string> out;
  out.reserve(nb::len(tokens));
  for (nb::handle h : tokens) {
    if (!nb::isinstance<nb::bytes>(h)) throw nb::type_error("tokens: every item must be bytes");
    nb::bytes b = nb::borrow<nb::bytes>(h);
    out.emplace_back(b.c_str(), b.size());
  }
  return out;
}

nb::list encode_pieces(const Vocab& v, const nb::list& pieces) {
  std::vector<std::pair<const uint8_t*, size_t>> views;
  views.reserve(nb::len(pieces));
  size_t total = 0;
  for (nb::handle h : pieces) {
    if (PyBytes_Check(h.ptr())) {
      views.emplace_back(reinterpret_cast<const uint8_t*>(PyBytes_AS_STRING(h.ptr())),
                         static_cast<size_t>(PyBytes_GET_SIZE(h.ptr())));
    } else if (PyUnicode_Check(h.ptr())) {
      Py_ssize_t len = 0;
      const char* p = PyUnicode_AsUTF8AndSize(h.ptr(), &len);
      if (!p) throw nb::python_error();
      views.emplace_back(reinterpret_cast<const uint8_t*>(p), static_cast<size_t>(len));
    } else {
      throw nb::type_error("pieces: every item must be str or bytes");
    }
    total += views.back().second;
  }
  Buffers& b = tls;
  b.begin();
  {
    nb::gil_scoped_release release;  // the list (and so every piece) is kept alive by the caller's reference
    b.out.reserve(total / 3 + 8);
    incbpe::PieceCache& pc = b.cache(v);
    for (auto& [p, m] : views) pc.encode(v, p, m, b.out, b.scratch);
  }
  nb::list res = to_list(b.out);
  b.end();
  return res;
}

// UTF-8 view of a str (no copy; lone surrogates raise, the caller replaces them first) or of bytes.
std::pair<const uint8_t*, size_t> utf8_view(nb::handle h, const char* arg) {
  if (PyBytes_Check(h.ptr()))
    return {reinterpret_cast<const uint8_t*>(PyBytes_AS_STRING(h.ptr())), static_cast<size_t>(PyBytes_GET_SIZE(h.ptr()))};
  if (PyUnicode_Check(h.ptr())) {
    Py_ssize_t len = 0;
    const char* p = PyUnicode_AsUTF8AndSize(h.ptr(), &len);
    if (!p) throw nb::python_error();
    return {reinterpret_cast<const uint8_t*>(p), static_cast<size_t>(len)};
  }
  throw nb::type_error((std::string(arg) + " must be str or bytes").c_str());
}

incbpe::Pattern pattern_of(int kind) {
  if (kind != 1 && kind != 2) throw nb::value_error("pattern: 1 (cl100k) or 2 (o200k)");
  return static_cast<incbpe::Pattern>(kind);
}

// Pre-tokenize with the native scanner and run BPE on every piece, all without the GIL.
nb::list encode_text(const Vocab& v, nb::handle text, int kind) {
  const incbpe::Pattern p = pattern_of(kind);
  auto [s, n] = utf8_view(text, "text");
  Buffers& buf = tls;
  buf.begin();
  {
    nb::gil_scoped_release release;  // the caller's reference keeps the buffer alive
    buf.cache(v).encode_text(v, p, s, n, buf.text_out, buf.scratch);
  }
  nb::list res = to_list(buf.text_out.data(), buf.text_out.size());
  buf.end();
  return res;
}

// Piece caches of the batch workers, kept between calls (a worker thread lives for one call; its cache stays warm).
struct CachePool {
  std::mutex mu;
  std::vector<std::unique_ptr<incbpe::PieceCache>> free;
  std::unique_ptr<incbpe::PieceCache> take() {
    std::lock_guard<std::mutex> lock(mu);
    if (free.empty()) return std::make_unique<incbpe::PieceCache>();
    std::unique_ptr<incbpe::PieceCache> c = std::move(free.back());
    free.pop_back();
    return c;
  }
  void give(std::unique_ptr<incbpe::PieceCache> c) {
    std::lock_guard<std::mutex> lock(mu);
    if (free.size() < 64) free.push_back(std::move(c));
  }
};
CachePool cache_pool;

// Many texts at once: pre-tokenize and encode them on `threads` native threads (the calling one included), without
// the GIL; the texts are shared read-only and the next text is taken from a shared counter.  The Python lists are
// built while the others still encode: after each text it encodes, the calling thread takes the GIL and converts
// every text finished so far, in order, so that the conversion (which needs the GIL) is not a serial tail.
nb::list encode_text_batch(const Vocab& v, const nb::list& texts, int kind, int threads) {
  const incbpe::Pattern p = pattern_of(kind);
  if (threads < 1) throw nb::value_error("threads must be >= 1");
  std::vector<std::pair<const uint8_t*, size_t>> views;
  views.reserve(nb::len(texts));
  for (nb::handle h : texts) views.push_back(utf8_view(h, "texts: every item"));
  const size_t n_texts = views.size();
  std::vector<incbpe::IdVec> outs(n_texts);
  std::unique_ptr<std::atomic<bool>[]> ready(new std::atomic<bool>[n_texts > 0 ? n_texts : 1]);
  for (size_t i = 0; i < n_texts; ++i) ready[i].store(false, std::memory_order_relaxed);
  PyObject* res = PyList_New(static_cast<Py_ssize_t>(n_texts));  // items filled in order below
  if (!res) throw nb::python_error();
  nb::list result = nb::steal<nb::list>(res);
  size_t converted = 0;
  auto convert_ready = [&]() {  // with the GIL
    for (; converted < n_texts && ready[converted].load(std::memory_order_acquire); ++converted) {
      const incbpe::IdVec& ids = outs[converted];
      PyList_SET_ITEM(res, static_cast<Py_ssize_t>(converted), to_list(ids.data(), ids.size()).release().ptr());
      incbpe::IdVec().swap(outs[converted]);
    }
  };
  const size_t n_threads = std::min<size_t>(static_cast<size_t>(threads), std::max<size_t>(n_texts, 1));
  std::exception_ptr failure;
  {
    nb::gil_scoped_release release;  // the caller's list keeps every text alive
    std::atomic<size_t> next{0};
    std::atomic<bool> failed{false};
    auto work = [&](bool caller) {
      try {
        std::vector<uint32_t> scratch;
        incbpe::IdVec buf;  // encoded here, then copied out once: outs[i] headers of both threads share lines
        std::unique_ptr<incbpe::PieceCache> pc = cache_pool.take();
        for (size_t i; !failed && (i = next.fetch_add(1)) < n_texts;) {
          buf.clear();
          pc->encode_text(v, p, views[i].first, views[i].second, buf, scratch);
          outs[i].assign(buf.begin(), buf.end());
          ready[i].store(true, std::memory_order_release);
          if (caller) {
            nb::gil_scoped_acquire acquire;
            convert_ready();
          }
        }
        cache_pool.give(std::move(pc));
      } catch (...) {
        if (!failed.exchange(true)) failure = std::current_exception();
      }
    };
    std::vector<std::thread> pool;
    for (size_t t = 1; t < n_threads; ++t) pool.emplace_back(work, false);
    work(true);
    for (auto& th : pool) th.join();
  }
  if (failure) std::rethrow_exception(failure);
  convert_ready();  // every text is ready now
  return result;
}

// Piece boundaries [start0, end0, start1, end1, ...] in bytes, or in characters (an invalid byte counts as one
// character, as under surrogateescape decoding).
std::vector<size_t> split_spans(nb::handle text, int kind, bool chars) {
  const incbpe::Pattern p = pattern_of(kind);
  auto [s, n] = utf8_view(text, "text");
  std::vector<size_t> out;
  nb::gil_scoped_release release;
  incbpe::Scanner sc(s, n);
  size_t pos = 0, cpos = 0;  // byte offset and character offset of `pos`
  auto advance = [&](size_t to) {
    while (pos < to) { pos += sc.at(pos).len; ++cpos; }
  };
  incbpe::split(p, s, n, [&](size_t a, size_t b) {
    if (chars) {
      advance(a);
      out.push_back(cpos);
      advance(b);
      out.push_back(cpos);
    } else {
      out.push_back(a);
      out.push_back(b);
    }
  });
  return out;
}

}  // namespace

NB_MODULE(_inc_bpe_native, m) {
  nb::set_leak_warnings(false);  // encodings are memoised in module globals that outlive interpreter finalisation
  m.doc() = "Native core of incremental BPE [P19]: exact byte-level BPE in O(log^2 t) worst case per byte, streaming, and the native cl100k/o200k pre-tokenizer.";

  nb::class_<Vocab>(m, "Vocab")
      .def("__init__",
           [](Vocab* self, const nb::list& tokens, std::optional<nb::bytes> cache) {
             std::vector<std::string> toks = copy_tokens(tokens);
             std::vector<uint32_t> pre;
             if (cache) {
               if (cache->size() % 4 != 0) throw std::runtime_error("cache: wrong size");
               pre.resize(cache->size() / 4);
               std::memcpy(pre.data(), cache->c_str(), cache->size());
             }
             nb::gil_scoped_release release;
             new (self) Vocab(std::move(toks), cache ? pre.data() : nullptr, pre.size());
           },
           nb::arg("tokens"), nb::arg("cache") = nb::none(),
           "Preprocess a vocabulary given as token bytes by rank (ValueError if malformed); `cache` is the bytes of a "
           "previous preprocessed() (RuntimeError if it does not fit the tokens).")
      .def("preprocessed", [](const Vocab& v) {
             std::vector<uint32_t> p = v.preprocessed();
             return nb::bytes(reinterpret_cast<const char*>(p.data()), p.size() * 4);
           }, "The cacheable preprocessing (rules and byte order, 3 V little-endian uint32).")
      .def_prop_ro("size", &Vocab::size)
      .def_prop_ro("max_len", &Vocab::max_len)
      .def_prop_ro("n_states", &Vocab::n_states)
      .def("rule", [](const Vocab& v, uint32_t id) {
             if (id >= v.size()) throw nb::index_error("id out of range");
             return std::make_pair(v.info(id).pre, v.info(id).suc);
           }, nb::arg("id"))
      .def_prop_ro("n_centroid_nodes", &Vocab::n_centroid_nodes)
      .def_prop_ro("n_tiles", &Vocab::n_tiles)
      .def("encode", [](const Vocab& v, nb::bytes data, bool linear, bool runs) {
             Buffers& b = tls;
             b.begin();
             const uint8_t* p = reinterpret_cast<const uint8_t*>(data.c_str());
             const size_t n = data.size();
             {
               nb::gil_scoped_release release;
               b.out.reserve(n / 3 + 8);
               v.encode_piece(p, n, b.out, b.scratch, linear, runs);
             }
             nb::list res = to_list(b.out);
             b.end();
             return res;
           }, nb::arg("data"), nb::arg("linear") = false, nb::arg("runs") = true,
           "BPE of one byte string (no pre-tokenization); linear=True: longest-first candidate scan, not centroid; "
           "runs=False: no run-length shortcut.")
      .def("encode_runs", [](const Vocab& v, nb::bytes data, bool all_at_once)
               -> std::optional<std::pair<nb::list, uint64_t>> {
             std::vector<uint32_t> out;
             uint64_t refused = 0;
             bool ok;
             {
               nb::gil_scoped_release release;
               ok = v.encode_runs(reinterpret_cast<const uint8_t*>(data.c_str()), data.size(), out, &refused,
                                  all_at_once);
             }
             if (!ok) return std::nullopt;
             return std::make_pair(to_list(out), refused);
           }, nb::arg("data"), nb::arg("all_at_once") = true,
           "BPE by the run-length shortcut alone (any length) and the number of refused all-at-once merges, or None "
           "where it declines (too many runs, budget); all_at_once=False merges one pair at a time.")
      .def("encode_pieces", &encode_pieces, nb::arg("pieces"),
           "BPE of each piece (str as UTF-8, or bytes), concatenated.")
      .def("encode_text", &encode_text, nb::arg("text"), nb::arg("pattern"),
           "Native pre-tokenization (pattern 1 = cl100k, 2 = o200k) then BPE of every piece.")
      .def("encode_text_batch", &encode_text_batch, nb::arg("texts"), nb::arg("pattern"), nb::arg("threads"),
           "encode_text of every text of a list, on `threads` native threads without the GIL.");
  m.def("split_spans", &split_spans, nb::arg("text"), nb::arg("pattern"), nb::arg("chars") = false,
        "Piece boundaries of the native cl100k (1) / o200k (2) pre-tokenizer, flat [s0, e0, s1, e1, ...].");
  m.def("unicode_flags", [](uint32_t cp) { return incbpe::unicode_flags(cp); }, nb::arg("cp"),
        "Class bits of a code point: 1 L, 2 N, 4 whitespace, 8 [Lu Lt Lm Lo M], 16 [Ll Lm Lo M].");

  nb::class_<Stream>(m, "Stream")
      .def(nb::init<const Vocab*>(), nb::arg("vocab"), nb::keep_alive<1, 2>())
      .def("feed", [](Stream& s, nb::bytes data) {
             std::vector<uint32_t> out;
             const uint8_t* p = reinterpret_cast<const uint8_t*>(data.c_str());
             const size_t n = data.size();
             {
               nb::gil_scoped_release release;
               std::lock_guard<std::mutex> lock(s.mu);
               s.feed(p, n, out);
             }
             return to_list(out);
           }, nb::arg("data"))
      .def("finish", [](Stream& s) {
             std::vector<uint32_t> out;
             std::lock_guard<std::mutex> lock(s.mu);
             s.finish(out);
             return to_list(out);
           })
      .def("tokens", [](Stream& s) {
             std::vector<uint32_t> out;
             std::lock_guard<std::mutex> lock(s.mu);
             s.tokens(out);
             return to_list(out);
           })
      .def_prop_ro("pending", &Stream::pending)
      .def_prop_ro("n_bytes", &Stream::n_bytes)
      .def_prop_ro("finished", &Stream::finished);
}
